"""What a student's record says their mistakes are: a hint's words name a mistake of the
catalogue (or one the judge describes), and a rule's lost instances name one diagnosis at most.

The class page ranks the mistakes by these; the feedback page says each one once.
"""

from __future__ import annotations

from autograder.grading.judge import DECISION_GUESSES, VALUE_GUESSES
from autograder.grading.mistakes import MISTAKES, mistake
from autograder.grading.records import GradeRecord
from autograder.grading.together import LAST_CLAUSE, OWN_VALUES, WORST_CLAUSE, value_function

CARRIED_LABEL = "a table kept between calls"
"""The label of a search that answers from positions an earlier call stored."""

# A mistake is recognised by the words its hint uses: those of the catalogue
# (autograder/grading/mistakes.py) first, then what the judge says of answers no known mistake
# explains.
_OTHER_HINTS = (
    (WORST_CLAUSE, mistake("root_picks_min").label),
    (LAST_CLAUSE, mistake("last_child").label),
    ("looks one ply less than asked", "depth convention: searches one ply too shallow"),
    ("fewer states than a correct alpha-beta", "prunes before a branch is proven irrelevant"),
    ("your table carries positions over from an earlier call", CARRIED_LABEL),
    ("is the value of action", "a decision that returns a value instead of an action"),
    ("a decision must be one of the legal actions", "a decision that is not a legal action"),
    ("a value must be a plain int or float", "a value that is not a number"),
    ("an infinite value", "an infinite value: a running value never updated"),
    ("looks like a starting sentinel", "a finite starting value returned at a finished game"),
    ("write the function body", "a function not written yet"),
    ("is not defined", "a function not defined"),
    ("an infinite loop, or a search far larger", "no answer in time"),
    ("the error happened inside your function", "an exception inside the function"),
)
_LABELS = (*((m.hint, m.label) for m in MISTAKES), *_OTHER_HINTS)


def mistake_label(hint: str) -> str | None:
    """The mistake a verdict's hint names, in a few words; the mistakes a hint that names
    several ("either ... or ...") names, joined by "or"; None if it names none."""
    labels = list(dict.fromkeys(label for words, label in _LABELS if words in hint))
    return " or ".join(labels) if labels else None


_GUESSES = (*DECISION_GUESSES, *VALUE_GUESSES)
"""The words of the judge's fallback hints: where to look when no known mistake gives the
answer. They guess, so they diagnose a function only when nothing else does."""


CELL_CAUSES = (
    ("has a syntax error", "a code cell with a syntax error"),
    ("raised an exception", "a code cell that raised an exception"),
)
"""What a record is filed under when a cell did not run: the cause of its missing functions."""


def cell_failed(message: str) -> bool:
    """Whether `message` says a code cell did not run (a syntax error, or an exception that is
    not one of the notebook's own failed checks): the cause of the missing names it leaves."""
    own_check = "raised an exception: AssertionError" in message
    return (
        message.startswith("code cell")
        and not own_check
        and any(words in message for words, _ in CELL_CAUSES)
    )


def diagnosed(record: GradeRecord) -> set[str]:
    """The mistakes a student makes (see `rule_diagnoses`), a cell that did not run filed by
    its cause rather than by the functions it left undefined."""
    found = rule_diagnoses(record)
    causes = {
        label
        for message in record.messages
        if cell_failed(message)
        for words, label in CELL_CAUSES
        if words in message
    }
    if causes:
        found = (found - {"a function not defined"}) | causes
    return found


def rule_diagnoses(record: GradeRecord) -> set[str]:
    """The mistakes a student makes, one per rule at most, so a student is counted once under
    a mistake however many rules show it.

    A rule's diagnosis is the one mistake its function's instances, judged together, name
    (`RuleResult.diagnosis`); failing that, what most of its lost instances' hints name
    (`_most_named`; a call not run because an earlier one failed is left out). A decision's
    instances that are right for the values the student's own value function gives are that
    function's mistake, not the decision's: left out (a decision wrong on its own is still
    diagnosed, but not by the place of its move, the worst or the last action, which a failing
    value function explains as well). A pruning rule is left out when its value function lost
    points: its answers are judged there."""
    lost_values = {rule.id for rule in record.rules if rule.points < rule.max_points}
    found, guessed = set(), set()
    for rule in record.rules:
        family = rule.id.removesuffix("_pruning") + "_value"
        if family != rule.id and family in lost_values:
            continue
        diagnosis = "\n".join(line for line in rule.diagnosis.split("\n") if not _own_values(line))
        # Over a failing value function, the decision's "worst" or "last" action may be its
        # wrong values' pick: the value function's mistake explains it, not this one.
        doubt = _POSITIONAL if _value_lost(rule.id, lost_values) else ()
        named_once = mistake_label(diagnosis) if diagnosis else None
        if named_once:  # the function's instances judged together name it
            if named_once not in doubt:
                found.add(named_once)
            continue
        hints = [
            v.hint
            for g in rule.groups
            for v in g.verdicts
            if not v.passed
            and not v.got.endswith("not run")  # effects of an earlier failure
            and not _own_values(v.hint)
        ]
        label, sure = _most_named(hints)
        if label and label not in doubt:
            (found if sure else guessed).add(label)
    return found or guessed  # the judge's guesses only for a student nothing else names


_POSITIONAL = (mistake("root_picks_min").label, mistake("last_child").label)
"""What a wrong move's place says (the worst action, the last one), not what the search did."""


def _value_lost(rule_id: str, lost_values: set[str]) -> bool:
    """Whether `rule_id` is a decision whose value function lost points."""
    return rule_id.endswith("_decision") and value_function(rule_id) in lost_values


def _own_values(said: str) -> bool:
    """Whether `said` points a decision at its own value function (`together.OWN_VALUES`)."""
    return OWN_VALUES.partition("{")[0] in said


def _labels_of(hint: str) -> set[str]:
    """The labels `hint` names: the catalogue's, or if none, what the judge describes."""
    catalogued = {m.label for m in MISTAKES if m.hint in hint}
    return catalogued or {label for words, label in _LABELS if words in hint}


def _most_named(hints: list[str]) -> tuple[str, bool]:
    """The label that names the most of `hints` when it names at least half of them (a hint on
    a single instance can be a coincidence), hints that name one mistake for certain (not the
    judge's guesses, `_GUESSES`, nor "either ... or ...") breaking a tie; else the one label
    every hint shares; else "". With whether a certain hint named it (not guesses alone)."""
    named = [_labels_of(hint) for hint in hints]
    counts: dict[str, list[int]] = {}
    for hint, labels in zip(hints, named, strict=True):
        sure = int(len(labels) == 1 and not _guessed(hint))
        for label in labels:
            counts.setdefault(label, [0, 0])
            counts[label][0] += 1
            counts[label][1] += sure
    if not counts:
        return "", False
    label = max(sorted(counts), key=lambda name: counts[name])  # most named, then most sure
    if 2 * counts[label][0] >= len(hints):
        return label, counts[label][1] > 0 or counts[label][0] == len(hints)
    common = set.intersection(*named)
    return (next(iter(common)), True) if len(common) == 1 else ("", False)


def _guessed(hint: str) -> bool:
    return any(words in hint for words in _GUESSES)
