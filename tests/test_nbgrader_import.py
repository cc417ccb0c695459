"""nbgrader's workflow with the jail's guarantees: a cheat that nbgrader rewards loses it on import.

`nbgrader autograde` runs the hidden tests in the student's kernel, where `from solutions import
minimax_value` is the reference itself. `python -m autograder nbgrader-import` grades the same
notebooks in the jail and writes its points into the gradebook, so `nbgrader export` carries them.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("nbgrader")

from autograder.cli import main  # noqa: E402
from autograder.sandbox import jail_support  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CHEAT = "from solutions import minimax_decision, minimax_value  # the reference, in nbgrader\n"

pytestmark = pytest.mark.slow


def _nbgrader(course: Path, *args: str) -> None:
    environment = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    run = subprocess.run(
        [str(BIN / "nbgrader"), *args], cwd=course, capture_output=True, text=True, timeout=600,
        env=environment,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr


def _hand_in(course: Path, student: str, solution: str | None) -> None:
    """The released notebook with every solution cell replaced by `solution` (None: the
    instructor's source notebook, solutions in place)."""
    target = course / "submitted" / student / "minimax" / "minimax.ipynb"
    target.parent.mkdir(parents=True)
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


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    course = tmp_path_factory.mktemp("nbgrader") / "course"
    course.mkdir()
    shutil.copy(ROOT / "assignments" / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "assignments" / "source" / "minimax", course / "source" / "minimax")
    _nbgrader(course, "generate_assignment", "minimax")
    _hand_in(course, "honest", None)
    _hand_in(course, "cheater", CHEAT)
    _nbgrader(course, "autograde", "minimax")
    return course


@pytest.mark.skipif(not jail_support()[0], reason="the import grades with the jail (root, Linux)")
def test_the_import_replaces_nbgraders_points_for_a_cheat_and_keeps_honest_ones(
    course: Path, capsys
) -> None:
    assert _exported(course) == {"honest": 25.0, "cheater": 25.0}  # nbgrader is fooled
    assert main(["nbgrader-import", str(course), "minimax", "--quiet", "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "cheater: nbgrader 25 -> jailed 0" in printed
    assert "honest: nbgrader 25 -> jailed 25" in printed
    assert _exported(course) == {"honest": 25.0, "cheater": 0.0}
    assert (course / "jailed" / "minimax" / "cheater" / "feedback.html").is_file()


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


def test_a_release_uses_the_courses_own_exchange_not_the_machines(course: Path) -> None:
    machine_wide = Path("/usr/local/share/nbgrader/exchange")
    existed = machine_wide.exists()
    _nbgrader(course, "release_assignment", "minimax")
    released = course / "exchange" / "adversarial-search" / "outbound" / "minimax"
    assert (released / "minimax.ipynb").is_file()
    assert machine_wide.exists() == existed


def _validate(course: Path, student: str, tmp_path: Path) -> str:
    """nbgrader's Validate (what the button in the notebook runs) on an example student's code."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_class", ROOT / "examples" / "make_class.py")
    make_class = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_class)
    code = make_class.student_code(student)
    notebook = nbformat.read(course / "release" / "minimax" / "minimax.ipynb", 4)
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and meta.get("grade_id") in code:
            cell.source = code[meta["grade_id"]]
    path = tmp_path / f"{student}.ipynb"
    nbformat.write(notebook, path)
    environment = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run([str(BIN / "nbgrader"), "validate", str(path)], cwd=course,
                          capture_output=True, text=True, timeout=300, env=environment)  # fmt: skip
    return done.stdout + done.stderr


def test_validate_reports_a_failing_self_check_and_passes_a_correct_notebook(
    course: Path, tmp_path: Path
) -> None:
    wrong = _validate(course, "erin_max_starts_at_zero", tmp_path)
    assert "VALIDATION FAILED" in wrong and "def check_minimax_value" in wrong
    assert "Success!" in _validate(course, "alice_correct", tmp_path)
