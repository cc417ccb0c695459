"""nbgrader's own pipeline on the course folder, and the same points from both graders.

The course folder (nbgrader_config.py and source/) is copied into a temporary folder, with an
empty gradebook as nbgrader creates one (`tests/nbgrader_runs.py`, `new_gradebook`), where
`nbgrader generate_assignment`, `autograde`, `generate_feedback` and `export` run as an instructor
runs them: `nbgrader autograde minimax` as a command, the other commands of assignment 1 by
nbgrader's application in this process (`tests/nbgrader_runs.py`: the same argv, config and
files, without a process start each), the other assignments through nbgrader's Python API, which
runs the same converters. Every road starts the notebooks' kernels from the lean `python3` spec
(`kernel_environment`: the same ipykernel without the debugger).
Each assignment is handed in by the instructor (the source notebook), by a student who wrote
nothing (the released notebook) and by students of the example class (the released notebook
with their code, without the cells that only demonstrate: `_shown`). The example students are
also graded by `autograder.grading.grade`, and every rule group must get the same points from
both.

The contest's examples play at a smaller allowance than the grading's, on both roads: what is
checked of them is that both graders play the same moves and pay the same points, which holds
at any allowance (`tests/test_contest_grades.py` checks the grades at the grading's own). They
are handed in to a copy of the Connect Four assignment whose allowance cell and hidden cells say
that allowance (trent, who never answers, to a copy of his own at a smaller one); the
instructor's notebook and the empty one are graded by the assignment as released.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from example_class import make_class
from nbgrader_runs import (
    course_folder,
    kernel_environment,
    nbgrader_command,
    nbgrader_here,
    new_gradebook,
)

pytest.importorskip("nbgrader")

from autograder.grading.grade import Settings, grade  # noqa: E402
from autograder.grading.load import Submission, load  # noqa: E402
from autograder.grading.records import GradeRecord  # noqa: E402
from autograder.grading.rules import ASSIGNMENT_RULES  # noqa: E402
from autograder.sandbox import Limits, build_import_view  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "assignments"
ASSIGNMENTS = tuple(ASSIGNMENT_RULES)  # every assignment of the course, in teaching order
EXAMPLE_STUDENTS = {
    "minimax": ("erin_max_starts_at_zero", "peggy_last_child"),
    # abel keeps a transposition table: nbgrader serves real states, the sandbox tokens that are
    # equal for equal positions within a call, and both must give the table the same points
    "alphabeta": ("mallory_fresh_window", "abel_table_bound_as_exact"),
    "depth_limited": ("walter_textbook_depth",),
    "bug_hunt": ("yolanda_beta_min_alpha",),
    # every example agent but dan (below): a move's limit is a budget of states, the same in
    # the kernel as in the sandbox, and random is seeded per game, so both graders see the
    # same moves and must give every level the same points (alice and wendy deepen until their
    # budget is spent, wendy reads game.board and draws equal moves at random, trent is
    # stopped for CPU time; most levels pay a share, which the hidden cells give as nbgrader's
    # partial credit). dan_strict_cutoff is left out: his agent is bob's fixed-depth search
    # one ply deeper, the same code through both graders (about 4 s a grader for bob; alice,
    # trent and wendy were the fixture's cost, 13-20 s each in nbgrader, 25-40 s each in the
    # autograder at the grading's allowance; at PARITY_ALLOWANCE and STOPPED_ALLOWANCE, below,
    # a few seconds)
    "connect_four": (
        "alice_correct",
        "bob_last_ties",
        "carol_negamax",
        "trent_infinite_loop",
        "wendy_noisy_but_correct",
        "xavier_random_moves",
    ),
    "chance_and_maxn": ("fatima_plain_average", "hana_maxn_root_view"),
}
PARITY_ALLOWANCE = (200, 3.0)
"""States and CPU seconds a move for the contest's examples: the grading's seconds, a tenth of
its 2,000 states, in the games and in the self-checks. alice and wendy still deepen until the
budget is spent, bob's fixed depth outgrows it on some moves, and most levels pay each of them a
share (the grades differ from the grading's, and so does the regression fixture's entry). At
300 states the fixture took about 40 s less than at 2,000; at 200, some 10 s of CPU less again.
At 0.5 s a move, the sandbox once gave bob's games against depth 2 another score than the kernel
on a busy machine: the seconds stay the grading's."""
STOPPED_ALLOWANCE = (300, 0.25)
"""The allowance of trent's moves, who never answers: every move he is asked is stopped for its
CPU time whatever the seconds, so his games and points are the same at any allowance, and each
stop spins a twelfth of what it spins at the grading's 3 s (his notebook's self-checks spin
twice more, in both graders)."""
PARITY_COPIES = {
    "connect_four_parity": ("connect_four", PARITY_ALLOWANCE),
    "connect_four_stopped": ("connect_four", STOPPED_ALLOWANCE),
}
"""Copies of an assignment added to the course's source: copy -> (assignment, the allowance its
allowance cell and its hidden cells say; `_parity_copy`)."""
HANDED_IN_TO = {
    ("connect_four", student): "connect_four_parity" for student in EXAMPLE_STUDENTS["connect_four"]
} | {("connect_four", "trent_infinite_loop"): "connect_four_stopped"}
"""The copy an example student's notebook is handed in to, when not the assignment itself."""
CONTEST_CALL = re.compile(r"(grade_contest_rule\('\w+', [\d.]+, globals\(\))\)")
ALLOWANCE_LINE = re.compile(r"^(STATES|SECONDS) = [\d_.]+$", re.MULTILINE)

