"""Run one submission in its own process, with limits, serving it games it cannot tamper with."""

from __future__ import annotations

import compileall
import contextlib
import ctypes
import functools
import json
import marshal
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import games
from games.protocol import Game

RUNNER = Path(__file__).with_name("runner.py")
JAIL = Path(__file__).with_name("jail.py")
ZYGOTE = Path(__file__).with_name("zygote.py")
MARKER = "AUTOGRADER_JOB"
_ACTIVE: set[int] = set()
_ACTIVE_LOCK = threading.Lock()
_SUBREAPER = False
HIDDEN_PACKAGES = ("solutions", "autograder", "tests", "examples")
MAX_MESSAGE = 1 << 20


@dataclass(frozen=True)
class Limits:
    """What one submission may use. `timeout` is wall-clock seconds per graded call."""

    timeout: float = 10.0
    load_timeout: float = 30.0
    budget: float = (
        120.0  # wall-clock seconds for all of a submission's calls; a third per function
    )
    cpu_seconds: int = 300
    memory_mb: int = 2048
    output_kb: int = 256
    processes: int = 64
    disk_mb: int = 64
    isolation: str = "auto"  # "jail" (required), "process", or "auto" (the jail where possible)
    run_as: int | None = None  # without the jail, the user id (and group) a root grader uses


@dataclass
class CallOutcome:
    """What came back from one call of a student's function, as plain data."""

    status: str  # "returned", "raised", "timeout", "overrun", "crashed", "skipped"
    value: Any = None
    error: str = ""
    traceback: str = ""
    states_generated: int = 0
    generated: list = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class LoadReport:
    """How loading the submission's cells went."""

    status: str  # "loaded", "timeout", "crashed"
    cell_errors: list = field(default_factory=list)
    functions: list = field(default_factory=list)
    error: str = ""


class SandboxError(Exception):
    """The student process broke the protocol, died or ran out of time."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


def build_import_view(root: Path, fonts: subprocess.Popen | None = None) -> Path:
    """Make a directory that holds what a submission may import, and nothing of the grader.

    Every entry of the interpreter's site-packages is linked except the course's own hidden
    packages and the `.pth` hooks of an editable install; `games` is copied. The student process
    runs with `-I -S` and this directory plus the standard library as its only path. Beside
    the view go the runner and the jail, compiled (`code_file`), and matplotlib's font cache
    (`start_font_cache`, started here unless the caller started it earlier).
    """
    if fonts is None:
        fonts = start_font_cache(root)
    view = root / "site"
    view.mkdir(parents=True, exist_ok=True)
    shutil.copytree(Path(games.__file__).parent, view / "games", ignore=_ignore_caches)
    # Compiled once here: the student process runs with -B and would otherwise compile the
    # toolkit from source at every start (tens of milliseconds, times the class).
    compileall.compile_dir(view / "games", quiet=1)
    for script in (RUNNER, JAIL, ZYGOTE):
        code = compile(script.read_text(), f"_grader_{script.stem}.py", "exec")
        (root / f"{script.stem}.code").write_bytes(marshal.dumps(code))
    seen = {"games"}
    for key in ("purelib", "platlib"):
        site = Path(sysconfig.get_paths()[key])
        if not site.is_dir():
            continue
        for entry in sorted(site.iterdir()):
            name = entry.name
            if name in seen or _hidden_entry(name):
                continue
            seen.add(name)
            (view / name).symlink_to(entry)
    try:
        fonts.wait(timeout=120)
    except subprocess.TimeoutExpired:  # plots are never graded: go on without the cache
        fonts.kill()
        fonts.wait()
    return view


_FONT_CACHE = """
import glob, os, shutil, sys
try:
    import matplotlib
    from matplotlib import font_manager  # builds the cache if there is none yet
except ImportError:
    sys.exit(0)
for entry in glob.glob(os.path.join(matplotlib.get_cachedir(), "fontlist-*.json")):
    shutil.copy(entry, sys.argv[1])
