"""The grader's own code run on what a submission holds (parsing it, comparing it) in a forked
child process with caps on its time and memory, so that no content can stall or exhaust the
grader: an input that breaks the code costs that input only, never the others.

Unlike a submission (`process`), the code is trusted: only its input is not. The child is a
fork of the caller, so it needs nothing started, imported or sent but the items.
"""

from __future__ import annotations

import contextlib
import faulthandler
import math
import os
import resource
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing import Pipe
from typing import Any

from autograder.sandbox.reaping import die_with_parent


@dataclass(frozen=True)
class Caps:
    """What the work on one item may use: wall-clock seconds (and as many of CPU), and MiB of
    memory on top of what the child inherits from its parent."""

    seconds: float = 30.0
    memory_mb: int = 1024


@dataclass(frozen=True)
class Done:
    """What became of one item: its value, or why there is none ("" if there is one)."""

    value: Any = None
    failure: str = ""


class BoundedChild:
    """`work(item)` for each of `items`, in order, in a child process forked now; `next()` gives
    each result as it comes. The first failure that the child does not survive (too long, too
    much memory, a crash) ends the child: the items after it are not worked on."""

    def __init__(self, work: Callable[[Any], Any], items: Sequence, caps: Caps) -> None:
        self.caps = caps
        self.remaining = len(items)
        reader, writer = Pipe(duplex=False)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            reader.close()
            _serve(work, items, caps, writer)
        writer.close()
        self.pid: int | None = pid
        self._reader = reader
        self._since = time.monotonic()

    def next(self, timeout: float | None = None) -> Done:
        """The next item's result. If the child takes longer than `caps.seconds` on it (or than
        `timeout` seconds from now), or dies, it is killed and the result says why."""
        if self.pid is None or self.remaining == 0:
            return Done(failure="was not worked on (its process had ended)")
        wait = self._since + self.caps.seconds - time.monotonic()
        slow = f"took longer than {self.caps.seconds:g} s"
        if timeout is not None and timeout < wait:
            wait, slow = timeout, f"was not done after the {timeout:g} s waited"
        try:
            ready = self._reader.poll(max(0.0, wait))
            done = self._reader.recv() if ready else None
        except (EOFError, OSError):  # the child died
            return Done(failure=self._ended(self.close()))
        except Exception as error:  # noqa: BLE001 - a result that cannot be read back
            self.close()
            return Done(failure=f"gave a result that could not be read back ({error})"[:500])
        if done is None:
            self.close()
            return Done(failure=slow)
        self.remaining -= 1
        self._since = time.monotonic()
        if self.remaining == 0:
            self.close()
        return done

    def close(self) -> int:
        """Kill the child if it is still there and reap it; its wait status (0 if gone)."""
        if self.pid is None:
            return 0
        pid, self.pid = self.pid, None
        self._reader.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return 0

    def _ended(self, status: int) -> str:
        killed = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        if killed == signal.SIGXCPU:
            return f"used more than {math.ceil(self.caps.seconds)} s of CPU"
        if killed == signal.SIGKILL:
            return "was killed"
        if killed:
            return f"crashed ({signal.Signals(killed).name})"
        return "ended without a result"

    def __enter__(self) -> BoundedChild:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def bounded_map(work: Callable[[Any], Any], items: Sequence, caps: Caps) -> list[Done]:
    """`work(item)` for every item, each under `caps`, in one child process at a time (a new one
    after a failure the child does not survive); a `Done` per item, in order. Nothing is left
    running when it returns, or when it is interrupted."""
    results: list[Done] = []
    while len(results) < len(items):
        with BoundedChild(work, items[len(results) :], caps) as child:
            while child.pid is not None and len(results) < len(items):
                results.append(child.next())
    return results


def _serve(work: Callable[[Any], Any], items: Sequence, caps: Caps, writer) -> None:
    """The child: work on each item under the caps and send a `Done` for it; then exit."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        faulthandler.disable()  # a crash is the parent's to report, in one line
        die_with_parent()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no core file behind
        _cap_memory(caps.memory_mb)
        for item in items:
            _cap_cpu(caps.seconds)
            try:
                done = Done(work(item))
            except MemoryError:
                done = Done(failure=f"needed more than {caps.memory_mb} MiB of memory")
            except RecursionError:
                done = Done(failure="went too deep (RecursionError)")
            except Exception as error:  # noqa: BLE001 - reported for this item alone
                done = Done(failure=f"failed ({type(error).__name__}: {error})"[:500])
            try:
                writer.send(done)
            except MemoryError:
                writer.send(Done(failure=f"needed more than {caps.memory_mb} MiB of memory"))
            except Exception as error:  # noqa: BLE001 - a value that cannot be sent back
                writer.send(
                    Done(failure=f"gave a result that could not be sent back ({error})"[:500])
                )
    finally:
        os._exit(0)  # never the parent's clean-up: its buffers and exit handlers are its own


def _cap_memory(memory_mb: int) -> None:
    """Cap the address space at what the child has now plus `memory_mb` (Linux; elsewhere the
    wall-clock cap remains)."""
    try:
        with open("/proc/self/statm") as statm:
            now = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = now + memory_mb * 2**20
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _cap_cpu(seconds: float) -> None:
    """Let the next item use `seconds` more of CPU (SIGXCPU ends the child past that)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = math.ceil(usage.ru_utime + usage.ru_stime)
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    limit = used + math.ceil(seconds) + 1
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
