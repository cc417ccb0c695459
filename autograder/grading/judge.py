"""The one judge: a student's answer against the reference's case, as pure data to a verdict.

This module needs only the standard library, so the grader, the notebooks' hidden tests and
self-checks (`autograder.platforms.nbgrader_export` pastes this source into them) and the Gradescope
bundle all judge with the same code. A `Case` holds what the reference expects of one call and
the hints for the answers known mistakes give (computed once, by `autograder.grading.cases`); an
`Outcome` holds what came back, with the value already plain (`plain` in the notebook's kernel,
`decode` of the sandbox's reply in the grader); `judge(kind, case, outcome)` gives a `Verdict`.

The kinds: "value" (a number), "vector" (a tuple of numbers, one per player: max-n),
"decision" (an action) and "pruning" (an answer and the states generated).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from autograder.grading.plain import SHOWN, Opaque, _too_large, show

PRUNING_SLACK = 1.25
"""A pruning instance passes when the states generated are at most this many times the
reference alpha-beta's count on it (rounded down), at least its `fewest` count divided by it
(rounded up), and the answer is right.

Every correct formulation (fail-hard, fail-soft, negamax, any tie-breaking at the root, the
cut-off test written before or after updating alpha) generates exactly the reference's count on
trees whose leaf values are all different, and the root carrying its window is part of correct
alpha-beta. The slack leaves room for harmless extra work, such as testing the cut-off at the top
of the loop after generating the next child. The circulating mistakes generate far more: a fresh
(-inf, +inf) window for each child, all children generated before the loop, a MIN node that never
cuts off, cut-offs not passed up, and plain minimax (tests/test_rule_mutants.py,
tests/test_grader_class.py). A strict cut-off (prune only when alpha > beta) is correct
alpha-beta too: it generates the same states when no two leaves tie and loses only the
tic-tac-toe group, where ties are everywhere.
"""


@dataclass(frozen=True)
class Case:
    """What the reference expects of one call of a graded function on one instance.

    `value` is the reference's value (for a decision, the best child's); a decision also has
    the `optimal` actions and every action's `child_values`, in the order of `legal`. `states`
    is the reference alpha-beta's count, `fewest` the fewest a correct alpha-beta may generate
    (fewer where a transposition table finds positions again). The hints are (answer, hint)
    pairs: values, actions or state counts that a known mistake gives here.
    """

    key: int
    name: str
    to_move: str = "MAX"
    legal: tuple = ()
    value: float | None = None
    optimal: tuple = ()
    child_values: tuple = ()
    states: int = 0
    fewest: int = 0
    depth_limited: bool = False
    value_hints: tuple = ()
    decision_hints: tuple = ()
    causes: tuple = ()
    suspects: tuple = ()
    count_suspects: tuple = ()


@dataclass(frozen=True)
class Outcome:
    """What one call returned: `status` is "returned", "raised", "timeout", "overrun",
    "crashed" or "skipped"; `value` is plain (see `plain`); `states` were generated; a call
    that raised says `where` in the student's code ("function (code cell 3, line 7): the
    line"), when a frame of it was the student's. `carried` counts the positions the search
    met that an earlier call had met, and answered without searching them (the root, or a
    position that is not terminal, and no child generated from it): a table kept between calls
    found them. A depth-limited search counts a position below its root only within its horizon
    (fewer plies below the root than its depth), where a search expands every position, and
    also one an earlier depth-limited call evaluated; it names the table in the hints.
    """

    status: str
    value: Any = None
    error: str = ""
    states: int = 0
    where: str = ""
    carried: int = 0


@dataclass(frozen=True)
class Verdict:
    """The judgement of one instance, as plain data for the report.

    The grader adds the instance's `picture` and, for a small tree, the states the student's
    search and the reference's `visited`.
    """

    instance: str
    passed: bool
    expected: str
    got: str
    hint: str = ""
    states: int | None = None
    threshold: int | None = None
    picture: str = ""
    visited: tuple = ()
    reference_visited: tuple = ()

    def to_dict(self) -> dict:
        """The fields as a dict; a shallow copy is enough, since every field is immutable."""
        return dict(vars(self))


# -- hints -----------------------------------------------------------------------------------


DECISION_GUESSES = ("; it is the worst action for the player to move", "; it is the last action")
"""The words of `decision_hint`'s guesses, when no known mistake picks the action."""