"""


def start_font_cache(root: Path) -> subprocess.Popen:
    """Start copying matplotlib's font cache to where submissions find it (`mplconfig_for`).

    Without it, a submission that imports matplotlib spends seconds building the cache in its
    fresh sandbox. In a process of its own, because importing matplotlib takes a few tenths of
    a second that the grader can spend on its own preparations meanwhile. The folder is shared
    by the submissions of one run; at worst a submission could spoil another's plots, which are
    never graded.
    """
    config = root / "mplconfig"
    config.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-c", _FONT_CACHE, str(config)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def mplconfig_for(view: Path) -> Path:
    return view.parent / "mplconfig"


def code_file(view: Path, script: Path) -> Path:
    """The marshalled code of `script` (runner.py, jail.py or zygote.py) that
    `build_import_view` wrote."""
    return view.parent / f"{script.stem}.code"


def _bootstrap(view: Path) -> str:
    """The first statements of every interpreter that runs submissions (`python -I -S -c`):
    the import path is the view and the standard library, and `load(path)` reads the marshalled
    code that `build_import_view` wrote."""
    path = [str(view), *_standard_library_paths()]
    return (
        f"import sys, marshal; sys.path[:] = {path!r}; "
        "load = lambda path: marshal.loads(open(path, 'rb').read()); "
    )


def _ignore_caches(_directory: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "__pycache__"]


def _resource_limits(limits: Limits) -> dict[str, tuple[int, int]]:
    memory = limits.memory_mb * 1024 * 1024
    output = limits.output_kb * 1024
    return {
        "RLIMIT_AS": (memory, memory),
        "RLIMIT_CPU": (limits.cpu_seconds, limits.cpu_seconds + 5),
        "RLIMIT_FSIZE": (output, output),
        "RLIMIT_CORE": (0, 0),
    }


def _limiting_code(limits: Limits) -> str:
    """The first statements the student process runs, before the jail and any student code.

    Set there rather than in a `preexec_fn`, which would make every start fork the whole
    grader process instead of using vfork.
    """
    settings = "".join(
        f"r.setrlimit(r.{name}, {value!r}); " for name, value in _resource_limits(limits).items()
    )
    return (
        "import resource as r, signal, ctypes; "
        "ctypes.CDLL(None).prctl(1, 9, 0, 0, 0); "  # PR_SET_PDEATHSIG: die with the grader
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "  # an over-long write fails, no kill
        f"{settings}del r, signal, ctypes; "
    )


def _environment(view: Path, workdir: Path, jailed: bool, job: str) -> dict[str, str]:
    """The whole environment of a submission's process."""
    home = JAIL_HOME if jailed else str(workdir)
    env = {
        "PATH": "/usr/bin:/bin",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{home}/.config/matplotlib" if jailed else str(mplconfig_for(view)),
        "PYTHONHASHSEED": "0",
        "LANG": "C.UTF-8",
        "PYTHONPATH": "",
        "HOME": home,
    }
    if jailed:
        env["TMPDIR"] = "/tmp"
    else:  # without a PID namespace, the grader finds a submission's descendants by this mark
        env[MARKER] = job
    return env


