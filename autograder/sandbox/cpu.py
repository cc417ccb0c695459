"""The time a submission's move uses: what caps a contest move, not the wall clock.

A contest move's `seconds` are the agent's own time. That is its CPU time (every process of the
submission) and, as well, the time its calling thread spends neither running nor waiting for a
CPU: asleep or blocked, other than on the grader's replies. So an agent that sleeps is charged
its sleep however the machine is loaded, and an honest agent on a busy machine is charged only
its CPU. The kernel tells the two kinds of waiting apart: `/proc/<tid>/schedstat` gives a task's
time on a CPU and its time runnable but waiting for one (the run-queue delay).

    presence = wall - the agent thread's run-queue delay - the grader thread's busy time
    charged  = max(CPU time of the submission, presence)

The grader's thread is busy (running or waiting for a CPU) only while it answers the agent
(serving a state, reading this meter): while the agent computes or sleeps, the grader blocks in
`select`. Threads or processes that compute in parallel are paid by their CPU time.

The kernel adds a wait for a CPU to the run-queue delay when the wait ends, so a thread queued
at the moment of a reading shows its wait so far as presence: on a busy machine that could stop
an honest move. What may be such a wait is held back until it is settled (`PresenceMeter`), so a
sleep is charged at most one reading late.

CPU time: jailed, the submission's cpuacct cgroup holds every process it starts
(`cpuacct.usage`, in nanoseconds). Without that cgroup, the processes descended from the
submission's first one are found by following each thread's `children` file in /proc from that
process down, and their user and system times added up (a process that left the tree, or has
ended unwaited, is no longer counted: the wall-clock safety net still stops it); a reading opens
a few files for each of the submission's own processes, never the rest of /proc (a kernel
without those files has the tree found by reading every process's parent). Elsewhere there is no
meter.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

CHECK_EVERY = 0.05
"""Wall-clock seconds between two readings while a move runs: a move that passes its time is
stopped at most this much later (in wall time) than when it passed it."""

NOT_RUN = 0.001
"""CPU seconds under which a runnable agent thread has not run between two readings."""

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

JAIL_DEPTH = 2
"""Generations between a jailed submission's first process and the one that runs its code:
the process the grader started forks the namespace's init, which forks the submission
(`jail.py`)."""


def cpu_meter(pid: int, cgroups: list[str]) -> Callable[[], float] | None:
    """A function giving the seconds the submission (first process `pid`, in `cgroups`) has
    used so far, sleeping included (see the module's docstring), or None where its CPU time
    cannot be read. Its readings grow from the moment it is made; read it from one thread."""
    cpu = cpu_seconds_meter(pid, cgroups)
    if cpu is None:
        return None
    depth = JAIL_DEPTH if cgroups else 0
    grader = f"/proc/self/task/{threading.get_native_id()}/schedstat"
    if schedstat(grader) is None:
        return cpu  # no scheduler statistics here: CPU time alone
    # A jail that has just been started has not forked the submission's process yet (its load
    # is metered from the start): the meter finds the agent's thread at a later reading.
    return PresenceMeter(cpu, agent_thread(pid, depth), grader, lambda: agent_thread(pid, depth))


def cpu_seconds_meter(pid: int, cgroups: list[str]) -> Callable[[], float] | None:
    """A function giving the CPU seconds the submission has used so far, or None."""
    for directory in cgroups:
        usage = Path(directory, "cpuacct.usage")
        if usage.exists():
            return lambda: int(usage.read_text()) / 1e9
    if Path("/proc", str(pid), "stat").exists():
        return lambda: _tree_seconds(pid)
    return None


class PresenceMeter:
    """CPU time, or the agent thread's presence if that is more (see the module's docstring).

    An `agent` thread not there yet (None) is looked for with `find` at each reading; its
    presence counts from the reading that found it (a jail forks it within milliseconds, and
    the code it loads runs only after that), its CPU time from the start."""

    def __init__(
        self,
        cpu: Callable[[], float],
        agent: str | None,
        grader: str,
        find: Callable[[], str | None] | None = None,
    ) -> None:
        self.cpu, self.agent, self.grader, self.find = cpu, agent, grader, find
        self.first_cpu = cpu()
        self.first = self._clocks()
        self.last = (0.0, 0.0)  # (presence, CPU seconds) at the last reading
        self.pending = 0.0  # presence perhaps still waiting for a CPU: not charged yet
        self.reading = self.first_cpu  # never decreases

    def _clocks(self) -> tuple[float, float, float]:
        agent = (schedstat(self.agent) if self.agent else None) or (0, 0)
        grader = schedstat(self.grader) or (0, 0)
        return time.monotonic(), agent[1], grader[0] + grader[1]

    def __call__(self) -> float:
        cpu = self.cpu()
        if self.agent is None:
            self.agent = self.find() if self.find is not None else None
            if self.agent is None:
                return cpu  # not forked yet (or no statistics for it): CPU time alone
            self.first = self._clocks()  # its presence from now on
        wall, agent_waiting, grader_busy = self._clocks()
        presence = (
            (wall - self.first[0]) - (agent_waiting - self.first[1]) - (grader_busy - self.first[2])
        )
        used = cpu - self.first_cpu
        self._settle(presence, used)
        self.last = (presence, used)
        self.reading = max(self.reading, self.first_cpu + max(used, presence - self.pending))
        return self.reading

    def _settle(self, presence: float, used: float) -> None:
        """Keep in `pending` what may be a wait for a CPU still under way.

        The kernel adds a wait to the run-queue delay only once it ends: a thread queued at a
        reading shows its wait so far as presence. So what an interval holds beyond its CPU time
        is held back while the thread is runnable (state R) and has not run since: once it has
        run, its earlier wait is in the delay (presence drops), and only the last interval can
        still hold one. Asleep or blocked, nothing is held back. A sleep is thus charged at most
        one reading late (a sleeper cannot stay queued without running), and a move is not
        stopped for a wait the kernel has not counted yet."""
        excess = max(0.0, (presence - self.last[0]) - (used - self.last[1]))
        if not _runnable(self.agent):
            self.pending = 0.0
        elif used - self.last[1] < NOT_RUN:
            self.pending += excess  # queued all along: its wait goes on
        else:
            self.pending = excess


def _runnable(schedstat_path: str) -> bool:
    """Whether the task of `schedstat_path` is running or waiting for a CPU (state R)."""
    try:
        with open(schedstat_path[: -len("schedstat")] + "stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"R"
    except (OSError, IndexError):
        return False


def schedstat(path: str) -> tuple[float, float] | None:
    """(seconds on a CPU, seconds runnable but waiting for one) of a task, or None."""
    try:
        with open(path, "rb") as handle:
            fields = handle.read().split()
        return int(fields[0]) / 1e9, int(fields[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def agent_thread(pid: int, depth: int) -> str | None:
    """The schedstat file of the thread that runs the submission's code: the main thread of
    the process `depth` generations below `pid` (following its first child), or None."""
    for _ in range(depth):
        try:
            with open(f"/proc/{pid}/task/{pid}/children", "rb") as handle:
                children = handle.read().split()
        except OSError:
            children = [str(child).encode() for child in _children_from_stat(pid)]
        if not children:
            return None
        pid = int(children[0])
    path = f"/proc/{pid}/task/{pid}/schedstat"
    return path if schedstat(path) is not None else None


def _children_from_stat(pid: int) -> list[int]:
    children = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    if int(handle.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        children.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return sorted(children)


def _tree_seconds(pid: int) -> float:
    """The user and system seconds of `pid` and its descendants (its ended children waited for
    included), read from /proc: the submission's own processes only, each found in its
    parent's threads' `children` files."""
    if not _HAS_CHILDREN_FILES:
        return _scanned_tree_seconds(pid)
    total, family = 0, [pid]
    while family:
        process = family.pop()
        try:
            with open(f"/proc/{process}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            total += sum(int(field) for field in fields[11:15])  # utime, stime, cutime, cstime
            family += _children(process)
        except (OSError, IndexError, ValueError):  # it ended while we looked
            continue
    return total / _TICKS


def _children(pid: int) -> list[int]:
    """The processes `pid`'s threads have started and not yet waited for (a thread's child is
    listed in that thread's `children` file)."""
    children = []
    for thread in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{thread}/children", "rb") as handle:
                children += [int(child) for child in handle.read().split()]
        except OSError:  # the thread ended while we looked
            continue
    return children


_HAS_CHILDREN_FILES = os.path.exists(f"/proc/self/task/{os.getpid()}/children")
"""Whether the kernel lists each thread's children (`CONFIG_PROC_CHILDREN`, on in the common
distributions' kernels); without it, the tree is found by reading every process in /proc."""


def _scanned_tree_seconds(pid: int) -> float:
    """`_tree_seconds` found by reading every process of /proc: for a kernel without the
    `children` files."""
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
