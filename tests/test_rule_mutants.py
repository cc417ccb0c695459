"""One mutant per rule: the reference with a single catalogued mistake loses exactly that rule.

Each rule's mutant is the function its example student writes with the mistake (the catalogue,
autograder/mistakes.py, names the student; examples/make_class.py holds the code). The
reference's decisions call its value functions, so a broken value function would also cost the
decisions: each mutant therefore keeps a correct copy of the function it breaks, under another
name, for the other functions to use.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from autograder.grade import Settings, grade
from autograder.load import Submission, load
from autograder.mistakes import mistake
from autograder.reference import reference_source
from autograder.rules import RULE_IDS, rule
from autograder.sandbox import Limits, build_import_view

ROOT = Path(__file__).resolve().parents[1]
KEEP_CORRECT = """
_correct = {{name: globals()[name] for name in {names!r}}}
"""


def _make_class():
    spec = importlib.util.spec_from_file_location("make_class", ROOT / "examples" / "make_class.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKE_CLASS = _make_class()

# rule id -> (the mistake, the function of its example student that breaks the rule)
MUTANTS = {
    "minimax_value": ("max_starts_at_zero", "minimax_value"),
    "minimax_decision": ("root_picks_min", "minimax_decision"),
    "alphabeta_value": ("beta_from_alpha", "alphabeta_value"),
    "alphabeta_decision": ("last_child", "alphabeta_decision"),
    "alphabeta_pruning": ("fresh_window", "alphabeta_value"),
    "depth_limited_value": ("no_terminal_test", "depth_limited_value"),
    "depth_limited_decision": ("last_child", "depth_limited_decision"),
}


def mutant_source(rule_id: str) -> str:
    """The reference, then a correct copy of the function the mutant breaks, then the student's
    mistaken version of it; the functions that called it are pointed at the correct copy (a
    pruning mutant keeps nothing: pruning is judged on the broken function itself)."""
    mistake_id, function = MUTANTS[rule_id]
    broken = MAKE_CLASS.OVERRIDES[mistake(mistake_id).student][function]
    keep = [function] if function == rule_id and function.endswith("_value") else []
    source = reference_source()
    for name in keep:
        source = re.sub(rf"(?<!def ){name}\(game", f"_correct['{name}'](game", source)
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


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_a_mutant_loses_exactly_the_points_of_its_rule(rule_id: str, view: Path, tmp_path):
    path = tmp_path / f"{rule_id}.py"
    path.write_text(mutant_source(rule_id), encoding="utf-8")
    submission = Submission(rule_id, (path,))
    record = grade(submission, load(submission), Settings(Limits(), view))
    points = {r.id: r.points for r in record.rules}
    assert points[rule_id] < rule(rule_id).points, record.messages
    for other in RULE_IDS:
        if other == rule_id:
            continue
        lost_groups = ALSO_LOSES.get(rule_id, {}).get(other, ())
        expected = rule(other).points - sum(
            g.points for g in rule(other).groups if g.name.startswith(lost_groups)
        )
        assert points[other] == expected, (other, record.messages)
