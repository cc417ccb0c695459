"""Holding a running submission between a contest's moves, so that it cannot think on its
opponent's time: the jail's freezer cgroup, or the process group stopped without it."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path


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
