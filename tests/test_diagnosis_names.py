"""The diagnosis names the mistake that explains a function's wrong answers, once, in words its
assignment's lectures taught: each mistake here is a submission graded by the grader, and the
record's diagnosis (what the class page files it under) is that mistake and no other."""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
import pytest

from autograder.grading import cases
from autograder.grading.grade import Settings, grade
from autograder.grading.load import Submission, load
from autograder.grading.mistakes import MISTAKES, mistake
from autograder.grading.reference import ALL_MODULES, reference_source
from autograder.grading.rules import ASSIGNMENT_RULES, CHANCE_AND_MAXN_RULE_IDS, rules
from autograder.grading.rules import rule as rule_named
from autograder.reports.diagnoses import diagnosed
from autograder.reports.feedback_page import feedback_html
from autograder.sandbox import Limits, build_import_view

ROOT = Path(__file__).resolve().parents[1]

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


# -- max-n (Assignment 6): the paranoid view and a return inside the loop ----------------------

PARANOID = '''
def maxn_value(game, state, me=None):
    """Me against everyone: I maximise my utility, every other player minimises it."""
    if game.is_terminal(state):
        return game.utilities(state)
    player = game.to_move(state)
    me = player if me is None else me
    values = [maxn_value(game, game.result(state, action), me) for action in game.actions(state)]
    if player == me:
        return max(values, key=lambda utilities: utilities[me])
    return min(values, key=lambda utilities: utilities[me])


def maxn_decision(game, state):
    me = game.to_move(state)
    best_action, best_score = None, None
    for action in game.actions(state):
        score = maxn_value(game, game.result(state, action), me)[me]
        if best_score is None or score > best_score:
            best_action, best_score = action, score
    return best_action
'''
EARLY_RETURN = """
def maxn_value(game, state):
    if game.is_terminal(state):
        return game.utilities(state)
    player = game.to_move(state)
    best = None
    for action in game.actions(state):
        value = maxn_value(game, game.result(state, action))
        if best is None or value[player] > best[player]:
            best = value
        return best


def maxn_decision(game, state):
    player = game.to_move(state)
    best_action, best_score = None, None
    for action in game.actions(state):
        score = maxn_value(game, game.result(state, action))[player]
        if best_score is None or score > best_score:
            best_action, best_score = action, score
        return best_action
"""
MAXN_MISTAKES = [(PARANOID, "maxn_paranoid"), (EARLY_RETURN, "maxn_early_return")]
MAXN_IDS = ["paranoid", "early_return"]


def _labels(hint: str) -> set[str]:
    """The catalogue's mistakes whose words `hint` uses."""
    return {entry.label for entry in MISTAKES if entry.hint in hint}


@pytest.mark.parametrize(("source", "mistake_id"), MAXN_MISTAKES, ids=MAXN_IDS)
def test_a_maxn_mistake_loses_the_maxn_rules_and_is_named_in_the_feedback(
    view: Path, tmp_path: Path, source: str, mistake_id: str
) -> None:
    """The reference's expectiminimax with the mistaken max-n: exactly the max-n rules are lost,
    the function's diagnosis names it once, every lost value names it alone (the instances
    judged together rule the others out), a wrong decision points at maxn_value, and the page
    files the student under it."""
    path = tmp_path / f"{mistake_id}.py"
    path.write_text(reference_source(ALL_MODULES) + "\n\n" + source, encoding="utf-8")
    submission = Submission(mistake_id, (path,))
    settings = Settings(Limits(isolation="process"), view, CHANCE_AND_MAXN_RULE_IDS)
    record = grade(submission, load(submission), settings)
    entry = mistake(mistake_id)
    points = {r.id: r.points for r in record.rules}
    assert points == {
        rule_id: 0 if rule_id in entry.loses else rule_named(rule_id).points
        for rule_id in CHANCE_AND_MAXN_RULE_IDS
    }, record.messages
    lost = [r for r in record.rules if r.points < r.max_points]
    assert all(entry.hint in r.diagnosis for r in lost), [r.diagnosis for r in lost]
    hints = [v.hint for r in lost if r.id.endswith("_value") for g in r.groups
             for v in g.verdicts if not v.passed]  # fmt: skip
    assert hints and all(_labels(hint) == {entry.label} for hint in hints), hints
    decided = [v.hint for r in lost if r.id.endswith("_decision") for g in r.groups
               for v in g.verdicts if not v.passed]  # fmt: skip
    # Right for its own maxn_value's values (called on the root's children as the grader
    # calls it), or judged on its own: then the hint names the mistake itself.
    own = "your decision is right for the values maxn_value returns; fix maxn_value"
    assert decided and all(own in hint or entry.hint in hint for hint in decided), decided
    assert diagnosed(record) == {entry.label}
    page = feedback_html(record)
    assert html.escape(entry.hint) in page


