"""Fork jailed submissions from an interpreter that has already started up and imported.

Starting a fresh Python for every submission costs more than most submissions' graded calls:
the interpreter itself, the runner's imports and ctypes for the jail, some 30 ms each time. A
grading process therefore starts this once (`sandbox.Zygote`), as root, with the standard
library and the import view only (it must never import `autograder`: like runner.py and
jail.py, it runs from marshalled code and holds nothing of the grader), and asks it for each
submission's process. The child forked here becomes T of jail.py, then the submission.

The zygote never runs a submission's code: every child starts from its pristine state. It talks
to the grader over a Unix socket pair (SOCK_SEQPACKET, marshalled messages; no submission ever
holds that socket):

    grader -> zygote   {"workdir", "jail" (jail.py's config), "limits", "cpu"}
                       + three file descriptors: the two pipes of the runner and the output file
    zygote -> grader   ("started", pid)  then, when the child has ended,  ("exited", pid, status)

It exits when the grader's end of the socket closes.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import resource
import select
import signal
import socket
import sys

PR_SET_PDEATHSIG = 1


def serve(fd: int, runner_code, jail_code) -> None:
    """Import what every submission needs, then fork a child for each request on socket `fd`."""
    runner = {"__name__": "runner"}
    exec(runner_code, runner)  # the runner's imports, done once here
    jail = {"__name__": "jail"}
    exec(jail_code, jail)
    jail["_libc"].prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # die with the grader
    # Every child inherits these objects and never frees them: frozen, a child's collections
    # skip them instead of scanning them, and writing the collector's marks into them, which
    # made the kernel copy their pages into every submission's process.
    gc.freeze()
    channel = socket.socket(fileno=fd)
    children: set[int] = set()
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # the wake-up fd says a child has ended
    own = [channel.fileno(), wake_read, wake_write]
    while True:
        ready, _, _ = select.select([channel, wake_read], [], [])
        if wake_read in ready:
            while _drained(wake_read):
                pass
        if channel in ready:
            message, fds, _, _ = socket.recv_fds(channel, 1 << 16, 3)
            if not message:  # the grader has gone: so must every submission it started
                for child in children:
                    with contextlib.suppress(OSError):
                        os.killpg(child, signal.SIGKILL)
                os._exit(0)
            child = os.fork()
            if child == 0:
                _become_submission(marshal.loads(message), fds, own, runner, jail)
            children.add(child)
            for received in fds:
                os.close(received)
            channel.send(marshal.dumps(("started", child)))
        children -= _report_ended(channel)


def _drained(fd: int) -> bool:
    try:
        return bool(os.read(fd, 512))
    except BlockingIOError:
        return False


def _report_ended(channel: socket.socket) -> set[int]:
    """Tell the grader which children have ended; return their pids."""
    ended = set()
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return ended
        if pid == 0:
            return ended
        ended.add(pid)
        with contextlib.suppress(OSError):
            channel.send(marshal.dumps(("exited", pid, status)))


def _become_submission(request: dict, fds: list, own: list, runner: dict, jail: dict) -> None:
    """In the forked child: limits, the jail, then the runner. Never returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in own:
            os.close(fd)
        read_fd, write_fd, output = fds
        os.setsid()
        jail["_libc"].prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # die with the zygote
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.close(output)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        if request.get("cpu") is not None:  # the CPU the grader's thread is pinned to
            os.sched_setaffinity(0, {request["cpu"]})
        _limit(request["limits"])
        os.chdir(request["workdir"])
        config = dict(request["jail"], keep_fds=[read_fd, write_fd])
        jail["enter"](config)  # returns in the jailed submission only
        sys.argv = ["_grader_runner.py", str(read_fd), str(write_fd)]
        runner["main"]()
        code = 0
    except BaseException as error:  # noqa: BLE001 - reported in the submission's output
        os.write(2, f"the submission's process could not start: {error!r}\n".encode())
    finally:
        os._exit(code)


def _limit(limits: dict) -> None:
    """The same limits as a submission started directly (see sandbox.StudentProcess)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write fails, no kill
    for name, value in limits.items():
        number = getattr(resource, name)
        resource.setrlimit(number, tuple(value))
