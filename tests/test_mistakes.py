"""The catalogue of mistakes is the one list: every place that names or re-enacts a mistake uses it.

tests/test_grader_class.py grades each entry's example student (it must lose exactly the rules
the entry says, and its feedback must name the mistake in the entry's words); tests/
test_rule_mutants.py takes each rule's mutant from an entry. These tests check that nothing
names a mistake the catalogue does not hold, and that the diagnosis can name each entry it
re-enacts on some hidden instance.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path

import pytest

from autograder.grading import beyond, cases, diagnosis
from autograder.grading.mistakes import MISTAKES, mistake
from autograder.grading.rules import ALL_RULE_IDS, rules

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


make_class = _load("make_class", ROOT / "examples" / "make_class.py")
maker = _load("make_assignments", ROOT / "assignments" / "make_assignments.py")
DIAGNOSED = {
    **diagnosis.VALUE_VARIANTS,
    **diagnosis.PRUNING_VARIANTS,
    **dict.fromkeys(diagnosis.DEPTH_LIMITED_MISTAKES),
    **beyond.CHANCE_RULES,
    **beyond.MAXN_RULES,
}


def test_ids_are_unique_and_every_entry_loses_known_rules() -> None:
    assert len({m.id for m in MISTAKES}) == len(MISTAKES)
    for entry in MISTAKES:
        assert entry.loses and set(entry.loses) <= set(ALL_RULE_IDS), entry.id
        assert {rule for rule, _ in entry.partly} <= set(entry.loses), entry.id


def test_each_example_student_of_a_mistake_is_in_the_example_class_with_its_code() -> None:
    for entry in MISTAKES:
        if entry.student:
            assert make_class.SHOULD_LOSE[entry.student] == entry.loses
            assert make_class.OVERRIDES[entry.student], entry.id


def test_the_diagnosis_and_the_bug_hunt_name_only_catalogued_mistakes() -> None:
    for mistake_id in DIAGNOSED:
        mistake(mistake_id)
    for bug in maker.BUGS:
        for mistake_id in bug.mistake_ids:
            mistake(mistake_id)
    with pytest.raises(KeyError, match="no mistake 'nonsense'"):
        mistake("nonsense")


def test_every_entry_is_reenacted_by_a_student_or_by_the_diagnosis() -> None:
    in_bug_hunt = {mistake_id for bug in maker.BUGS for mistake_id in bug.mistake_ids}
    for entry in MISTAKES:
        reenacted = entry.student or entry.id in DIAGNOSED or entry.id == "fresh_root_window"
        assert reenacted, entry.id
    assert len(in_bug_hunt) == sum(len(bug.mistake_ids) for bug in maker.BUGS) == 13


@cache
def _hints_on_every_instance() -> set[str]:
    found = set()
    for rule in rules():
        for group in rule.groups:
            for instance in group.instances:
                case = cases.case(group.function, instance)
                hints = case.value_hints + case.causes + case.decision_hints
                found |= {hint for _, hint in hints}
    return found


@pytest.mark.parametrize(
    "mistake_id",
    [*DIAGNOSED, "fresh_root_window"],
)
def test_the_diagnosis_names_each_mistake_it_reenacts_on_some_hidden_instance(mistake_id: str):
    words = mistake(mistake_id).hint
    assert any(words in hint for hint in _hints_on_every_instance())


def _hints_of_rule(rule) -> list[str]:
    hints = []
    for group in rule.groups:
        for instance in group.instances:
            case = cases.case(group.function, instance)
            hints += [hint for _, hint in case.value_hints + case.decision_hints]
    return hints


@pytest.mark.parametrize("mistake_id", list(beyond.MAXN_RULES))
def test_each_maxn_mistake_is_named_alone_on_some_instance_of_each_rule_it_loses(mistake_id):
    """The max-n mistakes give the same answers on many small trees (and on take-away, whose
    utilities are 0 or 1): each rule they lose still has an instance where a hint names only
    the one mistake."""
    entry = mistake(mistake_id)
    others = [m.hint for m in MISTAKES if m.id != mistake_id]
    for rule in rules():
        if rule.id in entry.loses:
            alone = [
                hint
                for hint in _hints_of_rule(rule)
                if entry.hint in hint and not any(words in hint for words in others)
            ]
            assert alone, (mistake_id, rule.id)
