"""Nothing a run started outlives it: orphans, marked processes, cgroups and folders."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from autograder.sandbox.jailing import RUN_ID, cgroup_roots, remove_cgroups
from autograder.sandbox.view import MARKER

_ACTIVE: set[int] = set()


_ACTIVE_LOCK = threading.Lock()


_SUBREAPER = False


_STALE = re.compile(r"^autograder-(?:run-)?(\d+)-")


def sweep(only_this_run: bool = False) -> int:
    """Kill the processes in, and remove, the cgroups of this run (`only_this_run`) or of runs
    whose grading command has died, and remove those runs' scratch folders. Returns how many
    cgroups and folders were removed."""
    removed = 0
    roots = cgroup_roots()
    freezer = roots.get("freezer")
    for root in roots.values():
        for directory in _run_entries(root, only_this_run):
            _kill_cgroup(directory, freezer / directory.name if freezer else None)
            remove_cgroups([str(directory)])
            removed += not directory.exists()
    if not only_this_run:
        for folder in _run_entries(Path(tempfile.gettempdir()), False):
            if folder.is_dir() and not folder.is_symlink() and folder.stat().st_uid == os.getuid():
                shutil.rmtree(folder, ignore_errors=True)
                removed += not folder.exists()
    return removed


def _run_entries(root: Path, only_this_run: bool) -> list[Path]:
    """Entries of `root` named after this run, or after a run whose command is gone."""
    found = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return []
    for entry in entries:
        match = _STALE.match(entry.name)
        if not match:
            continue
        pid = int(match.group(1))
        if pid == RUN_ID[0] if only_this_run else (pid != RUN_ID[0] and not _alive(pid)):
            found.append(entry)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_cgroup(directory: Path, freezer: Path | None = None) -> None:
    """SIGKILL every process in a cgroup, until it is empty (or two seconds have passed).

    A run killed while its agent was held leaves that agent frozen, and a frozen process does
    not die of SIGKILL until it is thawed: so the freezer's cgroup of that name, and every one
    beneath it, is thawed once the signals are sent."""
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        try:
            pids = [int(line) for line in (directory / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        _thaw(freezer)
        time.sleep(0.01)


def _thaw(freezer: Path | None) -> None:
    """Thaw the freezer's cgroup `freezer` and those beneath it (nothing if it is None)."""
    if freezer is None:
        return
    states = []
    with contextlib.suppress(OSError):  # removed meanwhile (its run's own cleanup): nothing held
        states = sorted(freezer.rglob("freezer.state"))
    for state in states:
        with contextlib.suppress(OSError):
            state.write_text("THAWED")


def die_with_parent(number: int = signal.SIGKILL) -> None:
    """Have the kernel send this process signal `number` (SIGKILL by default) when the process
    (thread) that started it ends (Linux); a no-op elsewhere."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, number, 0, 0, 0)  # PR_SET_PDEATHSIG


def kill_marked(job: str) -> int:
    """Kill every process whose environment carries this submission's secret job token.

    Children inherit the token, so this finds processes that started a new session or were
    re-parented away. Returns how many were killed.
    """
    needle = f"{MARKER}={job}".encode()
    killed = 0
    for _ in range(3):  # a dying parent may leave a child that appears a moment later
        found = 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if needle in environ.split(b"\0"):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(int(entry.name), signal.SIGKILL)
                    found += 1
        killed += found
        if not found:
            break
        time.sleep(0.05)
    return killed


KILLED_WAIT = 10.0
"""Seconds to wait for the end of a process just killed with SIGKILL: it ends within
milliseconds, but its end can go unreported (a signal's exception in the caller cut the zygote's
report short), and waiting for it without a limit would hang the grading."""


def wait_killed(process: Any) -> None:
    """Wait for `process` (a `subprocess.Popen` or `ZygoteChild`) just sent SIGKILL to end, for
    at most `KILLED_WAIT` seconds: killed, it is gone either way, or soon will be."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=KILLED_WAIT)


def become_subreaper() -> bool:
    """Make this process adopt orphaned descendants (Linux), so they can be reaped.

    A submission's process that clears its environment and leaves its session is re-parented
    here when its parent dies, instead of to init. Only the grading command turns this on: in a
    process that has children of its own (a test runner's kernels), `reap_orphans` would not
    know which children are legitimate.
    """
    global _SUBREAPER
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _SUBREAPER = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        _SUBREAPER = False
    return _SUBREAPER


def is_subreaper() -> bool:
    """Whether `become_subreaper` succeeded here (a forked child must call it again)."""
    return _SUBREAPER


def reap_orphans() -> int:
    """Kill and collect adopted children that are not a running submission's main process."""
    if not _SUBREAPER:
        return 0
    with _ACTIVE_LOCK:  # no submission can start while we decide who is an orphan
        return _reap_locked(str(os.getpid()))


def _reap_locked(me: str) -> int:
    killed = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid = int(entry.name)
        if fields[1] == me and pid not in _ACTIVE:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            killed += 1
    return killed
