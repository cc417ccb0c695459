"""Connect Four on the standard 7x6 board, with bitboard states fast enough for end-game solving."""

from __future__ import annotations

import math
from typing import NamedTuple

from games.protocol import MAX, MIN, Game

WIDTH = 7
"""Number of columns."""

HEIGHT = 6
"""Number of rows."""

CELLS = WIDTH * HEIGHT
"""Squares on the board (42): each player has 21 stones."""

STRIDE = HEIGHT + 1
"""Bits per column: one spare bit on top of each column stops shifted lines from wrapping."""

BOTTOM = sum(1 << (index * STRIDE) for index in range(WIDTH))
"""The bottom cell of every column."""

BOARD = BOTTOM * ((1 << HEIGHT) - 1)
"""Every playable cell (the spare top bits excluded)."""

COLUMN_MASKS = tuple(((1 << HEIGHT) - 1) << (index * STRIDE) for index in range(WIDTH))
"""The cells of each column, indexed 0..6 from the left."""

TOP_CELLS = tuple(1 << (HEIGHT - 1 + index * STRIDE) for index in range(WIDTH))
"""The top playable cell of each column, indexed 0..6 from the left."""

BOTTOM_CELLS = tuple(1 << (index * STRIDE) for index in range(WIDTH))
"""The bottom cell of each column, indexed 0..6 from the left."""

_DIRECTIONS = (1, STRIDE, STRIDE - 1, STRIDE + 1)  # vertical, horizontal, two diagonals
_MARKS = {MAX: "X", MIN: "O"}


def cell(column: int, row: int) -> int:
    """Return the bit of the cell in `column` (1..7, left to right) and `row` (0 = bottom)."""
    return 1 << ((column - 1) * STRIDE + row)


