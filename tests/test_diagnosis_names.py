"""The diagnosis names the mistake that explains a function's wrong answers, once, in words its
assignment's lectures taught: each mistake here is a submission graded by the grader, and the
record's diagnosis (what the class page files it under) is that mistake and no other."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.grading import cases
from autograder.grading.grade import Settings, grade
from autograder.grading.load import Submission, load
from autograder.grading.mistakes import mistake
from autograder.grading.rules import ASSIGNMENT_RULES, rules
from autograder.reports.diagnoses import diagnosed
from autograder.sandbox import Limits, build_import_view

ALPHABETA = """
import math
from games import MAX


def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        value = -math.inf
        for action in game.actions(state):
            value = max(value, alphabeta_value(game, game.result(state, action), {down}))
            {raise_alpha}
            if {max_cut}:
                break
        return value
    value = math.inf
    for action in game.actions(state):
        value = min(value, alphabeta_value(game, game.result(state, action), {down}))
        beta = min(beta, value)
        if alpha >= beta:
            break
    return value
"""
CHILDREN_SWAPPED = ALPHABETA.format(
    down="beta, alpha", raise_alpha="alpha = max(alpha, value)", max_cut="alpha >= beta"
)
ALPHA_NEVER_RAISED = ALPHABETA.format(down="alpha, beta", raise_alpha="", max_cut="value >= beta")
HORIZON_AT_MAX_ONLY = """
from games import MAX


def depth_limited_value(game, state, depth, evaluate):
    if game.is_terminal(state):
        return game.utility(state)
    children = [game.result(state, action) for action in game.actions(state)]
    if game.to_move(state) == MAX:
        if depth == 0:
            return evaluate(state)
        return max(depth_limited_value(game, child, depth - 1, evaluate) for child in children)
    return min(depth_limited_value(game, child, depth - 1, evaluate) for child in children)
"""


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


@pytest.mark.parametrize(
    ("source", "assignment", "mistake_id"),
    [
        (CHILDREN_SWAPPED, "alphabeta", "children_swapped"),
        (ALPHA_NEVER_RAISED, "alphabeta", "alpha_never_raised"),
        (HORIZON_AT_MAX_ONLY, "depth_limited", "horizon_at_max_only"),
    ],
    ids=["children_given_beta_alpha", "alpha_never_raised", "horizon_at_max_only"],
)
def test_the_mistake_is_named_and_filed_alone(
    view: Path, tmp_path: Path, source: str, assignment: str, mistake_id: str
) -> None:
    path = tmp_path / f"{mistake_id}.py"
    path.write_text(source, encoding="utf-8")
    submission = Submission(mistake_id, (path,))
    settings = Settings(Limits(isolation="process"), view, ASSIGNMENT_RULES[assignment])
    record = grade(submission, load(submission), settings)
    entry = mistake(mistake_id)
    lost = [r for r in record.rules if r.points < r.max_points and r.id in entry.loses]
    assert lost, "the mistake must cost points"
    hints = [v.hint for r in lost for g in r.groups for v in g.verdicts if not v.passed]
    hints = [hint for hint in hints if "is not defined" not in hint]  # only the value is written
    named = [hint for hint in hints if entry.hint in hint]
    assert 2 * len(named) >= len(hints)
    assert diagnosed(record) - {"a function not defined"} == {entry.label}


def test_minimax_hints_use_only_what_the_minimax_lecture_taught() -> None:
    for rule in rules():
        for group in rule.groups:
            if not group.function.startswith("minimax"):
                continue
            for instance in group.instances:
                case = cases.case(group.function, instance)
                for _, hint in case.value_hints + case.decision_hints:
                    assert not {"window", "alpha", "beta", "cut-off"} & set(
                        hint.replace(",", " ").replace("(", " ").split()
                    ), hint
