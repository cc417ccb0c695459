"""Assignment 5's contest players: the grader's opponents, and what an agent's answer counts as.

Every player answers `choose(state, seconds)` with a `Choice`; the referee (`referee.py`) plays
the games and enforces the rules. The opponents run in the grader's process on the real
`ConnectFourState` and are deterministic given their seed: `RandomPlayer` (seeded),
`AlphaBetaPlayer` (depth-limited alpha-beta with the course's evaluation) and `SolverPlayer`
(exact end-game play). `FunctionPlayer` runs a function in this process (for tests, and for
trying an agent without the sandbox); a submission's agent plays through the sandbox
(`student_agent.StudentAgent`) or, in the notebook's hidden tests, in the kernel
(`contest_checks.KernelAgent`), and both turn what its call gave into a `Choice` with
`agent_choice`, so the same answer is treated the same way on both roads.

Nothing here may import the sandbox: `nbgrader_export` pastes this module's source, with the
solver's, the referee's and `contest_checks`'s, into the notebook's hidden tests.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autograder.grading.judge import Outcome
from autograder.grading.plain import Opaque, plain, show
from games import MAX
from games.connect_four import ConnectFour, ConnectFourState
from solutions.connect_four import ConnectFourSolver

AGENT_FUNCTION = "connect_four_agent"
"""The function assignment 5 asks for: `connect_four_agent(game, state, seconds) -> column`."""

GRACE = 0.05
"""Seconds a move may come back after its thinking time and still count as in time: the round
trip through the pipes and a busy machine. The clock starts when the call is sent, so restarting
a process killed on the previous move is never charged to the agent."""

GAME = ConnectFour()

CENTRE_FIRST_COLUMNS = (4, 3, 5, 2, 6, 1, 7)
"""Columns from the centre outwards: the opponents' order, and the fallback move's. (Not called
`CENTRE_FIRST`: the solver's column indices have that name, and the hidden tests paste both
modules into one namespace.)"""


@dataclass(frozen=True)
class Choice:
    """What a player answered: a column, or why it has none.

    `status` is "moved" (`column` is legal), "timeout" (no answer within the time), "crashed"
    (raised, died, could not load) or "illegal" (`error` says what came back instead).
    """

    column: int | None
    seconds: float
    status: str = "moved"
    error: str = ""


class Player:
    """A contestant: `choose` a column for the player to move in a state, `close` when done."""

    name: str = "player"

    def choose(self, state: ConnectFourState, seconds: float) -> Choice:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the player holds (a process); the in-process players hold nothing."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def checked(value: Any, legal: list[int], seconds: float) -> Choice:
    """The Choice for a returned `value` (plain data): a legal column, or an illegal answer.

    Only an int is a column: `True` is not 1, and `4.0` or `numpy.int64(4)` is not 4.
    """
    if type(value) is int and value in legal:
        return Choice(value, seconds)
    shown = value.text if isinstance(value, Opaque) else show(value)
    return Choice(None, seconds, "illegal", f"returned {shown}, not a legal column of {legal}")


def agent_choice(outcome: Outcome, legal: list[int], seconds: float) -> Choice:
    """The Choice for one call of an agent, `seconds` long: its answer if it returned one (see
    `checked`), a forfeit ("timeout") if it ran out of time, else a crash, with the error."""
    if outcome.status == "returned":
        return checked(outcome.value, legal, seconds)
    if outcome.status == "timeout":
        return Choice(None, seconds, "timeout", outcome.error)
    return Choice(None, seconds, "crashed", outcome.error or outcome.status)


def centre_first(columns: list[int]) -> list[int]:
    """The columns ordered from the centre outwards."""
    return sorted(columns, key=CENTRE_FIRST_COLUMNS.index)


# --- The grader's opponents ------------------------------------------------------------------


class RandomPlayer(Player):
    """Plays a uniformly random legal column; the same seed gives the same moves."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self.seed = seed
        self._random = random.Random(seed)

    def choose(self, state: ConnectFourState, seconds: float) -> Choice:
        return Choice(self._random.choice(GAME.actions(state)), 0.0)


