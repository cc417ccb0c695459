"""Evaluation for depth-limited search: tic-tac-toe heuristics and utilities for faster wins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.protocol import Action, Game, State
from games.tictactoe import EMPTY, LINES, TicTacToe, winner

WIN_SCORE = 1000
"""What `tictactoe_heuristic` gives a won position (+ for X, - for O), and a move that wins."""

HEURISTIC_BOUND = 100
"""`abs(tictactoe_heuristic(s)) < HEURISTIC_BOUND` for every position nobody has won.

Only lines with the marks of one player score, at most 10 each, so the bound is 8 * 10 = 80.
"""

_OPEN_LINE_SCORES = {1: 1, 2: 10}  # marks of one player in a line the other has not touched
_RULES = TicTacToe()


def tictactoe_heuristic(state: str) -> float:
    """Score a tic-tac-toe position from X's (MAX's) point of view.

    The state form of the classic "+1000 win, +100 block, +10 two, +1 one" move heuristic:

    - a position where X has three in a line scores +1000, one where O has scores -1000;
    - otherwise each of the 8 lines that only X has marked scores +1 for one mark and +10 for
      two (X can still complete it), each line only O has marked scores -1 or -10, and a line
      that is empty or holds both marks (nobody can complete it) scores 0; the lines are summed.

    A block has no term of its own: in a position it shows as the opponent's open two (-10)
    turning into a dead line (0), and a search one ply deeper sees the threat as a -1000 win.
    Positions nobody has won score strictly inside (-`HEURISTIC_BOUND`, `HEURISTIC_BOUND`);
    a full board without a winner scores 0, like its utility.

    >>> tictactoe_heuristic("....X....")  # the centre lies on 4 lines
    4
    >>> tictactoe_heuristic("X...O....")  # X: row and column (+2); O: row, column, diagonal (-3)
    -1
    """
    _check_board(state)
    won = winner(state)
    if won is not None:
        return WIN_SCORE if won == "X" else -WIN_SCORE
    score = 0
    for line in LINES:
        marks = [state[square] for square in line]
        xs, os_ = marks.count("X"), marks.count("O")
        if xs and not os_:
            score += _OPEN_LINE_SCORES[xs]
        elif os_ and not xs:
            score -= _OPEN_LINE_SCORES[os_]
    return score


def scaled_tictactoe_heuristic(state: str) -> float:
    """Return the utility of a finished position, else `tictactoe_heuristic` / 100.

    Tic-tac-toe utilities are +1, 0 and -1, and an estimate must never look better than a real
    win: positions that are not over therefore score strictly inside (-1, 1) (in fact within
    [-0.8, 0.8]), and depth-limited searches still prefer a win they can see to any estimate.
    """
    _check_board(state)
    if _RULES.is_terminal(state):
        return _RULES.utility(state)
    return tictactoe_heuristic(state) / HEURISTIC_BOUND


def tictactoe_move_score(state: str, action: int) -> int:
    """Score the move `action` for the player to move, exactly as the classic move heuristic says.

    For each line through the square, looking at its two other squares: +1000 if both hold the
    mover's marks (the move wins), +100 if both hold the opponent's (it blocks a win), +10 if one
    holds the mover's mark and the other is empty (it makes two in a line), +1 if both are empty
    (one in a line), 0 otherwise. The scores of the (2 to 4) lines are summed. Summing keeps the
    priorities: a win (>= 1000) beats any move without one (<= 4 * 100), a block (>= 100) any
    move without one (<= 4 * 10); within a tier, a move that does more in several lines (a
    fork: two twos at once) scores more. The score is from the mover's point of view, X or O.

    Raises:
        IllegalActionError: `action` is not an empty square of a game still in progress.
    """
    _check_board(state)
    _RULES.result(state, action)  # raises IllegalActionError, listing the legal squares
    mine = "X" if state.count("X") == state.count("O") else "O"
    theirs = "O" if mine == "X" else "X"
    score = 0
    for line in LINES:
        if action in line:
            others = [state[square] for square in line if square != action]
            if others.count(mine) == 2:
                score += WIN_SCORE
            elif others.count(theirs) == 2:
                score += 100
            elif theirs not in others:
                score += 10 if mine in others else 1
    return score


def marks_on_board(state: str) -> int:
    """Return the plies played to reach a tic-tac-toe position: the marks on its board."""
    if not isinstance(state, str):
        raise TypeError(
            f"marks_on_board counts the marks of a tic-tac-toe state, not {state!r}: "
            "give PreferFastWins a plies(state) function for this game"
        )
    return sum(square != EMPTY for square in state)


class PreferFastWins(Game):
    """Wrap a game so that faster wins and slower losses are worth more.

    utility(s) = game.utility(s) * (horizon + 1 - plies(s)), where `plies(s)` is the number of
    moves played to reach s and `horizon` the longest the game can last. A win after 5 plies of
    tic-tac-toe is worth +5, one after 9 plies +1; a loss after 6 plies is worth -4, one after 8
    plies -2; a draw stays 0. The factor is at least 1, so a win is never worth less than the
    plain utility, and an evaluation that stays inside (-1, 1) still ranks below any real win.
    Everything else is passed to the wrapped game unchanged (also game-specific helpers).

    Args:
        game: the game to wrap.
        plies: the moves played to reach a state; the default counts tic-tac-toe marks. For a
            `GameTree` pass `len` (a state is the path from the root).
        horizon: the largest number of plies a game can last (9 for tic-tac-toe).
    """

    def __init__(
        self, game: Game, plies: Callable[[State], int] = marks_on_board, horizon: int = 9
    ) -> None:
        if horizon < 0:
            raise ValueError(f"horizon is the longest a game can last and must be >= 0: {horizon}")
        self.game = game
        self.plies = plies
        self.horizon = horizon

    def __repr__(self) -> str:
        return f"PreferFastWins({self.game!r}, horizon={self.horizon})"

    def __getattr__(self, name: str) -> Any:
        if name == "game":  # not set yet: avoid asking ourselves forever
            raise AttributeError(name)
        return getattr(self.game, name)

    def initial_state(self) -> State:
        return self.game.initial_state()

    def to_move(self, state: State) -> str:
        return self.game.to_move(state)

    def actions(self, state: State) -> list[Action]:
        return self.game.actions(state)

    def result(self, state: State, action: Action) -> State:
        return self.game.result(state, action)

    def is_terminal(self, state: State) -> bool:
        return self.game.is_terminal(state)

    def utility(self, state: State) -> float:
        played = self.plies(state)
        if not 0 <= played <= self.horizon:
            raise ValueError(
                f"state {state!r} is {played} plies deep, beyond the horizon of {self.horizon} "
                "plies: raise the horizon of PreferFastWins to the longest game possible"
            )
        return self.game.utility(state) * (self.horizon + 1 - played)

    def chance_outcomes(self, state: State) -> list[tuple[Action, float]]:
        return self.game.chance_outcomes(state)

    def display(self, state: State) -> str:
        return self.game.display(state)


def _check_board(state: str) -> None:
    if not isinstance(state, str) or len(state) != 9 or set(state) - {"X", "O", EMPTY}:
        raise ValueError(
            f"a tic-tac-toe state is a string of 9 squares, each 'X', 'O' or '.', not {state!r}"
        )
