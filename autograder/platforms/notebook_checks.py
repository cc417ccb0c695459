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

from dataclasses import replace
from typing import Any

from autograder.grading.judge import (
    PRUNING_SLACK,
    Case,
    Outcome,
    judge,
    judge_pruning,
    number_text,
)
from autograder.grading.together import (
    judge_decisions,
    judge_together,
    legal_action,
    own_scores,
    own_values_hint,
    picked_by_own_values,
    value_function,
)
from autograder.platforms.kernel_calls import GradingTimeout as GradingTimeout
from autograder.platforms.kernel_calls import call_aside, call_function
from games import MAX

CALL_TIMEOUT = 10.0
"""Seconds each graded call may take, as the autograder's default `--timeout`."""

SELF_CHECK_TIMEOUT = 5.0
"""Seconds a self-check call may take: its cases are tiny, so only a loop takes this long."""

GRADING_OUTCOMES: dict = {}
"""(function name, case key) -> what the call returned: each pair is called once per kernel."""

GRADING_BROKEN: dict = {}
"""function name -> why its later calls are skipped (it ran out of time once)."""

GRADING_OWN_VALUES: dict = {}
"""(decision name, case key) -> the student's own values of the root's children (or None):
what a wrong decision is weighed against, computed once per kernel (`own_values`)."""

SELF_CHECK_MISSING: set = set()
"""Functions a self-check found not written yet (reported once each)."""

SELF_CHECK_TOGETHER: list | None = None
"""The self-checks of one function so far, while `judged_together` collects them: judged
together at its end, so the message names the one mistake every failed check fits."""

SELF_CHECK_HINTS = True
"""Whether a failed self-check names the mistake it suspects (`explore` turns this off)."""


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
    judged = []
    for call in calls:
        outcome = graded_call(function_name, call, namespace, timeout)
        judged.append((call[3], outcome, judge(kind, function_name, call[3], outcome, slack)))
    if function_name.endswith("_decision"):
        scores = [_graded_own_values(function_name, call, namespace, timeout) for call in calls]
        header, verdicts = judge_decisions(function_name, judged, scores)
    else:
        header, verdicts = judge_together(function_name, judged, False)
    failures = []
    for verdict in verdicts:
        if not verdict.passed:
            line = f"- {verdict.instance}: expected {verdict.expected}, got {verdict.got}."
            failures.append(line + (f" Hint: {verdict.hint}." if verdict.hint else ""))
    if failures:
        said = f"Diagnosis: {header}.\n" if header else ""
        raise AssertionError(
            f"{title} ({points:g} points, all or nothing): {len(failures)} of {len(calls)} "
            f"instances failed.\n{said}" + "\n".join(failures)
        )
    print(f"{title}: all {len(calls)} instances pass ({points:g} points)")


def _graded_own_values(decision: str, call: tuple, namespace: dict, timeout: float | None):
    """A graded decision's own values (see `own_values`), once per (decision, case) a kernel:
    not for a value function that already ran out of time, as the grader skips it."""
    key = (decision, call[3].key)
    if key not in GRADING_OWN_VALUES:
        outcome = GRADING_OUTCOMES.get(key)
        value = value_function(decision)
        usable = value not in GRADING_BROKEN and outcome is not None
        values = namespace.get(value) if usable else None
        GRADING_OWN_VALUES[key] = own_values(values, *call, outcome, timeout) if usable else None
    return GRADING_OWN_VALUES[key]


def own_values(values, game, state, args: tuple, case: Case, outcome: Outcome, timeout):
    """The student's own values of the root's children, by `values` (the notebook's value
    function beside a decision), when the decision's move is a legal action that is wrong;
    else None. As in the grader (`autograder.grading.own_values`): children searched with one
    ply less in a depth-limited search, the mover's component of a max-n vector, and none of
    these calls counted as the decision's, nor as what later calls carry."""
    if not callable(values) or outcome.status != "returned" or (args and args[0] < 1):
        return None
    chosen = legal_action(case, outcome.value)
    if chosen is None or chosen in case.optimal:
        return None
    below = (args[0] - 1, *args[1:]) if args else ()
    children = []
    for action in case.legal:
        children.append(call_aside(values, game, game.result(state, action), below, timeout))
        if children[-1].status != "returned":
            return None
    mover = game.to_move(state)
    return own_scores(children, mover if type(mover) is int else None)


# -- the public self-checks --------------------------------------------------------------------


def self_check(function, game, state, args: tuple, case: Case, kind: str) -> None:
    """Judge one call of `function` as the hidden tests would, and say what went wrong.

    Prints `ok` when the case passes, or a note if the function is not written yet (it raises
    NotImplementedError); otherwise raises AssertionError with what was expected, what came back
    and a hint (inside `judged_together`, once every check of the function has run).
    """
    label = getattr(function, "__name__", "your function")
    outcome = call_function(function, game, state, args, SELF_CHECK_TIMEOUT)
    if outcome.status == "raised" and outcome.error.startswith("NotImplementedError"):
        _not_written_yet(label)
        return
    decision = bool(case.legal)
    answer_kind = "decision" if decision else "vector" if kind == "vector" else "value"
    answer = judge(answer_kind, label, case, outcome)
    failure, scores = "", None
    if not answer.passed:
        if decision:
            values = getattr(function, "__globals__", {}).get(value_function(label))
            scores = own_values(values, game, state, args, case, outcome, SELF_CHECK_TIMEOUT)
        blamed = ""
        if picked_by_own_values(case, outcome, scores):
            blamed = own_values_hint(label, case, outcome, scores)
        failure = _answer_failure(label, answer, blamed)
        answer = replace(answer, hint=blamed or answer.hint)
    elif kind == "pruning":
        verdict = judge_pruning(case, outcome, decision)
        if not verdict.passed:
            failure = (
                f"{case.name}: your {label} generated {outcome.states:,} states here, the "
                f"reference {case.states:,}" + (f": {verdict.hint}" if SELF_CHECK_HINTS else "")
            )
    if SELF_CHECK_TOGETHER is not None:
        SELF_CHECK_TOGETHER.append((label, case, outcome, answer, failure, scores))
    elif failure:
        raise AssertionError(failure)
    if not failure:
        shown = " or ".join(map(repr, case.optimal)) if decision else number_text(case.value)
        extra = f" with {outcome.states:,} states" if kind == "pruning" else ""
        print(f"ok  {case.name}: {shown}{extra}")