def has_four(stones: int) -> bool:
    """Return True if the bitboard `stones` holds four in a row in any direction.

    Shifting by `shift` moves every stone one step along a direction; `stones & (stones >>
    shift)` marks the starts of pairs, and two pairs `2 * shift` apart make four in a row.
    """
    for shift in _DIRECTIONS:
        pairs = stones & (stones >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


class ConnectFourState(NamedTuple):
    """A Connect Four position as two bitboards; treat it as opaque and use `ConnectFour`.

    Bit `(column - 1) * 7 + row` stands for the cell in `column` 1..7 and `row` 0..5 (0 is the
    bottom); bit 6 of each column is always 0. `max_stones` holds the first player's stones
    (X, MAX), `min_stones` the second player's (O, MIN). No move history is kept, so two move
    orders that reach the same position give equal states with equal hashes.
    """

    max_stones: int
    min_stones: int


class ConnectFour(Game):
    """Connect Four: drop stones into 7 columns of 6; four in a row (any direction) wins.

    The first player is MAX and plays X. An action is a column number 1..7 (1 is the leftmost,
    as in Pascal Pons's move strings: "4453" is the actions 4, 4, 5, 3); `actions` lists the
    columns that are not full, in ascending order, and none once someone has won.

    The utility rewards early wins, as in Pons's scores: if MAX wins with its k-th stone the
    utility is 22 - k (18 for the fastest win, 1 for a win with the 21st stone), a win for MIN
    with its k-th stone is -(22 - k), and a full board without four in a row is 0.

    >>> game = ConnectFour()
    >>> state = ConnectFour.from_moves("1212121")
    >>> game.is_terminal(state), game.utility(state)
    (True, 18)
    """

    def initial_state(self) -> ConnectFourState:
        return ConnectFourState(0, 0)

    def to_move(self, state: ConnectFourState) -> str:
        return MAX if self.moves_played(state) % 2 == 0 else MIN

    def actions(self, state: ConnectFourState) -> list[int]:
        if self.winner(state) is not None:
            return []
        occupied = state.max_stones | state.min_stones
        return [index + 1 for index in range(WIDTH) if not occupied & TOP_CELLS[index]]

    def result(self, state: ConnectFourState, action: int) -> ConnectFourState:
        if (
            not isinstance(action, int)
            or isinstance(action, bool)
            or not 1 <= action <= WIDTH
            or (state.max_stones | state.min_stones) & TOP_CELLS[action - 1]
            or self.winner(state) is not None
        ):
            raise self._illegal(state, action)
        return _drop(state, action - 1)

    def is_terminal(self, state: ConnectFourState) -> bool:
        return (
            has_four(state.max_stones)
            or has_four(state.min_stones)
            or state.max_stones | state.min_stones == BOARD
        )

    def utility(self, state: ConnectFourState) -> int:
        if has_four(state.max_stones):
            return 22 - state.max_stones.bit_count()
        if has_four(state.min_stones):
            return -(22 - state.min_stones.bit_count())
        if state.max_stones | state.min_stones != BOARD:
            raise self._not_terminal(state)
        return 0

    def display(self, state: ConnectFourState) -> str:
        rows = [" ".join(row) for row in self.board(state)]
        rows.append(" ".join(str(column) for column in range(1, WIDTH + 1)))
        return "\n".join(rows)

    def board(self, state: ConnectFourState) -> tuple[str, ...]:
        """Return the position as 6 rows of 7 marks, top row first: "X" for MAX's stones, "O"
        for MIN's, "." for an empty cell.

        `board[0]` is the top row and `board[5]` the bottom one; `board[row][column - 1]` is
        the cell of `column` (1..7). An agent may read it to evaluate a position its own way;
        the contest's grader serves it too, without counting it as a state.

        >>> ConnectFour().board(ConnectFour.from_moves("4453"))[4:]
        ('...O...', '..OXX..')
        """
        mine, theirs = state.max_stones, state.min_stones
        return tuple(
            _ROW_MARKS[(mine >> row) & _ROW_CELLS | ((theirs >> row) & _ROW_CELLS) << 1]
            for row in range(HEIGHT - 1, -1, -1)
        )

    def evaluate(self, state: ConnectFourState) -> float:
        """Estimate `state` from MAX's point of view, within +-0.99: the course's evaluation.

        This is the evaluation of lecture 04 (depth-limited search), `evaluation` below: lines
        of four that only one player can still fill, and stones in the centre column. A real
        win is worth at least +1 and a real loss at most -1, so a search that meets one never
        prefers a heuristic guess to it.
        """
        return evaluation(state)

    @staticmethod
    def moves_played(state: ConnectFourState) -> int:
        """Return how many stones are on the board."""
        return (state.max_stones | state.min_stones).bit_count()

    @staticmethod
    def winner(state: ConnectFourState) -> str | None:
        """Return `MAX` or `MIN` if that player has four in a row, else None."""
        if has_four(state.max_stones):
            return MAX
        if has_four(state.min_stones):
            return MIN
        return None

    @staticmethod
    def from_moves(moves: str) -> ConnectFourState:
        """Build the state reached by a move string such as "4453" (columns 1..7, MAX first).

        Raises:
            ValueError: a character is not a column 1..7, a column is already full, or a move
                comes after the game was already won. The message names the move.
        """
        if not isinstance(moves, str):
            raise TypeError(
                f"moves must be a string of column numbers such as '4453', not {moves!r}"
            )
        state = ConnectFourState(0, 0)
        for number, char in enumerate(moves, start=1):
            if char not in "1234567":
                raise ValueError(
                    f"move {number} of {moves!r} is {char!r}: each move is a column from 1 to 7"
                )
            won = ConnectFour.winner(state)
            if won is not None:
                raise ValueError(
                    f"move {number} of {moves!r} comes after {won} ({_MARKS[won]}) "
                    "has already won: the game is over"
                )
            column = int(char)
            if (state.max_stones | state.min_stones) & TOP_CELLS[column - 1]:
                raise ValueError(f"move {number} of {moves!r} plays column {column}, which is full")
            state = _drop(state, column - 1)
        return state


_ROW_CELLS = sum(1 << (index * STRIDE) for index in range(WIDTH))
"""The bottom row's cells; shifted up by `row` bits, a row's."""


def _row_marks() -> dict[int, str]:
    """Every row a board can hold, by a key of its stones: X's cells of the row shifted down
    to the bottom row, with O's one bit above them (a column's spare bits leave room)."""
    marks = {0: ""}
    for index in range(WIDTH):
        marks = {
            key | stone << (index * STRIDE): text + mark
            for key, text in marks.items()
            for stone, mark in ((0, "."), (1, "X"), (2, "O"))
        }
    return marks


_ROW_MARKS = _row_marks()
"""The 3**7 rows as text, looked up by `board`: a few microseconds a board."""


def _drop(state: ConnectFourState, index: int) -> ConnectFourState:
    """Drop a stone of the player to move into column `index` (0..6), which is not full."""
    occupied = state.max_stones | state.min_stones
    # Adding the column's bottom bit carries up through the stones to the lowest empty cell.
    stone = (occupied + BOTTOM_CELLS[index]) & COLUMN_MASKS[index]
    if occupied.bit_count() % 2 == 0:
        return ConnectFourState(state.max_stones | stone, state.min_stones)
    return ConnectFourState(state.max_stones, state.min_stones | stone)


# --- The course's evaluation (lecture 04) ----------------------------------------------------


def _all_windows() -> tuple[int, ...]:
    """Every line of four cells on the board (69 of them) as a bitmask."""
    windows = []
    for column in range(1, WIDTH + 1):
        for row in range(HEIGHT):
            for step_column, step_row in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(column + k * step_column, row + k * step_row) for k in range(4)]
                if all(1 <= c <= WIDTH and 0 <= r < HEIGHT for c, r in cells):
                    windows.append(sum(cell(c, r) for c, r in cells))
    return tuple(windows)


WINDOWS = _all_windows()
"""Every line of four cells on the board (69 of them), each as a bitmask."""

WINDOW_WEIGHTS = (0, 1, 4, 16, 64)
"""Worth of a window holding 0..4 stones of one player and none of the other's."""

CENTRE_WEIGHT = 3
"""Extra worth of each stone in the centre column, which meets the most windows."""

EVALUATION_SCALE = 64
"""The raw score that maps to 0.99 * tanh(1), about 0.75."""


def evaluation(state: ConnectFourState) -> float:
    """Estimate the value of a non-terminal `state` from MAX's point of view, within +-0.99.

    Every line of four cells that still has room for only one player's stones counts for
    that player: 1 for one stone, 4 for two, 16 for three (a threat); a stone in the centre
    column adds 3. MAX's total minus MIN's is squashed by 0.99 * tanh(raw / 64), which keeps
    the order of raw scores and stays strictly between -1 and +1. Every win is worth at least
    +1 and every loss at most -1, so a depth-limited search never prefers a heuristic
    position to a real win, nor a real loss to a heuristic position.

    Swapping the colours of the stones negates the value.
    """
    mine, theirs = state.max_stones, state.min_stones
    centre = COLUMN_MASKS[WIDTH // 2]
    raw = CENTRE_WEIGHT * ((mine & centre).bit_count() - (theirs & centre).bit_count())
    for window in WINDOWS:
        if not theirs & window:
            raw += WINDOW_WEIGHTS[(mine & window).bit_count()]
        elif not mine & window:
            raw -= WINDOW_WEIGHTS[(theirs & window).bit_count()]
    return 0.99 * math.tanh(raw / EVALUATION_SCALE)
