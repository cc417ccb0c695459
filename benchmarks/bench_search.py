"""Minimax against alpha-beta on the empty tic-tac-toe board: nodes, times and their ratios.

The reference `solutions.minimax_value` and `solutions.alphabeta_value` run side by side with a
plain textbook version written below (AIMA's MAX-VALUE / MIN-VALUE pair, figures 5.3 and 5.7,
over the same game protocol), on the same machine in the same run, so the ratios hold even
when the absolute times drift with the load of a shared machine.

    python benchmarks/bench_search.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import sys

from _common import best_of, console, machine, ratio, table

from games import MAX, CountingGame, Game, TicTacToe
from games.protocol import State
from solutions import alphabeta_value, minimax_value

PUBLISHED = "~30x (4.6-5.3 s against 0.16-0.20 s)"
"""The published measurement quoted in COURSE.md: pure-Python minimax against alpha-beta."""

EXPECTED_STATES = {"minimax": 549_945, "alpha-beta": 18_296}
"""States generated from the empty board (COURSE.md; the root itself is not counted)."""


# --- The textbook versions (AIMA, figures 5.3 and 5.7) -------------------------------------


def textbook_minimax(game: Game, state: State) -> float:
    """MINIMAX-SEARCH returning the value: MAX-VALUE at a MAX node, MIN-VALUE at a MIN node."""
    if game.to_move(state) == MAX:
        return _max_value(game, state)
    return _min_value(game, state)


def _max_value(game: Game, state: State) -> float:
    if game.is_terminal(state):
        return game.utility(state)
    value = -math.inf
    for action in game.actions(state):
        value = max(value, _min_value(game, game.result(state, action)))
    return value


def _min_value(game: Game, state: State) -> float:
    if game.is_terminal(state):
        return game.utility(state)
    value = math.inf
    for action in game.actions(state):
        value = min(value, _max_value(game, game.result(state, action)))
    return value


def textbook_alphabeta(game: Game, state: State) -> float:
    """ALPHA-BETA-SEARCH returning the value, cutting off when v >= beta (or v <= alpha)."""
    if game.to_move(state) == MAX:
        return _ab_max_value(game, state, -math.inf, math.inf)
    return _ab_min_value(game, state, -math.inf, math.inf)


def _ab_max_value(game: Game, state: State, alpha: float, beta: float) -> float:
    if game.is_terminal(state):
        return game.utility(state)
    value = -math.inf
    for action in game.actions(state):
        value = max(value, _ab_min_value(game, game.result(state, action), alpha, beta))
        if value >= beta:
            return value
        alpha = max(alpha, value)
    return value


def _ab_min_value(game: Game, state: State, alpha: float, beta: float) -> float:
    if game.is_terminal(state):
        return game.utility(state)
    value = math.inf
    for action in game.actions(state):
        value = min(value, _ab_max_value(game, game.result(state, action), alpha, beta))
        if value <= alpha:
            return value
        beta = min(beta, value)
    return value


# --- The measurement -----------------------------------------------------------------------

SEARCHES = {
    ("minimax", "reference"): minimax_value,
    ("minimax", "textbook"): textbook_minimax,
    ("alpha-beta", "reference"): alphabeta_value,
    ("alpha-beta", "textbook"): textbook_alphabeta,
}


def measure(repeat: int) -> dict[tuple[str, str], dict]:
    """Count states with `CountingGame` once, then time each search on the bare game.

    The timed runs are interleaved (all four searches, then all four again, ...) and each
    search keeps its fastest run, so a burst of load on the shared machine hits every search
    alike instead of one of them.
    """
    game = TicTacToe()
    root = game.initial_state()
    textbook_minimax(game, root)  # fills tictactoe.winner's cache, which every search shares
    results = {}
    for key, search in SEARCHES.items():
        counting = CountingGame(game)
        value = search(counting, root)
        results[key] = {
            "value": value,
            "states": counting.states_generated,
            "leaves": counting.leaf_evaluations,
            "seconds": math.inf,
        }
    for _ in range(repeat):
        for key, search in SEARCHES.items():
            seconds, _ = best_of(1, lambda search=search: search(game, root))
            results[key]["seconds"] = min(results[key]["seconds"], seconds)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="time each search N times, keep best")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    console.print(f"machine: {machine()}")
    console.print(
        f"searching the empty tic-tac-toe board, best of {args.repeat} interleaved runs ..."
    )
    results = measure(args.repeat)

    grid = table(
        "Empty tic-tac-toe board", "search", "value", "states generated", "leaves", "best time (s)"
    )
    for (algorithm, version), row in results.items():
        grid.add_row(
            f"{algorithm} ({version})",
            f"{row['value']:g}",
            f"{row['states']:,}",
            f"{row['leaves']:,}",
            f"{row['seconds']:.3f}",
        )
    console.print(grid)

    ratios = table("Ratios (same run)", "ratio", "measured", "published / expected")
    for version in ("reference", "textbook"):
        minimax, alphabeta = results["minimax", version], results["alpha-beta", version]
        ratios.add_row(
            f"minimax / alpha-beta time ({version})",
            ratio(minimax["seconds"], alphabeta["seconds"]),
            PUBLISHED,
        )
        ratios.add_row(
            f"minimax / alpha-beta states ({version})",
            ratio(minimax["states"], alphabeta["states"]),
            ratio(EXPECTED_STATES["minimax"], EXPECTED_STATES["alpha-beta"]),
        )
    for algorithm in ("minimax", "alpha-beta"):
        reference, textbook = results[algorithm, "reference"], results[algorithm, "textbook"]
        ratios.add_row(
            f"reference / textbook time ({algorithm})",
            f"{reference['seconds'] / textbook['seconds']:.2f}x",
            "same states; see README",
        )
    console.print(ratios)

    wrong = [
        f"{algorithm} ({version}) generated {row['states']:,} states, expected "
        f"{EXPECTED_STATES[algorithm]:,}"
        for (algorithm, version), row in results.items()
        if row["states"] != EXPECTED_STATES[algorithm] or row["value"] != 0
    ]
    for line in wrong:
        console.print(f"[red]unexpected:[/red] {line}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