class StudentProcess:
    """One running submission: load its cells once, then call its functions on served games."""

    def __init__(self, cells: list, wanted: list[str], view: Path, limits: Limits) -> None:
        self.cells = cells
        self.wanted = wanted
        self.view = view
        self.limits = limits
        # In the run's scratch folder, which the grading command removes on every exit.
        self.workdir = Path(tempfile.mkdtemp(prefix="student-", dir=view.parent))
        self.process: subprocess.Popen | None = None
        self._buffer = b""
        self.job = os.urandom(12).hex()
        self.cgroups: list[str] = []
        self.jailed = False
        self._pinned: tuple[int, set[int], socket.socket] | None = None
        self._write_fd: int | None = None
        self._read_fd: int | None = None

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> LoadReport:
        """Start the process and run the submission's cells. Never raises, except
        IsolationError when the jail is required (`isolation="jail"`) and cannot be had."""
        self.jailed = use_jail(self.limits)
        to_child_read, to_child_write = os.pipe()
        from_child_read, from_child_write = os.pipe()
        output = open(self.workdir / "output.txt", "ab")  # noqa: SIM115 - handed to the child
        if self._pinned is None:  # kept until close(), through restarts
            self._pinned = _pin_to_a_free_cpu()
        try:
            config = None
            if self.jailed:
                cpu = None if self._pinned is None else self._pinned[0]
                self.cgroups = make_cgroups(self.job, self.limits, cpu)
                config = jail_config(self.view, self.workdir, self.limits, self.cgroups)
            self.process = None
            zygote = Zygote.for_view(self.view) if self.jailed else None
            if zygote is not None:
                self.process = zygote.spawn(
                    {
                        "workdir": str(self.workdir),
                        "jail": config,
                        "limits": _resource_limits(self.limits),
                        "cpu": None if self._pinned is None else self._pinned[0],
                    },
                    [to_child_read, from_child_write, output.fileno()],
                )
            if self.process is None:
                self.process = self._start_interpreter(
                    config, [to_child_read, from_child_write], output
                )
        finally:
            output.close()
            os.close(to_child_read)
            os.close(from_child_write)
        self._write_fd, self._read_fd = to_child_write, from_child_read
        self._buffer = b""
        try:
            self._send({"op": "load", "cells": self.cells, "wanted": self.wanted})
            reply = self._receive(time.monotonic() + self.limits.load_timeout, "loading")
        except SandboxError as error:
            self.stop()
            return LoadReport(status=error.status, error=str(error))
        if reply.get("op") != "loaded":
            self.stop()
            return LoadReport(status="crashed", error="the submission answered out of turn")
        functions = [name for name in reply.get("functions", []) if name in self.wanted]
        return LoadReport("loaded", list(reply.get("cells", []))[:50], functions)

    def _start_interpreter(self, config: dict | None, fds: list[int], output) -> subprocess.Popen:
        """Start the submission's process as a fresh interpreter: without the jail, or if the
        zygote cannot be had."""
        to_child_read, from_child_write = fds
        jail = ""
        if config is not None:
            config = dict(config, keep_fds=fds)
            jail = (
                "jail = {'__name__': 'jail'}; "
                f"exec(load({str(code_file(self.view, JAIL))!r}), jail); "
                f"jail['enter']({config!r}); del jail; "
            )
        bootstrap = (
            _bootstrap(self.view)
            + "sys.argv = sys.argv[1:]; "
            + _limiting_code(self.limits)
            + f"runner = load({str(code_file(self.view, RUNNER))!r}); "
            + jail
            + "exec(runner, {'__name__': '__main__'})"
        )
        command = [
            sys.executable, "-I", "-S", "-B", "-u", "-c", bootstrap,
            "_grader_runner.py", str(to_child_read), str(from_child_write),
        ]  # fmt: skip
        # Registered under the lock the reaper holds, so a reaper in another thread never
        # mistakes a process that has just started for an orphan.
        with _ACTIVE_LOCK:
            process = subprocess.Popen(
                command,
                cwd=self.workdir,
                env=_environment(self.view, self.workdir, config is not None, self.job),
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                pass_fds=fds,
                start_new_session=True,
                **self._unprivileged(),
            )
            _ACTIVE.add(process.pid)
        return process

    def _unprivileged(self) -> dict:
        """Popen's arguments that run the submission as `limits.run_as`, if set (a root grader
        without the jail must not run student code as root)."""
        user = self.limits.run_as
        if user is None:
            return {}
        os.chown(self.workdir, user, user)
        os.chmod(self.view.parent, 0o711)  # the view and the runner's code, nothing to list
        return {"user": user, "group": user, "extra_groups": []}

    def stop(self) -> None:
        """Kill the process and everything it started, even what left its session."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            with _ACTIVE_LOCK:
                _ACTIVE.discard(self.process.pid)
            self.process = None
            remove_cgroups(self.cgroups)
            self.cgroups = []
            if not self.jailed:  # without a PID namespace, descendants must be found one by one
                kill_marked(self.job)
            reap_orphans()
        for fd in ("_write_fd", "_read_fd"):
            if getattr(self, fd, None) is not None:
                os.close(getattr(self, fd))
                setattr(self, fd, None)

    def close(self) -> None:
        """Stop the process and delete its working directory."""
        self.stop()
        _unpin(self._pinned)
        self._pinned = None
        shutil.rmtree(self.workdir, ignore_errors=True)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def output(self, limit: int = 4000) -> str:
        """The first `limit` characters the submission printed."""
        try:
            with open(self.workdir / "output.txt", "rb") as handle:
                return handle.read(limit).decode("utf-8", "replace")
        except OSError:
            return ""

    # -- calls --------------------------------------------------------------------------

    def call(
        self,
        function: str,
        game: Game,
        state: Any,
        args: tuple = (),
        evaluate=None,
        record: bool = False,
        max_states: int = 10**9,
    ) -> CallOutcome:
        """Call `function(game, state, *args[, evaluate])` in the student process.

        The student's search receives a proxy of `game`; every child it asks for is generated
        here and counted. The process is killed on a time-out or a broken protocol; the caller
        may start it again for the next call.

        Each state sent gets a fresh random token, and the student can name a state only by its
        token: `served` maps the tokens of this call to (state, legal actions).
        """
        started = time.monotonic()
        deadline = started + self.limits.timeout
        outcome = CallOutcome(status="crashed")
        tokens = _random_tokens()
        root, info = next(tokens), _info(game, state, evaluate)
        served: dict[int, tuple[Any, list]] = {root: (state, info[1])}
        try:
            self._send(
                {
                    "op": "call",
                    "function": function,
                    "root": root,
                    "info": info,
                    "args": list(args),
                    "evaluate": evaluate is not None,
                },
                deadline,
            )
            message = self._serve(
                game, evaluate, served, tokens, outcome, record, deadline, max_states
            )
            op = message.get("op")
            if op == "return":
                outcome.status, outcome.value = "returned", message.get("value")
            elif op == "raised":
                outcome.status = "raised"
                outcome.error = str(message.get("error", ""))[:2000]
                outcome.traceback = str(message.get("traceback", ""))[:4000]
            else:
                raise SandboxError("crashed", "the submission sent a message out of protocol")
        except SandboxError as error:
            outcome.status, outcome.error = error.status, str(error)
            self.stop()
        outcome.seconds = time.monotonic() - started
        return outcome

    def _serve(
        self,
        game: Game,
        evaluate,
        served: dict,
        tokens: Iterator[int],
        outcome: CallOutcome,
        record: bool,
        deadline: float,
        max_states: int = 10**9,
    ) -> dict:
        """Answer the student's `result` requests until it sends anything else; return that.

        One turn of this loop per state the student's search generates, so it is kept short:
        a whole request is usually the only thing in one read, and a child already served to
        an earlier submission (all are graded on the same instances) comes from `_CHILDREN`
        with its info marshalled; it is still counted, and recorded, every time.
        """
        children, generated, count = _CHILDREN, outcome.generated if record else None, 0
        read, write, monotonic, read_fd, write_fd = os.read, os.write, time.monotonic, *self._fds()
        head, whole, unpack_request = _REQUEST_HEAD, _REQUEST_FRAME, _TOKEN_INDEX.unpack_from
        try:
            while True:
                buffer = self._buffer
                if not buffer:
                    if monotonic() >= deadline:  # also stops a student that floods requests
                        raise self._timed_out("the call")
                    try:
                        buffer = read(read_fd, 65536)
                    except OSError:  # nothing yet (or the pipe broke): wait the long way
                        buffer = self._read(deadline, "the call")
                    if not buffer:
                        raise SandboxError("crashed", self._death_message())
                if len(buffer) >= whole and buffer.startswith(head):
                    token, index = unpack_request(buffer, 5)
                    self._buffer = buffer[whole:]
                else:  # a request cut in two by the pipe, or the student's last message
                    self._buffer = buffer
                    payload = self._frame(deadline, "the call")
                    if len(payload) != _REQUEST.size or payload[0] != _REQUEST_TAG:
                        return _json_message(payload)
                    _, token, index = _REQUEST.unpack(payload)
                found = served.get(token)
                if found is None or index >= len(found[1]):
                    self._send("the grader refused a request for an unknown state", deadline)
                    continue
                key = (game, evaluate, found[0], index)
                child = children.get(key)
                if child is None:
                    child = _child(game, evaluate, *found, index)
                    if len(children) >= _CHILDREN_SIZE:
                        children.clear()
                    children[key] = child
                state, actions, header, encoded = child
                count += 1
                if count > max_states:
                    raise SandboxError(
                        "overrun",
                        f"it generated more than {max_states:,} states on this instance, far "
                        "more than a full search needs: is game.result called in a loop?",
                    )
                if generated is not None:
                    generated.append(state)
                token = next(tokens)
                while token in served:  # 64 random bits: never in practice
                    token = next(tokens)
                served[token] = (state, actions)
                frame = header + token.to_bytes(8, "big") + encoded
                try:
                    written = write(write_fd, frame)
                except OSError:  # the pipe is full, or broken: the long way says which
                    written = 0
                if written < len(frame):
                    self._write(frame[written:], deadline, "the call")
        finally:
            outcome.states_generated += count

    def _fds(self) -> tuple[int, int]:
        if self._read_fd is None or self._write_fd is None:
            raise SandboxError("crashed", self._death_message())
        return self._read_fd, self._write_fd

    # -- the pipe -----------------------------------------------------------------------
    #
    # Both pipes are non-blocking: a read or write is tried first and select() waits only when
    # it would block, so a round trip costs one read and one write on each side, and a student
    # that stops reading cannot hang the grader past the deadline.

    def _send(self, message: object, deadline: float | None = None) -> None:
        """Send `message` (marshalled: the student may trust the grader) before `deadline`.

        Without a deadline, the load time-out counts from now. Every exchange starts here, so
        this is where both pipes are put in non-blocking mode.
        """
        waiting_for = "the call" if deadline is not None else "loading"
        if deadline is None:
            deadline = time.monotonic() + self.limits.load_timeout
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
        """Wait until the student has written (or, `writing`, read) something, or `deadline`."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise self._timed_out(waiting_for)
        if writing:
            select.select([], [self._write_fd], [], remaining)
        else:
            select.select([self._read_fd], [], [], remaining)

    def _timed_out(self, waiting_for: str) -> SandboxError:
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


