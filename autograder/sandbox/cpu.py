"""The CPU time a submission's processes have used: what caps a contest move, not the wall clock.

A contest move's `seconds` are CPU seconds of the agent's own processes, so a busy machine
slows a move down without changing it. Jailed, the kernel counts them for us: the submission's
cpuacct cgroup holds every process it starts (`cpuacct.usage`, in nanoseconds). Without that
cgroup, the processes descended from the submission's first one are found in /proc and their
user and system times added up (a process that left the tree, or has ended unwaited, is no
longer counted: the wall-clock safety net still stops it). Elsewhere there is no meter.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

CHECK_EVERY = 0.05
"""Wall-clock seconds between two readings while a move runs: a move that passes its CPU time
is stopped at most this much later (in wall time) than when it passed it."""

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_meter(pid: int, cgroups: list[str]) -> Callable[[], float] | None:
    """A function giving the CPU seconds the submission (first process `pid`, in `cgroups`)
    has used so far, or None where they cannot be read."""
    for directory in cgroups:
        usage = Path(directory, "cpuacct.usage")
        if usage.exists():
            return lambda: int(usage.read_text()) / 1e9
    if Path("/proc", str(pid), "stat").exists():
        return lambda: _tree_seconds(pid)
    return None


def _tree_seconds(pid: int) -> float:
    """The user and system seconds of `pid` and its descendants (its ended children waited for
    included), read from /proc."""
    children: dict[int, list[int]] = {}
    times = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:  # it ended while we looked
            continue
        process = int(entry.name)
        children.setdefault(int(fields[1]), []).append(process)
        times[process] = sum(int(field) for field in fields[11:15])  # utime, stime, cutime, cstime
    total, family = 0, [pid]
    while family:
        process = family.pop()
        total += times.get(process, 0)
        family += children.get(process, [])
    return total / _TICKS
