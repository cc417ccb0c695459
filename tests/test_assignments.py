"""The assignment notebooks: generated from the solutions and the rules, judged like the autograder.

These tests need no nbgrader run (tests/test_nbgrader_course.py runs nbgrader itself): they read
the committed source notebooks, regenerate them, and execute their hidden test cells in this
process against the example class.
"""

from __future__ import annotations

import ast
import copy
import enum
import importlib.util
import inspect
import json
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.grading import cases, judge, plain
from autograder.grading.rules import CHANCE_AND_MAXN_RULE_IDS, RULE_IDS, rules
from autograder.platforms import literals, nbgrader_export, notebook_checks
from autograder.sandbox.runner import plain as sandbox_plain
from solutions import agent, alphabeta, chance, depth_limited, evaluation, minimax, multiplayer

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


maker = _load("make_assignments", ROOT / "assignments" / "make_assignments.py")
make_class = _load("make_class", ROOT / "examples" / "make_class.py")
SOLUTION_MODULES = (minimax, alphabeta, depth_limited, evaluation, chance, multiplayer, agent)


@pytest.fixture(scope="module")
def notebooks() -> dict:
    return {
        name: nbformat.read(maker.notebook_path(name), as_version=4) for name in maker.ASSIGNMENTS
    }


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def _graded_code(notebook) -> list:
    """The hidden-test cells: graded code cells worth points (the self-checks are worth 0)."""
    return [
        c
        for c in notebook.cells
        if c.cell_type == "code" and _meta(c).get("grade") and _meta(c).get("points")
    ]


def _self_checks(notebook) -> list:
    return [c for c in notebook.cells if _meta(c).get("grade") and _meta(c).get("points") == 0]