VALUE_GUESSES = (
    "check that terminal states use utility (even at the horizon)",
    "compare your MAX and MIN cases",
)
"""The words of `value_hint`'s guesses, when no known mistake gives the value."""


def failure_text(outcome: Outcome) -> tuple[str, str]:
    """What came back and a hint, for a call that did not return."""
    if outcome.status == "raised":
        if outcome.error.startswith("NotImplementedError"):
            return "not implemented (raises NotImplementedError)", "write the function body"
        if outcome.where:
            return f"raised {outcome.error[:SHOWN]}", f"the error happened in {outcome.where}"
        return f"raised {outcome.error[:SHOWN]}", "the error happened inside your function"
    if outcome.status == "timeout":
        return "no answer in time", "an infinite loop, or a search far larger than needed"
    if outcome.status == "overrun":
        return "stopped: too many states generated", outcome.error
    if outcome.status == "skipped":
        return "not run", outcome.error
    return f"the process failed: {outcome.error[:SHOWN]}", "see the messages above"


def sentinel_hint(value: float) -> str:
    """A hint if `value` looks like a running value's finite starting sentinel, else "".

    A whole number of at least 999 whose digits are all 9s, or a 1 and 0s, or a largest
    machine integer, looks like a start chosen to be beaten (-9999, 1000, 10**9, 2**31 - 1):
    no instance's utilities or evaluations come near it.
    """
    if not math.isfinite(value) or abs(value) < 999 or abs(value) != int(abs(value)):
        return ""
    digits = str(int(abs(value)))
    looks = set(digits) == {"9"} or (digits[0] == "1" and set(digits[1:]) == {"0"})
    if not looks and abs(value) not in (2**31 - 1, 2**63 - 1):
        return ""
    return (
        f"{value!r} looks like a starting sentinel: a running value that no child replaced. A "
        "state without actions is a finished game: test is_terminal(state) first and return "
        "utility(state), at every node and inside the horizon too"
    )


def carried_hint(carried: int, pruning: bool = False) -> str:
    """What a table kept between calls does wrong, for a search that met `carried` positions
    of earlier calls and answered them without searching them."""
    count = "1 position" if carried == 1 else f"{carried:,} positions"
    said = f"your table carries positions over from an earlier call ({count} here answered "
    said += "from it, not searched)"
    if pruning:
        return (
            f"{said}, so this count leaves out work an earlier call did: pruning is judged on "
            "one search, so start each search with an empty table"
        )
    return (
        f"{said}: an entry stored by another search holds what that search's window "
        "made of the position, which need not be its value here; start each search with an "
        "empty table"
    )


def value_hint(case: Case, value: float) -> str:
    """Why a wrong number is wrong: the known mistake that gives it, or where to look."""
    if math.isinf(value):
        return "an infinite value: a running value that was never updated (no child examined?)"
    known = sentinel_hint(value) or dict(case.value_hints).get(value)
    if known:
        return known
    if case.depth_limited:
        return (
            "check that terminal states use utility (even at the horizon), that a utility of 0 "
            "is not treated as missing, and that evaluate scores from MAX's point of view"
        )
    return "compare your MAX and MIN cases with the lecture's pseudo-code"


def decision_hint(case: Case, chosen: Any) -> str:
    """Why the legal action `chosen` is not optimal: its value, and the likely mistake.

    An action a known mistake picks gets that mistake's hint; otherwise picking the worst or
    the last action is named.
    """
    values = dict(zip(case.legal, case.child_values, strict=True))
    pick, worst_of = (max, min) if case.to_move == "MAX" else (min, max)
    worth, best = number_text(values[chosen]), number_text(pick(values.values()))
    hint = f"that action is worth {worth}, the best is worth {best}"
    known = dict(case.decision_hints).get(chosen)
    if known:
        return f"{hint}; {known}"
    worst = values[chosen] == worst_of(values.values()) and len(set(values.values())) > 1
    last = chosen == case.legal[-1]
    if worst and last:  # either mistake picks it: name both
        hint += (
            "; it is the last action, and the worst one for the player to move: is the best "
            "action updated only on an improvement, and is max/min the right way round?"
        )
    elif worst:
        hint += "; it is the worst action for the player to move: is max/min the right way round?"
    elif last:
        hint += "; it is the last action: is the best action updated only on an improvement?"
    return hint


