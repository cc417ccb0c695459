"""nbgrader's workflow with the jail's guarantees: a cheat that nbgrader rewards loses it on import.

`nbgrader autograde` runs the hidden tests in the student's kernel, where `from solutions import
minimax_value` is the reference itself. `python -m autograder nbgrader-import` grades the same
notebook nbgrader graded, in the jail, and writes its points (or 0, when that notebook cannot be
graded) into the gradebook, so `nbgrader export` and `nbgrader generate_feedback` carry them.
"""

from __future__ import annotations

import csv
import html
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from example_class import make_class
from nbgrader_runs import course_folder, nbgrader_here, new_gradebook

pytest.importorskip("nbgrader")

from nbgrader.api import Gradebook  # noqa: E402

from autograder.cli import build_parser, main  # noqa: E402
from autograder.platforms import nbgrader_import  # noqa: E402
from autograder.platforms.nbgrader_import import graded_cells  # noqa: E402
from autograder.sandbox import jail_support  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHEAT = "from solutions import minimax_decision, minimax_value  # the reference, in nbgrader\n"
WRONG = (
    "def minimax_value(game, state):\n    return 0\n\n\n"
    "def minimax_decision(game, state):\n    return None\n"
)


pytestmark = pytest.mark.slow


def _nbgrader(course: Path, *args: str, check: bool = True) -> str:
    """`nbgrader ARGS` in `course`, run by nbgrader's application in this process (the same
    argv, config and files as the command, without its start: `tests/nbgrader_runs.py`)."""
    return nbgrader_here(course, *args, check=check)[1]


def _hand_in(course: Path, student: str, solution: str | None, name: str = "minimax.ipynb") -> None:
    """The released notebook with every solution cell replaced by `solution` (None: the
    instructor's source notebook, solutions in place), handed in as `name`."""
    target = course / "submitted" / student / "minimax" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if solution is None:
        shutil.copy(course / "source" / "minimax" / "minimax.ipynb", target)
        return
    notebook = nbformat.read(course / "release" / "minimax" / "minimax.ipynb", 4)
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = solution
    nbformat.write(notebook, target)


def _exported(course: Path) -> dict[str, float]:
    _nbgrader(course, "export")
    with open(course / "grades.csv", newline="") as handle:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}


READ = ("cheater", "honest", "vanished")
"""The students whose feedback the tests read, one of each kind the import finds (graded 0 by
the jail, graded in full, not graded): nbgrader's feedback is made for them alone, before the
import and after it (a page costs some tenths of a second of CPU, the course's code left out of
it), so the import still removes pages it made stale and the course ends with the pages it had."""


def _generate_feedback(course: Path) -> None:
    for student in READ:
        _nbgrader(course, "generate_feedback", "minimax", "--student", student)


def _feedback(course: Path, student: str) -> str:
    """The text of a student's nbgrader feedback page, tags removed."""
    page = (course / "feedback" / student / "minimax" / "minimax.html").read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _listing(folder: Path, leave_out: str) -> set[str]:
    return {
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.relative_to(folder).parts[0] != leave_out
    }


def _our_run_folders() -> set[str]:
    """This process's scratch and staging folders (`autograder-run-<pid>-...`) in the temp dir."""
    return {
        path.name for path in Path(tempfile.gettempdir()).glob(f"autograder-run-{os.getpid()}-*")
    }


DEMONSTRATION = "value = minimax_value(counted, counted.initial_state())"
"""What the minimax notebook's demonstration cell does: search the whole tic-tac-toe tree with
the student's function (549,945 states, about 1.5 s of CPU), to show the count. These tests
read no output of it, and the course's notebook runs ten times here (five in nbgrader's kernel,
three in the jail, two validations), so their course holds the assignment without that cell;
`tests/test_nbgrader_course.py` runs the notebook as released."""


