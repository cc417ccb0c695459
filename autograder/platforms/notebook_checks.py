"""What runs in an assignment notebook's kernel: calling a function, the hidden tests, self-checks.

The notebooks carry this module's source after that of `autograder.grading.judge` (pasted by
`autograder.platforms.nbgrader_export`), so it needs only the standard library, `games` and the
judge, and nothing here may refer to `solutions`. The hidden tests judge with
`autograder.grading.judge` against the cases `autograder.grading.cases` computes, as the grader
does, so `nbgrader autograde` and `python -m autograder grade` give a submission the same points:

- each (function, case) pair is called once, even when several groups judge it;
- a call gets `CALL_TIMEOUT` seconds; after a time-out the function's later calls are skipped.

What the kernel cannot copy from the sandbox: student code runs in the same process as the
tests, so nbgrader's grading is not tamper-resistant. A search that keeps a table of states
between calls finds them again here, as in the sandbox, which serves a position as the same
state in every call of a run.
"""

from __future__ import annotations

import os
import sys
import traceback
from dataclasses import replace
from typing import Any

import games
from autograder.grading.judge import (
    PRUNING_SLACK,
    Case,
    Outcome,
    judge,
    judge_pruning,
    number_text,
)
from autograder.grading.plain import plain
from games import MAX, RecordingGame
from games.deadline import time_limit

CALL_TIMEOUT = 10.0
"""Seconds each graded call may take, as the autograder's default `--timeout`."""

SELF_CHECK_TIMEOUT = 5.0
"""Seconds a self-check call may take: its cases are tiny, so only a loop takes this long."""

GRADING_OUTCOMES: dict = {}
"""(function name, case key) -> what the call returned: each pair is called once per kernel."""

GRADING_BROKEN: dict = {}
"""function name -> why its later calls are skipped (it ran out of time once)."""

SELF_CHECK_MISSING: set = set()
"""Functions a self-check found not written yet (reported once each)."""

SELF_CHECK_HINTS = True
"""Whether a failed self-check names the mistake it suspects (`explore` turns this off)."""

EXPANDED_STATES: set = set()
"""Every state an earlier call generated a child of: what a table kept between calls may hold
(the `carried` of an `Outcome`, counted as `autograder/sandbox/tokens.py` counts it)."""

EXPANDED_ROOTS: dict = {}
"""A function's kind ("value" of `*_value`, "decision" of `*_decision`) -> the states earlier
calls of that kind started from and expanded."""


# -- calling a student's function ----------------------------------------------------------


class GradingTimeout(BaseException):
    """Raised inside a student's function when its call runs out of time.

    A BaseException, so that an `except Exception` in the student's code does not swallow it.
    """


def call_function(function, game, state, args: tuple = (), timeout: float | None = None):
    """Call `function(game, state, *args)` with `game` wrapped in a `CountingGame`; return the
    `Outcome`, its value made `plain`."""
    counted = RecordingGame(game)
    status, value, error, place = "raised", None, "", ""
    alarm = _start_alarm(timeout)
    try:
        value, status = plain(function(counted, state, *args)), "returned"
    except GradingTimeout:
        status, error = "timeout", f"no answer within {timeout:g} seconds"
    except KeyboardInterrupt:
        raise
    except BaseException as exception:  # noqa: BLE001 - SystemExit in student code fails too
        error = f"{type(exception).__name__}: {exception}"[:2000]
        place = where(exception)
    finally:
        _stop_alarm(alarm)
    carried = _carried(getattr(function, "__name__", ""), state, counted)
    return Outcome(status, value, error, counted.states_generated, place, 0 if args else carried)


def _carried(name: str, state, counted: RecordingGame) -> int:
    """How many positions a call of `name` answered from a table kept between calls, as the
    sandbox counts them (`Tokens.carried`): generated here, expanded by an earlier call and
    not here, and the root if an earlier call of `name`'s kind expanded it and this one did not
    (none, in a game of the student's own whose states are not hashable)."""
    try:
        parents, below = set(counted.parents), {*counted.generated} - {state}
        roots = EXPANDED_ROOTS.setdefault(name.rpartition("_")[2], set())
    except TypeError:
        return 0
    carried = int(state not in parents and state in roots) + sum(
        p in EXPANDED_STATES and p not in parents and not counted.game.is_terminal(p) for p in below
    )
    EXPANDED_STATES.update(parents)
    if state in parents:
        roots.add(state)
    return carried


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
    """Start `timeout`'s limit on the call (none if it is None): a timer signal where there is
    one, a hook the interpreter calls where not (Pyodide in a browser, threads)."""
    if not timeout:
        return None
    alarm = time_limit(timeout, GradingTimeout)
    alarm.__enter__()
    return alarm


def _stop_alarm(alarm) -> None:
    if alarm is not None:
        alarm.__exit__(None, None, None)


# -- the hidden tests --------------------------------------------------------------------------


