"""Tournament throughput: a class of N agents played by `python -m autograder tournament`.

The class is N copies of three kinds of agent, in turn: the reference agent
(`solutions/agent.py`, iterative deepening that spends its whole budget of states on every
move, like a student's agent that searches as deep as it may), a plain depth-2 search with
`game.evaluate` (a few milliseconds a move) and a random agent (instant). Every pair plays both
colours on one opening (the defaults), so there are N(N-1) games. The run is timed from the
outside, process starts and the pages included, and projected to 50 agents by the number of
games (50 x 49 = 2,450), beside the bound of the module's formula (every move of 42 spending
its whole budget, at the cost a state took in this run).

    python benchmarks/bench_tournament.py [--n 10] [--states S] [--workers 2] [--kinds K,K]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, console, machine, table

from autograder.contest import tournament

SEARCH = """
from games import MAX

def connect_four_agent(game, state, seconds):
    def value(state, depth):
        if game.is_terminal(state):
            return game.utility(state)
        if depth == 0:
            return game.evaluate(state)
        values = [value(game.result(state, action), depth - 1) for action in game.actions(state)]
        return max(values) if game.to_move(state) == MAX else min(values)

    pick = max if game.to_move(state) == MAX else min
    return pick(game.actions(state), key=lambda action: value(game.result(state, action), 1))
"""

RANDOM = """
import random

def connect_four_agent(game, state, seconds):
    return random.choice(game.actions(state))
"""


KINDS = ("reference", "search", "random")


def write_class(folder: Path, n: int, kinds: list[str]) -> None:
    sources = {
        "reference": (REPO / "solutions" / "agent.py").read_text(),
        "search": SEARCH,
        "random": RANDOM,
    }
    for index in range(n):
        kind = kinds[index % len(kinds)]
        (folder / f"{kind}-{index:02d}.py").write_text(sources[kind])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10, help="agents in the class (default 10)")
    parser.add_argument("--states", type=int, default=tournament.DEFAULT_STATES)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help=f"the agents, in turn (default {','.join(KINDS)})"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder, out = Path(scratch) / "class", Path(scratch) / "out"
        folder.mkdir()
        write_class(folder, args.n, args.kinds.split(","))
        command = [sys.executable, "-m", "autograder", "tournament", str(folder), "--out",
                   str(out), "--move-states", str(args.states), "--workers", str(args.workers),
                   "--quiet"]  # fmt: skip
        started = time.perf_counter()
        ran = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if ran.returncode != 0:
            sys.exit(f"the tournament failed:\n{ran.stderr}")
        results = json.loads((out / "tournament.json").read_text())
    games = results["games"]
    moves = sum(len(game["moves"]) for game in games)
    states = sum(move[1] for game in games for move in game["moves"])
    forfeits = sum(row["forfeits"] for row in results["standings"])
    scale = 50 * 49 / (args.n * (args.n - 1))
    per_state = wall * args.workers / max(states, 1)  # an upper bound: the run's every cost
    ceiling = 50 * 49 * 42 * args.states * per_state / args.workers
    console.print(machine())
    grid = table(
        f"{args.n} agents ({args.kinds}), {args.states:,} states per move, {args.workers} workers",
        "measure",
        "value",
    )
    grid.add_row("games", f"{len(games)}")
    grid.add_row("moves (mean per game)", f"{moves} ({moves / len(games):.1f})")
    grid.add_row("forfeits (moves not returned within their allowance)", f"{forfeits}")
    grid.add_row(
        "states generated (wall time per state, all costs)",
        f"{states:,} ({1e6 * per_state:.0f} us)",
    )
    grid.add_row("wall time", f"{wall:.1f} s")
    grid.add_row("games per second", f"{len(games) / wall:.2f}")
    grid.add_row("projected, 50 agents (2,450 games)", f"{wall * scale / 60:.1f} min")
    grid.add_row("50 agents, every move of 42 spending its budget", f"{ceiling / 60:.1f} min")
    console.print(grid)


if __name__ == "__main__":
    main()
