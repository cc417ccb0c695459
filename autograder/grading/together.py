"""A function's instances judged together: the one mistake that explains every failed answer.

Standard library only, as `autograder.grading.judge` (whose `Case`s it reads): the notebooks'
hidden tests and self-checks paste it after the judge (`autograder.platforms.nbgrader_export`),
so a failed self-check, a hidden test and the grader's feedback page name the same diagnosis.
A mistake is in the diagnosis when it gives the answer of every failed call (that answered) and
no wrong answer where a call passed; "either ... or ..." only when no instance tells two apart.
A wrong decision is first weighed against the student's own value function (`judge_decisions`):
where its move is a best child by the values that function gives the root's children, the
mistake is the value function's, and the decision is told so.
"""

from __future__ import annotations

import math
from typing import Any

from autograder.grading.judge import (
    Case,
    Outcome,
    Verdict,
    judge_decision,
    judge_value,
    judge_vector,
    number_text,
)
from autograder.grading.plain import _too_large

WORST_CLAUSE = (
    "the root picks the worst action for the player to move (is max/min the right way round?)"
)
LAST_CLAUSE = (
    "the root returns the last action examined (it is the last action: is the best action "
    "replaced only on a strict improvement?)"
)
"""What the judge's two guesses at a wrong decision say, as mistakes `judge_together` weighs."""


def _same_answer(answer: Any, other: Any) -> bool:
    """Equal answers, numbers up to float rounding (a sum of probabilities), tuples item by item."""
    if isinstance(answer, tuple | list) and isinstance(other, tuple | list):
        return len(answer) == len(other) and all(map(_same_answer, answer, other))
    numbers = type(answer) in (int, float) and type(other) in (int, float)
    if numbers:
        return math.isclose(answer, other, rel_tol=1e-9, abs_tol=1e-9)
    return type(answer) is type(other) and answer == other


def suspected(case: Case, decision: bool) -> dict[str, list]:
    """The wrong answers each suspected mistake gives on `case`, keyed by its words: the
    catalogue's re-enacted mistakes, and for a decision the worst and the last action."""
    found: dict[str, list] = {}
    for answer, words in case.suspects:
        for said in words:
            found.setdefault(said, []).append(answer)
    if decision and case.legal and case.to_move in ("MAX", "MIN") and case.child_values:
        worst_of = min if case.to_move == "MAX" else max
        worst = worst_of(case.child_values)
        if len(set(case.child_values)) > 1:
            picked = [a for a, v in zip(case.legal, case.child_values, strict=True) if v == worst]
            found.setdefault(WORST_CLAUSE, []).extend(a for a in picked if a not in case.optimal)
        if case.legal[-1] not in case.optimal:
            found.setdefault(LAST_CLAUSE, []).append(case.legal[-1])
    return {said: answers for said, answers in found.items() if answers}


def _answered(outcome: Outcome, case: Case, decision: bool) -> bool:
    """Whether a call gave an answer a mistake can explain: a legal action, or a number."""
    if outcome.status != "returned":
        return False
    if decision:
        return any(type(a) is type(outcome.value) and a == outcome.value for a in case.legal)
    value = outcome.value
    if isinstance(value, tuple | list):
        return all(type(item) in (int, float) for item in value)
    return type(value) in (int, float) and not _too_large(value)


def consistent_mistakes(
    judged: list[tuple[Case, Outcome, bool]], decision: bool
) -> tuple[tuple[str, ...], set[str]]:
    """The mistakes that give the answer of every failed call that answered and no wrong answer
    where the call passed (the diagnosis, in the order first met), and those some call rules
    out (a different wrong answer there, or one where the call passed)."""
    consistent: list[str] | None = None
    ruled_out: set[str] = set()
    for case, outcome, passed in judged:
        predictions = suspected(case, decision)
        if passed:
            ruled_out.update(predictions)
            continue
        if not _answered(outcome, case, decision):
            continue
        fits = [
            said
            for said, answers in predictions.items()
            if any(_same_answer(outcome.value, answer) for answer in answers)
        ]
        ruled_out.update(set(predictions) - set(fits))
        consistent = fits if consistent is None else [s for s in consistent if s in fits]
    return tuple(s for s in consistent or () if s not in ruled_out), ruled_out


def mistakes_text(words: tuple[str, ...]) -> str:
    """One mistake's words, or "either A; or B" when no instance tells them apart."""
    if len(words) == 1:
        return words[0]
    listed, look = "; or ".join(words), "both" if len(words) == 2 else "each"
    return f"either {listed} (no instance tells them apart: look for {look})"


def diagnosis_text(function: str, words: tuple[str, ...], failed: int, other: bool = False) -> str:
    """The diagnosis said once at the top of a function's section (of its `other` failed
    instances: those its value function's values do not explain)."""
    kind = "other failed instance" if other else "failed instance"
    instances = f"the {kind}" if failed == 1 else f"all {failed} {kind}s"
    return f"{function}: one mistake explains {instances}: {mistakes_text(words)}"