def _answer_failure(label: str, answer, blamed: str = "") -> str:
    hint = f". Hint: {blamed or answer.hint}" if answer.hint and SELF_CHECK_HINTS else ""
    return f"{answer.instance}: {label} should give {answer.expected}, but got {answer.got}{hint}"


class judged_together:  # noqa: N801 - read as a phrase: `with judged_together():`
    """Run a function's self-checks, then judge the failed ones together: the message names
    the one mistake every failed check fits (as the grader's feedback does), then the first
    failed check with its evidence."""

    def __enter__(self) -> None:
        global SELF_CHECK_TOGETHER
        SELF_CHECK_TOGETHER = []

    def __exit__(self, kind, error, trace) -> bool:
        global SELF_CHECK_TOGETHER
        collected, SELF_CHECK_TOGETHER = SELF_CHECK_TOGETHER or [], None
        failed = [item for item in collected if item[4]]
        if kind is not None or not failed:
            return False
        label = failed[0][0]
        decision = bool(failed[0][1].legal)
        judged = [(case, outcome, answer) for _, case, outcome, answer, *_ in collected]
        if decision:
            header, verdicts = judge_decisions(label, judged, [item[5] for item in collected])
        else:
            header, verdicts = judge_together(label, judged, decision)
        first = next(i for i, item in enumerate(collected) if item[4])
        message = collected[first][4]
        if verdicts[first].hint != collected[first][3].hint and SELF_CHECK_HINTS:
            message = _answer_failure(label, verdicts[first])
        count = f"{len(failed)} of {len(collected)} self-checks of {label} failed"
        said = f"Diagnosis: {header}. " if header and SELF_CHECK_HINTS else ""
        raise AssertionError(f"{said}{count}; the first: {message}")


def _not_written_yet(label: str) -> None:
    if label not in SELF_CHECK_MISSING:
        SELF_CHECK_MISSING.add(label)
        print(
            f"{label} raises NotImplementedError: its self-checks will run once it (and what "
            "it calls) is written."
        )


def _pairs(mapping: dict | None) -> tuple:
    return tuple((mapping or {}).items())


def check_value(
    function, name: str, game, state, value, args: tuple = (), hints=None, suspects=None
) -> None:
    """Self-check: `function(game, state, *args)` must return the number `value`.

    `hints` maps wrong values a known mistake gives here to the hint that names it, `suspects`
    to the words of each mistake that gives it (the function's checks are judged together).
    """
    case = Case(0, name, game.to_move(state), value=value, depth_limited=len(args) == 2,
                value_hints=_pairs(hints), suspects=_pairs(suspects))  # fmt: skip
    self_check(function, game, state, args, case, "value")


def check_vector(function, name: str, game, state, value: tuple, hints=None, suspects=None) -> None:
    """Self-check: `function(game, state)` must return the utility vector `value` (max-n).

    `hints` maps wrong vectors a known mistake gives here to the hint that names it, and
    `suspects` to the words of each mistake that gives it.
    """
    case = Case(0, name, value=tuple(value), value_hints=_pairs(hints), suspects=_pairs(suspects))
    self_check(function, game, state, (), case, "vector")


def _decision_case(
    name: str, game, state, optimal: tuple, child_values, hints=None, suspects=None
) -> Case:
    """A decision's case; at a max-n node (a player number moves) the mover maximises."""
    legal = tuple(game.actions(state))
    mover = "MIN" if game.to_move(state) == "MIN" else MAX
    best = (max if mover == MAX else min)(child_values)
    return Case(0, name, mover, legal, best, tuple(optimal), tuple(child_values),
                decision_hints=_pairs(hints), suspects=_pairs(suspects))  # fmt: skip


def check_decision(
    function,
    name: str,
    game,
    state,
    optimal: tuple,
    child_values: list,
    args: tuple = (),
    hints: dict | None = None,
    suspects: dict | None = None,
) -> None:
    """Self-check: `function(game, state, *args)` must return one of the `optimal` actions.

    `child_values` lists the value of each legal action, in `game.actions(state)` order;
    `hints` maps a wrong action a known mistake picks to the hint that names it, `suspects`
    to the words of each mistake that picks it.
    """
    case = _decision_case(name, game, state, optimal, child_values, hints, suspects)
    self_check(function, game, state, args, case, "decision")


def check_states(
    function, name: str, game, state, answer: Any, states: int, causes=None, suspects=None
) -> None:
    """Self-check: the right answer, generating about as many states as the reference.

    `answer` is the value, or for a decision a pair (optimal actions, child values). The states
    generated must lie within [ceil(states / 1.25), floor(states * 1.25)]; `causes` maps the
    counts of known mistakes to the hint that names each, `suspects` the wrong answers of
    known mistakes to their words.
    """
    if isinstance(answer, tuple):
        case = _decision_case(name, game, state, *answer)
    else:
        case = Case(0, name, game.to_move(state), value=answer)
    case = replace(case, states=states, fewest=states, causes=_pairs(causes),
                   suspects=_pairs(suspects))  # fmt: skip
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
