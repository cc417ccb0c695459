"""The grader's ends of the two pipes to a submission: frames in and out before a deadline.

Both pipes are non-blocking, so a student that stops reading cannot hang the grader past the
deadline: a write is tried first and select() waits only when it would block. While a call
serves states (`StudentProcess._serve`), the grader reads each request at once, and waits for it
with poll() only when it is not there yet: sharing the grader's CPU (`pinning.py`), the student
usually runs as soon as its child is written and has asked again when the write returns. A round
trip is then a read and a write on each side.
`StudentProcess` holds the state these methods use: the file descriptors, the unread
`_buffer`, the `limits`, the `process` and its `cgroups` (where a contest move's CPU time is
read: `cpu.py`).
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import select
import signal
import subprocess
import time
from collections.abc import Iterator

from autograder.sandbox.cpu import CHECK_EVERY, cpu_meter
from autograder.sandbox.limits import SandboxError
from autograder.sandbox.wire import (
    _LENGTH,
    _REQUEST,
    _REQUEST_TAG,
    MAX_MESSAGE,
    _json_message,
)
from games.deadline import WALL_SAFETY

# A graded call is limited by the submission's own time (`cpu.cpu_meter`: its CPU time, or its
# thread's time asleep or blocked, never its time waiting for a CPU), so that its grade is the
# same on a busy machine; the wall clock stops it only at `WALL_SAFETY` times its limit, as it
# stops a call in an nbgrader kernel (`games.deadline`, whose number this is).


class PipeEnds:
    """Reading and writing frames on a submission's pipes (a base of `StudentProcess`)."""

    _buffer: bytes
    _read_fd: int | None
    _write_fd: int | None
    _call_seconds: float | None = None  # the wall clock's limit of the load or call running
    _cpu_cap: tuple | None = None  # (meter, reading ending the call, seconds, own time): call()
    # (the reading is None until a graded call's first look at the meter: `_watch_cpu`)
    _cpu_check_at: float = 0.0  # when the meter is read next
    _meter_of: tuple | None = None  # (the process, the meter of its own time): `_own_meter`

    def _fds(self) -> tuple[int, int]:
        if self._read_fd is None or self._write_fd is None:
            raise SandboxError("crashed", self._death_message())
        return self._read_fd, self._write_fd

    def _send(self, message: object, deadline: float, waiting_for: str = "the call") -> None:
        """Send `message` (marshalled: the student may trust the grader) before `deadline`.

        Every exchange starts here, so this is where both pipes are put in non-blocking mode.
        """
        try:
            os.set_blocking(self._write_fd, False)
            os.set_blocking(self._read_fd, False)
        except (OSError, TypeError) as error:
            raise SandboxError("crashed", self._death_message()) from error
        payload = b"m" + marshal.dumps(message)
        self._write(_LENGTH.pack(len(payload)) + payload, deadline, waiting_for)

    def _write(self, data: bytes, deadline: float, waiting_for: str) -> None:
        """Write a whole frame (length and payload) before `deadline`."""
        while data:
            try:
                data = data[os.write(self._write_fd, data) :]
            except BlockingIOError:  # the pipe is full: the student is not reading yet
                self._wait(deadline, waiting_for, writing=True)
            except (OSError, TypeError) as error:
                raise SandboxError("crashed", self._death_message()) from error

    def _receive(self, deadline: float, waiting_for: str = "the call") -> dict:
        """Read one frame from the student: a 13-byte `result` request or a JSON message.

        Nothing from the student is ever unpickled or unmarshalled: only fixed-size integers
        and JSON are parsed here.
        """
        payload = self._frame(deadline, waiting_for)
        if len(payload) == _REQUEST.size and payload[0] == _REQUEST_TAG:
            _, token, index = _REQUEST.unpack(payload)
            return {"op": "result", "state": token, "action": index}
        return _json_message(payload)

    def _frame(self, deadline: float, waiting_for: str) -> bytes:
        """The payload of the student's next frame, read before `deadline`."""
        buffer = self._buffer
        while len(buffer) < 4:
            buffer += self._read(deadline, waiting_for)
        (size,) = _LENGTH.unpack_from(buffer)
        if size > MAX_MESSAGE or size < 1:
            raise SandboxError("crashed", "the submission sent an over-long message")
        end = 4 + size
        if len(buffer) < end:
            chunks, have = [buffer], len(buffer)
            while have < end:
                chunks.append(self._read(deadline, waiting_for))
                have += len(chunks[-1])
            buffer = b"".join(chunks)
        self._buffer = buffer[end:]
        return buffer[4:end]

    def _read(self, deadline: float, waiting_for: str) -> bytes:
        """What the student has sent so far (at least one byte), waiting until `deadline`."""
        while True:
            if time.monotonic() >= deadline:  # also stops a student that floods requests
                raise self._timed_out(waiting_for)
            try:
                chunk = os.read(self._read_fd, 65536)
            except BlockingIOError:
                self._wait(deadline, waiting_for)
                continue
            except (OSError, TypeError) as error:
                raise SandboxError("crashed", self._death_message()) from error
            if not chunk:
                raise SandboxError("crashed", self._death_message())
            return chunk

    def _wait(self, deadline: float, waiting_for: str, writing: bool = False) -> None:
        """Wait until the student has written (or, `writing`, read) something, or `deadline`,
        or it is time to read the CPU meter again."""
        remaining = self._checkpoint(deadline, waiting_for) - time.monotonic()
        if remaining <= 0:
            return
        if writing:
            select.select([], [self._write_fd], [], remaining)
        else:
            select.select([self._read_fd], [], [], remaining)

    def _when_ready(self, wait, deadline: float, seconds: float) -> bytes | None:
        """What the student sends within `seconds` (until the next look at the deadline and
        the CPU meter), waited for with `wait` (a `_poller`); None if nothing came by then."""
        if not wait(max(1, int(1000 * seconds))):
            return None
        try:
            return os.read(self._read_fd, 65536)
        except OSError:  # woken without data (or the pipe broke): the long way
            return self._read(deadline, "the call")

    def _checkpoint(self, deadline: float, waiting_for: str = "the call") -> float:
        """Raise SandboxError("timeout") once the call is past `deadline` or has used its CPU
        time (the meter is read every `cpu.CHECK_EVERY` seconds at most); else return when to
        look again."""
        now = time.monotonic()
        if now >= deadline:
            raise self._timed_out(waiting_for)
        cap = self._cpu_cap
        if cap is None:
            return deadline
        if now >= self._cpu_check_at:
            meter, stop_at, seconds, own_time = cap
            reading = meter()
            if stop_at is None:  # a graded call's first look: its own time counts from here
                self._cpu_cap = (meter, reading + seconds, seconds, own_time)
            elif reading >= stop_at:
                if own_time:
                    why = f"no answer within {seconds:g} s of its own time ({waiting_for})"
                    raise SandboxError("timeout", why)
                during = " while loading" if waiting_for == "loading" else ""
                raise SandboxError(
                    "timeout", f"it used more than {seconds:g} s of CPU time{during}"
                )
            self._cpu_check_at = now + CHECK_EVERY
        return min(deadline, self._cpu_check_at)

    def _refuse(self, most: tuple[int, int | None], deadline: float) -> None:
        """Answer a request past `most` (max_states, state_budget): once a contest move's
        budget is spent, with a refusal its search sees as `OutOfStates`; else the call stops."""
        max_states, budget = most
        if budget is not None and budget <= max_states:
            self._send({"out_of_states": budget}, deadline)
            return
        raise SandboxError(
            "overrun",
            f"it generated more than {max_states:,} states on this instance, far more than a "
            "full search needs: is game.result called in a loop?",
        )

    def _limit_call(self, seconds: float, cpu_seconds: float | None, meter) -> float:
        """Set the limits of the call (or the load) starting, whose limit is `seconds`, and
        return the wall clock's for it. A contest's move gives its `cpu_seconds`, read on
        `meter` (the tournament's load its `load_cpu_seconds`); a graded call or a load (None)
        is limited by the submission's own time (`_own_meter`) where it can be read, and by the
        wall clock only at `WALL_SAFETY` times its limit: waiting for a CPU does not count."""
        own = self._own_meter() if cpu_seconds is None else None
        if own is not None:
            cpu_seconds, meter = seconds, own
            seconds *= WALL_SAFETY
        self._call_seconds = seconds
        self._watch_cpu(cpu_seconds, meter, own is not None)
        return seconds

    def _end_call(self, outcome) -> float:
        """Lift the limits of the call that ended with `outcome`; return its own time (what
        `--budget` counts): read on the meter of own time if that limited it and it answered
        (from its first look at the meter), its limit if it ran out of it, else (no meter, over
        before that first look, a crash) its wall-clock seconds."""
        cap, self._cpu_cap = self._cpu_cap, None
        if cap is None or not cap[3]:
            return outcome.seconds
        meter, stop_at, seconds, _ = cap
        if outcome.status == "timeout":
            return seconds
        if stop_at is None or outcome.status not in ("returned", "raised"):
            return outcome.seconds  # over before its first look at the meter, or crashed
        try:
            return max(0.0, meter() - (stop_at - seconds))
        except (OSError, ValueError):
            return outcome.seconds

    def _own_meter(self):
        """The meter of this process's own time (`cpu.cpu_meter`), made at its first call;
        None where it cannot be read (there a call's limit stays the wall clock's)."""
        process = self.process
        if process is None:
            return None
        if self._meter_of is None or self._meter_of[0] is not process:
            try:
                meter = cpu_meter(process.pid, self.cgroups)
            except OSError:
                meter = None
            self._meter_of = (process, meter)
        return self._meter_of[1]

    def _watch_cpu(self, cpu_seconds: float | None, meter=None, own_time: bool = False) -> None:
        """Count the CPU time of the call starting against `cpu_seconds` (None: not counted),
        on `meter` (a `cpu.cpu_meter` of this process) or on one made here. `own_time`: a
        graded call's limit (its time-out says so), not a contest's allowance of CPU time."""
        self._cpu_cap = None
        if cpu_seconds is not None and self.process is not None:
            if meter is None:
                meter = cpu_meter(self.process.pid, self.cgroups)
            if meter is not None:
                # A graded call reads the meter first at its first look, `CHECK_EVERY` in, and
                # is charged from there: the many calls that end sooner read it not at all
                # (a reading opens a few files of /proc), and are charged their wall time.
                first = None if own_time else meter() + cpu_seconds
                self._cpu_cap = (meter, first, cpu_seconds, own_time)
                self._cpu_check_at = time.monotonic() + (CHECK_EVERY if own_time else 0.0)

    def _timed_out(self, waiting_for: str) -> SandboxError:
        limit = self._call_seconds
        if limit is None:
            limit = self.limits.load_timeout if waiting_for == "loading" else self.limits.timeout
        return SandboxError("timeout", f"no answer within {limit:g} s ({waiting_for})")

    def _death_message(self) -> str:
        if self.process is None:
            return "the submission's process is not running"
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "the submission closed its channel to the grader"
        if code < 0:
            name = signal.Signals(-code).name
            reasons = {
                "SIGXCPU": "it used up its CPU-time limit",
                "SIGKILL": "it was killed (out of memory, or a limit was hit)",
                "SIGSEGV": "it crashed (often unbounded recursion with a raised recursion limit)",
            }
            return f"the submission's process died with {name}: {reasons.get(name, 'a signal')}"
        return f"the submission's process exited with code {code} (sys.exit or os._exit?)"


def _poller(read_fd: int):
    """A function waiting up to its argument's milliseconds for `read_fd` to be readable."""
    poller = select.poll()
    poller.register(read_fd, select.POLLIN)
    return poller.poll


@contextlib.contextmanager
def without_collection() -> Iterator[None]:
    """The garbage collector off for the block (or the function it decorates), and on again
    after it if it was on before.

    The run's tables (tokens, served children, the frames' scores) hold hundreds of thousands
    of tuples, which each full collection scans again, and serving states makes no reference
    cycles: collecting can wait until a call ends, or a contest's agent is graded (a tenth of
    the grader's CPU time in the contest)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
