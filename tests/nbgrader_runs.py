"""nbgrader's commands run inside the test's process, as nbgrader's own test-suite runs them.

`nbgrader generate_feedback minimax` in a course folder is `NbGraderApp` given that argv, with
the folder's nbgrader_config.py loaded from the working directory. Run in a new process, each
command first pays Python's start and nbgrader's imports (about 2.7 s of CPU, half of it the IRI
grammar jsonschema builds, which nbgrader never uses); run here, the same application parses
the same argv, reads the same config and writes the same files, and the imports are paid once
per worker. What a command changes of this process (the working directory, `sys.path`, the
environment its config sets, its log handlers) is put back when it ends. The tests that must
see the command itself start it as a process (`nbgrader_command`).

Each new gradebook also costs a process: nbgrader starts `alembic heads` to stamp it (about
3 s of CPU). `new_gradebook` copies one made by nbgrader's `Gradebook` once per process, and
stamped with what alembic's own `heads` reads, in this process: a course's first command finds
its gradebook as that command would have created it.

Each kernel nbgrader starts is a Python process too (some 26 a course): `kernel_environment`
gives nbgrader in these tests a kernel spec named `python3`, as the notebooks ask, that starts
the same `ipykernel` on the same interpreter without what grading never uses: the debugger
(debugpy's import, some 0.1-0.15 s of a kernel's CPU; nbgrader already keeps the kernel's
history in memory). The cells, their outputs and nbgrader's scores are the same.

nbgrader commits its gradebook a few dozen times a command, and SQLite waits for each commit to
reach the disk (about 16 ms a commit on this machine's ext4 /tmp, 0.1 ms in memory): a course
built by `course_folder` lives in the machine's tmpfs (/dev/shm) when there is one, and is
removed when its tests end.

Import it as `from nbgrader_runs import nbgrader_here` (pytest puts tests/ on the path).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import io
import json
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
"""The environment's scripts: `nbgrader` itself, and `alembic`, which nbgrader starts when it
creates a gradebook."""

_ONE_AT_A_TIME = threading.Lock()
"""nbgrader's application is a process-wide singleton: one command at a time."""


def _path_with_bin() -> str:
    return f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"


def kernel_environment() -> dict[str, str]:
    """What nbgrader's commands here run with: the environment's scripts first on PATH (as the
    `nbgrader` script runs), and the lean kernel spec first on JUPYTER_PATH."""
    jupyter_path = os.environ.get("JUPYTER_PATH")
    lean = str(_lean_kernel_folder())
    return {
        "PATH": _path_with_bin(),
        "JUPYTER_PATH": lean if not jupyter_path else f"{lean}{os.pathsep}{jupyter_path}",
    }


LEAN_LAUNCHER = """\
import sys
from pathlib import Path

# as ipykernel_launcher: the kernel's folder is not where its imports come from
if sys.path[0] in ("", str(Path.cwd())):
    del sys.path[0]
sys.modules["debugpy"] = None  # ipykernel then starts without its debugger
from ipykernel import kernelapp

kernelapp.launch_new_instance()
"""


@functools.cache
def _lean_kernel_folder() -> Path:
    """A Jupyter data folder, one per process, holding the lean `python3` kernel spec."""
    folder = Path(tempfile.mkdtemp(prefix="nbgrader-kernels-"))
    atexit.register(shutil.rmtree, folder, True)
    launcher = folder / "lean_kernel.py"
    launcher.write_text(LEAN_LAUNCHER)
    spec = {
        "argv": [
            sys.executable,
            str(launcher),
            "-f",
            "{connection_file}",
        ],
        "display_name": "Python 3 (ipykernel, no debugger)",
        "language": "python",
        "metadata": {"debugger": False},
    }
    (folder / "kernels" / "python3").mkdir(parents=True)
    (folder / "kernels" / "python3" / "kernel.json").write_text(json.dumps(spec, indent=1))
    return folder