def _notebook_cells() -> dict[str, str]:
    """The released Assignment 6 notebook's code cells, by grade id."""
    path = ROOT / "assignments" / "source" / "chance_and_maxn" / "chance_and_maxn.ipynb"
    notebook = nbformat.read(path, as_version=4)
    return {
        cell.metadata.get("nbgrader", {}).get("grade_id", ""): cell.source
        for cell in notebook.cells
        if cell.cell_type == "code"
    }


@pytest.mark.parametrize(("source", "mistake_id"), MAXN_MISTAKES, ids=MAXN_IDS)
@pytest.mark.parametrize("check", ["check_maxn_value", "check_maxn_decision"])
def test_a_maxn_mistake_is_named_alone_by_the_notebooks_self_check(
    source: str, mistake_id: str, check: str
) -> None:
    cells = _notebook_cells()
    namespace: dict = {"__name__": "__main__"}
    exec(cells["chance_and_maxn_setup"], namespace)
    exec(source, namespace)
    with pytest.raises(AssertionError) as failed:
        exec(cells[check], namespace)
    message = str(failed.value)
    own = "your decision is right for the values maxn_value returns; fix maxn_value"
    if check.endswith("_decision") and own in message:  # maxn_value's own checks name it
        assert _labels(message) == set(), message
    else:
        assert _labels(message) == {mistake(mistake_id).label}, message


# -- one diagnosis per function: the instances judged together -----------------------------------

MAX_MIN_SWAPPED = """
import math
from games import MAX


def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, action)) for action in game.actions(state)]
    return min(values) if game.to_move(state) == MAX else max(values)


def minimax_decision(game, state):
    pick = min if game.to_move(state) == MAX else max
    return pick(game.actions(state), key=lambda a: minimax_value(game, game.result(state, a)))
"""


@pytest.mark.parametrize(
    ("source", "assignment", "mistake_id", "function"),
    [
        (CHILDREN_SWAPPED, "alphabeta", "children_swapped", "alphabeta_value"),
        (MAX_MIN_SWAPPED, "minimax", "max_min_swapped", "minimax_value"),
    ],
    ids=["children_given_beta_alpha", "max_min_swapped"],
)
def test_a_function_gets_one_diagnosis_named_once_with_no_ruled_out_mistake(
    view: Path, tmp_path: Path, source: str, assignment: str, mistake_id: str, function: str
) -> None:
    """Each failed instance's hint names the one mistake every instance fits (never one that
    another instance rules out), the function's section names it once at its top, and the
    class page files the student under it alone."""
    path = tmp_path / f"{mistake_id}.py"
    path.write_text(source, encoding="utf-8")
    submission = Submission(mistake_id, (path,))
    settings = Settings(Limits(isolation="process"), view, ASSIGNMENT_RULES[assignment])
    record = grade(submission, load(submission), settings)
    entry = mistake(mistake_id)
    rule = next(r for r in record.rules if r.id == function)
    assert rule.points < rule.max_points
    assert rule.diagnosis.endswith(f": {entry.hint}"), rule.diagnosis
    hints = [v.hint for g in rule.groups for v in g.verdicts if not v.passed]
    assert hints and all(_labels(hint) == {entry.label} for hint in hints), hints
    assert not any("either" in hint for hint in hints), hints
    page = html.unescape(feedback_html(record))
    assert page.count(f"Diagnosis:</b> {function}: one mistake explains") == 1
    assert diagnosed(record) - {"a function not defined"} == {entry.label}