def _source_without_the_demonstration(course: Path) -> None:
    notebook = nbformat.read(ROOT / "assignments" / "source" / "minimax" / "minimax.ipynb", 4)
    kept = [cell for cell in notebook.cells if DEMONSTRATION not in cell.source]
    assert len(kept) == len(notebook.cells) - 1, "the demonstration cell is not there, or not alone"
    notebook.cells = kept
    (course / "source" / "minimax").mkdir(parents=True)
    nbformat.write(notebook, course / "source" / "minimax" / "minimax.ipynb")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A class where nbgrader's kernel gives 25 of 25 to every submission but the renamed one:

    - honest: the solutions, in minimax.ipynb;
    - cheater: imports the reference in minimax.ipynb, with the solutions in a.ipynb beside it
      (a notebook nbgrader does not know, and the first file the grader lists);
    - honest_extra: the solutions in minimax.ipynb, and wrong functions in z_scratch.ipynb;
    - renamed: the solutions, handed in as minimax_final.ipynb (nbgrader grades nothing);
    - vanished: imports the reference; its notebook is deleted after nbgrader graded it;
    - linker: minimax.ipynb is a symbolic link to honest's notebook.
    """
    with course_folder(tmp_path_factory) as folder:  # in memory
        yield _course(folder / "course")


def _course(course: Path) -> Path:
    """Build the class of `course` (above) and autograde it with nbgrader."""
    course.mkdir()
    shutil.copy(ROOT / "assignments" / "nbgrader_config.py", course)
    _source_without_the_demonstration(course)
    new_gradebook(course)
    _nbgrader(course, "generate_assignment", "minimax")
    _hand_in(course, "honest", None)
    _hand_in(course, "cheater", CHEAT)
    _hand_in(course, "cheater", None, "a.ipynb")
    _hand_in(course, "honest_extra", None)
    _hand_in(course, "honest_extra", WRONG, "z_scratch.ipynb")
    _hand_in(course, "renamed", None, "minimax_final.ipynb")
    _hand_in(course, "vanished", CHEAT)
    linked = course / "submitted" / "linker" / "minimax" / "minimax.ipynb"
    linked.parent.mkdir(parents=True)
    linked.symlink_to(course / "submitted" / "honest" / "minimax" / "minimax.ipynb")
    printed = _nbgrader(course, "autograde", "minimax", check=False)
    failed = set(re.findall(r"error processing assignment 'minimax' for student '(\w+)'", printed))
    assert failed == {"renamed"}, printed  # "No notebooks found": nbgrader knows no notebook of it
    (course / "submitted" / "vanished" / "minimax" / "minimax.ipynb").unlink()
    return course


GRADED_FULL = {"honest", "honest_extra"}


@pytest.mark.skipif(not jail_support()[0], reason="the import grades with the jail (root, Linux)")
def test_the_import_grades_the_notebook_nbgrader_graded_and_zeroes_what_it_cannot_match(
    course: Path, capsys
) -> None:
    kernel = {"honest": 25.0, "cheater": 25.0, "honest_extra": 25.0, "linker": 25.0}
    assert _exported(course) == {**kernel, "vanished": 25.0, "renamed": 0.0}  # nbgrader is fooled
    _generate_feedback(course)  # before the import: the kernel's words
    assert "all 6 instances pass (4 points)" in _feedback(course, "cheater")
    before, scratch = _listing(course, "jailed"), _our_run_folders()

    argv = ["nbgrader-import", str(course), "minimax", "--quiet", "--workers", "2"]
    assert main([*argv, "--timeout", "60"]) == 1  # three students could not be graded
    printed = capsys.readouterr().out
    assert (
        "cheater: nbgrader 25 -> jailed 0; not graded, as nbgrader does not know them: a.ipynb"
        in printed
    )
    assert "honest: nbgrader 25 -> jailed 25" in printed
    assert (
        "honest_extra: nbgrader 25 -> jailed 25; not graded, as nbgrader does not know them: "
        "z_scratch.ipynb"
    ) in printed
    assert "linker: nbgrader 25 -> jailed 0; 0: minimax.ipynb is a symbolic link" in printed
    assert (
        "vanished: nbgrader 25 -> jailed 0; 0: no minimax.ipynb in submitted/vanished/minimax/"
        in printed
    )
    assert (
        "renamed: nbgrader 0 -> jailed 0; 0: no minimax.ipynb in submitted/renamed/minimax/ "
        "(handed in: minimax_final.ipynb, which nbgrader does not grade)"
    ) in printed
    assert "linker, renamed, vanished: 0 for every hidden test" in printed

    # Every grade of a hidden-test cell is the jail's points or 0, for every student.
    cells = graded_cells("minimax")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for submission in gradebook.find_assignment("minimax").submissions:
            student = submission.student.id
            [notebook] = submission.notebooks
            grades = {g.cell.name: g for g in notebook.grades if g.cell.name in cells}
            assert sorted(grades) == sorted(cells), student
            for grade in grades.values():
                full = student in GRADED_FULL
                assert grade.auto_score == (grade.max_score if full else 0.0), (student, grade)
    students = [*kernel, "vanished", "renamed"]
    assert _exported(course) == {name: 25.0 if name in GRADED_FULL else 0.0 for name in students}

    # The feedback, made again after the import, says what the jail found beside its score.
    _generate_feedback(course)
    cheater, honest = _feedback(course, "cheater"), _feedback(course, "honest")
    assert "all 6 instances pass" not in cheater and "6 of 6 instances failed." in cheater
    assert "Score: 0.0 / 4.0" in cheater and "Score: 4.0 / 4.0" not in cheater
    assert "graded minimax.ipynb again in its sandbox" in cheater
    assert "minimax_value: hand-made trees: all 6 instances pass (4 points)" in honest
    assert "Score: 4.0 / 4.0" in honest and "6 of 6 instances failed." not in honest
    assert "the notebook was not graded: no minimax.ipynb" in _feedback(course, "vanished")

    # Nothing is left behind: the course holds what it held, plus the jailed results.
    assert _listing(course, "jailed") == before
    assert _our_run_folders() == scratch
    assert (course / "jailed" / "minimax" / "cheater" / "feedback.html").is_file()
    assert not (course / "jailed" / "minimax" / "renamed").exists()


def test_the_import_says_what_to_do_when_nbgrader_has_not_run(tmp_path: Path, capsys) -> None:
    course = tmp_path / "course"
    (course / "submitted" / "ann" / "minimax").mkdir(parents=True)
    shutil.copy(
        ROOT / "examples" / "class" / "alice_correct.ipynb",
        course / "submitted" / "ann" / "minimax" / "minimax.ipynb",
    )
    argv = ["nbgrader-import", str(course), "minimax", "--quiet", "--isolation", "process"]
    assert main(argv) == 2
    assert "run `nbgrader autograde minimax`" in capsys.readouterr().err


def _pointed_cells(assignment: str) -> dict[str, float]:
    """grade id -> points of the code cells worth points in the assignment's source notebook
    (the bug hunt's explanations are markdown cells, graded by hand)."""
    source = ROOT / "assignments" / "source" / assignment / f"{assignment}.ipynb"
    cells = [cell for cell in nbformat.read(source, 4).cells if cell.cell_type == "code"]
    return {
        meta["grade_id"]: float(meta["points"])
        for meta in (cell.metadata.get("nbgrader", {}) for cell in cells)
        if meta.get("grade") and meta.get("points")
    }


@pytest.mark.parametrize("assignment", sorted(nbgrader_import.ASSIGNMENT_RULES))
def test_the_cells_imported_are_the_hidden_tests_of_the_assignments_notebook(assignment) -> None:
    assert set(graded_cells(assignment)) == set(_pointed_cells(assignment))


def _gradebook_course(tmp_path: Path, kernel: dict[str, float], split: bool = False) -> Path:
    """A course whose gradebook holds what `nbgrader autograde minimax` leaves, without running
    nbgrader: the minimax notebook's cells (or, with `split`, the cells in two notebooks) and, for
    each student of `kernel`, that fraction of every hidden-test cell's points."""
    course = tmp_path / "course"
    course.mkdir()
    cells = _pointed_cells("minimax")
    with Gradebook(f"sqlite:///{new_gradebook(course)}") as gradebook:
        gradebook.add_assignment("minimax")
        notebooks = ["part1", "part2"] if split else ["minimax"]
        for notebook in notebooks:
            gradebook.add_notebook(notebook, "minimax")
        for number, (cell, points) in enumerate(cells.items()):
            notebook = notebooks[number % len(notebooks)]
            gradebook.add_grade_cell(cell, notebook, "minimax", max_score=points, cell_type="code")
        for student, fraction in kernel.items():
            gradebook.add_student(student)
            gradebook.add_submission("minimax", student)
            for notebook in gradebook.find_submission("minimax", student).notebooks:
                for grade in notebook.grades:
                    grade.auto_score = fraction * grade.max_score
        gradebook.db.commit()
    return course


def _kernel_and_jailed_totals(course: Path) -> dict[str, float]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return {
            submission.student.id: sum(
                grade.auto_score or 0.0 for nb in submission.notebooks for grade in nb.grades
            )
            for submission in gradebook.find_assignment("minimax").submissions
        }


def _submit(course: Path, student: str, *names: str) -> None:
    folder = course / "submitted" / student / "minimax"
    folder.mkdir(parents=True)
    for name in names:
        shutil.copy(ROOT / "examples" / "class" / "alice_correct.ipynb", folder / name)


def test_results_of_other_files_than_the_notebook_nbgrader_graded_earn_nothing(
    tmp_path: Path, capsys
) -> None:
    """`grade` on submitted/ reads every notebook of a student as one submission; the import
    grades the notebook nbgrader graded alone, and takes no points from a grading of more."""
    course = _gradebook_course(tmp_path, {"ann": 0.0, "carl": 1.0})
    _submit(course, "ann", "minimax.ipynb")
    _submit(course, "carl", "a.ipynb", "minimax.ipynb")
    _submit(course, "bob", "minimax.ipynb")  # handed in, but nbgrader has not autograded it
    settings = ["--quiet", "--isolation", "process", "--workers", "1", "--timeout", "60"]
    out = course / "jailed" / "minimax"
    grade = ["grade", str(course / "submitted"), "--assignment", "minimax", "--out", str(out)]
    assert main([*grade, *settings]) == 0
    capsys.readouterr()
    args = build_parser().parse_args(["nbgrader-import", str(course), "minimax", *settings])
    assert nbgrader_import.command(args) == 1  # the import alone, of what `grade` saved
    printed = capsys.readouterr().out
    assert "ann: nbgrader 0 -> jailed 25" in printed
    assert "carl: nbgrader 25 -> jailed 0; 0: its jailed results are not of the notebook" in printed
    assert "bob: not in the gradebook, nothing imported" in printed
    assert "run `nbgrader autograde minimax` first" in printed
    assert _kernel_and_jailed_totals(course) == {"ann": 25.0, "carl": 0.0}

    assert main(["nbgrader-import", str(course), "minimax", *settings]) == 1  # bob
    printed = capsys.readouterr().out
    assert (
        "carl: nbgrader 0 -> jailed 25; not graded, as nbgrader does not know them: a.ipynb"
        in printed
    )
    assert _kernel_and_jailed_totals(course) == {"ann": 25.0, "carl": 25.0}


def test_the_import_refuses_hidden_tests_split_over_two_notebooks(tmp_path: Path, capsys) -> None:
    course = _gradebook_course(tmp_path, {"ann": 1.0}, split=True)
    _submit(course, "ann", "part1.ipynb", "part2.ipynb")
    argv = ["nbgrader-import", str(course), "minimax", "--quiet", "--isolation", "process"]
    assert main(argv) == 2
    assert "our hidden-test cells in 2 notebooks (part1, part2)" in capsys.readouterr().err
    assert _kernel_and_jailed_totals(course) == {"ann": 25.0}  # nothing imported, nothing graded
    assert not (course / "jailed").exists()


def test_a_release_uses_the_courses_own_exchange_not_the_machines(course: Path) -> None:
    machine_wide = Path("/usr/local/share/nbgrader/exchange")
    existed = machine_wide.exists()
    _nbgrader(course, "release_assignment", "minimax")
    released = course / "exchange" / "adversarial-search" / "outbound" / "minimax"
    assert (released / "minimax.ipynb").is_file()
    assert machine_wide.exists() == existed


def _validate(course: Path, student: str, tmp_path: Path) -> str:
    """nbgrader's Validate (what the button in the notebook runs) on an example student's code."""
    code = make_class.student_code(student)
    notebook = nbformat.read(course / "release" / "minimax" / "minimax.ipynb", 4)
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and meta.get("grade_id") in code:
            cell.source = code[meta["grade_id"]]
    path = tmp_path / f"{student}.ipynb"
    nbformat.write(notebook, path)
    return _nbgrader(course, "validate", str(path), check=False)


def test_validate_reports_a_failing_self_check_and_passes_a_correct_notebook(
    course: Path, tmp_path: Path
) -> None:
    wrong = _validate(course, "erin_max_starts_at_zero", tmp_path)
    assert "VALIDATION FAILED" in wrong and "def check_minimax_value" in wrong
    assert "Success!" in _validate(course, "alice_correct", tmp_path)
