"""Assignment 5's contest players: the grader's opponents, and what an agent's answer counts as.

Every player answers `choose(state, allowance)` with a `Choice`; the referee (`referee.py`)
plays the games and enforces the rules. An `Allowance` is what one move may use: a budget of
states generated through `game.result`, and CPU seconds for everything else (never the wall
clock). The opponents run in the grader's process on the real `ConnectFourState` and are
deterministic given their seed: `RandomPlayer` (seeded), `AlphaBetaPlayer` (depth-limited
alpha-beta with the course's evaluation) and `SolverPlayer` (exact end-game play).

A submission's agent is an `Agent`: it plays through the sandbox (`student_agent.StudentAgent`)
or, in the notebook's hidden tests, in the kernel (`contest_checks.KernelAgent`), and
`FunctionPlayer` runs a function in this process (for tests, and for trying an agent without
the sandbox). All three seed the agent's `random` at each game's first move, count its states
on a game that refuses the state past its budget, and turn what its call gave into a `Choice`
with `agent_choice`, so the same agent plays the same moves, and the same answer is treated the
same way, on every road.

Nothing here may import the sandbox: `nbgrader_export` pastes this module's source, with the
solver's, the referee's and `contest_checks`'s, into the notebook's hidden tests.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from autograder.grading.judge import Outcome
from autograder.grading.plain import Opaque, plain, show
from games import MAX, BudgetedGame, OutOfStates
from games.connect_four import ConnectFour, ConnectFourState
from solutions.connect_four import ConnectFourSolver

AGENT_FUNCTION = "connect_four_agent"
"""The function assignment 5 asks for: `connect_four_agent(game, state, seconds) -> column`."""

GAME = ConnectFour()

DEFAULT_STATES = 2_000
"""States a move may generate when grading (`--move-states`). The reference agent deepens until
the budget is spent (to depth 5 or 6 in the middle game) and earns every point with it; each
state is a round trip to the grader, so the contest's 28 games and 60 positions (some 330 moves
of the reference) take about 10 s on a quiet 2-core machine, twice what its 12 games took at
4,000 states a move, the budget before the levels paid by share (`benchmarks/bench_contest.py`)."""

DEFAULT_SECONDS = 3.0
"""CPU seconds a move may use when grading (`--move-seconds`), in the agent's own processes, for
what it computes besides its states (its own evaluation of the board, say): the reference agent
uses about 0.02 s of CPU time for its 2,000 states, through the sandbox."""

SAFETY_FACTOR, SAFETY_FLOOR = 5, 5.0
"""A move's wall-clock safety net is `SAFETY_FACTOR * seconds + SAFETY_FLOOR` seconds, far later
than a move that computes could take on a busy machine, so that the machine's load never decides
a move. A sleeping agent is stopped at its seconds (its sleep is charged as CPU time); the net
stops a move where no meter can be read."""

MAX_STOPS = 2
"""Moves of one agent that may be stopped for time (CPU seconds, or the safety net) before its
later moves are forfeited without asking it: an agent stuck in a loop costs two moves' time."""

CENTRE_FIRST_COLUMNS = (4, 3, 5, 2, 6, 1, 7)
"""Columns from the centre outwards: the opponents' order, and the fallback move's. (Not called
`CENTRE_FIRST`: the solver's column indices have that name, and the hidden tests paste both
modules into one namespace.)"""


@dataclass(frozen=True)
class Allowance:
    """What one move may use: `states` generated through `game.result` (past them, `result`
    raises `OutOfStates`) and `seconds` of CPU time in the agent's own processes. `wall`, if
    given, replaces the wall-clock safety net (see `SAFETY_FACTOR`)."""

    states: int = DEFAULT_STATES
    seconds: float = DEFAULT_SECONDS
    wall: float | None = None

    def __post_init__(self) -> None:
        if type(self.states) is not int or self.states < 1:
            raise ValueError(f"states is a move's budget of states, an int >= 1: {self.states!r}")
        if not self.seconds > 0:
            raise ValueError(f"seconds is a move's CPU time, a positive number: {self.seconds!r}")

    @property
    def safety_net(self) -> float:
        """Wall-clock seconds after which a move is stopped, whatever it is doing."""
        return self.wall if self.wall is not None else SAFETY_FACTOR * self.seconds + SAFETY_FLOOR


GRADING = Allowance()
"""A move's allowance when grading, unless the command line says otherwise."""


@dataclass(frozen=True)
class Choice:
    """What a player answered: a column, or why it has none, and the states it generated.

    `status` is "moved" (`column` is legal), "forfeited" (no move: its budget of states ran
    out, or it was not asked), "stopped" (no move: it used its CPU time, or the safety net
    stopped it), "crashed" (raised, died, could not load) or "illegal" (`error` says what came
    back instead).
    """

    column: int | None
    states: int = 0
    status: str = "moved"
    error: str = ""
    seconds: float = field(default=0.0, compare=False)  # the time charged: never the same twice


class Player:
    """A contestant: `choose` a column for the player to move in a state, `close` when done."""

    name: str = "player"

    def new_game(self, opening: str, side: int) -> None:
        """A game starts from `opening`, this player playing `side` (0: X, 1: O)."""

    def choose(self, state: ConnectFourState, allowance: Allowance) -> Choice:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the player holds (a process); the in-process players hold nothing."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class Agent(Player):
    """A contestant's `connect_four_agent`, however it is run (`play`, in a subclass).

    Its `random` is seeded at each game's first move from the opening and its colour
    (`game_seed`), so an agent that draws random numbers plays the same games every run. Once
    `MAX_STOPS` of its moves were stopped for time, it is not asked again: its moves are
    forfeited at once.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.game_seed: str | None = None  # this game's, given with the next move if unseeded
        self.seeded = True
        self.stops = 0

    def new_game(self, opening: str, side: int) -> None:
        self.game_seed, self.seeded = game_seed(opening, side), False

    def choose(self, state: ConnectFourState, allowance: Allowance) -> Choice:
        if self.stops >= MAX_STOPS:
            why = f"not asked: {MAX_STOPS} of its moves were already stopped for time"
            return Choice(None, 0, "forfeited", why)
        choice = self.play(state, allowance)
        self.stops += choice.status == "stopped"
        return choice

    def play(self, state: ConnectFourState, allowance: Allowance) -> Choice:
        raise NotImplementedError

    def seed(self) -> str | None:
        """The seed to give `random.seed` before this move: the game's, at its first move."""
        if self.seeded:
            return None
        self.seeded = True
        return self.game_seed


def game_seed(opening: str, side: int) -> str:
    """What seeds an agent's `random` in a game: the opening and the agent's colour."""
    return f"{opening or '-'}-{'XO'[side]}"


def checked(value: Any, legal: list[int], states: int = 0) -> Choice:
    """The Choice for a returned `value` (plain data): a legal column, or an illegal answer.

    Only an int is a column: `True` is not 1, and `4.0` or `numpy.int64(4)` is not 4.
    """
    if type(value) is int and value in legal:
        return Choice(value, states)
    shown = value.text if isinstance(value, Opaque) else show(value)
    return Choice(None, states, "illegal", f"returned {shown}, not a legal column of {legal}")


def agent_choice(outcome: Outcome, legal: list[int], allowance: Allowance) -> Choice:
    """The Choice for one call of an agent: its answer if it returned one (see `checked`); a
    forfeit if `OutOfStates` escaped once its budget was spent, or if it was stopped for time;
    else a crash, with the error."""
    states = outcome.states
    if outcome.status == "returned":
        return checked(outcome.value, legal, states)
    if outcome.status == "timeout":
        return Choice(None, states, "stopped", outcome.error)
    spent = states >= allowance.states and outcome.error.startswith(f"{OutOfStates.__name__}:")
    if outcome.status == "raised" and spent:
        why = (
            f"no move returned within its budget of {allowance.states:,} states (OutOfStates "
            "escaped: catch it around the search and return the best move found so far)"
        )
        return Choice(None, states, "forfeited", why)
    return Choice(None, states, "crashed", outcome.error or outcome.status)


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

    def choose(self, state: ConnectFourState, allowance: Allowance) -> Choice:
        return Choice(self._random.choice(GAME.actions(state)))


class AlphaBetaPlayer(Player):
    """Depth-limited alpha-beta with `ConnectFour.evaluate`: deterministic, centre first."""

    def __init__(self, depth: int) -> None:
        if not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth counts the plies looked ahead, at least 1, not {depth!r}")
        self.depth = depth
        self.name = f"alpha-beta depth {depth}"

    def choose(self, state: ConnectFourState, allowance: Allowance) -> Choice:
        return Choice(alphabeta_move(state, self.depth)[0])


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

    def choose(self, state: ConnectFourState, allowance: Allowance) -> Choice:
        scores = {
            column: -self._solver.solve(GAME.result(state, column))
            for column in centre_first(GAME.actions(state))
        }
        return Choice(max(scores, key=scores.get))  # the first of the best: dicts keep order


# --- Agents ----------------------------------------------------------------------------------


class FunctionPlayer(Agent):
    """Plays `function(game, state, seconds)` in this process, on a `BudgetedGame` of the real
    `ConnectFour`, seeding this process's `random` at each game's first move.

    It cannot be interrupted: a move that used more CPU time than allowed (this process's, by
    `time.process_time`) is still stopped, and an exception is a crash (or a forfeit, if
    `OutOfStates` escaped).
    """

    def __init__(self, name: str, function: Callable[..., Any]) -> None:
        super().__init__(name)
        self.function = function

    def play(self, state: ConnectFourState, allowance: Allowance) -> Choice:
        seed = self.seed()
        if seed is not None:
            random.seed(seed)
        game = BudgetedGame(GAME, allowance.states)
        started = time.process_time()
        choice = agent_choice(self.call(game, state, allowance), GAME.actions(state), allowance)
        return replace(choice, seconds=round(time.process_time() - started, 4))

    def call(self, game: BudgetedGame, state: ConnectFourState, allowance: Allowance) -> Outcome:
        """One move's call of the function on `game`, as an `Outcome` with its states."""
        started = time.process_time()
        try:
            value = plain(self.function(game, state, allowance.seconds))
        except Exception as error:  # noqa: BLE001 - the agent's failure loses its game
            outcome = Outcome("raised", None, f"{type(error).__name__}: {error}"[:2000])
        else:
            outcome = Outcome("returned", value)
        took = time.process_time() - started
        if took > allowance.seconds:
            outcome = Outcome(
                "timeout", error=f"it used more than {allowance.seconds:g} s of CPU time"
            )
        return Outcome(outcome.status, outcome.value, outcome.error, game.states_generated)
