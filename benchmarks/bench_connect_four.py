"""Connect Four end-games: nodes and time per position of each reference solver, next to Pons's.

Every method of `solutions.connect_four.ConnectFourSolver` solves the same positions of Pascal
Pons's "end-game, easy" set in one run; the table gives the mean nodes searched and the mean
milliseconds per position beside the published means of Pons's C++ solver (nodes only: his
times are for C++ and are not comparable with pure Python).

    python benchmarks/bench_connect_four.py [--limit N] [--data PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _common import REPO, console, machine, ratio, table

from solutions.connect_four import METHODS, ConnectFourSolver

DEFAULT_DATA = REPO / "tests" / "fixtures" / "connect4" / "end_easy.txt"

PUBLISHED_NODES = {"alphabeta": 284, "centre_first": 140, "strong": 51}
"""Pons's mean nodes per position on this set, exact score (tests/fixtures/connect4/README.md)."""


def read_positions(path: Path, limit: int | None) -> list[tuple[str, int]]:
    """Read `<moves> <score>` lines; raise SystemExit with a clear message if the file is bad."""
    if not path.is_file():
        raise SystemExit(
            f"Connect Four data not found at {path}.\n"
            "The repository holds it in tests/fixtures/connect4/end_easy.txt (Pascal Pons's "
            "end-game easy set); pass --data PATH to point elsewhere."
        )
    positions = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            moves, score = line.split()
            positions.append((moves, int(score)))
        except ValueError:
            raise SystemExit(f"{path}:{number}: expected '<moves> <score>', got {line!r}") from None
    return positions[:limit] if limit else positions


def measure(method: str, positions: list[tuple[str, int]]) -> dict:
    """Solve every position with one solver; total nodes, total time and wrong scores."""
    solver = ConnectFourSolver(method)
    nodes, wrong = 0, 0
    started = time.perf_counter()
    for moves, score in positions:
        wrong += solver.solve(moves) != score
        nodes += solver.nodes
    seconds = time.perf_counter() - started
    return {"nodes": nodes, "seconds": seconds, "wrong": wrong}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="end_easy.txt")
    parser.add_argument("--limit", type=int, help="only the first N positions (default: all)")
    parser.add_argument(
        "--methods", nargs="+", choices=METHODS, default=list(METHODS), help="solvers to run"
    )
    args = parser.parse_args(argv)
    positions = read_positions(args.data, args.limit)
    if not positions:
        raise SystemExit(f"no positions read from {args.data}")

    console.print(f"machine: {machine()}")
    console.print(f"solving {len(positions)} positions of {args.data.name} ...")
    results = {method: measure(method, positions) for method in args.methods}

    count = len(positions)
    grid = table(
        f"Connect Four end-games ({count} positions, exact score)",
        "solver",
        "mean nodes / position",
        "Pons (C++) mean nodes",
        "ours / Pons",
        "mean ms / position",
        "total s",
        "wrong scores",
    )
    for method, row in results.items():
        mean_nodes = row["nodes"] / count
        grid.add_row(
            method,
            f"{mean_nodes:,.1f}",
            f"~{PUBLISHED_NODES[method]}",
            f"{mean_nodes / PUBLISHED_NODES[method]:.2f}",
            f"{1000 * row['seconds'] / count:.2f}",
            f"{row['seconds']:.2f}",
            str(row["wrong"]),
        )
    console.print(grid)

    weakest, strongest = args.methods[0], args.methods[-1]
    if weakest != strongest:
        first, last = results[weakest], results[strongest]
        published = ratio(PUBLISHED_NODES[weakest], PUBLISHED_NODES[strongest])
        console.print(
            f"{weakest} / {strongest}: nodes {ratio(first['nodes'], last['nodes'])} "
            f"(Pons {published}), time {ratio(first['seconds'], last['seconds'])}"
        )
    if any(row["wrong"] for row in results.values()):
        console.print("[red]some scores differ from the file[/red]")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
