"""Run one submission in its own process, with limits, serving it games it cannot tamper with."""

from __future__ import annotations

import contextlib
import ctypes
import json
import marshal
import os
import random
import resource
import select
import shutil
import signal
import struct
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import games
from games.protocol import Game

RUNNER = Path(__file__).with_name("runner.py")
JAIL = Path(__file__).with_name("jail.py")
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
    cpu_seconds: int = 300
    memory_mb: int = 2048
    output_kb: int = 256
    processes: int = 64
    disk_mb: int = 64
    isolation: str = "auto"  # "jail" (required), "process", or "auto" (the jail where possible)


@dataclass
class CallOutcome:
    """What came back from one call of a student's function, as plain data."""

    status: str  # "returned", "raised", "timeout", "crashed", "skipped"
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


def build_import_view(root: Path) -> Path:
    """Make a directory that holds what a submission may import, and nothing of the grader.

    Every entry of the interpreter's site-packages is linked except the course's own hidden
    packages and the `.pth` hooks of an editable install; `games` is copied. The student process
    runs with `-I -S` and this directory plus the standard library as its only path.
    """
    view = root / "site"
    view.mkdir(parents=True, exist_ok=True)
    _warm_matplotlib(root / "mplconfig")
    shutil.copytree(Path(games.__file__).parent, view / "games", ignore=_ignore_caches)
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
    return view


def _warm_matplotlib(config: Path) -> None:
    """Give submissions a ready font cache: building it costs seconds in every fresh sandbox.

    The folder is shared by the submissions of one run; at worst a submission could spoil
    another's plots, which are never graded.
    """
    config.mkdir(parents=True, exist_ok=True)
    try:
        import matplotlib
        from matplotlib import font_manager  # noqa: F401 - builds the grader's font cache
    except ImportError:
        return
    cache = Path(matplotlib.get_cachedir())
    for entry in cache.glob("fontlist-*.json"):
        shutil.copy(entry, config / entry.name)


def mplconfig_for(view: Path) -> Path:
    return view.parent / "mplconfig"


def _ignore_caches(_directory: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "__pycache__"]