class AlphaBetaPlayer(Player):
    """Depth-limited alpha-beta with `ConnectFour.evaluate`: deterministic, centre first."""

    def __init__(self, depth: int) -> None:
        if not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth counts the plies looked ahead, at least 1, not {depth!r}")
        self.depth = depth
        self.name = f"alpha-beta depth {depth}"

    def choose(self, state: ConnectFourState, seconds: float) -> Choice:
        started = time.monotonic()
        column, _ = alphabeta_move(state, self.depth)
        return Choice(column, time.monotonic() - started)


def alphabeta_move(state: ConnectFourState, depth: int) -> tuple[int, float]:
    """Return (column, value) looking `depth` plies ahead; of equal columns, the most central.

    The value is MAX's (the course's evaluation at the frontier, utilities at the end).
    """
    maximising = GAME.to_move(state) == MAX
    best_column, alpha, beta = None, -math.inf, math.inf
    for column in centre_first(GAME.actions(state)):
        value = _alphabeta(GAME.result(state, column), depth - 1, alpha, beta)
        if maximising and (best_column is None or value > alpha):
            best_column, alpha = column, value
        elif not maximising and (best_column is None or value < beta):
            best_column, beta = column, value
    return best_column, alpha if maximising else beta


def _alphabeta(state: ConnectFourState, depth: int, alpha: float, beta: float) -> float:
    """`alphabeta_value` cut off after `depth` plies (lecture 04), children centre first."""
    if GAME.is_terminal(state):
        return GAME.utility(state)
    if depth == 0:
        return GAME.evaluate(state)
    if GAME.to_move(state) == MAX:
        value = -math.inf
        for column in centre_first(GAME.actions(state)):
            value = max(value, _alphabeta(GAME.result(state, column), depth - 1, alpha, beta))
            if value >= beta:
                return value
            alpha = max(alpha, value)
        return value
    value = math.inf
    for column in centre_first(GAME.actions(state)):
        value = min(value, _alphabeta(GAME.result(state, column), depth - 1, alpha, beta))
        if value <= alpha:
            return value
        beta = min(beta, value)
    return value


class SolverPlayer(Player):
    """Plays the column with the best exact score (Pons's solver): a perfect defender.

    Losing, it resists longest; of equal columns, the most central. Only for end-games: the
    pure-Python solver needs about a second once 25 cells are empty.
    """

    def __init__(self, seed: int = 0) -> None:
        self.name = "solver"
        self._solver = ConnectFourSolver("strong")

    def choose(self, state: ConnectFourState, seconds: float) -> Choice:
        started = time.monotonic()
        scores = {
            column: -self._solver.solve(GAME.result(state, column))
            for column in centre_first(GAME.actions(state))
        }
        best = max(scores, key=scores.get)  # the first of the best: dicts keep their order
        return Choice(best, time.monotonic() - started)


# --- Agents ----------------------------------------------------------------------------------


class FunctionPlayer(Player):
    """Plays `function(game, state, seconds)` in this process, on the real `ConnectFour`.

    It cannot be interrupted: a move that comes back late is still forfeited (status
    "timeout"), and an exception is a crash.
    """

    def __init__(self, name: str, function: Callable[..., Any]) -> None:
        self.name = name
        self.function = function

    def choose(self, state: ConnectFourState, seconds: float) -> Choice:
        started = time.monotonic()
        try:
            value = self.function(GAME, state, seconds)
        except Exception as error:  # noqa: BLE001 - the agent's failure loses its game
            took = time.monotonic() - started
            return Choice(None, took, "crashed", f"{type(error).__name__}: {error}"[:2000])
        took = time.monotonic() - started
        if took > seconds + GRACE:
            return Choice(None, took, "timeout", f"it took {took:.2f} s")
        return checked(plain(value), GAME.actions(state), took)