pytestmark = pytest.mark.slow


def _parity_copy(course: Path, copy: str) -> None:
    """Add to the course's source `copy`, a copy of an assignment whose allowance cell (what its
    self-checks play at) and contest cells say the copy's allowance (`PARITY_COPIES`); its
    notebook is named after it, as every one."""
    assignment, (states, seconds) = PARITY_COPIES[copy]
    notebook = nbformat.read(course / "source" / assignment / f"{assignment}.ipynb", 4)
    value = {"STATES": states, "SECONDS": seconds}
    calls = lines = 0
    for cell in notebook.cells:
        cell.source, count = CONTEST_CALL.subn(rf"\1, {states}, {seconds})", cell.source)
        calls += count
        if cell.metadata.get("nbgrader", {}).get("grade_id") == f"{assignment}_allowance":
            cell.source, lines = ALLOWANCE_LINE.subn(
                lambda line: f"{line[1]} = {value[line[1]]}", cell.source
            )
    assert calls == len(ASSIGNMENT_RULES[assignment])  # one hidden cell a rule
    assert lines == 2, "the allowance cell no longer says STATES = ... and SECONDS = ..."
    (course / "source" / copy).mkdir()
    nbformat.write(notebook, course / "source" / copy / f"{copy}.ipynb")


def _hand_in(course: Path, assignment: str, student: str, make_class) -> Path:
    """Put `student`'s notebook into submitted/<student>/<assignment>/ and return its path: the
    instructor's is the source notebook, nothing_written's the released one, and an example
    student's the released one with the student's code, less its demonstrations (`_shown`)."""
    target = course / "submitted" / student / assignment / f"{assignment}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    if student == "instructor":
        shutil.copy(course / "source" / assignment / f"{assignment}.ipynb", target)
        return target
    notebook = nbformat.read(course / "release" / assignment / f"{assignment}.ipynb", 4)
    if student != "nothing_written":
        code = make_class.student_code(student)
        notebook.cells = [cell for cell in notebook.cells if not _shown(cell)]
        for cell in notebook.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution") and meta.get("grade_id") in code:
                cell.source = make_class.EXTRA_IMPORTS.get(student, "") + code[meta["grade_id"]]
    nbformat.write(notebook, target)
    return target


def _shown(cell) -> bool:
    """A demonstration: a code cell nbgrader does not track (the whole tic-tac-toe tree searched
    to show its count, a game played out to show the board...). The examples hand in their
    notebooks without them, so that neither grader spends seconds on cells whose outputs earn
    and are checked for nothing: parity is of the hidden-test cells, which set up what they
    use (the instructor's and the empty notebooks keep every cell, and must run it cleanly)."""
    return cell.cell_type == "code" and not cell.metadata.get("nbgrader")


