"""What the workers of one test run (pytest-xdist) share: a folder, and locks across processes.

Import it as `from run_wide import file_lock` (pytest puts tests/ on the path).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest


def run_wide_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder shared by every worker of this run (each worker's own temporary folder is a
    subfolder of it under xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) across processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
