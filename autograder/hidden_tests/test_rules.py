"""Each rule group is a hidden test; it passes when every instance of the group passes."""

from __future__ import annotations

import pytest

from autograder.grading.records import GradeRecord
from autograder.grading.rules import selected_rules


def _cases() -> list:
    cases = []
    for rule in selected_rules():  # the default rules, which `graded` grades
        for group in rule.groups:
            cases.append(
                pytest.param(
                    rule.id,
                    group.name,
                    marks=pytest.mark.rule(rule.id, points=group.points),
                    id=f"{rule.id}[{group.name}]",
                )
            )
    return cases


@pytest.mark.parametrize("rule_id, group_name", _cases())
def test_group(graded: GradeRecord, rule_id: str, group_name: str) -> None:
    rule = next(r for r in graded.rules if r.id == rule_id)
    group = next(g for g in rule.groups if g.name == group_name)
    failed = [v for v in group.verdicts if not v.passed]
    assert group.verdicts, f"not graded: {graded.status}; {list(graded.messages)}"
    assert not failed, "\n".join(
        f"{v.instance}: expected {v.expected}, got {v.got}. {v.hint}" for v in failed
    )


def test_the_submission_scores_full_marks(graded: GradeRecord) -> None:
    assert graded.score == graded.max_score == 100, list(graded.messages)
