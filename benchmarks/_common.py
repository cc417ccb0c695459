"""Helpers shared by the benchmarks: where things are, which machine this is, a best-of timer."""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

REPO = Path(__file__).resolve().parents[1]
"""The shared folder beside the repository (course brief and data sets live there)."""

console = Console(highlight=False, width=None if sys.stdout.isatty() else 110)


def machine() -> str:
    """What the figures were measured on: cores, CPU model, Python, date and current load."""
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    version = platform.python_version()
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return (
        f"{cores} cores ({model}), Python {version} ({sys.implementation.name}), "
        f"{time.strftime('%Y-%m-%d')}{load}"
    )


def best_of(repeat: int, function: Callable[[], Any]) -> tuple[float, Any]:
    """Run `function` `repeat` times; return the fastest wall time (s) and the last result.

    The minimum, not the mean: on a shared machine noise only ever adds time.
    """
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - started)
    return best, result


def table(title: str, *columns: str) -> Table:
    """A rich table whose first column is left-aligned and the others right-aligned."""
    grid = Table(title=title, title_justify="left")
    for index, column in enumerate(columns):
        grid.add_column(column, justify="left" if index == 0 else "right")
    return grid


def ratio(numerator: float, denominator: float) -> str:
    """`numerator / denominator` as "12.3x", or "n/a" when the denominator is zero."""
    return f"{numerator / denominator:.1f}x" if denominator else "n/a"


class _Patches:
    """Functions of the grader replaced by wrappers while a benchmark measures, and put back by
    `restore()`: only the benchmark's own process is patched, and only while it measures."""

    def __init__(self) -> None:
        self._originals: list[tuple[Any, str, Any]] = []

    def _patch(self, owner: Any, name: str, wrap) -> None:
        """Replace `owner.name` with `wrap(original)`."""
        original = getattr(owner, name)
        self._originals.append((owner, name, original))
        setattr(owner, name, functools.wraps(original)(wrap(original)))

    def restore(self) -> None:
        for owner, name, original in reversed(self._originals):
            setattr(owner, name, original)
        self._originals.clear()


class StageTimer(_Patches):
    """Time chosen functions of the grader while a benchmark runs, to show where time goes.

    `watch(owner, name, label)` replaces `owner.name` with a wrapper that adds up the wall time
    and the number of calls under `label` (thread-safe: the grader's workers are threads), and
    the `states_generated` of what it returns, if any. `restore()` puts every original back:
    only the benchmark's own process is patched, and only while it measures.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.states: dict[str, int] = {}
        self._lock = threading.Lock()
        super().__init__()

    def watch(self, owner: Any, name: str, label: str) -> None:
        self.seconds[label], self.calls[label], self.states[label] = 0.0, 0, 0
        self._patch(owner, name, lambda original: self._timed(original, label))

    def _timed(self, original, label: str):
        def timed(*args, **kwargs):
            started = time.perf_counter()
            result = None
            try:
                result = original(*args, **kwargs)
                return result
            finally:
                elapsed = time.perf_counter() - started
                with self._lock:
                    self.seconds[label] += elapsed
                    self.calls[label] += 1
                    self.states[label] += getattr(result, "states_generated", 0) or 0

        return timed


class PhaseClock(_Patches):
    """When chosen functions of the grader start and end in a run, as offsets from `start()`.

    `watch(owner, name, label)` wraps `owner.name` so that each call appends (label, start,
    end); `restore()` puts every original back. For the serial phases of a class run: what the
    main process does before its workers start and after they end.
    """

    def __init__(self) -> None:
        self.phases: list[tuple[str, float, float]] = []
        self._zero = time.perf_counter()
        super().__init__()

    def start(self) -> None:
        self._zero = time.perf_counter()
        self.phases.clear()

    def now(self) -> float:
        return time.perf_counter() - self._zero

    def watch(self, owner: Any, name: str, label: str) -> None:
        def wrap(original):
            def timed(*args, **kwargs):
                started = self.now()
                try:
                    return original(*args, **kwargs)
                finally:
                    self.phases.append((label, started, self.now()))

            return timed

        self._patch(owner, name, wrap)


class TreeCpu:
    """The CPU seconds of this process and of every process it starts from now on, however far
    they are re-parented (a grader's jailed students, nbgrader's kernels): a cpuacct cgroup of
    its own that they all inherit (Linux, cgroup v1, root). `seconds()` is None where no such
    cgroup can be made; the caller then falls back to the children it waited for.

    The waited-for children's CPU (`RUSAGE_CHILDREN`) misses processes that end as orphans, and
    perf counted a quarter more CPU in a class run of the grader than that figure.
    """

    def __init__(self) -> None:
        self.directory: Path | None = None
        self._parent: Path | None = None
        try:
            lines = Path("/proc/self/cgroup").read_text().splitlines()
            (own,) = [p for _, c, p in (line.split(":", 2) for line in lines)
                      if "cpuacct" in c.split(",")]  # fmt: skip
            parent = Path("/sys/fs/cgroup/cpuacct") / own.lstrip("/")
            _remove_stale(parent)
            directory = parent / f"bench-{os.getpid()}"
            directory.mkdir()
            (directory / "cgroup.procs").write_text(str(os.getpid()))
            self.directory, self._parent = directory, parent
            atexit.register(self.close)
        except (OSError, ValueError):
            pass

    def seconds(self) -> float | None:
        if self.directory is None:
            return None
        return int((self.directory / "cpuacct.usage").read_text()) / 1e9

    def close(self) -> None:
        """Leave the cgroup and remove it (once the kernel has emptied it)."""
        if self.directory is None or self._parent is None:
            return
        directory, self.directory = self.directory, None
        try:
            (self._parent / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            return
        for _ in range(200):
            try:
                directory.rmdir()
                return
            except OSError:
                time.sleep(0.01)


def _remove_stale(parent: Path) -> None:
    """Remove the cgroups of earlier benchmarks that have ended (one whose in-process grading
    left a zygote behind could not remove its own before it exited)."""
    for directory in parent.glob("bench-*"):
        pid = directory.name.removeprefix("bench-")
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(OSError):
                directory.rmdir()