def nbgrader_here(course: Path, *args: str, check: bool = True) -> tuple[int, str]:
    """Run `nbgrader ARGS` in `course` inside this process; return its exit status and what it
    logged and printed. With `check`, a status other than 0 fails the test with that text."""
    from jupyter_core.application import NoStart
    from nbgrader.apps import NbGraderApp
    from nbgrader.validator import Validator

    with _ONE_AT_A_TIME:
        saved_cwd, saved_path = os.getcwd(), list(sys.path)
        saved_environment = dict(os.environ)
        saved_stream = Validator.stream
        printed = io.StringIO()
        status = 0
        app = NbGraderApp.instance()
        try:
            os.chdir(course)
            os.environ.update(kernel_environment())
            Validator.stream = printed  # `validate` prints its verdict, the others log
            app.initialize(list(args))
            app.init_logging(logging.StreamHandler, [printed], color=False, subapps=True)
            app.start()
        except NoStart:  # how a subcommand that ran says it is done
            pass
        except SystemExit as stop:  # `fail` and the subcommands exit with their status
            status = stop.code if isinstance(stop.code, int) else 1
        finally:
            app.reset()
            Validator.stream = saved_stream
            os.chdir(saved_cwd)
            sys.path[:] = saved_path  # nbgrader puts the course folder first
            _restore(saved_environment)  # the course's config sets PYTHONHASHSEED
    text = printed.getvalue()
    assert status == 0 or not check, text
    return status, text


MEMORY = Path("/dev/shm")
"""The tmpfs of Linux machines: files there are never written to a disk."""


@contextlib.contextmanager
def course_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An empty folder to build a course in: in memory when the machine has a writable tmpfs
    (removed with what it holds when the block ends), else one of pytest's temporary folders."""
    if not (MEMORY.is_dir() and os.access(MEMORY, os.W_OK | os.X_OK)):
        yield tmp_path_factory.mktemp("nbgrader")
        return
    folder = Path(tempfile.mkdtemp(prefix="nbgrader-course-", dir=MEMORY))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def new_gradebook(course: Path) -> Path:
    """Put an empty gradebook into `course` and return its path: the tables and the alembic
    stamp nbgrader's `Gradebook` creates, without a course (nbgrader adds the course's own when
    it first opens it)."""
    target = course / "gradebook.db"
    shutil.copyfile(_gradebook_template(), target)
    return target


@functools.cache
def _gradebook_template() -> Path:
    from alembic.script import ScriptDirectory
    from nbgrader import api
    from nbgrader.dbutil import ALEMBIC_DIR

    folder = Path(tempfile.mkdtemp(prefix="nbgrader-gradebook-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "gradebook.db"
    # The stamp `alembic heads` prints, read by alembic in this process: nbgrader starts the
    # command for it, and the command's imports are its whole cost.
    [head] = ScriptDirectory(ALEMBIC_DIR).get_heads()
    started = api.get_alembic_version
    with _ONE_AT_A_TIME:
        api.get_alembic_version = lambda: head
        try:
            api.Gradebook(f"sqlite:///{path}").close()
        finally:
            api.get_alembic_version = started
    database = sqlite3.connect(path)
    try:
        with database:
            database.execute("DELETE FROM course")  # the default course Gradebook adds
    finally:
        database.close()
    return path


def _restore(environment: dict[str, str]) -> None:
    """Put back the variables a command changed (one by one: never an empty environment that
    another thread's process could start with)."""
    for name in set(os.environ) - set(environment):
        del os.environ[name]
    for name, value in environment.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


def nbgrader_command(course: Path, *args: str, check: bool = True) -> str:
    """Run the `nbgrader` command itself, in a new process, in `course`; return its output."""
    environment = {**os.environ, **kernel_environment()}
    run = subprocess.run(
        [str(BIN / "nbgrader"), *args],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=600,  # a safety net: the longest command here takes under 30 s idle
        env=environment,
    )
    assert run.returncode == 0 or not check, run.stdout + run.stderr
    return run.stdout + run.stderr