# -- the jail (root on Linux): see jail.py -------------------------------------------------

JAIL_HOME = "/home/student"
UID_BASE = 1_000_000  # + the pid of the submission's first process: one user per submission
_SUPPORT: dict[str, tuple[bool, str]] = {}


class IsolationError(Exception):
    """`isolation="jail"` was asked for on a machine that cannot provide it."""


def use_jail(limits: Limits) -> bool:
    if limits.isolation == "process":
        return False
    works, reason = jail_support()
    if not works and limits.isolation == "jail":
        raise IsolationError(f"the jail cannot be used here: {reason}")
    return works


def jail_support() -> tuple[bool, str]:
    """Whether submissions can be jailed here, and why not; probed once per process.

    The probe jails a bare interpreter and checks that it came out as pid 2 of its own
    namespace, under a user id that is not root, seeing the jail's file system only.
    """
    if "result" in _SUPPORT:
        return _SUPPORT["result"]
    if sys.platform != "linux" or os.geteuid() != 0:
        result = (False, "it needs Linux and root (namespaces, mounts, chroot, another uid)")
    else:
        result = _probe_jail()
    _SUPPORT["result"] = result
    return result


def _probe_jail() -> tuple[bool, str]:
    """Jail a bare interpreter, with the syscall filter if libseccomp can be had, else without
    (`SECCOMP` records which); say what the jail is made of, or why it cannot be used."""
    failure = ""
    for seccomp in (True, False):
        SECCOMP[0] = seccomp
        works, reason = _probe_once()
        if works:
            return True, "namespaces, chroot, a user of its own" + (
                f", {_named(cgroup_roots())} cgroups" if cgroup_roots() else ""
            ) + (", a syscall filter" if seccomp else ", no syscall filter (no libseccomp)")
        failure = failure or reason
    SECCOMP[0] = False
    return False, failure