def test_the_committed_notebooks_are_exactly_what_make_assignments_writes(monkeypatch) -> None:
    # The builder makes each source notebook twice, once to write it and once to release it:
    # here it is made once and copied (the release clears cells in place), half the CPU for the
    # very same texts.
    made: dict[str, nbformat.NotebookNode] = {}
    build = maker.notebook

    def notebook_once(assignment: str) -> nbformat.NotebookNode:
        if assignment not in made:
            made[assignment] = build(assignment)
        return copy.deepcopy(made[assignment])

    monkeypatch.setattr(maker, "notebook", notebook_once)
    stale = [
        path.name
        for name in maker.ASSIGNMENTS
        for path, text in maker.outputs(name)
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    assert not stale, f"{stale} are out of date: run python assignments/make_assignments.py"


@pytest.mark.parametrize("assignment", maker.ASSIGNMENTS)
def test_every_solution_region_is_the_source_of_the_solutions_package(
    notebooks: dict, assignment: str
) -> None:
    solution_cells = [
        c for c in notebooks[assignment].cells if c.cell_type == "code" and _meta(c).get("solution")
    ]
    assert solution_cells
    for cell in solution_cells:
        assert maker.BEGIN in cell.source and maker.END in cell.source
        name = ast.parse(cell.source).body[0].name
        owner = next(m for m in SOLUTION_MODULES if hasattr(m, name))
        source = inspect.getsource(getattr(owner, name)).rstrip("\n")
        assert maker.without_markers(cell.source) == source, f"{name} differs from {owner}"


@pytest.mark.parametrize("assignment", maker.ASSIGNMENTS)
def test_the_graded_cells_are_the_rule_groups_with_their_points(
    notebooks: dict, assignment: str
) -> None:
    graded = [
        (_meta(c)["grade_id"], _meta(c)["points"]) for c in _graded_code(notebooks[assignment])
    ]
    assert graded == nbgrader_export.grading_summary(maker.RULES_OF[assignment])
    for rule in rules():
        if rule.id in maker.RULES_OF[assignment]:
            points = sum(p for grade_id, p in graded if grade_id.startswith(f"{rule.id}__"))
            assert points == rule.points, rule.id


def test_assignments_one_to_three_grade_every_rule_once_and_the_bug_hunt_all_of_them() -> None:
    first_three = [r for a in ("minimax", "alphabeta", "depth_limited") for r in maker.RULES_OF[a]]
    assert sorted(first_three) == sorted(RULE_IDS)
    assert maker.RULES_OF["bug_hunt"] == RULE_IDS


@pytest.mark.parametrize("assignment", maker.ASSIGNMENTS)
def test_nbgrader_accepts_the_cell_metadata(notebooks: dict, assignment: str) -> None:
    nbgraderformat = pytest.importorskip("nbgrader.nbgraderformat")
    notebook = notebooks[assignment]
    nbgraderformat.MetadataValidator().validate_nb(notebook)
    ids = [_meta(c)["grade_id"] for c in notebook.cells if _meta(c)]
    assert len(ids) == len(set(ids))
    for cell in notebook.cells:
        if _meta(cell).get("grade"):
            assert _meta(cell)["points"] > 0 or cell in _self_checks(notebook)
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None


@pytest.mark.parametrize("assignment", maker.ASSIGNMENTS)
def test_hidden_test_code_lies_inside_hidden_regions_of_graded_cells(
    notebooks: dict, assignment: str
) -> None:
    for cell in notebooks[assignment].cells:
        if cell in _graded_code(notebooks[assignment]):
            visible, rest = cell.source.split("### BEGIN HIDDEN TESTS\n")
            assert rest.endswith("### END HIDDEN TESTS")
            assert all(line.startswith("#") for line in visible.splitlines())
        else:
            assert "HIDDEN TESTS" not in cell.source


def test_manual_answers_are_the_bug_hunt_explanations_at_two_points_a_mistake(notebooks) -> None:
    for name, notebook in notebooks.items():
        answers = [c for c in notebook.cells if c.cell_type == "markdown" and _meta(c)]
        if name != "bug_hunt":
            assert not answers
            continue
        assert [_meta(c)["points"] for c in answers] == [2 * bug.mistakes for bug in maker.BUGS]
        assert sum(bug.mistakes for bug in maker.BUGS) == 13


# -- the hidden tests in a kernel judge as the autograder does ---------------------------------


OWN_TIME_LIMIT = "time_limit(timeout, GradingTimeout, own=True)"
"""How the grading helpers (autograder/platforms/kernel_calls.py) limit a call: by its own time
(games.deadline), so that on a busy machine an honest call waiting for a core is not stopped (at
load 16 one took longer than its half second of wall-clock time and lost a rule it keeps); a
loop spends its own time and is stopped."""


def _hidden_cells(notebook, timeout: float) -> tuple[str, list]:
    helpers = next(
        c.source
        for c in notebook.cells
        if _meta(c).get("grade_id", "").endswith("_grading_helpers")
    )
    helpers = helpers.replace(
        f"CALL_TIMEOUT = {notebook_checks.CALL_TIMEOUT!r}", f"CALL_TIMEOUT = {timeout}"
    )
    assert helpers.count(OWN_TIME_LIMIT) == 1
    return helpers, [(_meta(c)["grade_id"], c.source) for c in _graded_code(notebook)]


STUDENTS = [s for s in make_class.EXPECTED if s not in make_class.BROKEN_JSON]


def _rules_lost(notebook, student: str, imports: str, timeout: float) -> set[str]:
    """The rules whose hidden cells in `notebook` fail after `student`'s cells have run."""
    helpers, cells = _hidden_cells(notebook, timeout=timeout)
    namespace: dict = {"__name__": "__main__"}
    exec(imports + make_class.EXTRA_IMPORTS.get(student, ""), namespace)
    for source in make_class.student_code(student).values():
        try:
            exec(source, namespace)
        except SyntaxError:
            continue  # the cell fails; the other cells are still run
    exec(helpers, namespace)
    lost = set()
    for grade_id, source in cells:
        try:
            exec(source, namespace)
        except AssertionError:
            lost.add(grade_id.split("__")[0])
    return lost


@pytest.mark.parametrize("student", STUDENTS)
def test_the_hidden_cells_lose_exactly_the_rules_the_autograder_loses(
    notebooks: dict, student: str, capsys
) -> None:
    """make_class.SHOULD_LOSE is what the autograder loses (tests/test_grader_class.py)."""
    # Half a second of own time a call: every student loses exactly these rules even at
    # 0.05 s, and trent's two endless calls spin for the whole limit.
    lost = _rules_lost(notebooks["bug_hunt"], student, make_class.IMPORTS, timeout=0.5)
    assert lost == set(make_class.SHOULD_LOSE[student]) & set(RULE_IDS)


@pytest.mark.parametrize("student", make_class.DID_ASSIGNMENT_6)
def test_assignment_6_hidden_cells_lose_exactly_the_rules_of_the_mistake(
    notebooks: dict, student: str
) -> None:
    imports = make_class.IMPORTS_WITH_CHANCE
    lost = _rules_lost(notebooks["chance_and_maxn"], student, imports, timeout=2.0)
    assert lost == set(make_class.SHOULD_LOSE[student]) & set(CHANCE_AND_MAXN_RULE_IDS)


class Small(enum.IntEnum):
    ZERO = 0
    THREE = 3


class Weird:
    def __eq__(self, other):
        return True

    def __repr__(self) -> str:
        # the test's id: the same in every pytest-xdist worker (the default repr has an address)
        return "Weird()"

    __hash__ = object.__hash__


RETURNED = [3, 3.0, -3, True, False, None, "3", [3], (3,), float("inf"), float("nan"), Small.THREE,
            Small.ZERO, 0, 0.0, (0,), Weird()]  # fmt: skip


def _sandboxed(value):
    """What the autograder's judge receives for `value`: sandbox plain data through JSON."""
    return json.loads(json.dumps(sandbox_plain(value)))


@pytest.mark.parametrize("value", RETURNED, ids=repr)
@pytest.mark.parametrize("function", ["minimax_value", "minimax_decision"])
def test_a_value_returned_in_the_kernel_or_in_the_sandbox_gets_one_verdict(value, function):
    """The kernel makes a returned value plain in place, the sandbox sends it as JSON: the one
    judge must see the same value either way."""
    group = next(g for r in rules() for g in r.groups if g.function == function)
    case, kind = cases.case(function, group.instances[0]), function.split("_")[-1]
    in_kernel = judge.Outcome("returned", plain.plain(value))
    kernel = judge.judge(kind, function, case, in_kernel)
    sent = judge.Outcome("returned", plain.decode(_sandboxed(value)))
    grader = judge.judge(kind, function, case, sent)
    assert (kernel.passed, kernel.got, kernel.hint) == (grader.passed, grader.got, grader.hint)


def test_connect_four_positions_are_written_as_moves_that_reach_them() -> None:
    from games import ConnectFour

    for rule in rules():
        for group in rule.groups:
            for instance in group.instances:
                if isinstance(instance.game, ConnectFour):
                    moves = literals.connect_four_moves(instance.state)
                    assert ConnectFour.from_moves(moves) == instance.state


def test_the_cli_lists_the_cells_with_their_points(capsys) -> None:
    from autograder.cli import main

    assert main(["nbgrader-cells", "minimax_decision"]) == 0
    out = capsys.readouterr().out
    assert "minimax_decision__tic_tac_toe_one_best_move" in out and "10  in 2 cells" in out


@pytest.mark.parametrize("assignment", maker.ASSIGNMENTS)
def test_the_self_checks_are_locked_tests_worth_nothing_so_validate_reports_them(
    notebooks: dict, assignment: str
) -> None:
    checks = _self_checks(notebooks[assignment])
    assert checks, "every assignment has self-checks"
    for cell in checks:
        assert cell.cell_type == "code" and _meta(cell)["locked"] and not _meta(cell)["solution"]
        assert "check_" in cell.source and "HIDDEN TESTS" not in cell.source
