"""Connect Four's children as the grader serves them, computed from their parent's stone.

The contest serves each state an agent generates with everything a search may read about it
(`wire._info`): whose turn, the legal columns, whether the game is over and its utility, the
course's evaluation and the board. Computed from scratch, the evaluation alone reads all 69
lines of four and is half the grader's work per served state. A child differs from its parent
by one stone, so only the lines through that stone change: `child_info` adds their change to
the parent's raw score (remembered in `_RAW`), and tests only the mover's stones for four in a
row (its parent, which was served with legal columns, had none). The result is the very tuple
`wire._info` gives, float for float (`tests/test_sandbox_frames.py` compares them on random
games), so an agent plays the same moves.
"""

from __future__ import annotations

import math

from games.connect_four import (
    _ROW_CELLS,
    _ROW_MARKS,
    BOARD,
    BOTTOM_CELLS,
    CENTRE_WEIGHT,
    COLUMN_MASKS,
    EVALUATION_SCALE,
    STRIDE,
    TOP_CELLS,
    WIDTH,
    WINDOW_WEIGHTS,
    WINDOWS,
    ConnectFourState,
    has_four,
)
from games.protocol import MAX, MIN


def _windows_through_cells() -> tuple[tuple[int, ...], ...]:
    """For each bit of the board, the lines of four that hold that cell."""
    return tuple(tuple(w for w in WINDOWS if w >> bit & 1) for bit in range(WIDTH * STRIDE))


_THROUGH = _windows_through_cells()

_CENTRE = COLUMN_MASKS[WIDTH // 2]

_TOP = sum(TOP_CELLS)
"""The top cell of every column: a stone there fills its column."""

_GAINS = tuple(WINDOW_WEIGHTS[count + 1] - WINDOW_WEIGHTS[count] for count in range(4))
"""What a line held by the mover alone gains with one more of its stones, by stones before."""

_RAW: dict[ConnectFourState, int] = {}
"""A served position's raw score (before the squashing), for its children; emptied when full,
like `wire._CHILDREN`."""

_RAW_SIZE = 100_000


def raw_score(state: ConnectFourState) -> int:
    """The course's raw score of `state` for MAX (`games.connect_four.evaluation` before its
    squashing), from memory or computed whole."""
    raw = _RAW.get(state)
    if raw is None:
        mine, theirs = state.max_stones, state.min_stones
        raw = CENTRE_WEIGHT * ((mine & _CENTRE).bit_count() - (theirs & _CENTRE).bit_count())
        for window in WINDOWS:
            if not theirs & window:
                raw += WINDOW_WEIGHTS[(mine & window).bit_count()]
            elif not mine & window:
                raw -= WINDOW_WEIGHTS[(theirs & window).bit_count()]
        _remember(state, raw)
    return raw


def _remember(state: ConnectFourState, raw: int) -> None:
    if len(_RAW) >= _RAW_SIZE:
        _RAW.clear()
    _RAW[state] = raw


def child_position(parent: ConnectFourState, column: int) -> tuple[int, int]:
    """The stones of `parent`'s child by `column` as a plain pair, which equals (and hashes as)
    the child's `ConnectFourState`: to look the position up before computing what is served."""
    x_stones, o_stones = parent
    occupied = x_stones | o_stones
    stone = (occupied + BOTTOM_CELLS[column - 1]) & COLUMN_MASKS[column - 1]
    return (
        (x_stones | stone, o_stones)
        if occupied.bit_count() % 2 == 0
        else (x_stones, o_stones | stone)
    )


def child_info(parent: ConnectFourState, legal: list, index: int, evaluated: bool) -> tuple:
    """(the child of `parent` by its legal column `legal[index]`, its `wire._info` tuple):
    `legal` are the parent's columns as served, so it has no four in a row yet; `evaluated`:
    whether the course's evaluation is served (`wire._info`'s `evaluate` is the game's own)."""
    column = legal[index]
    mover, other = parent
    occupied = mover | other
    placed = occupied.bit_count()
    if placed % 2:  # O (MIN) moves: look at the position from the mover's side
        mover, other = other, mover
    stone = (occupied + BOTTOM_CELLS[column - 1]) & COLUMN_MASKS[column - 1]
    after = mover | stone
    child = ConnectFourState(after, other) if placed % 2 == 0 else ConnectFourState(other, after)
    sign = -1 if placed % 2 else 1
    won, full = has_four(after), occupied | stone == BOARD
    terminal = won or full
    value = None
    if evaluated:
        # The lines through the new stone: one the opponent holds is no longer anyone's (it
        # loses the opponent's weight), one the mover holds alone gains a stone.
        delta = CENTRE_WEIGHT if stone & _CENTRE else 0
        gains = _GAINS
        for window in _THROUGH[stone.bit_length() - 1]:
            if other & window:
                if not mover & window:
                    delta += WINDOW_WEIGHTS[(other & window).bit_count()]
            else:
                delta += gains[(mover & window).bit_count()]
        raw = raw_score(parent) + sign * delta
        _remember(child, raw)
        value = 0.99 * math.tanh(raw / EVALUATION_SCALE)
    if won:
        utility = sign * (22 - after.bit_count())
    else:
        utility = 0 if full else None
    if terminal:
        actions = []
    elif stone & _TOP:  # only the column played can have filled up
        actions = legal[:index] + legal[index + 1 :]
    else:
        actions = legal[:]
    x_stones, o_stones = child
    marks, cells = _ROW_MARKS, _ROW_CELLS
    board = (  # the rows top first, as `ConnectFour.board` gives them
        marks[(x_stones >> 5) & cells | ((o_stones >> 5) & cells) << 1],
        marks[(x_stones >> 4) & cells | ((o_stones >> 4) & cells) << 1],
        marks[(x_stones >> 3) & cells | ((o_stones >> 3) & cells) << 1],
        marks[(x_stones >> 2) & cells | ((o_stones >> 2) & cells) << 1],
        marks[(x_stones >> 1) & cells | ((o_stones >> 1) & cells) << 1],
        marks[x_stones & cells | (o_stones & cells) << 1],
    )
    to_move = MIN if placed % 2 == 0 else MAX
    return child, (to_move, actions, terminal, utility, value, None, None, board)