def graded_call(function_name: str, call: tuple, namespace: dict, timeout: float | None):
    """Call the student's function on one (game, state, args, case), once per kernel."""
    game, state, args, case = call
    key = (function_name, case.key)
    if key in GRADING_OUTCOMES:
        return GRADING_OUTCOMES[key]
    function = namespace.get(function_name)
    if function_name in GRADING_BROKEN:
        outcome = Outcome("skipped", error=GRADING_BROKEN[function_name])
    elif not callable(function):
        why = f"{function_name} is not defined (or not a function) in your notebook"
        outcome = Outcome("skipped", error=why)
    else:
        outcome = call_function(function, game, state, args, timeout)
        if outcome.status == "timeout":
            GRADING_BROKEN[function_name] = (
                f"not run: {function_name} already failed on '{case.name}' ({outcome.error})"
            )
    GRADING_OUTCOMES[key] = outcome
    return outcome


def grade_group(
    function_name: str,
    kind: str,
    title: str,
    points: float,
    calls: list,
    slack: float = PRUNING_SLACK,
    namespace: dict | None = None,
    timeout: float | None = CALL_TIMEOUT,
) -> None:
    """The hidden test of one rule group: its points need every call to pass.

    `calls` holds (game, state, args, case) tuples; `kind` is "value", "vector", "decision" or
    "pruning".
    Raises AssertionError listing each failed case, what was expected, what came back and a
    hint; prints a one-line summary when every case passes.
    """
    namespace = globals() if namespace is None else namespace
    failures = []
    for call in calls:
        outcome = graded_call(function_name, call, namespace, timeout)
        verdict = judge(kind, function_name, call[3], outcome, slack)
        if not verdict.passed:
            line = f"- {verdict.instance}: expected {verdict.expected}, got {verdict.got}."
            failures.append(line + (f" Hint: {verdict.hint}." if verdict.hint else ""))
    if failures:
        raise AssertionError(
            f"{title} ({points:g} points, all or nothing): {len(failures)} of {len(calls)} "
            "instances failed.\n" + "\n".join(failures)
        )
    print(f"{title}: all {len(calls)} instances pass ({points:g} points)")


# -- the public self-checks --------------------------------------------------------------------


def self_check(function, game, state, args: tuple, case: Case, kind: str) -> None:
    """Judge one call of `function` as the hidden tests would, and say what went wrong.

    Prints `ok` when the case passes, or a note if the function is not written yet (it raises
    NotImplementedError); otherwise raises AssertionError with what was expected, what came back
    and a hint.
    """
    label = getattr(function, "__name__", "your function")
    outcome = call_function(function, game, state, args, SELF_CHECK_TIMEOUT)
    if outcome.status == "raised" and outcome.error.startswith("NotImplementedError"):
        _not_written_yet(label)
        return
    decision = bool(case.legal)
    answer_kind = "decision" if decision else "vector" if kind == "vector" else "value"
    answer = judge(answer_kind, label, case, outcome)
    if not answer.passed:
        blamed = _picked_by_own_values(function, game, state, args, case, outcome)
        hint = f". Hint: {blamed or answer.hint}" if answer.hint and SELF_CHECK_HINTS else ""
        raise AssertionError(
            f"{case.name}: {label} should give {answer.expected}, but got {answer.got}{hint}"
        )
    if kind == "pruning":
        verdict = judge_pruning(case, outcome, decision)
        if not verdict.passed:
            raise AssertionError(
                f"{case.name}: your {label} generated {outcome.states:,} states here, the "
                f"reference {case.states:,}" + (f": {verdict.hint}" if SELF_CHECK_HINTS else "")
            )
    shown = " or ".join(map(repr, case.optimal)) if decision else number_text(case.value)
    extra = f" with {outcome.states:,} states" if kind == "pruning" else ""
    print(f"ok  {case.name}: {shown}{extra}")


def _picked_by_own_values(function, game, state, args: tuple, case: Case, outcome) -> str:
    """If a wrong decision is the best action by the student's own value function (the
    `*_value` beside `function` in the notebook), which gets the children's values wrong: a
    hint that says so. The decision may well be right; the values it picks by are not."""
    label = getattr(function, "__name__", "")
    values = getattr(function, "__globals__", {}).get(label.replace("_decision", "_value"))
    if (
        not label.endswith("_decision")
        or not callable(values)
        or case.to_move not in ("MAX", "MIN")
    ):
        return ""
    if outcome.status != "returned" or outcome.value not in case.legal:
        return ""
    below = (args[0] - 1, *args[1:]) if args else ()  # a depth-limited child: one ply less
    theirs = []
    for action in case.legal:
        child = call_function(values, game, game.result(state, action), below, SELF_CHECK_TIMEOUT)
        if child.status != "returned" or type(child.value) not in (int, float):
            return ""
        theirs.append(child.value)
    best = (max if case.to_move == "MAX" else min)(theirs)
    chosen = theirs[case.legal.index(outcome.value)]
    if chosen != best or all(map(_close, theirs, case.child_values)):
        return ""
    shown = _values_text(case.legal, theirs)
    right = _values_text(case.legal, case.child_values)
    return (
        f"your {label} picks the best action by your {values.__name__}, which fails here: it "
        f"gives the actions {shown}, where their values are {right}: fix {values.__name__} first"
    )