def evidence_hint(hint: str, words: tuple[str, ...], decision: bool) -> str:
    """An instance's hint under its function's diagnosis: what it shows, naming only `words`."""
    if decision:
        worth = hint.partition("; ")[0]
        shown = worth if worth.startswith("that action is worth") else "this action"
        return f"{shown}; it is the move a search picks when {mistakes_text(words)}"
    return f"your value equals what a search gives when {mistakes_text(words)}"


def judge_together(
    function: str, judged: list[tuple[Case, Outcome, Verdict]], decision: bool, other: bool = False
) -> tuple[str, list[Verdict]]:
    """A function's instances judged together: the diagnosis ("" if no one mistake explains
    every failed answer) and the verdicts, each failed one's hint naming only the mistakes
    no instance rules out (`other`: the failed instances left once the decision's own value
    function explained some, see `judge_decisions`)."""
    answers = [(case, outcome, verdict.passed or _right(case, outcome, decision))
               for case, outcome, verdict in judged]  # fmt: skip
    words, ruled_out = consistent_mistakes(answers, decision)
    failed = [item for item in answers if not item[2] and _answered(item[1], item[0], decision)]
    verdicts = []
    for (case, outcome, right), (_, _, verdict) in zip(answers, judged, strict=True):
        if right or not _answered(outcome, case, decision):
            verdicts.append(verdict)
            continue
        fits = [
            said
            for said, found in suspected(case, decision).items()
            if any(_same_answer(outcome.value, answer) for answer in found)
        ]
        named = tuple(words) if words else tuple(s for s in fits if s not in ruled_out)
        if not named or (not words and len(named) == len(fits)):
            verdicts.append(verdict)  # nothing to narrow: the hint names only what fits
            continue
        prefix = "pruning points go only with correct answers: "
        hint = evidence_hint(verdict.hint.removeprefix(prefix), named, decision)
        hint = prefix + hint if verdict.hint.startswith(prefix) else hint
        verdicts.append(Verdict(**{**verdict.to_dict(), "hint": hint}))
    header = diagnosis_text(function, words, len(failed), other) if words else ""
    return header, verdicts


# -- a decision and its own value function -----------------------------------------------------

OWN_VALUES = "your decision is right for the values {value} returns"
"""What a wrong decision is told when it picks a best child by the values the student's own
value function gives the root's children: the mistake is the value function's."""

PRUNING_PREFIX = "pruning points go only with correct answers: "


def value_function(decision: str) -> str:
    """The value function beside a decision: `minimax_decision` -> `minimax_value`."""
    return decision.removesuffix("_decision") + "_value"


def own_scores(outcomes: list[Outcome], mover: int | None = None) -> list | None:
    """Each root child's score by the student's own value function, in the order of the root's
    actions: the number it returned (at a max-n node, the `mover`'s component of the vector);
    None if one call gave no such number, when nothing can be confirmed."""
    scores = []
    for outcome in outcomes:
        value = outcome.value if outcome.status == "returned" else None
        if mover is not None:
            whole = isinstance(value, tuple | list) and 0 <= mover < len(value)
            value = value[mover] if whole else None
        if type(value) not in (int, float) or _too_large(value) or value != value:  # NaN
            return None
        scores.append(value)
    return scores


def legal_action(case: Case, answer: Any) -> Any:
    """The legal action `answer` is (the judge's match: equal and of the same type), or None."""
    return next((a for a in case.legal if type(a) is type(answer) and a == answer), None)


def picked_by_own_values(case: Case, outcome: Outcome, scores: list | None) -> bool:
    """Whether a wrong decision picks a best child by `scores`, the student's own values of the
    root's children (on a tie, any child with the best value), and those values are wrong: the
    decision is right for them. At a MIN node the best is the smallest."""
    if scores is None or len(scores) != len(case.legal) or case.to_move not in ("MAX", "MIN"):
        return False
    chosen = legal_action(case, outcome.value) if outcome.status == "returned" else None
    if chosen is None or chosen in case.optimal:
        return False
    best = (max if case.to_move == "MAX" else min)(scores)
    if not _same_answer(scores[case.legal.index(chosen)], best):
        return False
    return not all(map(_same_answer, scores, case.child_values))


def values_text(actions: tuple, values: list) -> str:
    """Each action with its value, as "{0: 3, 1: 2}"."""
    pairs = (f"{a!r}: {number_text(v)}" for a, v in zip(actions, values, strict=True))
    return "{" + ", ".join(pairs) + "}"