TABLE_WITHOUT_DEPTH = """
from games import MAX

TABLE = {}


def depth_limited_value(game, state, depth, evaluate):
    if state in TABLE:  # kept between calls, and without the depth it was searched to
        return TABLE[state]
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return evaluate(state)
    values = [
        depth_limited_value(game, game.result(state, action), depth - 1, evaluate)
        for action in game.actions(state)
    ]
    TABLE[state] = max(values) if game.to_move(state) == MAX else min(values)
    return TABLE[state]
"""


def test_a_table_of_depth_limited_values_kept_without_their_depth_is_named(
    view: Path, tmp_path: Path
) -> None:
    """The same tree asked at depth 1, then 2: the table answers the root with its depth-1
    value, and the hint names the table rather than a search mistake."""
    path = tmp_path / "table.py"
    path.write_text(TABLE_WITHOUT_DEPTH, encoding="utf-8")
    submission = Submission("table", (path,))
    settings = Settings(Limits(isolation="process"), view, ("depth_limited_value",))
    record = grade(submission, load(submission), settings)
    hints = [v.hint for v in record.verdicts() if not v.passed]
    assert record.score < record.max_score
    assert any("your table carries positions over from an earlier call" in h for h in hints)
    assert "a table kept between calls" in diagnosed(record)


@pytest.mark.parametrize(
    ("source", "function", "mistake_id"),
    [
        (MAX_MIN_SWAPPED, "minimax_value", "max_min_swapped"),
        (CHILDREN_SWAPPED, "alphabeta_value", "children_swapped"),
    ],
    ids=["max_min_swapped", "children_given_beta_alpha"],
)
def test_the_notebooks_self_check_opens_with_the_same_one_diagnosis(
    source: str, function: str, mistake_id: str
) -> None:
    """The self-check cell of the released notebook runs every check of the function, then
    names the one mistake all its failures fit, before the first failure's evidence."""
    import sys

    sys.path.insert(0, str(ROOT / "assignments"))
    try:
        from assignment_builder.check_cases import function_checks
    finally:
        sys.path.remove(str(ROOT / "assignments"))
    from autograder.platforms import nbgrader_export

    namespace: dict = {"__name__": "__main__"}
    exec(nbgrader_export.self_check_helpers_source("from games import *"), namespace)
    exec(function_checks(function, run=False), namespace)
    exec(source, namespace)
    with pytest.raises(AssertionError) as failed:
        namespace[f"check_{function}"](namespace[function])
    message = str(failed.value)
    entry = mistake(mistake_id)
    assert message.startswith(f"Diagnosis: {function}: one mistake explains"), message
    assert message.count(entry.hint) == 2, message  # the diagnosis, and the first evidence
    assert "either" not in message, message


DEPTH_TWICE = """
from games import MAX


def depth_limited_value(game, state, depth, evaluate):
    if game.is_terminal(state):
        return game.utility(state)
    if depth <= 0:
        return evaluate(state)
    values = [depth_limited_value(game, game.result(state, action), depth - 2, evaluate)
              for action in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


def depth_limited_decision(game, state, depth, evaluate):
    pick = max if game.to_move(state) == MAX else min
    return pick(game.actions(state), key=lambda action: depth_limited_value(
        game, game.result(state, action), depth - 1, evaluate))
"""


