"""Python literals a notebook cell can hold: a game, a state, a reference's `Case`.

nbgrader's hidden test cells (`autograder.platforms.nbgrader_export`) and the assignments' public
self-checks rebuild the grader's instances in the student's kernel from these: trees as nested
lists, tic-tac-toe boards as strings, Connect Four positions as move strings.
"""

from __future__ import annotations

from typing import Any

from autograder.grading.judge import Case
from games import ChanceTree, ConnectFour, GameTree, MultiplayerTree, Pig, TakeAway, TicTacToe
from games.connect_four import COLUMN_MASKS, WIDTH, ConnectFourState


def connect_four_moves(state: ConnectFourState) -> str:
    """A move string (Pons's notation) that reaches `state`; `ConnectFour.from_moves` reads it.

    Stones are taken back from the top of the columns, last mover first, never through a
    position that was already won (play would have stopped there).
    """
    game = ConnectFour()
    failed: set = set()

    def undo(current: ConnectFourState) -> str | None:
        if current.max_stones | current.min_stones == 0:
            return ""
        if current in failed:
            return None
        occupied = current.max_stones | current.min_stones
        last_was_max = occupied.bit_count() % 2 == 1
        mine = current.max_stones if last_was_max else current.min_stones
        for index in range(WIDTH):
            column = occupied & COLUMN_MASKS[index]
            if not column:
                continue
            top = 1 << (column.bit_length() - 1)
            if not mine & top:
                continue
            if last_was_max:
                before = ConnectFourState(current.max_stones & ~top, current.min_stones)
            else:
                before = ConnectFourState(current.max_stones, current.min_stones & ~top)
            if game.winner(before) is not None:
                continue
            earlier = undo(before)
            if earlier is not None:
                return earlier + str(index + 1)
        failed.add(current)
        return None

    moves = undo(state)
    if moves is None or ConnectFour.from_moves(moves) != state:
        raise ValueError(f"no sequence of moves reaches {state!r}")
    return moves


def game_literal(game: Any) -> str:
    """Python source that rebuilds `game` in the kernel."""
    if isinstance(game, GameTree | ChanceTree | MultiplayerTree | Pig | TakeAway):
        return repr(game)  # each repr reads as the constructor call
    if isinstance(game, TicTacToe | ConnectFour):
        return f"{type(game).__name__}()"
    raise TypeError(f"no literal for a game of type {type(game).__name__}")


def state_literal(game: Any, state: Any) -> str:
    """Python source that rebuilds `state` in the kernel."""
    if isinstance(game, ConnectFour):
        return f"ConnectFour.from_moves({connect_four_moves(state)!r})"
    return repr(state)


def case_source(case: Case) -> str:
    """Python source that rebuilds `case` in the kernel: one field a line (a hint a line), the
    fields left at their defaults left out."""
    lines = []
    for name, field in Case.__dataclass_fields__.items():
        value = getattr(case, name)
        if value == field.default and name not in ("key", "name"):
            continue
        if name.endswith(("hints", "causes")):
            pairs = "".join(f"        {pair!r},\n" for pair in value)
            lines.append(f"    {name}=(\n{pairs}    ),\n")
        else:
            lines.append(f"    {name}={value!r},\n")
    return "Case(\n" + "".join(lines) + ")"
