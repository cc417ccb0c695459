"""Tic-tac-toe solved in advance: a table of every reachable position, and a small opening book."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import NamedTuple

from games import MAX, Game, TicTacToe
from solutions.minimax import _require_a_move


class Solved(NamedTuple):
    """A position's minimax value (MAX's view) and all its optimal actions, ascending."""

    value: int
    best_actions: tuple[int, ...]


@cache
def tictactoe_table() -> Mapping[str, Solved]:
    """Return the solved table of every position reachable from the empty board.

    Built once (the result is cached) by a memoised minimax from the empty board: each of the
    5,478 reachable positions is solved exactly once, after its children. A terminal position
    maps to `Solved(utility, ())`, every other one (4,520) to its value and the tuple of every
    action that keeps that value for the player to move. The mapping is read-only.

    >>> tictactoe_table()["X.O.X...."]  # O must block the diagonal
    Solved(value=0, best_actions=(8,))
    """
    game = TicTacToe()
    table: dict[str, Solved] = {}

    def solve(state: str) -> int:
        if state not in table:
            if game.is_terminal(state):
                table[state] = Solved(game.utility(state), ())
            else:
                values = {
                    action: solve(game.result(state, action)) for action in game.actions(state)
                }
                best = (max if game.to_move(state) == MAX else min)(values.values())
                optimal = tuple(action for action, value in values.items() if value == best)
                table[state] = Solved(best, optimal)
        return table[state].value

    solve(game.initial_state())
    return MappingProxyType(table)


OPENING_BOOK: Mapping[str, int] = MappingProxyType(
    {
        ".........": 0,  # every first move draws; a corner leaves O a single drawing reply
        "X........": 4, "..X......": 4, "......X..": 4, "........X": 4,  # corner: centre
        "....X....": 0,  # centre: any corner (an edge loses)
        ".X.......": 4, "...X.....": 4, ".....X...": 4, ".......X.": 4,  # edge: centre
    }
)  # fmt: skip
"""Hand-written advice for the first move of each player: state -> move.

The book holds the usual human advice: open in a corner, answer a corner or an edge with the
centre and the centre with a corner. Every move in it is optimal (the tests check it against the
table); where several moves are optimal, the table alone would play the lowest square.
"""


def table_decision(game: Game, state: str) -> int:
    """Return an optimal move for the player to move in `state`, by look-up instead of search.

    The opening book is consulted first, then the table (its lowest optimal square). No state
    is generated: the search was done once, when the table was built.

    Raises:
        ValueError: `state` is not a reachable tic-tac-toe position, or it is terminal.
    """
    table = tictactoe_table()
    if state not in table:
        raise ValueError(
            f"{state!r} is not a tic-tac-toe position reachable from the empty board "
            "(9 squares of 'X', 'O' or '.', X moving first, play stopping at a win)"
        )
    _require_a_move(game, state)
    return OPENING_BOOK.get(state, table[state].best_actions[0])