def own_values_hint(decision: str, case: Case, outcome: Outcome, scores: list) -> str:
    """The hint of a wrong decision that is right for its own value function's values."""
    value = value_function(decision)
    chosen = legal_action(case, outcome.value)
    pick = max if case.to_move == "MAX" else min
    worth = number_text(case.child_values[case.legal.index(chosen)])
    said = f"that action is worth {worth}, the best is worth {number_text(pick(case.child_values))}"
    return (
        f"{said}; {OWN_VALUES.format(value=value)}; fix {value} (it gives the actions "
        f"{values_text(case.legal, scores)}, where their values are "
        f"{values_text(case.legal, list(case.child_values))})"
    )


def judge_decisions(
    function: str, judged: list[tuple[Case, Outcome, Verdict]], scores: list
) -> tuple[str, list[Verdict]]:
    """A decision's instances judged together, after its value function: a failed instance
    whose move is a best child by the values the student's own value function gives the root's
    children (`scores`, one list or None per instance) is pointed at that function; the other
    failed instances are judged on their own (`judge_together`). The diagnosis says both."""
    confirmed = {
        index
        for index, ((case, outcome, verdict), own) in enumerate(zip(judged, scores, strict=True))
        if not verdict.passed and picked_by_own_values(case, outcome, own)
    }
    rest = [
        (case, Outcome("skipped") if index in confirmed else outcome, verdict)
        for index, (case, outcome, verdict) in enumerate(judged)
    ]
    header, verdicts = judge_together(function, rest, True, other=bool(confirmed))
    for index in confirmed:
        case, outcome, verdict = judged[index]
        hint = own_values_hint(function, case, outcome, scores[index])
        hint = PRUNING_PREFIX + hint if verdict.hint.startswith(PRUNING_PREFIX) else hint
        verdicts[index] = Verdict(**{**verdict.to_dict(), "hint": hint})
    if not confirmed:
        return header, verdicts
    failed = sum(not verdict.passed for _, _, verdict in judged)
    value = value_function(function)
    counted = "on the failed instance" if failed == 1 else f"on all {failed} failed instances"
    if len(confirmed) < failed:
        counted = f"on {len(confirmed)} of its {failed} failed instances"
    said = f"{function}: {counted}, {OWN_VALUES.format(value=value)}; fix {value}"
    return "\n".join(filter(None, (said, header))), verdicts


def _right(case: Case, outcome: Outcome, decision: bool) -> bool:
    """Whether the answer itself is right (a pruning verdict may fail on its count alone)."""
    kind = "decision" if decision else "vector" if isinstance(case.value, tuple) else "value"
    if kind == "vector":
        return judge_vector(case, outcome).passed
    return (judge_decision if decision else judge_value)(case, outcome).passed


ROOT_FORM = " (and the decision searches each root child with a fresh window)"
"""Said of a mistake's form in a decision that calls its value function with a fresh window
(`autograder.grading.cases.pruning_suspects`)."""


def judge_counts_together(
    function: str, judged: list[tuple[Case, Outcome, Verdict]]
) -> tuple[str, list[Verdict]]:
    """A pruning rule's right answers with too many states, judged together as answers are:
    the mistake whose count is the student's on every such instance and that would have failed
    none that passed (the diagnosis, "" if none), and hints naming only the mistakes no
    instance rules out."""
    consistent: list[str] | None = None
    ruled_out: set[str] = set()
    counted = []
    for case, outcome, verdict in judged:
        predictions = {}
        for count, words in case.count_suspects:
            for said in words:
                predictions.setdefault(said, []).append(count)
        if verdict.passed:
            ruled_out.update(predictions)
        elif _right(case, outcome, bool(case.legal)):  # a wrong answer is judged by the answers
            fits = [said for said, counts in predictions.items() if outcome.states in counts]
            ruled_out.update(set(predictions) - set(fits))
            consistent = fits if consistent is None else [s for s in consistent if s in fits]
            counted.append((verdict, fits))
    words = tuple(s for s in consistent or () if s not in ruled_out)
    # A mistake whose two forms both fit is named once, without the form.
    words = tuple(
        w for w in words if w.removesuffix(ROOT_FORM) == w or w[: -len(ROOT_FORM)] not in words
    )
    rewritten = {}
    for verdict, fits in counted:
        named = words or tuple(s for s in fits if s not in ruled_out)
        if named and (words or len(named) < len(fits)):
            hint = f"your count equals that of a search where {mistakes_text(named)}"
            rewritten[id(verdict)] = Verdict(**{**verdict.to_dict(), "hint": hint})
    verdicts = [rewritten.get(id(verdict), verdict) for _, _, verdict in judged]
    if not words:
        return "", verdicts
    instances = "the instance" if len(counted) == 1 else f"all {len(counted)} instances"
    header = (
        f"{function}: one mistake explains the states generated on {instances} that "
        f"generated too many: {mistakes_text(words)}"
    )
    return header, verdicts
