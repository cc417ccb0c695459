"""The fixtures the tutorials' tests share, built once per run: a pytest plugin.

tests/test_docs_tutorials.py and tests/test_toolkit_dist.py load it (`pytest_plugins`), and
both name the xdist group `TUTORIALS_GROUP`, so they run on one worker, which builds these once:

- `tutorial_scratch`: where the tutorials' clones and environments go, in memory when the
  machine has room for them;
- `students_tutorial`: the student's tutorial run once in a fresh clone; its toolkit-only
  environment is also the kernel of tests/test_toolkit_dist.py (the same install, tested twice),
  and the toolkit's wheel its pip built is the wheel that module checks.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from tutorial_runs import TutorialRun, fresh_copy, run_tutorial

SHARED_MEMORY = Path("/dev/shm")
ROOM = 2 * 2**30
"""Bytes free that shared memory must have for the tutorials' files (they take under 1 GB)."""
PREFIX = "course-tutorials-"


def _memory_has_room() -> bool:
    """Whether shared memory can hold the tutorials' files and run their commands (a noexec
    mount, Docker's default, could not start `.venv/bin/pip`)."""
    if not SHARED_MEMORY.is_dir():
        return False
    mount = os.statvfs(SHARED_MEMORY)
    return not mount.f_flag & os.ST_NOEXEC and mount.f_bavail * mount.f_frsize > ROOM


def _owner_alive(folder: Path) -> bool:
    """Whether the test process that made `folder` (named PREFIX<pid>-...) still runs."""
    pid = int(folder.name.removeprefix(PREFIX).split("-")[0])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


@pytest.fixture(scope="session")
def tutorial_scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder of the tutorials' clones and environments: in shared memory (/dev/shm) when
    it has room, else in pytest's temporary folder.

    Each environment is some twenty thousand small files, and on this project's machines the
    disk took about twice as long as memory to write them (an install of JupyterLab's
    distributions from local wheels: 23-29 s on ext4 against 14-16 s in /dev/shm, at load 6).
    The folder is removed at the end of the run, and so is one that a run killed before its end
    left behind.
    """
    if _memory_has_room():
        for stale in SHARED_MEMORY.glob(f"{PREFIX}*"):
            if not _owner_alive(stale):
                shutil.rmtree(stale, ignore_errors=True)
        scratch = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=SHARED_MEMORY))
        yield scratch
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        yield tmp_path_factory.mktemp("tutorials")


@pytest.fixture(scope="session")
def students_tutorial(tutorial_scratch: Path) -> TutorialRun:
    """The student's tutorial, run once in a clone of its own: its environment (`toolkit-env`,
    the toolkit and Jupyter only) is also the kernel that runs the assignments in
    tests/test_toolkit_dist.py."""
    (tutorial_scratch / "student").mkdir()
    workspace = fresh_copy(tutorial_scratch / "student")
    printed = run_tutorial("student", workspace)
    return TutorialRun(workspace, printed)
