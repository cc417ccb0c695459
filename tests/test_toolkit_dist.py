"""The student toolkit is a distribution of its own: `games` only, and enough for the assignments.

A graded student installs `pip install ./games` (or the same from git with
`#subdirectory=games`): the wheel must hold no reference solutions, no grader and no hidden
instances, and an assignment notebook must run in a virtual environment that has nothing else.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.grading.rules import ASSIGNMENT_RULES

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "assignments" / "source"
RELEASED = tuple(ASSIGNMENT_RULES)
"""The notebooks the toolkit ships (assignments/make_assignments.py writes games/notebooks/)."""

pytestmark = pytest.mark.slow


def _pip(python: Path, *args: str) -> None:
    done = subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toolkit's wheel, built from a copy of the folder (the build writes beside it)."""
    scratch = tmp_path_factory.mktemp("toolkit")
    shutil.copytree(ROOT / "games", scratch / "games", ignore=shutil.ignore_patterns("__pycache__"))
    _pip(Path(sys.executable), "wheel", "--no-deps", "-q", str(scratch / "games"), "-w",
         str(scratch / "dist"))  # fmt: skip
    (built,) = (scratch / "dist").glob("*.whl")
    return built


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


@pytest.fixture(scope="module")
def toolkit_kernel(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A kernel in a fresh virtual environment that has only the toolkit (and ipykernel)."""
    home = tmp_path_factory.mktemp("venv")
    venv.create(home / "env", with_pip=True)
    python = home / "env" / "bin" / "python"
    _pip(python, "install", "-q", str(wheel), "ipykernel")
    kernels = home / "jupyter"
    subprocess.run([str(python), "-m", "ipykernel", "install", "--prefix", str(kernels),
                    "--name", "toolkit-only"], check=True, capture_output=True)  # fmt: skip
    os.environ["JUPYTER_PATH"] = str(kernels / "share" / "jupyter")
    for package in ("solutions", "autograder"):
        found = subprocess.run([str(python), "-I", "-c", f"import {package}"], capture_output=True,
                               cwd=home)  # fmt: skip
        assert found.returncode != 0, f"{package} is importable with only the toolkit installed"
    return "toolkit-only"


def _run(notebook, kernel: str, folder: Path) -> list[tuple[int, str]]:
    """Execute `notebook` in `folder` (outside the repository) and return its errors."""
    client = NotebookClient(notebook, timeout=300, kernel_name=kernel, allow_errors=True,
                            resources={"metadata": {"path": str(folder)}})  # fmt: skip
    client.execute()
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
