"""Holding a running submission between a contest's moves, so that it cannot think on its
opponent's time: the jail's freezer cgroup, or the process group stopped without it.

A freeze is asynchronous in the kernel (the freezer reads FREEZING until the last task has
stopped; a signal is delivered when its process next runs), so `pause` waits until it has
landed: the opponent's move starts only once this agent is held, not up to 150 ms later.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

HOLD_WAIT = 2.0
"""Wall-clock seconds `pause` waits at most for the freeze to land: far longer than it takes
(under a millisecond), a bound for a kernel that never reports it."""


class Holding:
    """What `StudentProcess` adds to hold its processes: it has `process` and `cgroups`."""

    process: subprocess.Popen | None
    cgroups: list
    paused: bool = False

    def pause(self) -> None:
        """Stop every process of the submission until `resume`: between a contest's moves, an
        agent must not think (or take a CPU) on its opponent's time. The jail's freezer cgroup
        holds even processes that left the session; without it, the process group is stopped."""
        self._freeze("FROZEN", signal.SIGSTOP)

    def resume(self) -> None:
        """Let a paused submission run again."""
        self._freeze("THAWED", signal.SIGCONT)

    def _freeze(self, state: str, fallback: signal.Signals) -> None:
        if self.process is None:
            return
        freezer = next((Path(c) for c in self.cgroups if "/freezer/" in c), None)
        try:
            if freezer is not None:
                (freezer / "freezer.state").write_text(state)
            else:
                os.killpg(self.process.pid, fallback)
        except (OSError, ProcessLookupError):
            return  # the process is gone: stop() will find it so
        self.paused = state == "FROZEN"
        if self.paused:
            _until_held(freezer, self.process.pid)


def _until_held(freezer: Path | None, pid: int) -> None:
    """Wait until the freezer reads FROZEN, or, without it, until every thread of the
    submission's first process is stopped (state T); at most `HOLD_WAIT` seconds."""
    deadline = time.monotonic() + HOLD_WAIT
    while time.monotonic() < deadline:
        try:
            if freezer is not None:
                held = (freezer / "freezer.state").read_text().strip() == "FROZEN"
            else:
                held = all(_task_state(task) in "tTXZ" for task in os.scandir(f"/proc/{pid}/task"))
        except OSError:
            return  # gone, or no /proc: nothing left to wait for
        if held:
            return
        time.sleep(0.0001)  # let the kernel finish the freeze (and the agent reach it)


def _task_state(task: os.DirEntry) -> str:
    try:
        with open(os.path.join(task.path, "stat"), "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return "X"  # the thread has ended