def _values_text(actions, values) -> str:
    pairs = (f"{a!r}: {number_text(v)}" for a, v in zip(actions, values, strict=True))
    return "{" + ", ".join(pairs) + "}"


def _close(one: float, other: float) -> bool:
    return abs(one - other) <= 1e-9 * max(1.0, abs(one), abs(other))


def _not_written_yet(label: str) -> None:
    if label not in SELF_CHECK_MISSING:
        SELF_CHECK_MISSING.add(label)
        print(
            f"{label} raises NotImplementedError: its self-checks will run once it (and what "
            "it calls) is written."
        )


def _pairs(mapping: dict | None) -> tuple:
    return tuple((mapping or {}).items())


def check_value(function, name: str, game, state, value, args: tuple = (), hints=None) -> None:
    """Self-check: `function(game, state, *args)` must return the number `value`.

    `hints` maps wrong values a known mistake gives here to the hint that names it.
    """
    case = Case(0, name, game.to_move(state), value=value, depth_limited=len(args) == 2,
                value_hints=_pairs(hints))  # fmt: skip
    self_check(function, game, state, args, case, "value")


def check_vector(function, name: str, game, state, value: tuple, hints=None) -> None:
    """Self-check: `function(game, state)` must return the utility vector `value` (max-n).

    `hints` maps wrong vectors a known mistake gives here to the hint that names it.
    """
    case = Case(0, name, value=tuple(value), value_hints=_pairs(hints))
    self_check(function, game, state, (), case, "vector")


def _decision_case(name: str, game, state, optimal: tuple, child_values, hints=None) -> Case:
    """A decision's case; at a max-n node (a player number moves) the mover maximises."""
    legal = tuple(game.actions(state))
    mover = "MIN" if game.to_move(state) == "MIN" else MAX
    best = (max if mover == MAX else min)(child_values)
    return Case(0, name, mover, legal, best, tuple(optimal), tuple(child_values),
                decision_hints=_pairs(hints))  # fmt: skip


def check_decision(
    function,
    name: str,
    game,
    state,
    optimal: tuple,
    child_values: list,
    args: tuple = (),
    hints: dict | None = None,
) -> None:
    """Self-check: `function(game, state, *args)` must return one of the `optimal` actions.

    `child_values` lists the value of each legal action, in `game.actions(state)` order;
    `hints` maps a wrong action a known mistake picks to the hint that names it.
    """
    case = _decision_case(name, game, state, optimal, child_values, hints)
    self_check(function, game, state, args, case, "decision")


def check_states(function, name: str, game, state, answer: Any, states: int, causes=None) -> None:
    """Self-check: the right answer, generating about as many states as the reference.

    `answer` is the value, or for a decision a pair (optimal actions, child values). The states
    generated must lie within [ceil(states / 1.25), floor(states * 1.25)]; `causes` maps the
    counts of known mistakes to the hint that names each.
    """
    if isinstance(answer, tuple):
        case = _decision_case(name, game, state, *answer)
    else:
        case = Case(0, name, game.to_move(state), value=answer)
    case = replace(case, states=states, fewest=states, causes=_pairs(causes))
    self_check(function, game, state, (), case, "pruning")


def check_call(function, name: str, args: tuple, expected) -> None:
    """Self-check of a plain function: `function(*args)` must equal `expected` (not a bool)."""
    label = getattr(function, "__name__", "your function")
    try:
        answer = function(*args)
    except NotImplementedError:
        _not_written_yet(label)
        return
    if type(answer) is bool or answer != expected:
        shown = ", ".join(repr(arg) for arg in args)
        raise AssertionError(f"{name}: {label}({shown}) returned {answer!r}, expected {expected!r}")
    print(f"ok  {name}: {answer!r}")


def explore(checks, function, hints: bool = False) -> None:
    """Run the self-checks `checks` on `function`, printing the first failure instead of stopping.

    For looking at a function that is known to be wrong: `explore(check_minimax_value,
    buggy_minimax_value)` shows which small case it gets wrong and what came back, without
    naming the suspected mistake unless `hints` is true (finding it is the exercise).
    """
    global SELF_CHECK_HINTS
    previous, SELF_CHECK_HINTS = SELF_CHECK_HINTS, hints
    try:
        checks(function)
    except AssertionError as failure:
        print(f"FAIL  {failure}")
    else:
        print("every self-check passes")
    finally:
        SELF_CHECK_HINTS = previous
