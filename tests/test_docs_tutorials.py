"""Every shell command the three tutorials show is run here, in a fresh copy of the repository
with fresh virtual environments, as a new user would run it: a tutorial that lies fails.

A fenced `bash` block is run as written, in the tutorial's order. A block marked
```` ```{code-block} bash ```` with `:class: interactive` opens something a person uses
(JupyterLab, a game in the terminal): each of its commands is run with `--help` appended, which
checks that the program is installed and takes those arguments, and the files it names must
exist. After each tutorial, what it says happened is checked. How the commands are run:
tests/tutorial_runs.py; what the tutorials' tests share in a run: tests/tutorial_fixtures.py.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from tutorial_runs import (
    TUTORIALS,
    TUTORIALS_GROUP,
    TutorialRun,
    fresh_copy,
    run_tutorial,
    shell_blocks,
)

from autograder.grading.rules import ASSIGNMENT_RULES

pytest_plugins = ("tutorial_fixtures",)  # the student's tutorial, run once for both modules
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(TUTORIALS_GROUP)]


@pytest.fixture(scope="module")
def workspace(tutorial_scratch: Path) -> Path:
    """The self-learner's and the instructor's clone: the instructor's tutorial follows the
    self-learner's in it, as one person would, and finds its `.venv` made (pip then has less
    to install). The student's tutorial has a clone of its own (tests/tutorial_fixtures.py)."""
    (tutorial_scratch / "self-learner").mkdir()
    return fresh_copy(tutorial_scratch / "self-learner")


def test_every_shell_block_of_the_tutorials_is_found() -> None:
    found = {path.stem: shell_blocks(path) for path in sorted(TUTORIALS.glob("*.md"))}
    assert set(found) == {"student", "self-learner", "instructor"}
    assert all(found.values())
    assert any(block.interactive for block in found["student"])


def test_the_students_tutorial(students_tutorial: TutorialRun) -> None:
    workspace, printed = students_tutorial.workspace, students_tutorial.printed
    course = workspace / "my_course"
    assert sorted(p.name for p in course.glob("*.ipynb")) == sorted(
        f"{name}.ipynb" for name in ASSIGNMENT_RULES
    )
    assert "jupyter lab" in printed, "python -m games notebooks says how to open them"
    python = workspace / "toolkit-env" / "bin" / "python"
    for package in ("solutions", "autograder"):
        found = subprocess.run([str(python), "-I", "-c", f"import {package}"], cwd=course,
                               capture_output=True)  # fmt: skip
        assert found.returncode != 0, f"the toolkit's environment can import {package}"


def test_the_self_learners_tutorial(workspace: Path) -> None:
    printed = run_tutorial("self-learner", workspace)
    assert "549,946" in printed, "python -m solutions facts prints the tic-tac-toe facts"
    assert (workspace / "my_grades" / "minimax" / "feedback.html").is_file()
    grades = (workspace / "my_grades" / "grades.csv").read_text(encoding="utf-8").splitlines()
    header, row = grades[0].split(","), grades[1].split(",")
    assert header[:3] == ["student", "score", "max_score"]
    assert row[:3] == ["minimax", "0", "25"], "an untouched notebook scores 0 of 25"


def test_the_instructors_tutorial(workspace: Path) -> None:
    run_tutorial("instructor", workspace)
    grades = workspace / "grades"
    rows = (grades / "grades.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(rows) == 35, "the example class has 35 students"
    assert (grades / "class.html").is_file()
    erin = (grades / "erin_max_starts_at_zero" / "feedback.html").read_text(encoding="utf-8")
    quoted = "when a MAX node starts its running value at 0 instead of minus infinity"
    assert quoted in erin, "the tutorial quotes erin's feedback page"
    assert (grades / "canvas.csv").read_text(encoding="utf-8").startswith("Student,")


def test_a_scratch_folder_is_removed_only_once_the_run_that_made_it_has_ended() -> None:
    from tutorial_fixtures import PREFIX, _owner_alive

    finished = subprocess.Popen(["true"])  # a process that has ended, and been reaped
    finished.wait()
    assert not _owner_alive(Path(f"{PREFIX}{finished.pid}-abc"))
    assert _owner_alive(Path(f"{PREFIX}{os.getpid()}-abc"))


def test_shared_memory_holds_the_tutorials_only_if_it_runs_programs_and_has_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tutorial_fixtures

    def mount(flags: int, free: int) -> None:
        found = SimpleNamespace(f_flag=flags, f_bavail=free, f_frsize=1)
        monkeypatch.setattr(tutorial_fixtures.os, "statvfs", lambda path: found)

    monkeypatch.setattr(tutorial_fixtures, "SHARED_MEMORY", Path("/"))  # a folder that exists
    mount(0, tutorial_fixtures.ROOM + 1)
    assert tutorial_fixtures._memory_has_room()
    mount(os.ST_NOEXEC, tutorial_fixtures.ROOM + 1)
    assert not tutorial_fixtures._memory_has_room(), "scripts could not run from a noexec mount"
    mount(0, tutorial_fixtures.ROOM - 1)
    assert not tutorial_fixtures._memory_has_room()


def test_games_notebooks_says_how_to_open_them_with_or_without_jupyter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from games import __main__ as command

    (tmp_path / "bin").mkdir()
    monkeypatch.setattr(command.sys, "executable", str(tmp_path / "bin" / "python"))
    monkeypatch.setattr(command.shutil, "which", lambda name: None)
    missing = command._next_step(Path("my course"))
    assert "pip install jupyterlab" in missing and "jupyter lab 'my course'" in missing
    (tmp_path / "bin" / "jupyter").write_text("")
    found = command._next_step(Path("my_course"))
    assert found.endswith(f"{tmp_path / 'bin' / 'jupyter'} lab my_course"), found
