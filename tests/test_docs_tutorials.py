"""Every shell command the three tutorials show is run here, in a fresh copy of the repository
with fresh virtual environments, as a new user would run it: a tutorial that lies fails.

A fenced `bash` block is run as written, in the tutorial's order. A block marked
```` ```{code-block} bash ```` with `:class: interactive` opens something a person uses
(JupyterLab, a game in the terminal): each of its commands is run with `--help` appended, which
checks that the program is installed and takes those arguments, and the files it names must
exist. After each tutorial, what it says happened is checked.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.grading.rules import ASSIGNMENT_RULES

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "docs" / "tutorials"
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
SHOWN_LANGUAGES = {"bash", "python", "{code-block} bash"}
BLOCK_SECONDS = 1500  # a safety net: installing JupyterLab into a fresh environment is the longest

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Block:
    """A shell block of a tutorial: its commands, and whether a person uses what it opens."""

    text: str
    interactive: bool


def shell_blocks(tutorial: Path) -> list[Block]:
    """The shell blocks of `tutorial`, in order; any other fenced language is refused, so a
    command cannot hide from this test in a `console` or `sh` block."""
    blocks = []
    for fence in FENCE.finditer(tutorial.read_text(encoding="utf-8")):
        info, body = fence["info"].strip(), fence["body"]
        assert info in SHOWN_LANGUAGES, f"{tutorial.name}: a ```{info} block (use bash)"
        if info == "python":
            continue
        options = [line for line in body.splitlines() if line.startswith(":")]
        commands = "\n".join(line for line in body.splitlines() if not line.startswith(":"))
        blocks.append(Block(commands.strip(), ":class: interactive" in options))
    return blocks


def _fresh_copy(folder: Path) -> Path:
    """A fresh copy of the repository in `folder`, as a clone would be, without any environment."""
    copy = folder / "course"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "_build", "jupyter_execute", "__pycache__", "*.egg-info",
            ".pytest_cache", ".ruff_cache", ".hypothesis", "grades", "build",
        ),
    )  # fmt: skip
    return copy


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The self-learner's and the instructor's clone: the instructor's tutorial follows the
    self-learner's in it, as one person would, and finds its `.venv` made (pip then has less
    to install). The student's tutorial has a clone of its own (`tmp_path`), so that it can run
    on the other worker meanwhile."""
    return _fresh_copy(tmp_path_factory.mktemp("tutorials"))


def _environment() -> dict[str, str]:
    """The caller's environment without the test's own virtual environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _bash(commands: str, cwd: Path) -> str:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands],
        cwd=cwd, env=_environment(), capture_output=True, text=True, timeout=BLOCK_SECONDS,
    )  # fmt: skip
    assert done.returncode == 0, f"$ {commands}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def run_tutorial(name: str, cwd: Path) -> str:
    """Run every shell block of tutorial `name` in `cwd`; return what they printed."""
    printed = []
    blocks = shell_blocks(TUTORIALS / f"{name}.md")
    assert blocks, f"{name}.md shows no command"
    for block in blocks:
        if not block.interactive:
            printed.append(_bash(block.text, cwd))
            continue
        for line in block.text.splitlines():
            for word in shlex.split(line):
                if word.endswith(".ipynb"):
                    assert (cwd / word).is_file(), f"{name}.md opens {word}, which is not there"
            printed.append(_bash(f"{line} --help", cwd))
    return "\n".join(printed)


def test_every_shell_block_of_the_tutorials_is_found() -> None:
    found = {path.stem: shell_blocks(path) for path in sorted(TUTORIALS.glob("*.md"))}
    assert set(found) == {"student", "self-learner", "instructor"}
    assert all(found.values())
    assert any(block.interactive for block in found["student"])


def test_the_students_tutorial(tmp_path: Path) -> None:
    workspace = _fresh_copy(tmp_path)
    printed = run_tutorial("student", workspace)
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