EXAMPLES = [(a, s) for a, students in EXAMPLE_STUDENTS.items() for s in students]


def _autograder_record(
    course: Path, assignment: str, student: str, settings: Settings
) -> GradeRecord:
    handed_in = HANDED_IN_TO.get((assignment, student), assignment)
    path = course / "submitted" / student / handed_in / f"{handed_in}.ipynb"
    submission = Submission(student, (path,))
    settings = replace(settings, rule_ids=ASSIGNMENT_RULES[assignment])  # --assignment
    if handed_in != assignment:  # --move-states, --move-seconds
        states, seconds = PARITY_COPIES[handed_in][1]
        settings = replace(settings, move_states=states, move_seconds=seconds)
    return grade(submission, load(submission), settings)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict]]:
    """The course after nbgrader's whole pipeline, and the autograder's records of the examples
    (the course in memory: `course_folder`)."""
    with course_folder(tmp_path_factory) as folder:
        yield _grade_on_both_roads(folder)


def _grade_on_both_roads(folder: Path) -> tuple[Path, dict]:
    """Build the course in `folder` and grade it on both roads. The autograder grades the example
    students in a background thread while nbgrader works."""
    from nbgrader.apps import NbGraderAPI
    from traitlets.config.loader import PyFileConfigLoader

    course = folder / "course"
    course.mkdir()
    shutil.copy(COURSE / "nbgrader_config.py", course)
    shutil.copytree(COURSE / "source", course / "source")
    new_gradebook(course)
    with (
        pytest.MonkeyPatch.context() as patch,
        tempfile.TemporaryDirectory() as scratch,
        ThreadPoolExecutor(max_workers=1) as background,
    ):
        for name, value in kernel_environment().items():  # as the command, with lean kernels
            patch.setenv(name, value)
        patch.setenv("PYTHONHASHSEED", "0")  # what the config sets, put back after the fixture
        config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
        config.CourseDirectory.root = str(course)
        api = NbGraderAPI(config=config)
        for copy in PARITY_COPIES:
            _parity_copy(course, copy)
        nbgrader_here(course, "generate_assignment", "minimax")
        for assignment in (*ASSIGNMENTS[1:], *PARITY_COPIES):
            assert api.generate_assignment(assignment)["success"]
        handed_in = {assignment: ["instructor", "nothing_written"] for assignment in ASSIGNMENTS}
        for assignment, student in EXAMPLES:
            copy = HANDED_IN_TO.get((assignment, student), assignment)
            handed_in.setdefault(copy, []).append(student)
        for assignment, students in handed_in.items():
            for student in students:
                _hand_in(course, assignment, student, make_class)
        # The default limits: a load is limited by its own time (beside two other suites, at a
        # load of 16, a contest agent's load once passed 30 s of wall-clock time, the limit then)
        settings = Settings(Limits(), build_import_view(Path(scratch)))
        records = {
            item: background.submit(_autograder_record, course, *item, settings)
            for item in EXAMPLES
        }
        nbgrader_command(course, "autograde", "minimax")  # the command itself, once
        for assignment, students in list(handed_in.items())[1:]:
            for student in students:
                result = api.autograde(assignment, student)
                assert result["success"], result.get("log")
        nbgrader_here(course, "generate_feedback", "minimax", "--student", "peggy_last_child")
        nbgrader_here(course, "export")
        return course, {item: future.result() for item, future in records.items()}


@pytest.fixture(scope="module")
def course(graded: tuple[Path, dict]) -> Path:
    return graded[0]


def _gradebook(course: Path):
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course / 'gradebook.db'}")


def _cell_scores(course: Path, assignment: str, student: str) -> dict[str, float]:
    with _gradebook(course) as gradebook:
        notebook = gradebook.find_submission_notebook(assignment, assignment, student)
        return {
            grade.name: grade.score
            for grade in notebook.grades
            if grade.cell_type == "code" and grade.max_score  # not the 0-point self-checks
        }


def _autograded(course: Path, assignment: str, student: str):
    return nbformat.read(course / "autograded" / student / assignment / f"{assignment}.ipynb", 4)