SECCOMP = [False]
"""Whether jailed submissions get the syscall filter (jail.DENIED_CALLS): the probe decides."""


def _probe_once() -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="autograder-probe-") as scratch:
        config = jail_config(None, Path(scratch), Limits(), [])
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-S", "-B", str(JAIL), json.dumps(config), scratch],
                cwd=scratch, capture_output=True, text=True, timeout=30,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError) as error:
            return False, f"the probe did not run: {error}"
    words = done.stdout.split()
    if done.returncode != 0 or len(words) not in (3, 4):
        lines = (done.stderr.strip() or f"exit code {done.returncode}").splitlines()
        return False, f"the probe failed: {lines[-1]}"
    if words[0] == "0" or words[1] != "2" or words[2] != "False":
        return False, f"the probe was not isolated (uid, pid, sees the host: {words})"
    if SECCOMP[0] and words[3:] == ["False"]:
        return False, "the syscall filter was loaded but did not deny keyctl"
    return True, ""


def jail_config(view: Path | None, workdir: Path, limits: Limits, cgroups: list[str]) -> dict:
    """What the jail is made of: the system and the Python installation, read-only, the
    import view, and nothing else of the machine (not the repository, not --out, not TMPDIR)."""
    links, binds, masks, copies = _jail_layout(view)
    root = workdir / "jail"
    root.mkdir(exist_ok=True)
    return {
        "root": str(root),
        "tmpfs_mb": limits.disk_mb,
        "links": links,
        "binds": binds,
        "masks": masks,
        "copies": copies,
        "cgroups": cgroups,
        "nproc": limits.processes,
        "uid_base": UID_BASE,
        "seccomp": SECCOMP[0],
    }