def not_an_action_hint(case: Case, returned: Any) -> str:
    """Why `returned` is not a decision: what it looks like instead."""
    legal = list(case.legal)
    hint = f"a decision must be one of the legal actions {legal}"
    if returned is None:
        return hint + "; None usually means no action ever beat the starting best value"
    if type(returned) in (int, float) and not _too_large(returned):
        valued = [a for a, v in zip(legal, case.child_values, strict=True) if v == returned]
        if valued:
            action = next((a for a in valued if a in case.optimal), valued[0])
            return (
                f"{returned!r} is the value of action {action!r}: a decision returns the action "
                f"itself, one of {legal}"
            )
    served = isinstance(returned, Opaque) and returned.text.startswith("a state of the game")
    if served or isinstance(returned, tuple | list | str):
        hint += "; it looks like a state or a pair, not an action: return the action itself"
    return hint


# -- judging ---------------------------------------------------------------------------------


def number_text(value: Any) -> str:
    """An expected value as a student reads it: a float's rounding noise from summing
    probabilities left out (2.4, not 2.4000000000000004); a tuple's numbers each so."""
    if isinstance(value, tuple):
        inner = ", ".join(number_text(item) for item in value)
        return f"({inner}{',' if len(value) == 1 else ''})"
    if type(value) is not float or not math.isfinite(value):
        return repr(value)
    short = round(value, 10)
    return repr(short) if abs(short - value) <= 1e-12 * abs(value) else repr(value)


def expected_text(kind: str, case: Case, decision: bool, slack: float = PRUNING_SLACK) -> str:
    """What the reference expects, in words."""
    if kind == "pruning":
        threshold = math.floor(slack * case.states)
        return (
            f"at most {threshold:,} states generated (the reference: {case.states:,}) and a "
            f"correct {'move' if decision else 'value'}"
        )
    if decision:
        values = dict(zip(case.legal, case.child_values, strict=True))
        described = " or ".join(repr(a) for a in case.optimal)
        shown = ", ".join(f"{action!r}: {number_text(value)}" for action, value in values.items())
        return f"{described} (values of the actions: {{{shown}}})"
    return number_text(case.value)


def judge_value(case: Case, outcome: Outcome) -> Verdict:
    expected = expected_text("value", case, decision=False)
    if outcome.status != "returned":
        got, hint = failure_text(outcome)
        return Verdict(case.name, False, expected, got, hint)
    value, got = outcome.value, show(outcome.value)
    if type(value) not in (int, float):
        kind = "True/False" if isinstance(value, bool) else "that"
        hint = f"a value must be a plain int or float; {kind} is not a number here"
        return Verdict(case.name, False, expected, got, hint)
    if _too_large(value):
        hint = (
            "an integer too large for any value here (beyond the range of a float): use "
            "math.inf and -math.inf for infinity"
        )
        return Verdict(case.name, False, expected, got, hint)
    if math.isclose(value, case.value, rel_tol=1e-9, abs_tol=1e-9):
        return Verdict(case.name, True, expected, got)
    # A known mistake's value may be a coincidence; an answer without a single child is not.
    known = value in dict(case.value_hints) or sentinel_hint(value) or math.isinf(value)
    if outcome.carried and (outcome.states == 0 or not known):
        return Verdict(case.name, False, expected, got, carried_hint(outcome.carried))
    return Verdict(case.name, False, expected, got, value_hint(case, value))


