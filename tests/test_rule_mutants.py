"""One mutant per rule: the reference with a single catalogued mistake loses exactly that rule.

Each rule's mutant is the function its example student writes with the mistake (the catalogue,
autograder/grading/mistakes.py, names the student; examples/make_class.py holds the code). The
reference's decisions call its value functions, so a broken value function would also cost the
decisions: each mutant therefore keeps a correct copy of the function it breaks, under another
name, for the other functions to use.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from example_class import make_class

from autograder.grading.grade import Settings, grade
from autograder.grading.load import Submission, load
from autograder.grading.mistakes import mistake
from autograder.grading.reference import ALL_MODULES, reference_source
from autograder.grading.rules import ALL_RULE_IDS, CHANCE_AND_MAXN_RULE_IDS, RULE_IDS, rule
from autograder.sandbox import Limits, build_import_view

ROOT = Path(__file__).resolve().parents[1]
KEEP_CORRECT = """
_correct = {{name: globals()[name] for name in {names!r}}}
"""


MAKE_CLASS = make_class

# rule id -> (the mistake, the function of its example student that breaks the rule)
MUTANTS = {
    "minimax_value": ("max_starts_at_zero", "minimax_value"),
    "minimax_decision": ("root_picks_min", "minimax_decision"),
    "alphabeta_value": ("beta_from_alpha", "alphabeta_value"),
    "alphabeta_decision": ("last_child", "alphabeta_decision"),
    "alphabeta_pruning": ("fresh_window", "alphabeta_value"),
    "depth_limited_value": ("no_terminal_test", "depth_limited_value"),
    "depth_limited_decision": ("last_child", "depth_limited_decision"),
    "expectiminimax_value": ("chance_as_max", "expectiminimax_value"),
    "expectiminimax_decision": ("chance_as_min", "expectiminimax_value"),
    "maxn_value": ("maxn_wrong_component", "maxn_value"),
    "maxn_decision": ("maxn_wrong_component", "maxn_decision"),
}
"""A decision mutant that breaks a value function (expectiminimax_decision) gets the broken
value function under another name, which only the decision calls."""


def mutant_source(rule_id: str) -> str:
    """The reference, then a correct copy of the function the mutant breaks, then the student's
    mistaken version of it; the functions that called it are pointed at the correct copy (a
    pruning mutant keeps nothing: pruning is judged on the broken function itself)."""
    mistake_id, function = MUTANTS[rule_id]
    broken = MAKE_CLASS.OVERRIDES[mistake(mistake_id).student][function]
    source = reference_source(ALL_MODULES)
    if rule_id.endswith("_decision") and function.endswith("_value"):
        # only the decision sees the broken value function, under a name of its own
        broken = broken.replace(f"{function}(", f"_broken_{function}(")
        decision = re.search(rf"def {rule_id}\(.*?(?=\n\n\n|\Z)", source, re.S).group(0)
        return (
            source
            + "\n\n"
            + broken
            + "\n\n"
            + decision.replace(f"{function}(game", f"_broken_{function}(game")
        )
    keep = [function] if function == rule_id and function.endswith("_value") else []
    for name in keep:
        source = re.sub(rf"(?<!def )\b{name}\(game", f"_correct['{name}'](game", source)
    return source + KEEP_CORRECT.format(names=keep) + "\n" + broken


# Pruning points go only with correct answers, so a wrong alphabeta_value or alphabeta_decision
# also loses the pruning groups that call it (and nothing else).
ALSO_LOSES = {
    "alphabeta_value": {"alphabeta_pruning": ("trees without ties: alphabeta_value", "tic-tac")},
    "alphabeta_decision": {"alphabeta_pruning": ("trees without ties: alphabeta_decision",)},
}


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


@pytest.mark.parametrize("rule_id", ALL_RULE_IDS)
def test_a_mutant_loses_exactly_the_points_of_its_rule(rule_id: str, view: Path, tmp_path):
    path = tmp_path / f"{rule_id}.py"
    path.write_text(mutant_source(rule_id), encoding="utf-8")
    submission = Submission(rule_id, (path,))
    graded = RULE_IDS if rule_id in RULE_IDS else CHANCE_AND_MAXN_RULE_IDS  # --assignment
    record = grade(submission, load(submission), Settings(Limits(), view, rule_ids=graded))
    points = {r.id: r.points for r in record.rules}
    assert points[rule_id] < rule(rule_id).points, record.messages
    for other in graded:
        if other == rule_id:
            continue
        lost_groups = ALSO_LOSES.get(rule_id, {}).get(other, ())
        expected = rule(other).points - sum(
            g.points for g in rule(other).groups if g.name.startswith(lost_groups)
        )
        assert points[other] == expected, (other, record.messages)


def test_the_reference_of_lecture_06_scores_full_marks_on_assignment_6(view: Path, tmp_path):
    path = tmp_path / "reference.py"
    path.write_text(reference_source(ALL_MODULES), encoding="utf-8")
    submission = Submission("reference", (path,))
    settings = Settings(Limits(), view, rule_ids=CHANCE_AND_MAXN_RULE_IDS)
    record = grade(submission, load(submission), settings)
    assert record.score == record.max_score == 50, record.messages