@functools.cache
def _jail_layout(view: Path | None) -> tuple[list, list, list, dict]:
    """The parts of `jail_config` that are the same for every submission of a run."""
    links, binds = [], ["/usr", "/etc"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            links.append([top, os.readlink(top)])
        elif os.path.isdir(top):
            binds.append(top)
    prefix = os.path.realpath(sys.base_prefix)
    sites = sorted({os.path.realpath(sysconfig.get_paths()[key]) for key in ("purelib", "platlib")})
    masks = []
    if not prefix.startswith("/usr/"):
        binds.append(prefix)
    base_site = os.path.realpath(sysconfig.get_paths(vars={"base": prefix})["purelib"])
    if os.path.isdir(base_site) and base_site not in sites:
        masks.append(base_site)
    copies = {}
    if view is not None:
        binds += [site for site in sites if not site.startswith(prefix + "/")]
        binds.append(str(view))
        masks += [str(path) for path in hidden_site_entries()]
        for font_cache in sorted(mplconfig_for(view).glob("fontlist-*.json")):
            copies[f"{JAIL_HOME}/.config/matplotlib/{font_cache.name}"] = str(font_cache)
    return links, binds, masks, copies


def hidden_site_entries() -> list[Path]:
    """Entries of site-packages a submission must not see (what the import view leaves out)."""
    found = []
    for key in ("purelib", "platlib"):
        site = Path(sysconfig.get_paths()[key])
        if site.is_dir():
            found += [entry for entry in sorted(site.iterdir()) if _hidden_entry(entry.name)]
    return sorted(set(found))


def _hidden_entry(name: str) -> bool:
    hidden = name.split(".")[0].split("-")[0] in HIDDEN_PACKAGES
    editable = name.startswith("__editable__") or name.endswith(".pth")
    return hidden or editable or "adversarial_search_course" in name


@functools.cache
def cgroup_roots() -> dict[str, Path]:
    """This process's own memory and pids cgroup directories (cgroup v1), where writable."""
    roots = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in CONTROLLERS:
            directory = Path("/sys/fs/cgroup") / controller / path.lstrip("/")
            if controller in controllers.split(",") and os.access(directory, os.W_OK):
                roots[controller] = directory
    return roots


RUN_ID = [os.getpid()]
"""The pid of the grading command: every cgroup and scratch folder of its run is named after
it, so that it can remove them whatever becomes of its workers, and a later run can remove
those of a run that was killed (`sweep`)."""
_STALE = re.compile(r"^autograder-(?:run-)?(\d+)-")


def start_run() -> None:
    """Mark this process as the grading command whose run the names carry."""
    RUN_ID[0] = os.getpid()


def sweep(only_this_run: bool = False) -> int:
    """Kill the processes in, and remove, the cgroups of this run (`only_this_run`) or of runs
    whose grading command has died, and remove those runs' scratch folders. Returns how many
    cgroups and folders were removed."""
    removed = 0
    roots = list(cgroup_roots().values())
    for root in roots:
        for directory in _run_entries(root, only_this_run):
            _kill_cgroup(directory)
            remove_cgroups([str(directory)])
            removed += not directory.exists()
    if not only_this_run:
        for folder in _run_entries(Path(tempfile.gettempdir()), False):
            if folder.is_dir() and not folder.is_symlink() and folder.stat().st_uid == os.getuid():
                shutil.rmtree(folder, ignore_errors=True)
                removed += not folder.exists()
    return removed


def _run_entries(root: Path, only_this_run: bool) -> list[Path]:
    """Entries of `root` named after this run, or after a run whose command is gone."""
    found = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return []
    for entry in entries:
        match = _STALE.match(entry.name)
        if not match:
            continue
        pid = int(match.group(1))
        if pid == RUN_ID[0] if only_this_run else (pid != RUN_ID[0] and not _alive(pid)):
            found.append(entry)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_cgroup(directory: Path) -> None:
    """SIGKILL every process in a cgroup, until it is empty (or two seconds have passed)."""
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        try:
            pids = [int(line) for line in (directory / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def die_with_parent() -> None:
    """Have the kernel SIGKILL this process when the process (thread) that started it ends
    (Linux); a no-op elsewhere."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


CONTROLLERS = ("memory", "pids", "cpu", "cpuset")
CPU_PERIOD_US = 100_000


def _named(roots: dict) -> str:
    """ "memory, process and CPU share" for the controllers in `roots`."""
    names = {"memory": "memory", "pids": "process", "cpu": "CPU share", "cpuset": "CPU set"}
    found = [names[controller] for controller in CONTROLLERS if controller in roots]
    return ", ".join(found[:-1]) + " and " + found[-1] if len(found) > 1 else "".join(found)


def make_cgroups(job: str, limits: Limits, cpu: int | None = None) -> list[str]:
    """The cgroups of one submission, so that its limits cover every process it starts:
    memory, processes, at most one CPU's worth of time at the same weight as any other
    submission, and, when the grading thread holds a CPU, that CPU only (a submission that
    re-pins its processes to every CPU still cannot reach its neighbours'). [] where cgroups
    cannot be made (the per-process limits still apply)."""
    made = []
    settings = {
        "memory": {"memory.limit_in_bytes": limits.memory_mb * 1024 * 1024,
                   "memory.swappiness": 0},
        "pids": {"pids.max": limits.processes},
        "cpu": {"cpu.shares": 1024, "cpu.cfs_period_us": CPU_PERIOD_US,
                "cpu.cfs_quota_us": CPU_PERIOD_US},
        "cpuset": {"cpuset.mems": None, "cpuset.cpus": None if cpu is None else str(cpu)},
    }  # fmt: skip
    for controller, root in cgroup_roots().items():
        directory = root / f"autograder-{RUN_ID[0]}-{job}"
        try:
            directory.mkdir()
            made.append(str(directory))
            for name, value in settings[controller].items():
                if value is None:  # a cpuset must name its memory nodes and CPUs: the parent's
                    value = (root / name).read_text().strip()
                if (directory / name).exists():
                    (directory / name).write_text(str(value))
        except OSError:
            continue
    return made


def remove_cgroups(directories: list[str]) -> None:
    """Remove a finished submission's cgroups once the kernel has emptied them."""
    deadline = time.monotonic() + 2.0
    for directory in directories:
        while True:
            try:
                os.rmdir(directory)
                break
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.001)  # the jail's last processes are usually gone within 10 ms


def kill_marked(job: str) -> int:
    """Kill every process whose environment carries this submission's secret job token.

    Children inherit the token, so this finds processes that started a new session or were
    re-parented away. Returns how many were killed.
    """
    needle = f"{MARKER}={job}".encode()
    killed = 0
    for _ in range(3):  # a dying parent may leave a child that appears a moment later
        found = 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if needle in environ.split(b"\0"):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(int(entry.name), signal.SIGKILL)
                    found += 1
        killed += found
        if not found:
            break
        time.sleep(0.05)
    return killed


def become_subreaper() -> bool:
    """Make this process adopt orphaned descendants (Linux), so they can be reaped.

    A submission's process that clears its environment and leaves its session is re-parented
    here when its parent dies, instead of to init. Only the grading command turns this on: in a
    process that has children of its own (a test runner's kernels), `reap_orphans` would not
    know which children are legitimate.
    """
    global _SUBREAPER
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _SUBREAPER = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        _SUBREAPER = False
    return _SUBREAPER


def is_subreaper() -> bool:
    """Whether `become_subreaper` succeeded here (a forked child must call it again)."""
    return _SUBREAPER


def reap_orphans() -> int:
    """Kill and collect adopted children that are not a running submission's main process."""
    if not _SUBREAPER:
        return 0
    with _ACTIVE_LOCK:  # no submission can start while we decide who is an orphan
        return _reap_locked(str(os.getpid()))


def _reap_locked(me: str) -> int:
    killed = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid = int(entry.name)
        if fields[1] == me and pid not in _ACTIVE:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            killed += 1
    return killed


def _standard_library_paths() -> list[str]:
    """The grader's own import path entries that belong to the standard library."""
    base = os.path.realpath(sys.base_prefix)
    return [
        entry
        for entry in sys.path
        if entry and os.path.realpath(entry).startswith(base) and "site-packages" not in entry
    ]


# -- the hot path of a call -----------------------------------------------------------------

_LENGTH = struct.Struct(">I")
_REQUEST = struct.Struct(">cQI")
"""A `result` request: b"r", the parent's token, the index of the action in its legal list."""
_REQUEST_TAG = ord("r")
_CHILD = struct.Struct(">IcQ")
"""The start of a child frame: length, b"c", the child's token; its marshalled info follows."""
_REQUEST_HEAD = _LENGTH.pack(_REQUEST.size) + b"r"
_REQUEST_FRAME = _LENGTH.size + _REQUEST.size
_TOKEN_INDEX = struct.Struct(">QI")
_TOKEN_BATCH = struct.Struct("=512Q")
_CHILDREN: dict[tuple, tuple[Any, list, bytes, bytes]] = {}
"""(game, evaluate, parent, action number) -> `_child`; emptied when full, which bounds its
memory however many states the searches of a run ask for."""
_CHILDREN_SIZE = 100_000


def _info(game: Game, state: Any, evaluate) -> tuple:
    """Everything a search may read about a state: (to_move, actions, terminal, utility, eval)."""
    terminal = game.is_terminal(state)
    return (
        game.to_move(state),
        [] if terminal else game.actions(state),
        terminal,
        game.utility(state) if terminal else None,
        None if evaluate is None else evaluate(state),
    )


def _child(game: Game, evaluate, parent: Any, legal: list, index: int) -> tuple:
    """The child of `parent` by its action number `index`: (state, legal actions, the start of
    its frame up to the token, its info marshalled for the student). Games are deterministic,
    so `_CHILDREN` may keep it."""
    state = game.result(parent, legal[index])
    info = _info(game, state, evaluate)
    encoded = marshal.dumps(info)
    return state, info[1], _LENGTH.pack(_CHILD.size - 4 + len(encoded)) + b"c", encoded


def _random_tokens() -> Iterator[int]:
    """Endless 64-bit tokens from the operating system's cryptographic generator.

    Seeing any number of tokens tells nothing about the others, so a student can name only
    the states it was sent. Drawn 512 at a time: one system call serves many states.
    """
    while True:
        yield from _TOKEN_BATCH.unpack(os.urandom(_TOKEN_BATCH.size))


def _json_message(payload: bytes) -> dict:
    """A JSON frame from the student (b"j" + a JSON object), or SandboxError."""
    if payload[:1] != b"j":
        raise SandboxError("crashed", "the submission sent a malformed message")
    try:
        message = json.loads(payload[1:])
    except (ValueError, RecursionError) as error:
        raise SandboxError("crashed", "the submission sent a malformed message") from error
    if not isinstance(message, dict):
        raise SandboxError("crashed", "the submission sent a malformed message")
    return message


def _pin_to_a_free_cpu() -> tuple[int, set[int], socket.socket] | None:
    """Pin the calling thread to a CPU that no other grading holds; None if none is free.

    A call is a ping-pong: the grader waits while the student searches, the student waits while
    the grader generates a child. One CPU serves both sides without losing any parallelism,
    whereas on two CPUs each of thousands of round trips wakes a process on another CPU, which
    costs several times the round trip itself (5x the CPU time on a 2-core virtual machine).
    Pinned before the student process starts, the grader passes its CPU on to it (and to the
    jail's processes) with no system call per process. Submissions graded at the same time, in
    other threads or worker processes, claim other CPUs; when every CPU is claimed, or affinity
    cannot be set (not Linux), both run where the scheduler puts them.

    Returns the CPU, and what `_unpin` needs: the CPUs the thread may use again, the claim.
    """
    try:
        allowed = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return None
    claim = _claim_a_cpu(sorted(allowed)) if len(allowed) > 1 else None
    if claim is None:
        return None
    cpu, held = claim
    try:
        os.sched_setaffinity(0, {cpu})  # 0 is the calling thread, not the whole grader
    except OSError:
        held.close()
        return None
    return cpu, allowed, held


def _unpin(pinned: tuple[int, set[int], socket.socket] | None) -> None:
    if pinned is not None:
        _, allowed, held = pinned
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, allowed)
        held.close()


def _claim_a_cpu(cpus: list[int]) -> tuple[int, socket.socket] | None:
    """Claim one of `cpus` that no other call on this machine holds; None if all are taken.

    A claim is an abstract Unix socket bound to the name autograder-cpu-N: only one socket can
    hold a name, and the kernel frees it when the socket is closed, even if its process dies.
    """
    for cpu in cpus:
        held = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            held.bind(f"\0autograder-cpu-{cpu}")
        except OSError:
            held.close()
            continue
        return cpu, held
    return None
