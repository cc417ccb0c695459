"""The grader's side of zygote.py: jailed submissions forked from a ready interpreter."""

from __future__ import annotations

import contextlib
import marshal
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from autograder.sandbox.reaping import _ACTIVE, _ACTIVE_LOCK
from autograder.sandbox.view import JAIL, RUNNER, ZYGOTE, _bootstrap, _environment, code_file


class ZygoteError(Exception):
    """The zygote could not start a process: the caller starts a fresh interpreter instead."""


class Zygote:
    """This process's forker of jailed submissions: a fresh interpreter, started once per
    grading process and import view, that has imported the runner and the jail (zygote.py).

    Forking it costs about a millisecond where starting Python and importing costs ~30 ms, and
    it holds nothing of the grader: it was started from marshalled code with the import view
    and the standard library only. Its children are not children of this process; the zygote
    reports when each ends (`ZygoteChild`).
    """

    _instances: dict[tuple[int, Path], Zygote | None] = {}
    _instances_lock = threading.Lock()

    @classmethod
    def for_view(cls, view: Path) -> Zygote | None:
        """The zygote of this process for `view`, started on first use; None if it cannot
        start (the reason is in `zygote.log` beside the view)."""
        key = (os.getpid(), view)  # a forked worker starts its own
        with cls._instances_lock:
            if key not in cls._instances:
                try:
                    cls._instances[key] = cls(view)
                except (OSError, ZygoteError):
                    cls._instances[key] = None
            return cls._instances[key]

    def __init__(self, view: Path) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        codes = [str(code_file(view, script)) for script in (ZYGOTE, RUNNER, JAIL)]
        bootstrap = (
            _bootstrap(view)
            + f"zygote = {{'__name__': 'zygote'}}; exec(load({codes[0]!r}), zygote); "
            f"zygote['serve']({theirs.fileno()}, load({codes[1]!r}), load({codes[2]!r}))"
        )
        with open(view.parent / "zygote.log", "ab") as log, _ACTIVE_LOCK:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-B", "-u", "-c", bootstrap],
                cwd="/",
                env=_environment(view, view.parent, jailed=True, job=""),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
            _ACTIVE.add(self.process.pid)  # not an orphan for the reaper to kill
        theirs.close()
        self._channel = ours
        self._lock = threading.Lock()
        self._ended: dict[int, int] = {}

    def spawn(self, request: dict, fds: list[int]) -> ZygoteChild | None:
        """Have the zygote fork a submission's process; None if the zygote has failed."""
        with self._lock:
            try:
                socket.send_fds(self._channel, [marshal.dumps(request)], fds)
                while True:
                    message = self._next(30.0)
                    if message is None:
                        raise ZygoteError("the zygote did not answer")
                    if message[0] == "started":
                        return ZygoteChild(self, message[1])
            except (OSError, ValueError, EOFError, ZygoteError):
                self._channel.close()
                return None

    def ended(self, pid: int, timeout: float | None) -> int | None:
        """The wait status of child `pid` once it has ended, waiting up to `timeout` seconds;
        None if it is still running."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while pid not in self._ended:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                try:
                    if self._next(remaining) is None:
                        return None
                except (OSError, ValueError, EOFError):
                    # The zygote is gone, and with it the status: the child was killed with
                    # its process group by now, or soon will be.
                    with contextlib.suppress(OSError):
                        os.killpg(pid, signal.SIGKILL)
                    self._ended[pid] = signal.SIGKILL  # a wait status: killed by SIGKILL
            return self._ended.pop(pid)

    def _next(self, timeout: float | None) -> tuple | None:
        """The zygote's next message (recording ended children), or None after `timeout`."""
        if not select.select([self._channel], [], [], timeout)[0]:
            return None
        data = self._channel.recv(1 << 12)
        if not data:
            raise EOFError("the zygote has gone")
        message = marshal.loads(data)
        if message[0] == "exited":
            self._ended[message[1]] = message[2]
        return message


class ZygoteChild:
    """A process the zygote forked, with the parts of `subprocess.Popen` the sandbox uses."""

    def __init__(self, zygote: Zygote, pid: int) -> None:
        self.zygote = zygote
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self._status(0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._status(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(f"submission {self.pid}", timeout or 0)
        return code

    def _status(self, timeout: float | None) -> int | None:
        if self.returncode is None:
            status = self.zygote.ended(self.pid, timeout)
            if status is not None:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode
