"""Calling a student's function in the notebook's kernel: counted, timed, and what it carried.

Pasted into the notebooks before `autograder.platforms.notebook_checks` (by
`autograder.platforms.nbgrader_export`), so it needs only the standard library, `games` and the
judge. A call's game is a `CallGame`, so the states it generates are counted as the sandbox
counts them, a state kept from an earlier call is refused until this call reaches it (as the
grader refuses it), and a table kept between calls is found as `autograder/sandbox/tokens.py`
finds it.
"""

from __future__ import annotations

import os
import sys
import traceback

import games
from autograder.grading.judge import Outcome
from autograder.grading.plain import plain
from games import RecordingGame
from games.deadline import own_clock, time_limit

NOT_A_STATE = (
    "{!r} is not a state of this game: states come only from game.initial_state(), the state "
    "you were given, and game.result(state, action) (a state kept from an earlier call is one "
    "again once this call reaches it)"
)
"""What the grader's served game says of a state this call has not reached
(`autograder/sandbox/runner.py`'s `_NOT_A_STATE`, word for word: tests/test_feedback_places.py)."""


class CallGame(RecordingGame):
    """The game one call sees in the kernel, as the grader serves it: a state is known once this
    call has reached it (its root, `initial_state()`, or a `result`), so asking about a state
    kept from an earlier call before this call reaches it raises, as in the grader. A table
    that only looks a reached state up still finds it."""

    def __init__(self, game, root) -> None:
        super().__init__(game)
        self.reached: set | None = set()
        self._reach(root)

    def _reach(self, state) -> None:
        if self.reached is not None:
            try:
                self.reached.add(state)
            except TypeError:  # a game of one's own with unhashable states: no check
                self.reached = None

    def _known(self, state) -> None:
        if self.reached is None:
            return
        try:
            known = state in self.reached
        except TypeError:
            known = False
        if not known:
            raise ValueError(NOT_A_STATE.format(state))

    def initial_state(self):
        state = super().initial_state()
        self._reach(state)
        return state

    def to_move(self, state):
        self._known(state)
        return super().to_move(state)

    def actions(self, state):
        self._known(state)
        return super().actions(state)

    def result(self, state, action):
        self._known(state)
        child = super().result(state, action)
        self._reach(child)
        return child

    def is_terminal(self, state):
        self._known(state)
        return super().is_terminal(state)

    def utility(self, state):
        self._known(state)
        return super().utility(state)

    def chance_outcomes(self, state):
        self._known(state)
        return super().chance_outcomes(state)


EXPANDED_STATES: set = set()
"""Every state an earlier call generated a child of: what a table kept between calls may hold
(the `carried` of an `Outcome`, counted as `autograder/sandbox/tokens.py` counts it)."""

EVALUATED_STATES: set = set()
"""Every state an earlier depth-limited call generated and did not expand (evaluated at its
horizon): what a table without the depth may hold (`Tokens.carried`'s `_evaluated`)."""

EXPANDED_ROOTS: dict = {}
"""A function's kind ("value" of `*_value`, "decision" of `*_decision`) -> the states earlier
calls of that kind started from and expanded."""


# -- calling a student's function ----------------------------------------------------------


_TIMED = "s of its own time" if own_clock() is not None else "seconds"
"""What a call's seconds are: its own time where the kernel counts it (`games.deadline`), as
in the grader's sandbox, so a busy machine does not stop an honest call; else the wall clock's."""


class GradingTimeout(BaseException):
    """Raised inside a student's function when its call runs out of time.

    A BaseException, so that an `except Exception` in the student's code does not swallow it.
    """


def call_function(function, game, state, args: tuple = (), timeout: float | None = None):
    """Call `function(game, state, *args)` with `game` wrapped in a `CallGame` (counted, and
    refusing a state this call has not reached, as the grader does); return the `Outcome`, its
    value made `plain`."""
    counted = CallGame(game, state)
    status, value, error, place, alarm = "raised", None, "", "", None
    try:  # the limit starts inside it: on a busy machine it may ring before the call
        alarm = _start_alarm(timeout)
        value, status = plain(function(counted, state, *args)), "returned"
    except GradingTimeout:
        status, error = "timeout", f"no answer within {timeout:g} {_TIMED}"
    except KeyboardInterrupt:
        raise
    except BaseException as exception:  # noqa: BLE001 - SystemExit in student code fails too
        error = f"{type(exception).__name__}: {exception}"[:2000]
        place = where(exception)
    finally:
        _stop_alarm(alarm)
    carried = _carried(getattr(function, "__name__", ""), state, counted, args)
    carried = carried if not args or args[0] >= 1 else 0  # depth 0 expands nothing
    return Outcome(status, value, error, counted.states_generated, place, carried)


def call_aside(function, game, state, args: tuple = (), timeout: float | None = None):
    """`call_function`, leaving what later calls count as carried as it was: a call the grader
    makes after every graded one (a wrong decision's value function on the root's children,
    `notebook_checks.own_values`), which must not change how a graded call is counted."""
    kept = (set(EXPANDED_STATES), set(EVALUATED_STATES))
    roots = {kind: set(seen) for kind, seen in EXPANDED_ROOTS.items()}
    try:
        return call_function(function, game, state, args, timeout)
    finally:
        for now, before in zip((EXPANDED_STATES, EVALUATED_STATES), kept, strict=True):
            now.clear()
            now.update(before)
        EXPANDED_ROOTS.clear()
        EXPANDED_ROOTS.update(roots)


def _carried(name: str, state, counted: RecordingGame, args: tuple = ()) -> int:
    """How many positions a call of `name` answered from a table kept between calls, as the
    sandbox counts them (`Tokens.carried`): generated here, expanded by an earlier call and
    not here, and the root if an earlier call of `name`'s kind expanded it and this one did not.
    A call with `args` has a horizon: in a graded depth-limited search (`depth_of`) a position
    below the root counts only fewer plies below it than the depth (`_within`), and also if an
    earlier depth-limited call met it unexpanded (`EVALUATED_STATES`); elsewhere the root
    only. None, in a game of the student's own whose states are not hashable."""
    try:
        parents, below = set(counted.parents), {*counted.generated} - {state}
        roots = EXPANDED_ROOTS.setdefault(name.rpartition("_")[2], set())
    except TypeError:
        return 0
    game = counted.game
    depth = depth_of(name, args) if args else None
    evaluated = EVALUATED_STATES if depth is not None else ()
    searched = below if not args or (depth or 0) > 1 else ()  # else only the root counts
    found = [
        p
        for p in searched
        if p not in parents and (p in EXPANDED_STATES or p in evaluated) and not game.is_terminal(p)
    ]
    if found and args:
        inside = _within(game, state, parents, below, depth) if depth and depth > 1 else ()
        found = [p for p in found if p in inside]
    carried = int(state not in parents and state in roots) + len(found)
    EXPANDED_STATES.update(parents)
    if depth is not None:
        EVALUATED_STATES.update(p for p in below if p not in parents and not game.is_terminal(p))
    if state in parents:
        roots.add(state)
    return carried


def depth_of(function: str, args: tuple) -> int | None:
    """The depth of a graded depth-limited call (`*_value` or `*_decision` given an int depth
    first), else None (`Tokens.depth_of`, word for word: the kernel cannot import the
    sandbox)."""
    graded = function.endswith(("_value", "_decision")) and type(args[0]) is int
    return args[0] if graded else None


def _within(game, root, parents: set, generated: set, depth: int) -> set:
    """The positions a call generated fewer than `depth` plies below `root`, reached through
    positions it expanded (`Tokens.within`, in the sandbox): each expanded position's children
    are its legal actions' results that the call generated."""
    level, seen = [root], {root}
    for _ in range(depth - 1):
        following = []
        for state in level:
            if state not in parents:
                continue
            for action in game.actions(state):
                child = game.result(state, action)
                if child in generated and child not in seen:
                    seen.add(child)
                    following.append(child)
        level = following
    return seen - {root}


_NOT_STUDENT_CODE = (
    os.path.dirname(games.__file__),
    sys.prefix,
    sys.base_prefix,
)


def where(exception: BaseException) -> str:
    """Where in the student's code `exception` happened: the innermost frame that is neither
    this cell's nor the toolkit's nor an installed library's, as "function (line L of its
    cell): the line", or "" if there is none."""
    frames = traceback.extract_tb(exception.__traceback__)[1:]  # the first is call_function's
    for frame in reversed(frames):
        if frame.filename.startswith(_NOT_STUDENT_CODE) or not frame.lineno:
            continue
        place = f"{frame.name} (line {frame.lineno} of its cell)"
        return f"{place}: {frame.line.strip()[:200]}" if frame.line else place
    return ""


def _start_alarm(timeout: float | None):
    """Start `timeout`'s limit of own time on the call (none if it is None): a timer signal
    where there is one, a hook the interpreter calls where not (Pyodide in a browser,
    threads)."""
    if not timeout:
        return None
    alarm = time_limit(timeout, GradingTimeout, own=True)
    alarm.__enter__()
    return alarm


def _stop_alarm(alarm) -> None:
    if alarm is not None:
        alarm.__exit__(None, None, None)
