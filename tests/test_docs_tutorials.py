"""Every shell command the three tutorials show is run here, in a fresh copy of the repository
with fresh virtual environments, as a new user would run it: a tutorial that lies fails.

A fenced `bash` block is run as written, in the tutorial's order. A block marked
```` ```{code-block} bash ```` with `:class: interactive` opens something a person uses
(JupyterLab, a game in the terminal): each of its commands is run with `--help` appended, which
checks that the program is installed and takes those arguments, and the files it names must
exist. After each tutorial, what it says happened is checked.

The installs' cost is downloads and an index's answers, not what the tutorials check: the packages
every `pip install` of the tutorials asks for are put into a local wheelhouse once, and the
commands run as written with pip pointed at it alone (PIP_NO_INDEX, PIP_FIND_LINKS). The course
and the toolkit are still built from the fresh copy by the tutorials' own commands; only their
dependencies and build requirements come from the wheelhouse.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "docs" / "tutorials"
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
SHOWN_LANGUAGES = {"bash", "python", "{code-block} bash"}
BLOCK_SECONDS = 1500  # a safety net: installing JupyterLab into a fresh environment is the longest
WHEELHOUSE_SECONDS = 1500  # a safety net: downloading (or building) JupyterLab and its dependencies

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


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh copy of the repository, as a clone would be, without any environment."""
    copy = tmp_path_factory.mktemp("tutorials") / "course"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "_build", "jupyter_execute", "__pycache__", "*.egg-info",
            ".pytest_cache", ".ruff_cache", ".hypothesis", "grades", "build",
        ),
    )  # fmt: skip
    return copy


def pip_installs(tutorial: Path) -> list[str]:
    """What the `pip install` commands of `tutorial` install, as written (options left out)."""
    wanted = []
    for block in shell_blocks(tutorial):
        for line in block.text.splitlines():
            for command in line.split("&&"):
                words = shlex.split(command)
                if len(words) > 2 and Path(words[0]).name == "pip" and words[1] == "install":
                    wanted += [word for word in words[2:] if not word.startswith("-")]
    return wanted


def _local_project(requirement: str, cwd: Path) -> Path | None:
    """The folder of a requirement that names one (`.`, `./games[jupyter]`), else None."""
    if not requirement.startswith("."):
        return None
    return cwd / requirement.split("[")[0]


@pytest.fixture(scope="module")
def wheelhouse(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Wheels of everything the tutorials' installs need but the course's own projects: their
    dependencies, the packages they name (JupyterLab) and the projects' build requirements."""
    wanted = [word for tutorial in TUTORIALS.glob("*.md") for word in pip_installs(tutorial)]
    assert wanted, "the tutorials install nothing"
    requirements, local_names = [], set()
    for requirement in dict.fromkeys(wanted):
        project = _local_project(requirement, workspace)
        if project is None:
            requirements.append(requirement)
            continue
        metadata = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
        requirements += [str(workspace / requirement), *metadata["build-system"]["requires"]]
        local_names.add(re.sub(r"[-_.]+", "_", metadata["project"]["name"]).lower())
    wheels = tmp_path_factory.mktemp("wheelhouse")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--wheel-dir", str(wheels), *requirements],
        cwd=workspace, capture_output=True, text=True, timeout=WHEELHOUSE_SECONDS,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for wheel in wheels.glob("*.whl"):
        if wheel.name.split("-")[0].lower() in local_names:
            wheel.unlink()  # the tutorials build the course and the toolkit themselves
    return wheels


def _environment(wheelhouse: Path) -> dict[str, str]:
    """The caller's environment without the test's own virtual environment, pip reading the
    wheelhouse and no index."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INDEX"] = "1"
    env["PIP_FIND_LINKS"] = str(wheelhouse)
    return env


def _bash(commands: str, cwd: Path, wheelhouse: Path) -> str:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands],
        cwd=cwd, env=_environment(wheelhouse), capture_output=True, text=True,
        timeout=BLOCK_SECONDS,
    )  # fmt: skip
    assert done.returncode == 0, f"$ {commands}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def run_tutorial(name: str, cwd: Path, wheelhouse: Path) -> str:
    """Run every shell block of tutorial `name` in `cwd`; return what they printed."""
    printed = []
    blocks = shell_blocks(TUTORIALS / f"{name}.md")
    assert blocks, f"{name}.md shows no command"
    for block in blocks:
        if not block.interactive:
            printed.append(_bash(block.text, cwd, wheelhouse))
            continue
        for line in block.text.splitlines():
            for word in shlex.split(line):
                if word.endswith(".ipynb"):
                    assert (cwd / word).is_file(), f"{name}.md opens {word}, which is not there"
            printed.append(_bash(f"{line} --help", cwd, wheelhouse))
    return "\n".join(printed)


def test_every_shell_block_of_the_tutorials_is_found() -> None:
    found = {path.stem: shell_blocks(path) for path in sorted(TUTORIALS.glob("*.md"))}
    assert set(found) == {"student", "self-learner", "instructor"}
    assert all(found.values())
    assert any(block.interactive for block in found["student"])
    # each tutorial makes its own environment, so the wheelhouse must see what each installs
    assert all(pip_installs(path) for path in TUTORIALS.glob("*.md"))


def test_the_students_tutorial(workspace: Path, wheelhouse: Path) -> None:
    printed = run_tutorial("student", workspace, wheelhouse)
    course = workspace / "my_course"
    assert sorted(p.name for p in course.glob("*.ipynb")) == sorted(
        f"{name}.ipynb"
        for name in (
            "minimax",
            "alphabeta",
            "depth_limited",
            "bug_hunt",
            "connect_four",
            "chance_and_maxn",
        )  # fmt: skip
    )
    assert "jupyter lab" in printed, "python -m games notebooks says how to open them"
    python = workspace / "toolkit-env" / "bin" / "python"
    for package in ("solutions", "autograder"):
        found = subprocess.run([str(python), "-I", "-c", f"import {package}"], cwd=course,
                               capture_output=True)  # fmt: skip
        assert found.returncode != 0, f"the toolkit's environment can import {package}"


def test_the_self_learners_tutorial(workspace: Path, wheelhouse: Path) -> None:
    printed = run_tutorial("self-learner", workspace, wheelhouse)
    assert "549,946" in printed, "python -m solutions facts prints the tic-tac-toe facts"
    assert (workspace / "my_grades" / "minimax" / "feedback.html").is_file()
    grades = (workspace / "my_grades" / "grades.csv").read_text(encoding="utf-8").splitlines()
    header, row = grades[0].split(","), grades[1].split(",")
    assert header[:3] == ["student", "score", "max_score"]
    assert row[:3] == ["minimax", "0", "25"], "an untouched notebook scores 0 of 25"


def test_the_instructors_tutorial(workspace: Path, wheelhouse: Path) -> None:
    run_tutorial("instructor", workspace, wheelhouse)
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