def _limit_resources(limits: Limits) -> None:
    """Applied in the child between fork and exec."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write fails instead of killing
    memory = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
    output = limits.output_kb * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (output, output))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class StudentProcess:
    """One running submission: load its cells once, then call its functions on served games."""

    def __init__(self, cells: list, wanted: list[str], view: Path, limits: Limits) -> None:
        self.cells = cells
        self.wanted = wanted
        self.view = view
        self.limits = limits
        self.workdir = Path(tempfile.mkdtemp(prefix="student-"))
        self.process: subprocess.Popen | None = None
        self._buffer = b""
        self._tokens = random.Random(os.urandom(16))
        self.job = os.urandom(12).hex()
        self.cgroups: list[str] = []
        self.jailed = False

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> LoadReport:
        """Start the process and run the submission's cells. Never raises, except
        IsolationError when the jail is required (`isolation="jail"`) and cannot be had."""
        self.jailed = use_jail(self.limits)
        to_child_read, to_child_write = os.pipe()
        from_child_read, from_child_write = os.pipe()
        output = open(self.workdir / "output.txt", "ab")  # noqa: SIM115 - handed to the child
        shutil.copy(RUNNER, self.workdir / "_grader_runner.py")
        home = self.workdir
        env = {
            "PATH": "/usr/bin:/bin",
            "MPLBACKEND": "Agg",
            "MPLCONFIGDIR": str(mplconfig_for(self.view)),
            "PYTHONHASHSEED": "0",
            "LANG": "C.UTF-8",
            "PYTHONPATH": "",
            MARKER: self.job,
        }
        jail = ""
        if self.jailed:
            shutil.copy(JAIL, self.workdir / "_grader_jail.py")
            self.cgroups = make_cgroups(self.job, self.limits)
            config = jail_config(self.view, self.workdir, self.limits, self.cgroups)
            config["keep_fds"] = [to_child_read, from_child_write]
            jail = (
                "jail = {'__name__': 'jail'}; "
                "exec(open('_grader_jail.py').read(), jail); "
                f"jail['enter']({config!r}); "
            )
            home = Path(JAIL_HOME)
            env["MPLCONFIGDIR"] = JAIL_HOME + "/.config/matplotlib"
            env["TMPDIR"] = "/tmp"
        env["HOME"] = str(home)
        path = [str(self.view), *_standard_library_paths()]
        bootstrap = (
            f"import sys; sys.path[:] = {path!r}; sys.argv = sys.argv[1:]; "
            "runner = open(sys.argv[0]).read(); "
            f"{jail}"
            "exec(compile(runner, sys.argv[0], 'exec'), {'__name__': '__main__'})"
        )
        command = [
            sys.executable, "-I", "-S", "-B", "-u", "-c", bootstrap,
            "_grader_runner.py", str(to_child_read), str(from_child_write),
        ]  # fmt: skip
        try:
            # Registered under the lock the reaper holds, so a reaper in another thread never
            # mistakes a process that has just started for an orphan.
            with _ACTIVE_LOCK:
                self.process = subprocess.Popen(
                    command,
                    cwd=self.workdir,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    stderr=output,
                    pass_fds=(to_child_read, from_child_write),
                    start_new_session=True,
                    preexec_fn=lambda: _limit_resources(self.limits),
                )
                _ACTIVE.add(self.process.pid)
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
    ) -> CallOutcome:
        """Call `function(game, state, *args[, evaluate])` in the student process.

        The student's search receives a proxy of `game`; every child it asks for is generated
        here and counted. The process is killed on a time-out or a broken protocol; the caller
        may start it again for the next call.
        """
        tokens: dict[int, Any] = {}
        root = self._token(tokens, state)
        started = time.monotonic()
        deadline = started + self.limits.timeout
        outcome = CallOutcome(status="crashed")
        try:
            self._send(
                {
                    "op": "call",
                    "function": function,
                    "root": root,
                    "info": _info(game, state, evaluate),
                    "args": list(args),
                    "evaluate": evaluate is not None,
                }
            )
            while True:
                message = self._receive(deadline, "the call")
                op = message.get("op")
                if op == "result":
                    parent = tokens.get(message.get("state"))
                    index = message.get("action")
                    legal = game.actions(parent) if parent is not None else []
                    if parent is None or type(index) is not int or not 0 <= index < len(legal):
                        self._send({"error": "the grader refused a request for an unknown state"})
                        continue
                    child = game.result(parent, legal[index])
                    outcome.states_generated += 1
                    if record:
                        outcome.generated.append(child)
                    token = self._token(tokens, child)
                    self._send({"state": token, "info": _info(game, child, evaluate)})
                elif op == "return":
                    outcome.status, outcome.value = "returned", message.get("value")
                    break
                elif op == "raised":
                    outcome.status = "raised"
                    outcome.error = str(message.get("error", ""))[:2000]
                    outcome.traceback = str(message.get("traceback", ""))[:4000]
                    break
                else:
                    raise SandboxError("crashed", "the submission sent a message out of protocol")
        except SandboxError as error:
            outcome.status, outcome.error = error.status, str(error)
            self.stop()
        outcome.seconds = time.monotonic() - started
        return outcome

    def _token(self, tokens: dict[int, Any], state: Any) -> int:
        token = self._tokens.getrandbits(48)
        tokens[token] = state
        return token

    # -- the pipe -----------------------------------------------------------------------

    def _send(self, message: dict) -> None:
        payload = marshal.dumps(message)
        data = struct.pack(">I", len(payload)) + payload
        try:
            while data:
                written = os.write(self._write_fd, data)
                data = data[written:]
        except (BrokenPipeError, OSError, TypeError) as error:
            raise SandboxError("crashed", self._death_message()) from error

    def _receive(self, deadline: float, waiting_for: str = "the call") -> dict:
        """Read one frame from the student: a 13-byte `result` request or a JSON message.

        Nothing from the student is ever unpickled or unmarshalled: only fixed-size integers
        and JSON are parsed here.
        """
        header = self._read_exactly(4, deadline, waiting_for)
        (size,) = struct.unpack(">I", header)
        if size > MAX_MESSAGE or size < 1:
            raise SandboxError("crashed", "the submission sent an over-long message")
        payload = self._read_exactly(size, deadline, waiting_for)
        if payload[:1] == b"r" and size == 13:
            token, index = struct.unpack(">QI", payload[1:])
            return {"op": "result", "state": token, "action": index}
        if payload[:1] != b"j":
            raise SandboxError("crashed", "the submission sent a malformed message")
        try:
            message = json.loads(payload[1:])
        except (ValueError, RecursionError) as error:
            raise SandboxError("crashed", "the submission sent a malformed message") from error
        if not isinstance(message, dict):
            raise SandboxError("crashed", "the submission sent a malformed message")
        return message

    def _read_exactly(self, count: int, deadline: float, waiting_for: str) -> bytes:
        while len(self._buffer) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                limit = (
                    self.limits.load_timeout if waiting_for == "loading" else self.limits.timeout
                )
                raise SandboxError("timeout", f"no answer within {limit:g} s ({waiting_for})")
            ready, _, _ = select.select([self._read_fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._read_fd, 65536)
            if not chunk:
                raise SandboxError("crashed", self._death_message())
            self._buffer += chunk
        data, self._buffer = self._buffer[:count], self._buffer[count:]
        return data

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
    if done.returncode != 0 or len(words) != 3:
        lines = (done.stderr.strip() or f"exit code {done.returncode}").splitlines()
        return False, f"the probe failed: {lines[-1]}"
    if words[0] == "0" or words[1] != "2" or words[2] != "False":
        return False, f"the probe was not isolated (uid, pid, sees the host: {words})"
    return True, "namespaces, chroot, a user of its own" + (
        ", memory and process cgroups" if cgroup_roots() else ""
    )


def jail_config(view: Path | None, workdir: Path, limits: Limits, cgroups: list[str]) -> dict:
    """What the jail is made of: the system and the Python installation, read-only, the
    import view, and nothing else of the machine (not the repository, not --out, not TMPDIR)."""
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
    if view is not None:
        binds += [site for site in sites if not site.startswith(prefix + "/")]
        binds.append(str(view))
        masks += [str(path) for path in hidden_site_entries()]
    copies = {}
    if view is not None:
        for font_cache in sorted(mplconfig_for(view).glob("fontlist-*.json")):
            copies[f"{JAIL_HOME}/.config/matplotlib/{font_cache.name}"] = str(font_cache)
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
    }


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


def cgroup_roots() -> dict[str, Path]:
    """This process's own memory and pids cgroup directories (cgroup v1), where writable."""
    if "roots" in _SUPPORT:
        return _SUPPORT["roots"]  # type: ignore[return-value]
    roots = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in ("memory", "pids"):
            directory = Path("/sys/fs/cgroup") / controller / path.lstrip("/")
            if controller in controllers.split(",") and os.access(directory, os.W_OK):
                roots[controller] = directory
    _SUPPORT["roots"] = roots  # type: ignore[assignment]
    return roots


def make_cgroups(job: str, limits: Limits) -> list[str]:
    """A memory and a pids cgroup for one submission, so that its limits cover every process
    it starts; [] where cgroups cannot be made (the per-process limits still apply)."""
    made = []
    settings = {
        "memory": {"memory.limit_in_bytes": limits.memory_mb * 1024 * 1024,
                   "memory.swappiness": 0},
        "pids": {"pids.max": limits.processes},
    }  # fmt: skip
    for controller, root in cgroup_roots().items():
        directory = root / f"autograder-{job}"
        try:
            directory.mkdir()
            made.append(str(directory))
            for name, value in settings[controller].items():
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
                time.sleep(0.01)


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
