"""A function's instances judged together: the one mistake that explains every failed answer.

Standard library only, as `autograder.grading.judge` (whose `Case`s it reads): the notebooks'
hidden tests and self-checks paste it after the judge (`autograder.platforms.nbgrader_export`),
so a failed self-check, a hidden test and the grader's feedback page name the same diagnosis.
A mistake is in the diagnosis when it gives the answer of every failed call (that answered) and
no wrong answer where a call passed; "either ... or ..." only when no instance tells two apart.
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


def diagnosis_text(function: str, words: tuple[str, ...], failed: int) -> str:
    """The diagnosis said once at the top of a function's section."""
    instances = "the failed instance" if failed == 1 else f"all {failed} failed instances"
    return f"{function}: one mistake explains {instances}: {mistakes_text(words)}"


def evidence_hint(hint: str, words: tuple[str, ...], decision: bool) -> str:
    """An instance's hint under its function's diagnosis: what it shows, naming only `words`."""
    if decision:
        worth = hint.partition("; ")[0]
        shown = worth if worth.startswith("that action is worth") else "this action"
        return f"{shown}; it is the move a search picks when {mistakes_text(words)}"
    return f"your value equals what a search gives when {mistakes_text(words)}"


def judge_together(
    function: str, judged: list[tuple[Case, Outcome, Verdict]], decision: bool
) -> tuple[str, list[Verdict]]:
    """A function's instances judged together: the diagnosis ("" if no one mistake explains
    every failed answer) and the verdicts, each failed one's hint naming only the mistakes
    no instance rules out."""
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
    header = diagnosis_text(function, words, len(failed)) if words else ""
    return header, verdicts


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
