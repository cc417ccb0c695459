"""`python -m solutions facts`: print the course's tic-tac-toe facts, computed live."""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from games import CountingGame, TicTacToe
from solutions.alphabeta import alphabeta_decision, alphabeta_value
from solutions.facts import tictactoe_facts
from solutions.minimax import minimax_value

PUBLISHED = {
    "ways to fill the board (3^9)": 19_683,
    "reachable positions": 5_478,
    "positions up to symmetry": 765,
    "possible games": 255_168,
    "games won by X": 131_184,
    "games won by O": 77_904,
    "games drawn": 46_080,
    "nodes in the complete game tree": 549_946,
}
EXAMPLE_BOARD = "XO.\n.O.\nX.."


def print_facts(console: Console) -> None:
    """Print the facts table, the search comparison and the example decision."""
    facts = Table(title="Tic-tac-toe, computed live")
    facts.add_column("fact")
    facts.add_column("computed", justify="right")
    facts.add_column("published", justify="right")
    for name, value in tictactoe_facts().items():
        mark = "" if value == PUBLISHED[name] else "  (differs!)"
        facts.add_row(name, f"{value:,}{mark}", f"{PUBLISHED[name]:,}")
    console.print(facts)

    game = CountingGame(TicTacToe())
    searches = Table(title="Searching the empty board")
    for column in ("search", "value", "states generated", "seconds"):
        searches.add_column(column, justify="left" if column == "search" else "right")
    for name, search in (("minimax", minimax_value), ("alpha-beta", alphabeta_value)):
        game.reset()
        start = time.perf_counter()
        value = search(game, game.initial_state())
        seconds = time.perf_counter() - start
        searches.add_row(name, str(value), f"{game.states_generated:,}", f"{seconds:.2f}")
    console.print(searches)

    state = TicTacToe.from_picture(EXAMPLE_BOARD)
    values = {a: alphabeta_value(game, game.result(state, a)) for a in game.actions(state)}
    console.print("X to move on this board: what is the best move?")
    console.print(game.display(state))
    console.print(f"values of each move (square: value): {values}")
    console.print(f"best move: square {alphabeta_decision(game, state)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solutions", description=__doc__)
    parser.add_argument("command", choices=["facts"], help="what to print")
    parser.parse_args(argv)
    print_facts(Console())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