def _errors(cell) -> list[str]:
    return [
        f"{out.ename}: {out.evalue}"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]


def _graded(cell) -> bool:
    """A hidden-test cell (the self-checks are graded too, but worth 0 points)."""
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and meta.get("grade", False) and bool(meta.get("points"))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_source_notebook_runs_and_scores_full_marks_on_its_own_hidden_tests(
    course: Path, assignment: str
) -> None:
    scores = _cell_scores(course, assignment, "instructor")
    with _gradebook(course) as gradebook:
        maximum = gradebook.find_assignment(assignment).max_code_score
    assert scores and sum(scores.values()) == maximum
    for cell in _autograded(course, assignment, "instructor").cells:
        assert not _errors(cell), cell.source[:200]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_released_notebook_runs_and_scores_zero_saying_not_implemented(
    course: Path, assignment: str
) -> None:
    scores = _cell_scores(course, assignment, "nothing_written")
    assert scores and not any(scores.values())
    for cell in _autograded(course, assignment, "nothing_written").cells:
        if _graded(cell):
            assert "not implemented" in " ".join(_errors(cell)), cell.source[:200]
        else:
            assert not _errors(cell), cell.source[:200]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_released_notebooks_hold_no_solution_and_no_hidden_test_code(
    course: Path, assignment: str
) -> None:
    released = (course / "release" / assignment / f"{assignment}.ipynb").read_text()
    source = nbformat.read(course / "source" / assignment / f"{assignment}.ipynb", 4)
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "'child_values'", "'id': 1,"):
        assert marker not in released
    notebook = nbformat.reads(released, 4)
    by_id = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell for cell in notebook.cells}
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and cell.cell_type == "code":
            region = cell.source.split("### BEGIN SOLUTION\n")[1].split("### END SOLUTION")[0]
            assert region.strip() not in released
            assert "raise NotImplementedError()" in by_id[meta["grade_id"]].source
        elif meta.get("solution"):
            assert by_id[meta["grade_id"]].source == "YOUR ANSWER HERE"
        elif meta.get("grade"):
            assert by_id[meta["grade_id"]].source == cell.source.split("\n### BEGIN")[0]


@pytest.mark.parametrize("assignment, student", EXAMPLES)
def test_nbgrader_and_the_autograder_give_every_rule_group_the_same_points(
    graded: tuple[Path, dict], assignment: str, student: str
) -> None:
    from autograder.platforms.nbgrader_export import slug

    course, records = graded
    record = records[(assignment, student)]
    assert record.status == "graded", record.messages
    theirs = {
        f"{rule.id}__{slug(group.name)}": group.points
        for rule in record.rules
        for group in rule.groups
    }
    ours = _cell_scores(course, HANDED_IN_TO.get((assignment, student), assignment), student)
    assert ours == {grade_id: theirs[grade_id] for grade_id in ours}
    assert 0 < len(ours) <= len(theirs)
    # and the same as when the judge became one: a regression fixture, changed only on purpose
    stored = json.loads((ROOT / "tests" / "fixtures" / "nbgrader_cell_scores.json").read_text())
    assert ours == stored[f"{assignment}/{student}"]


def test_feedback_and_the_exported_grades_come_out_of_nbgrader(course: Path) -> None:
    feedback = course / "feedback" / "peggy_last_child" / "minimax" / "minimax.html"
    page = feedback.read_text(encoding="utf-8")
    assert "the last action" in page  # the hint for a decision that returns the last action
    assert "HIDDEN TESTS" not in page and "'child_values'" not in page
    # the course's own code (the setup, the judge) is left out: its cells are tagged course-code
    assert "Setup: run this cell first" not in page and "def grade_group(" not in page
    assert len(page) < 400_000, "the feedback page carries the course's code again"
    with open(course / "grades.csv", newline="") as handle:
        rows = {(row["assignment"], row["student_id"]): row for row in csv.DictReader(handle)}
    assert float(rows[("minimax", "instructor")]["score"]) == 25.0
    assert float(rows[("minimax", "peggy_last_child")]["score"]) == 15.0
    assert float(rows[("bug_hunt", "instructor")]["max_score"]) == 100 + 26
