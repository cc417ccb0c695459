"""Tournament throughput: a class of N agents played by `python -m autograder tournament`.

The class is N copies of three kinds of agent, in turn: the reference agent
(`solutions/agent.py`, iterative deepening that thinks for half its time on every move, like a
student's agent that uses its clock), a plain depth-2 search with `game.evaluate` (a few
milliseconds a move) and a random agent (instant). Every pair plays both colours on one opening
(the defaults), so there are N(N-1) games. The run is timed from the outside, process starts
and the pages included, and projected to 50 agents by the number of games (50 x 49 = 2,450),
beside the bounds of the module's formula (every move taking its time s; every move held until
the deadline, s + GRACE).

    python benchmarks/bench_tournament.py [--n 10] [--seconds S] [--workers 2] [--kinds K,K]
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
from autograder.contest.referee import GRACE

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
    parser.add_argument("--seconds", type=float, default=tournament.DEFAULT_SECONDS)
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
                   str(out), "--seconds", str(args.seconds), "--workers", str(args.workers),
                   "--quiet"]  # fmt: skip
        started = time.perf_counter()
        ran = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if ran.returncode != 0:
            sys.exit(f"the tournament failed:\n{ran.stderr}")
        results = json.loads((out / "tournament.json").read_text())
    games = results["games"]
    moves = sum(len(game["moves"]) for game in games)
    forfeits = sum(row["forfeits"] for row in results["standings"])
    scale = 50 * 49 / (args.n * (args.n - 1))
    in_time = 50 * 49 * 42 * args.seconds / args.workers
    ceiling = 50 * 49 * 42 * (args.seconds + GRACE) / args.workers
    console.print(machine())
    grid = table(
        f"{args.n} agents ({args.kinds}), {args.seconds:g} s per move, {args.workers} workers",
        "measure",
        "value",
    )
    grid.add_row("games", f"{len(games)}")
    grid.add_row("moves (mean per game)", f"{moves} ({moves / len(games):.1f})")
    grid.add_row("forfeits (moves over time)", f"{forfeits}")
    grid.add_row("wall time", f"{wall:.1f} s")
    grid.add_row("games per second", f"{len(games) / wall:.2f}")
    grid.add_row("projected, 50 agents (2,450 games)", f"{wall * scale / 60:.1f} min")
    grid.add_row("50 agents, every move taking s (42 a game)", f"{in_time / 60:.1f} min")
    grid.add_row(f"50 agents, every move taking s + {GRACE:g} s grace", f"{ceiling / 60:.1f} min")
    console.print(grid)


if __name__ == "__main__":
    main()
