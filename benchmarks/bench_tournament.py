"""Tournament throughput: classes of cheap agents played by `python -m autograder tournament`.

By default two classes, measured one after the other in one run: 50 agents playing every pair
(1,225 matches, 2,450 games) and 300 agents playing 9 Swiss-system rounds (`--rounds 9`, 1,350
matches, 2,700 games), the size of a big class. Each class is a mix of cheap agents, every one
a different file: fixed-depth searches with `game.evaluate` (depth 1 or 2, the columns tried in
an order drawn from the agent's number), greedy agents (best evaluation one ply ahead) and
random agents (each drawing its own numbers, from the grader's per-game seed and its number).
Each run is timed from the outside, process starts, loading and the pages included, and the
wall seconds, games, moves and states are printed with the machine's CPU model. Nothing is
asserted about time: it is a measurement of one run on one machine.

    python benchmarks/bench_tournament.py [--classes 50:all,300:9] [--states S] [--workers 2]
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

DEPTH = """
import random
from games import MAX

DEPTH, ORDER = {depth}, random.Random({number}).sample(range(7), 7)

def connect_four_agent(game, state, seconds):
    def value(state, depth):
        if game.is_terminal(state):
            return game.utility(state)
        if depth == 0:
            return game.evaluate(state)
        values = [value(game.result(state, action), depth - 1) for action in game.actions(state)]
        return max(values) if game.to_move(state) == MAX else min(values)

    actions = sorted(game.actions(state), key=lambda action: ORDER[(action - 1) % 7])
    pick = max if game.to_move(state) == MAX else min
    return pick(actions, key=lambda action: value(game.result(state, action), DEPTH - 1))
"""

RANDOM = """
import random

NUMBER = {number}

def connect_four_agent(game, state, seconds):
    return random.Random(f"{{random.random()}}-{{NUMBER}}").choice(game.actions(state))
"""

KINDS = ("depth-2", "depth-1", "random")
"""The agents, in turn: depth 1 is the greedy agent."""


def write_class(folder: Path, n: int) -> None:
    for number in range(n):
        kind = KINDS[number % len(KINDS)]
        if kind == "random":
            source = RANDOM.format(number=number)
        else:
            source = DEPTH.format(depth=int(kind[-1]), number=number)
        (folder / f"{kind}-{number:03d}.py").write_text(source)


def run_class(n: int, rounds: int | None, args: argparse.Namespace) -> dict:
    """Play a class of `n` agents (every pair, or `rounds` Swiss rounds); its figures."""
    with tempfile.TemporaryDirectory() as scratch:
        folder, out = Path(scratch) / "class", Path(scratch) / "out"
        folder.mkdir()
        write_class(folder, n)
        command = [sys.executable, "-m", "autograder", "tournament", str(folder), "--out",
                   str(out), "--move-states", str(args.states), "--workers", str(args.workers),
                   "--quiet"]  # fmt: skip
        if rounds is not None:
            command += ["--rounds", str(rounds)]
        started = time.perf_counter()
        ran = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if ran.returncode != 0:
            sys.exit(f"the tournament of {n} agents failed:\n{ran.stderr}")
        results = json.loads((out / "tournament.json").read_text())
    games = results["games"]
    return {
        "agents": n,
        "pairing": "every pair" if rounds is None else f"Swiss, {rounds} rounds",
        "playing": len(results["standings"]),
        "games": len(games),
        "moves": sum(len(game["moves"]) for game in games),
        "states": sum(move[1] for game in games for move in game["moves"]),
        "forfeits": sum(row["forfeits"] for row in results["standings"]),
        "crashes": sum(row["crashes"] for row in results["standings"]),
        "wall": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--classes",
        default="50:all,300:9",
        help="classes to play, AGENTS:all (every pair) or AGENTS:ROUNDS (Swiss) "
        "(default 50:all,300:9)",
    )
    parser.add_argument("--states", type=int, default=tournament.DEFAULT_STATES)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    console.print(machine())
    grid = table(
        f"tournaments, {args.states:,} states per move, {args.workers} workers, one run each",
        "class",
        "games",
        "moves",
        "states",
        "forfeits",
        "crashes",
        "wall time",
        "games/s",
    )
    for spec in args.classes.split(","):
        agents, pairing = spec.split(":")
        figures = run_class(int(agents), None if pairing == "all" else int(pairing), args)
        grid.add_row(
            f"{figures['agents']} agents, {figures['pairing']}",
            f"{figures['games']:,}",
            f"{figures['moves']:,}",
            f"{figures['states']:,}",
            f"{figures['forfeits']}",
            f"{figures['crashes']}",
            f"{figures['wall']:.0f} s",
            f"{figures['games'] / figures['wall']:.1f}",
        )
        console.print(
            f"{figures['agents']} agents ({figures['pairing']}): {figures['games']:,} games "
            f"in {figures['wall']:.1f} s"
        )
    console.print(grid)


if __name__ == "__main__":
    main()
