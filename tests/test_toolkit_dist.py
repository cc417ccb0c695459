"""The student toolkit is a distribution of its own: `games` only, and enough for the assignments.

A graded student installs `pip install ./games` (or the same from git with
`#subdirectory=games`): the wheel must hold no reference solutions, no grader and no hidden
instances, and an assignment notebook must run in a virtual environment that has nothing else.
That environment is the one the student's tutorial makes (`pip install './games[jupyter]'`,
tests/tutorial_fixtures.py): the toolkit, Jupyter, and the files of the wheel checked here,
which is the one pip built for that install.
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from tutorial_runs import TUTORIALS_GROUP, TutorialRun, built_wheels

from autograder.grading.rules import ASSIGNMENT_RULES

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "assignments" / "source"
RELEASED = tuple(ASSIGNMENT_RULES)
"""The notebooks the toolkit ships (assignments/make_assignments.py writes games/notebooks/)."""

pytest_plugins = ("tutorial_fixtures",)  # the student's tutorial, run once for both modules
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(TUTORIALS_GROUP)]


@pytest.fixture(scope="module")
def wheel(students_tutorial: TutorialRun) -> Path:
    """The toolkit's wheel that the student's `pip install './games[jupyter]'` built from its
    clone's folder and installed (pip keeps it: tests/tutorial_runs.py), so the wheel checked
    here is the one a student gets, and it is built once."""
    built = built_wheels(students_tutorial.workspace)
    toolkit = [path for path in built if path.name.startswith("adversarial_search_games-")]
    assert len(toolkit) == 1, f"pip built these wheels for the student: {built}"
    return toolkit[0]


def test_the_wheel_holds_the_toolkit_and_nothing_of_the_answers(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    packages = {
        name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")
    }
    assert packages == {"games"}
    modules = {Path(name).name for name in names if name.startswith("games/") and "." in name}
    shipped = {path.name for path in (ROOT / "games").glob("*.py")}
    notebooks = {f"{name}.ipynb" for name in RELEASED}
    assert modules == shipped | notebooks
    code = [name for name in names if not name.endswith(".ipynb")]
    text = b"".join(zipfile.ZipFile(wheel).read(name) for name in code)
    secrets = (
        b"def alphabeta_value",
        b"PRUNING_SLACK",
        b"hidden_test",
        b"import solutions",
        b"def backed_up_values",  # minimax over a whole tree: Assignment 1's answer for trees
        b"1979/3456",  # the value of a hidden instance (Pig's initial state)
    )
    for secret in secrets:
        assert secret not in text, secret
    for name in names:
        if name.endswith(".ipynb"):  # released: the solutions stubbed, the hidden tests gone
            released = zipfile.ZipFile(wheel).read(name)
            for secret in (b"BEGIN SOLUTION", b"BEGIN HIDDEN TESTS", b"import solutions"):
                assert secret not in released, (name, secret)
            assert b"raise NotImplementedError()" in released, name


def _hashes(record: str) -> dict[str, str]:
    """The `games/` files of a wheel's RECORD and their hashes (bytecode left out: an install
    may compile it, a wheel holds none)."""
    return {
        row[0]: row[1]
        for row in csv.reader(io.StringIO(record))
        if row and row[0].startswith("games/") and "__pycache__" not in row[0]
    }


def test_the_student_installs_exactly_this_wheels_files(
    wheel: Path, students_tutorial: TutorialRun
) -> None:
    """The checked wheel is the one `pip install './games[jupyter]'` built and installed: the
    files in the student's environment are its files, byte for byte (RECORD's hashes)."""
    env = students_tutorial.workspace / "toolkit-env"
    (installed,) = env.glob("lib/python*/site-packages/adversarial_search_games-*.dist-info/RECORD")
    with zipfile.ZipFile(wheel) as archive:
        (record,) = [name for name in archive.namelist() if name.endswith(".dist-info/RECORD")]
        built = _hashes(archive.read(record).decode("utf-8"))
    assert built and _hashes(installed.read_text(encoding="utf-8")) == built


def _keeping_bytecode() -> dict[str, str]:
    """This process's environment, less a PYTHONDONTWRITEBYTECODE: the student's environment
    keeps the bytecode its processes compile, as on a student's machine, so each kernel does not
    compile Jupyter's modules again (about 2 s of CPU a kernel)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@pytest.fixture(scope="module")
def toolkit_kernel(
    students_tutorial: TutorialRun, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A kernel in the student's environment, which has only the toolkit, Jupyter and ipykernel
    (findable while this module runs: the tests that follow on this worker see the usual ones)."""
    python = students_tutorial.workspace / "toolkit-env" / "bin" / "python"
    home = tmp_path_factory.mktemp("kernel")
    kernels = home / "jupyter"
    subprocess.run([str(python), "-m", "ipykernel", "install", "--prefix", str(kernels),
                    "--name", "toolkit-only"], check=True, capture_output=True,
                   env=_keeping_bytecode())  # fmt: skip
    for package in ("solutions", "autograder"):
        found = subprocess.run([str(python), "-I", "-c", f"import {package}"], capture_output=True,
                               cwd=home)  # fmt: skip
        assert found.returncode != 0, f"{package} is importable with only the toolkit installed"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(kernels / "share" / "jupyter"))
        yield "toolkit-only"


def _run(notebook, kernel: str, folder: Path) -> list[tuple[int, str]]:
    """Execute `notebook` in `folder` (outside the repository) and return its errors."""
    client = NotebookClient(notebook, timeout=300, kernel_name=kernel, allow_errors=True,
                            resources={"metadata": {"path": str(folder)}})  # fmt: skip
    client.execute(env=_keeping_bytecode())
    return [
        (index, f"{output.ename}: {output.evalue}")
        for index, cell in enumerate(notebook.cells)
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]


@pytest.mark.parametrize(
    "assignment", ["minimax", "depth_limited", "connect_four", "chance_and_maxn"]
)
def test_an_assignment_with_its_solutions_runs_with_only_the_toolkit(
    toolkit_kernel: str, assignment: str, tmp_path: Path
) -> None:
    notebook = nbformat.read(ASSIGNMENTS / assignment / f"{assignment}.ipynb", as_version=4)
    assert _run(notebook, toolkit_kernel, tmp_path) == []


def test_a_released_notebook_runs_top_to_bottom_with_only_the_toolkit(
    toolkit_kernel: str, tmp_path: Path
) -> None:
    notebook = nbformat.read(ROOT / "games" / "notebooks" / "minimax.ipynb", as_version=4)
    assert _run(notebook, toolkit_kernel, tmp_path) == []
    printed = " ".join(
        str(output.get("text", "")) for cell in notebook.cells for output in cell.get("outputs", [])
    )
    assert "write minimax_value first" in printed.lower(), "the self-checks say what is missing"


def test_the_toolkit_copies_its_notebooks_out_and_never_over_a_students_work(
    tmp_path: Path,
) -> None:
    run = [sys.executable, "-m", "games", "notebooks", str(tmp_path / "course")]
    first = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert sorted(p.name for p in (tmp_path / "course").iterdir()) == sorted(
        f"{name}.ipynb" for name in RELEASED
    )
    work = tmp_path / "course" / "minimax.ipynb"
    work.write_text("my work", encoding="utf-8")
    again = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path)
    assert again.returncode == 0 and "kept" in again.stdout
    assert work.read_text(encoding="utf-8") == "my work"
    (tmp_path / "file").write_text("")
    refused = subprocess.run([*run[:-1], str(tmp_path / "file")], capture_output=True, text=True)
    assert refused.returncode == 2 and "is a file" in refused.stderr
