"""Time limits for one call, also where there is no `signal.setitimer` (Pyodide in a browser).

`time_limit(seconds, stop)` is a context manager: once `seconds` of wall-clock time (or of CPU
time, with `cpu=True`, or of the code's own time, with `own=True`) have passed inside it, the
exception `stop()` is raised in the code that is running. The self-checks of the assignment
notebooks and Connect Four's `one_move` use it, so an endless loop ends with a message instead
of hanging the notebook.

The code's own time (`own_clock`) is wall-clock time less the time its thread was ready to run
but waiting for a CPU, which Linux counts for each thread: sleeping or blocked counts, a busy
machine does not. A limit of own time holds the same on an idle and on a loaded machine; where
the kernel keeps no such count (Pyodide, macOS) it is wall-clock time, and the wall clock also
stops the code at `WALL_SAFETY` times its limit.

Where it can, it uses an interval timer, which costs nothing while the code runs: CPython on
Unix, in the main thread. Elsewhere (Pyodide has no `setitimer`; other threads get no signals)
it asks the interpreter to call a hook and reads the clock every `CHECK_EVERY` calls of it:
with `sys.monitoring` (Python 3.12 and later, Pyodide included) at each function start and
each jump of a loop, so a `while True: pass` stops too; with `sys.setprofile` (Python 3.11) at
each function call, so there a loop that calls nothing cannot be stopped.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["CHECK_EVERY", "WALL_SAFETY", "own_clock", "time_limit", "timer_available"]

CHECK_EVERY = 256
"""Hook calls between two readings of the clock: reading it costs more than the hook itself."""

OWN_CHECK_EVERY = 0.05
"""Wall-clock seconds between two readings of the own-time clock once `seconds` of wall-clock
time have passed (the own time cannot have passed them before)."""

WALL_SAFETY = 10
"""A limit of own time stops the code at this many times its seconds of wall-clock time too."""

_SCHEDSTAT = "/proc/thread-self/schedstat"

# sys.monitoring's tool ids 0, 1 and 5 belong to debuggers, coverage tools and optimisers.
_MONITORING_TOOLS = (3, 4, 2)


def timer_available() -> bool:
    """Whether an interval timer can stop the code: CPython on Unix, in the main thread."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def own_clock() -> Callable[[], float] | None:
    """A clock of the calling thread's own time (seconds; see the module's docstring), or None
    where the kernel does not count a thread's waits for a CPU. Read it from that thread."""

    def read() -> float:
        with open(_SCHEDSTAT, "rb") as handle:
            waited = int(handle.read().split()[1])  # nanoseconds runnable, not running
        return time.monotonic() - waited / 1e9

    try:
        read()
    except (OSError, ValueError, IndexError):
        return None
    return read


@contextmanager
def time_limit(
    seconds: float | None, stop: Callable[[], BaseException], cpu: bool = False, own: bool = False
) -> Iterator[None]:
    """Raise `stop()` in the running code once `seconds` have passed in the `with` block.

    `seconds` of None or 0 sets no limit; `cpu=True` counts CPU time instead of wall-clock
    time, `own=True` the code's own time (`own_clock`, and the wall clock at `WALL_SAFETY`
    times `seconds`). A `stop` that is a BaseException but not an Exception gets past the
    `except Exception` a student's code may have.
    """
    if not seconds or seconds <= 0:
        yield
        return
    clock = own_clock() if own else None
    clock = _held_by_the_wall(clock, seconds) if clock else None
    if clock is not None and timer_available():
        limit = _own_timer_limit(seconds, stop, clock)
    elif timer_available():
        limit = _timer_limit(seconds, stop, cpu)
    else:
        clock = clock or (time.process_time if cpu else time.monotonic)
        limit = _hook_limit(clock() + seconds, clock, stop)
    with limit:
        yield


@contextmanager
def _timer_limit(seconds: float, stop: Callable[[], BaseException], cpu: bool) -> Iterator[None]:
    """The limit as an interval timer whose signal raises `stop()`."""
    which, signum = (
        (signal.ITIMER_PROF, signal.SIGPROF) if cpu else (signal.ITIMER_REAL, signal.SIGALRM)
    )

    def ring(signum: int, frame: object) -> None:
        raise stop()

    previous = signal.signal(signum, ring)
    try:  # armed inside it: a limit that rings at once still leaves the handler as it was
        signal.setitimer(which, seconds)
        yield
    finally:
        signal.setitimer(which, 0)
        signal.signal(signum, previous)


@contextmanager
def _own_timer_limit(
    seconds: float, stop: Callable[[], BaseException], clock: Callable[[], float]
) -> Iterator[None]:
    """The limit of own time as a timer that rings once `seconds` of wall-clock time have
    passed, then every `OWN_CHECK_EVERY` seconds, and raises `stop()` once `clock` (held by
    the wall: `_held_by_the_wall`) has passed `seconds` too. It is disarmed before it raises,
    so the stop is raised once."""
    deadline = clock() + seconds

    def ring(signum: int, frame: object) -> None:
        if clock() >= deadline:
            signal.setitimer(signal.ITIMER_REAL, 0)
            raise stop()

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds, OWN_CHECK_EVERY)
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _held_by_the_wall(clock: Callable[[], float], seconds: float) -> Callable[[], float]:
    """`clock`, which reads infinity once `WALL_SAFETY` times `seconds` of wall-clock time have
    passed: the safety net of a limit of own time, checked by a timer or by a hook."""
    wall_end = time.monotonic() + seconds * WALL_SAFETY
    return lambda: float("inf") if time.monotonic() >= wall_end else clock()


def _checker(deadline: float, clock: Callable[[], float], stop: Callable[[], BaseException]):
    """A hook that raises `stop()` once `clock()` is past `deadline`, reading it now and then."""
    calls = 0

    def check(*_: object) -> None:
        nonlocal calls
        calls += 1
        if calls % CHECK_EVERY == 0 and clock() > deadline:
            raise stop()

    return check


@contextmanager
def _hook_limit(
    deadline: float, clock: Callable[[], float], stop: Callable[[], BaseException]
) -> Iterator[None]:
    """The limit as a hook the interpreter calls: sys.monitoring if it has it, else a profiler."""
    monitoring = getattr(sys, "monitoring", None)
    free = [tool for tool in _MONITORING_TOOLS if monitoring and monitoring.get_tool(tool) is None]
    check = _checker(deadline, clock, stop)
    if not free:  # Python 3.11, or every spare tool id taken (by a nested limit, say)
        previous = sys.getprofile()
        sys.setprofile(check)
        try:
            yield
        finally:
            sys.setprofile(previous)
        return
    tool, events = free[0], monitoring.events.PY_START | monitoring.events.JUMP
    monitoring.use_tool_id(tool, "time limit")
    try:
        monitoring.register_callback(tool, monitoring.events.PY_START, check)
        monitoring.register_callback(tool, monitoring.events.JUMP, check)
        monitoring.set_events(tool, events)
        yield
    finally:
        monitoring.set_events(tool, 0)
        monitoring.register_callback(tool, monitoring.events.PY_START, None)
        monitoring.register_callback(tool, monitoring.events.JUMP, None)
        monitoring.free_tool_id(tool)