def judge_vector(case: Case, outcome: Outcome) -> Verdict:
    """A max-n value: a tuple (or list) with one number per player, each equal to the
    reference's."""
    expected = number_text(case.value)
    if outcome.status != "returned":
        got, hint = failure_text(outcome)
        return Verdict(case.name, False, expected, got, hint)
    value, got = outcome.value, show(outcome.value)
    numbers = isinstance(value, tuple | list) and all(
        type(item) in (int, float) and not _too_large(item) for item in value
    )
    if not numbers or len(value) != len(case.value):
        hint = (
            f"a max-n value is a tuple of {len(case.value)} numbers, one utility per player "
            "(player 0 first), as game.utilities(state) gives at the end of the game"
        )
        if type(value) in (int, float):
            hint += "; a single number is one player's view only"
        return Verdict(case.name, False, expected, got, hint)
    close = all(
        math.isclose(mine, theirs, rel_tol=1e-9, abs_tol=1e-9)
        for mine, theirs in zip(value, case.value, strict=True)
    )
    if close:
        return Verdict(case.name, True, expected, got)
    hint = dict(case.value_hints).get(tuple(value)) or (
        "at each node, the player to move (game.to_move(state)) takes the child whose "
        "component for that player is largest, the first such child on a tie"
    )
    return Verdict(case.name, False, expected, got, hint)


def judge_decision(case: Case, outcome: Outcome) -> Verdict:
    expected = expected_text("decision", case, decision=True)
    if outcome.status != "returned":
        got, hint = failure_text(outcome)
        return Verdict(case.name, False, expected, got, hint)
    action, got = outcome.value, show(outcome.value)
    matches = [a for a in case.legal if type(a) is type(action) and a == action]
    if not matches:
        return Verdict(case.name, False, expected, got, not_an_action_hint(case, action))
    if matches[0] in case.optimal:
        return Verdict(case.name, True, expected, got)
    hint = decision_hint(case, matches[0])
    if outcome.carried and matches[0] not in dict(case.decision_hints):  # rather than a guess
        hint = hint.partition("; ")[0] + "; " + carried_hint(outcome.carried)
    return Verdict(case.name, False, expected, got, hint)


def judge_pruning(
    case: Case, outcome: Outcome, decision: bool, slack: float = PRUNING_SLACK
) -> Verdict:
    """The answer must be right and the states generated within [ceil(fewest / slack),
    floor(states * slack)]."""
    answer = (judge_decision if decision else judge_value)(case, outcome)
    threshold = math.floor(slack * case.states)
    base = {
        "instance": case.name,
        "expected": expected_text("pruning", case, decision, slack),
        "got": f"{outcome.states:,} states generated; {answer.got}",
        "states": outcome.states,
        "threshold": threshold,
    }
    if not answer.passed:
        hint = "pruning points go only with correct answers: " + (answer.hint or "see above")
        return Verdict(passed=False, hint=hint, **base)
    floor = math.ceil(case.fewest / slack)
    if outcome.states < floor and outcome.carried:
        said = carried_hint(outcome.carried, pruning=True)
        hint = f"fewer states than a search of this position alone generates: {said}"
        return Verdict(passed=False, hint=hint, **base)
    if outcome.states < floor:
        hint = (
            "fewer states than a correct alpha-beta generates here, even with a transposition "
            f"table (at least {floor:,}): some branch is cut off before it is proven irrelevant "
            "(for example beta = min(alpha, value) in the MIN case), so right answers here are "
            "luck"
        )
        return Verdict(passed=False, hint=hint, **base)
    if outcome.states > threshold:
        hint = dict(case.causes).get(
            outcome.states,
            "look for children generated twice, a window not passed down, or a cut-off that "
            "does not stop the loop",
        )
        return Verdict(passed=False, hint=hint, **base)
    return Verdict(passed=True, **base)


def judge(
    kind: str, function: str, case: Case, outcome: Outcome, slack: float = PRUNING_SLACK
) -> Verdict:
    """Judge `outcome` against `case` for a rule of this `kind` ("value", "vector", "decision"
    or "pruning"); a pruning rule judges the moves of a `*_decision` function."""
    decision = function.endswith("_decision")
    if kind == "pruning":
        return judge_pruning(case, outcome, decision, slack)
    if kind == "vector":
        return judge_vector(case, outcome)
    return (judge_decision if decision else judge_value)(case, outcome)
