"""Tic-tac-toe: X is MAX and moves first; a state is a 9-character string, row by row."""

from __future__ import annotations

from functools import cache

from games.protocol import MAX, MIN, Game

EMPTY = "."
LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)  # fmt: skip
_EMPTY_SPELLINGS = ".-_ "


@cache
def winner(board: str) -> str | None:
    """Return "X" or "O" if that player has three in a line on `board`, else None."""
    for a, b, c in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return board[a]
    return None


@cache
def _player(board: str) -> str:
    """Whose turn it is on `board`: X (MAX) whenever both players have as many marks."""
    return MAX if board.count("X") == board.count("O") else MIN


@cache
def _open_squares(board: str) -> tuple[int, ...]:
    """The empty squares of `board` in ascending order, or none once someone has won."""
    if winner(board) is not None:
        return ()
    return tuple(square for square in range(9) if board[square] == EMPTY)


class TicTacToe(Game):
    """Tic-tac-toe on a 3x3 board.

    A state is a string of 9 characters, squares 0..8 in row-major order, each "X", "O" or
    "." (empty): immutable, hashable and equal exactly when the positions are equal. X moves
    first and is MAX. Actions are the empty squares, in ascending order. The utility is +1 when X
    has won, -1 when O has won and 0 for a full board without a winner.

    >>> game = TicTacToe()
    >>> state = game.from_picture("X.O\\n.X.\\n..O")
    >>> game.to_move(state), game.actions(state)
    ('MAX', [1, 3, 5, 6, 7])
    """

    def initial_state(self) -> str:
        return EMPTY * 9

    # Searches ask these of the same few thousand positions over and over: they are cached.

    def to_move(self, state: str) -> str:
        return _player(state)

    def actions(self, state: str) -> list[int]:
        return list(_open_squares(state))

    def result(self, state: str, action: int) -> str:
        if (
            not isinstance(action, int)
            or isinstance(action, bool)
            or not 0 <= action < 9
            or state[action] != EMPTY
            or winner(state) is not None
        ):
            raise self._illegal(state, action)
        mark = "X" if _player(state) == MAX else "O"
        return state[:action] + mark + state[action + 1 :]

    def is_terminal(self, state: str) -> bool:
        return winner(state) is not None or EMPTY not in state

    def utility(self, state: str) -> int:
        won = winner(state)
        if won is None and EMPTY in state:
            raise self._not_terminal(state)
        return {"X": 1, "O": -1, None: 0}[won]

    def display(self, state: str) -> str:
        return "\n".join(state[row : row + 3] for row in (0, 3, 6))

    @staticmethod
    def from_picture(picture: str) -> str:
        """Build a state from a picture such as "X.O\\n.X.\\n..O".

        Empty squares may be written ".", "-", "_" or a space inside a row; line breaks and
        surrounding blanks are ignored, and lower-case marks are accepted. The position must be
        reachable: X has as many marks as O or one more, and at most one player has a line.
        """
        rows = [row.strip() for row in picture.strip().splitlines() if row.strip()]
        cells = "".join(rows) if len(rows) > 1 else picture.strip()
        board = "".join(EMPTY if ch in _EMPTY_SPELLINGS else ch.upper() for ch in cells)
        if len(board) != 9 or set(board) - {"X", "O", EMPTY}:
            raise ValueError(
                f"a tic-tac-toe picture needs 9 squares of X, O or '.', got {picture!r}"
            )
        xs, os_ = board.count("X"), board.count("O")
        if xs - os_ not in (0, 1):
            raise ValueError(
                f"X has {xs} marks and O has {os_}: X moves first, so that is unreachable"
            )
        x_won = any(board[a] == board[b] == board[c] == "X" for a, b, c in LINES)
        o_won = any(board[a] == board[b] == board[c] == "O" for a, b, c in LINES)
        if x_won and o_won:
            raise ValueError("both players have three in a line: that position is unreachable")
        if (x_won and xs == os_) or (o_won and xs != os_):
            raise ValueError("the player who completed a line cannot have moved after it")
        return board
