"""The helpers that run nbgrader for the tests (`tests/nbgrader_runs.py`) leave no trace.

A command run inside the test's process must put back what it changed of the process, and a
failing one must say so; a copied gradebook must be the one nbgrader would have created.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from nbgrader_runs import kernel_environment, nbgrader_here, new_gradebook

pytest.importorskip("nbgrader")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """An empty course: the course's config and a new gradebook."""
    folder = tmp_path / "course"
    folder.mkdir()
    shutil.copy(ROOT / "assignments" / "nbgrader_config.py", folder)
    new_gradebook(folder)
    return folder


def test_a_command_run_here_does_its_work_and_puts_the_process_back(course: Path) -> None:
    cwd, path, environment = os.getcwd(), list(sys.path), dict(os.environ)
    status, logged = nbgrader_here(course, "export")
    assert status == 0 and "Exporting grades to grades.csv" in logged
    header = (course / "grades.csv").read_text().splitlines()[0]
    assert header.startswith("assignment,duedate,timestamp,student_id")
    # the config set PYTHONHASHSEED and nbgrader put the course folder first on the path
    assert (os.getcwd(), sys.path, dict(os.environ)) == (cwd, path, environment)


def test_a_failing_command_gives_its_status_and_says_why(course: Path) -> None:
    status, logged = nbgrader_here(course, "autograde", "no_such_assignment", check=False)
    assert status == 1
    assert "No notebooks were matched" in logged
    with pytest.raises(AssertionError, match="No notebooks were matched"):
        nbgrader_here(course, "autograde", "no_such_assignment")


def test_a_new_gradebook_is_stamped_and_takes_the_courses_own_id(course: Path) -> None:
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    database = sqlite3.connect(course / "gradebook.db")
    try:
        stamp = database.execute("SELECT version_num FROM alembic_version").fetchall()
        assert stamp == [(head,) for head in ScriptDirectory(ALEMBIC_DIR).get_heads()]
        assert database.execute("SELECT id FROM course").fetchall() == []
    finally:
        database.close()
    nbgrader_here(course, "export")  # nbgrader's first command adds the course of the config
    database = sqlite3.connect(course / "gradebook.db")
    try:
        assert database.execute("SELECT id FROM course").fetchall() == [("adversarial-search",)]
    finally:
        database.close()


def test_the_kernels_nbgrader_starts_here_are_the_same_python_without_the_debugger(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import start_new_kernel

    for name, value in kernel_environment().items():  # what a command run here sees
        monkeypatch.setenv(name, value)
    environment = dict(os.environ)
    spec = KernelSpecManager().get_kernel_spec("python3")  # the name the notebooks ask for
    assert spec.argv[0] == sys.executable and "{connection_file}" in spec.argv
    manager, client = start_new_kernel(kernel_name="python3", env=environment)
    printed: list[str] = []
    try:
        client.execute_interactive(
            "import sys; print(sys.executable, sys.modules.get('debugpy', 'absent'))",
            timeout=60,
            output_hook=lambda message: printed.append(message["content"].get("text", "")),
        )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert "".join(printed).split() == [sys.executable, "None"]  # debugpy's import refused