def test_a_right_decision_over_a_wrong_value_function_points_at_the_value_function(
    view: Path, tmp_path: Path
) -> None:
    """The depth decremented twice in depth_limited_value: the decision's feedback names
    depth_limited_value, never a depth convention of the decision's own."""
    path = tmp_path / "twice.py"
    path.write_text(DEPTH_TWICE, encoding="utf-8")
    submission = Submission("twice", (path,))
    settings = Settings(Limits(isolation="process"), view, ASSIGNMENT_RULES["depth_limited"])
    record = grade(submission, load(submission), settings)
    decision = next(r for r in record.rules if r.id == "depth_limited_decision")
    assert decision.points < decision.max_points
    failed = sum(not v.passed for g in decision.groups for v in g.verdicts)
    assert decision.diagnosis.startswith(
        f"depth_limited_decision: on all {failed} failed instances, your decision is right for "
        "the values depth_limited_value returns; fix depth_limited_value (see "
        "depth_limited_value above"
    ), decision.diagnosis
    hints = [v.hint for g in decision.groups for v in g.verdicts if not v.passed]
    own = "your decision is right for the values depth_limited_value returns; fix"
    assert hints and all(own in hint for hint in hints), hints
    # the evidence: what the student's own function gives the children, at one ply less
    # (which instances fail depends on the frozen choice of instances: read the evidence's shape)
    evidence = r"\(it gives the actions \{[^}]+\}, where their values are \{[^}]+\}\)"
    assert all(re.search(evidence, hint) for hint in hints), hints
    assert not any("looks one ply" in hint for hint in hints), hints


NEGAMAX_TABLE = """
import math
from games import MAX


def _negamax(game, state, alpha, beta, table):
    if game.is_terminal(state):
        return game.utility(state) * (1 if game.to_move(state) == MAX else -1)
    if state in table:
        return table[state]  # stored as exact, even when it was a cut-off's bound
    value = -math.inf
    for action in game.actions(state):
        value = max(value, -_negamax(game, game.result(state, action), -beta, -alpha, table))
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    table[state] = value
    return value


def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    colour = 1 if game.to_move(state) == MAX else -1
    return colour * _negamax(game, state, -math.inf, math.inf, {})


def alphabeta_decision(game, state):
    pick = max if game.to_move(state) == MAX else min
    return pick(game.actions(state), key=lambda a: alphabeta_value(game, game.result(state, a)))
"""
CORRECT_TABLE = NEGAMAX_TABLE.replace(
    """    if state in table:
        return table[state]  # stored as exact, even when it was a cut-off's bound
    value = -math.inf""",
    """    first_alpha, first_beta = alpha, beta
    if state in table:  # each entry says whether it is exact or a bound
        stored, kind = table[state]
        if kind == "exact":
            return stored
        alpha, beta = (max(alpha, stored), beta) if kind == "lower" else (alpha, min(beta, stored))
        if alpha >= beta:
            return stored
    value = -math.inf""",
).replace(
    "    table[state] = value\n",
    """    kind = "upper" if value <= first_alpha else "lower" if value >= first_beta else "exact"
    table[state] = (value, kind)
""",
)


def test_a_table_storing_bounds_as_exact_loses_decisions_too_and_a_correct_table_does_not(
    view: Path, tmp_path: Path
) -> None:
    """The pinned positions (instances.table_bound_states()) flip such a table's move: the
    negamax loses alphabeta_decision as it loses alphabeta_value, and the hint names the table;
    a table that stores bounds as bounds keeps every point of both."""
    assert "table[state] = (value, kind)" in CORRECT_TABLE and "first_alpha" in CORRECT_TABLE
    grades = {}
    for name, source in (("negamax", NEGAMAX_TABLE), ("correct", CORRECT_TABLE)):
        path = tmp_path / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        submission = Submission(name, (path,))
        rule_ids = ("alphabeta_value", "alphabeta_decision")
        grades[name] = grade(submission, load(submission), Settings(Limits(isolation="process"),
                             view, rule_ids))  # fmt: skip
    lost = {r.id: r for r in grades["negamax"].rules if r.points < r.max_points}
    assert set(lost) == {"alphabeta_value", "alphabeta_decision"}
    hints = [v.hint for g in lost["alphabeta_decision"].groups for v in g.verdicts if not v.passed]
    own = "your decision is right for the values alphabeta_value returns; fix alphabeta_value"
    assert hints and all(own in hint for hint in hints), hints
    assert mistake("table_bound_as_exact").hint in lost["alphabeta_value"].diagnosis + " ".join(
        v.hint for g in lost["alphabeta_value"].groups for v in g.verdicts if not v.passed
    )
    assert grades["correct"].score == grades["correct"].max_score
