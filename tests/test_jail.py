"""The jail (autograder/sandbox/jail.py): what a submission sees and can do from inside it.

Each test runs a function in a real jailed student process that looks around and returns what it
found as a string. The jail needs root on Linux; elsewhere these tests are skipped (the
adversarial corpus then shows which holes are open, as strict xfails).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from autograder import sandbox
from autograder.sandbox import IsolationError, Limits, StudentProcess, build_import_view
from autograder.sandbox.view import SITE_PATHS, is_jailed_view
from games import GameTree

ROOT = Path(__file__).resolve().parents[1]
JAILED, WHY = sandbox.jail_support()
FAST = Limits(timeout=10.0, load_timeout=10.0, memory_mb=512, isolation="jail")
pytestmark = pytest.mark.skipif(not JAILED, reason=f"no jail on this machine: {WHY}")


@pytest.fixture(scope="module", params=[False, True], ids=["linked view", "jailed view"])
def view(tmp_path_factory: pytest.TempPathFactory, request) -> Path:
    # A class run's view for jailed submissions links nothing: the site-packages themselves
    # are on the path, with the hidden entries masked by the jail. Every test holds for both.
    return build_import_view(tmp_path_factory.mktemp("view"), jailed=request.param)


def look(view: Path, body: str, limits: Limits = FAST) -> dict:
    """Run `body` (which fills the dict `seen`) inside the jail and return `seen`."""
    source = "import json, os, sys\n\ndef look(game, state):\n    seen = {}\n"
    source += "".join(f"    {line}\n" for line in textwrap.dedent(body).strip().splitlines())
    source += "    return json.dumps(seen)\n"
    process = StudentProcess([[0, source]], ["look"], view, limits)
    try:
        assert process.start().status == "loaded", process.output()
        outcome = process.call("look", GameTree([1, 2]), ())
    finally:
        process.close()
    assert outcome.status == "returned", (outcome, process.output())
    return json.loads(outcome.value)


def test_the_submission_is_another_user_alone_in_its_own_process_namespace(view: Path):
    seen = look(
        view,
        """
        seen["ids"] = [os.getuid(), os.geteuid(), os.getgid(), os.getgroups()]
        seen["pid"] = [os.getpid(), os.getppid()]
        seen["processes"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        try:
            os.kill(1, 15)
            seen["kill_init"] = "sent"
        except PermissionError:
            seen["kill_init"] = "refused"
        seen["no_new_privs"] = open("/proc/self/status").read().count("NoNewPrivs:\\t1")
        seen["capabilities"] = [line.split()[1] for line in open("/proc/self/status")
                                if line.startswith("CapEff")]
        """,
    )
    uid = seen["ids"][0]
    assert uid >= sandbox.UID_BASE and seen["ids"] == [uid, uid, uid, []]
    assert seen["pid"] == [2, 1]  # pid 1 is the jail's init; the grader is not visible
    assert seen["processes"] == [1, 2]
    assert seen["kill_init"] == "refused"
    assert seen["no_new_privs"] == 1
    assert seen["capabilities"] == ["0000000000000000"]


def test_the_file_system_holds_nothing_of_the_grader(view: Path, tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the answers")
    hidden = [str(ROOT / name) for name in ("solutions", "autograder", "examples", "tests")]
    hidden += [str(secret), str(tmp_path)]
    finder = next(
        (str(path) for path in sandbox.hidden_site_entries() if path.suffix == ".py"), None
    )
    seen = look(
        view,
        f"""
        seen["exists"] = [os.path.exists(path) for path in {hidden!r}]
        seen["finder"] = open({finder!r}).read() if {finder!r} else ""
        try:
            import solutions
            seen["import"] = "imported"
        except ImportError:
            seen["import"] = "refused"
        listing = lambda path: os.listdir(path) if os.path.isdir(path) else []
        seen["repository"] = listing({str(ROOT)!r})
        seen["home"] = listing({str(Path.home())!r})
        seen["cwd"] = os.getcwd()
        seen["view"] = os.path.isdir(sys.path[0] + "/games")
        """,
    )
    assert seen["exists"] == [False] * len(hidden)
    assert seen["finder"] == ""  # an editable install's finder would name the repository
    assert seen["import"] == "refused"
    # Only the folders that lead to what is bound (a venv in the repository, a pyenv in $HOME).
    assert set(seen["repository"]) <= {".venv"}, seen["repository"]
    assert set(seen["home"]) <= {".pyenv", ".local"}, seen["home"]
    assert seen["cwd"] == sandbox.JAIL_HOME and seen["view"]


def test_only_home_and_tmp_are_writable_and_they_are_small(view: Path):
    seen = look(
        view,
        """
        def write(path, size=200_000):
            try:
                with open(path, "wb") as handle:
                    handle.write(b"x" * size)
                return "written"
            except OSError as error:
                return error.strerror
        places = ("/usr/x", "/etc/x", "/x", "/proc/x", sys.path[0] + "/x")
        seen["places"] = [write(place) for place in places]
        seen["home"] = write("notes.txt")
        seen["tmp"] = write("/tmp/notes.txt")
        seen["fill"] = [write(f"/tmp/fill{i}") for i in range(20)][-1]
        """,
        Limits(timeout=10.0, load_timeout=10.0, memory_mb=512, disk_mb=2, isolation="jail"),
    )
    assert "written" not in seen["places"], seen
    assert seen["home"] == seen["tmp"] == "written"
    assert seen["fill"] == "No space left on device"


def test_there_is_no_network(view: Path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    try:
        seen = look(
            view,
            f"""
            import socket
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=2)
                seen["connect"] = "connected"
            except OSError as error:
                seen["connect"] = type(error).__name__
            """,
        )
    finally:
        server.close()
    assert seen["connect"] != "connected"


def test_the_cgroups_of_a_submission_are_removed_with_it(view: Path):
    process = StudentProcess([[0, "x = 1"]], [], view, FAST)
    assert process.start().status == "loaded"
    made = list(process.cgroups)
    pids = [int(pid) for path in made for pid in Path(path, "cgroup.procs").read_text().split()]
    process.close()
    assert len(made) == len(sandbox.cgroup_roots())
    assert len(pids) >= 3  # the first process, the jail's init and the submission
    assert not any(Path(path).exists() for path in made)
    assert not [pid for pid in pids if _running(pid)]


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for its parent to collect it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_asking_for_the_jail_where_there_is_none_is_a_clear_error(monkeypatch, view: Path):
    monkeypatch.setitem(sandbox._SUPPORT, "result", (False, "not root"))
    with pytest.raises(IsolationError, match="not root"):
        StudentProcess([[0, "x = 1"]], [], view, FAST).start()
    auto = StudentProcess([[0, "x = 1"]], [], view, Limits(isolation="auto"))
    try:
        if is_jailed_view(view):  # made for the jail: never used outside it
            with pytest.raises(RuntimeError, match="for the jail only"):
                auto.start()
        else:
            assert auto.start().status == "loaded" and not auto.jailed
    finally:
        auto.close()


def test_the_grading_command_names_its_isolation(tmp_path: Path):
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(ROOT / "examples/class/yves_empty.ipynb"),
         "--out", str(tmp_path / "out"), "--isolation", "jail"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "isolation: jail (namespaces, chroot" in done.stdout


def test_jailed_processes_come_from_the_zygote_and_report_how_they_ended(view: Path):
    """Exit codes and signals of a zygote's child reach the grader as a Popen's would."""
    reports = {}
    for name, cell in (
        ("exit", "import os\nos._exit(3)"),
        ("signal", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"),
        ("fine", "x = 1"),
    ):
        process = StudentProcess([[0, cell]], [], view, FAST)
        try:
            reports[name] = process.start()
            if name == "fine":
                assert isinstance(process.process, sandbox.ZygoteChild)
        finally:
            process.close()
    assert "exited with code 3" in reports["exit"].error
    assert "died with SIGSEGV" in reports["signal"].error
    assert reports["fine"].status == "loaded"


def test_a_stopped_submission_whose_end_goes_unreported_is_not_waited_for_forever(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
):
    """A signal's exception can cut the zygote's report of an ended child short (read, not yet
    recorded): stopping the process then waits `KILLED_WAIT`, not for a report that never comes."""
    view = build_import_view(tmp_path_factory.mktemp("own-view"))  # a zygote of its own
    process = StudentProcess([[0, "x = 1"]], [], view, FAST)
    stopping = threading.Thread(target=process.stop, daemon=True)
    try:
        assert process.start().status == "loaded"
        assert isinstance(process.process, sandbox.ZygoteChild)
        pid, zygote = process.process.pid, process.process.zygote
        monkeypatch.setattr(sandbox.reaping, "KILLED_WAIT", 0.5)
        read = zygote._next

        def lossy(timeout: float | None) -> tuple | None:
            message = read(timeout)
            zygote._ended.pop(pid, None)  # read, and lost before it was recorded
            return message

        monkeypatch.setattr(zygote, "_next", lossy)
        stopping.start()
        stopping.join(timeout=30)  # half a second here; without the limit, forever
        assert not stopping.is_alive() and process.process is None
        assert not _running(pid)
    finally:
        monkeypatch.undo()
        if stopping.is_alive():  # its zygote gone, the waiting thread ends (and the test fails)
            sandbox.Zygote.for_view(view).process.kill()
            stopping.join(timeout=30)
        process.close()


def test_a_submission_starts_without_the_zygote_when_the_zygote_has_died(
    tmp_path_factory: pytest.TempPathFactory,
):
    view = build_import_view(tmp_path_factory.mktemp("own-view"))  # a zygote of its own
    first = StudentProcess([[0, "x = 1"]], [], view, FAST)
    try:
        assert first.start().status == "loaded"
        assert isinstance(first.process, sandbox.ZygoteChild)
    finally:
        first.close()
    zygote = sandbox.Zygote.for_view(view)
    zygote.process.kill()
    zygote.process.wait()
    second = StudentProcess([[0, "x = 1"]], ["f"], view, FAST)
    try:
        assert second.start().status == "loaded"
        assert not isinstance(second.process, sandbox.ZygoteChild)  # a fresh interpreter
        assert second.jailed
    finally:
        second.close()


def test_the_zygote_holds_no_file_of_the_grader(view: Path):
    """Its open files are the standard streams (/dev/null and its log), its socket and the
    pipe of its SIGCHLD wake-ups: nothing a forked submission could inherit and misuse."""
    StudentProcess([[0, "x = 1"]], [], view, FAST).close()
    probe = StudentProcess([[0, "x = 1"]], [], view, FAST)
    try:
        probe.start()
    finally:
        probe.close()
    zygote = sandbox.Zygote.for_view(view)
    targets = sorted(os.readlink(f"/proc/{zygote.process.pid}/fd/{fd}")
                     for fd in os.listdir(f"/proc/{zygote.process.pid}/fd"))  # fmt: skip
    allowed = ("/dev/null", str(view.parent / "zygote.log"), "socket:", "pipe:")
    assert all(target.startswith(allowed) for target in targets), targets
    command = Path(f"/proc/{zygote.process.pid}/cmdline").read_bytes().decode()
    arguments = command.split("\0", 1)[1]  # after the interpreter, which may live in the repo
    if is_jailed_view(view):  # then the site-packages (of a venv in the repo) follow the view
        for site in json.loads((view.parent / SITE_PATHS).read_text()):
            arguments = arguments.replace(site, "")
    assert str(ROOT) not in arguments  # its import path: the view and the standard library


def test_a_submission_holds_only_its_standard_streams_and_its_two_pipes(view: Path):
    """Nothing the zygote or the grader had open leaks into the submission's process."""
    seen = look(
        view,
        """
        seen["fds"] = {}
        for fd in os.listdir("/proc/self/fd"):
            try:
                seen["fds"][fd] = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:  # the listing's own handle, closed by now
                pass
        """,
    )
    fds = {int(fd): target for fd, target in seen["fds"].items()}
    assert fds[0] == "/dev/null" and fds[1] == fds[2], fds
    assert fds[1].startswith("pipe:"), fds  # the grader drains it: no file to read back
    others = {fd: target for fd, target in fds.items() if fd > 2}
    assert len(others) == 2 and all(t.startswith("pipe:") for t in others.values()), fds
    assert fds[1] not in others.values(), fds


@pytest.mark.skipif(not sandbox.SECCOMP[0], reason="libseccomp.so.2 is not on this machine")
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="syscall numbers of x86-64")
def test_the_kernel_keyring_namespaces_mounts_and_tracing_are_denied(view: Path) -> None:
    seen = look(
        view,
        """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        calls = {"add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272,
                 "setns": 308, "mount": 165, "ptrace": 101, "bpf": 321, "userfaultfd": 323,
                 "perf_event_open": 298, "getpid": 39}
        for name, number in calls.items():
            result = libc.syscall(number, 0, 0, 0, 0, 0)
            seen[name] = result if result != -1 else -ctypes.get_errno()
        made = libc.unshare(0x10000000)  # CLONE_NEWUSER, through the libc wrapper
        seen["unshare_user"] = made if made != -1 else ctypes.get_errno()
        seen["fork"] = os.waitpid(pid, 0)[1] if (pid := os.fork()) else os._exit(7)
        """,
    )
    for name in ("add_key", "request_key", "keyctl", "unshare", "setns", "mount", "ptrace",
                 "bpf", "userfaultfd", "perf_event_open"):  # fmt: skip
        assert seen[name] == -1, (name, seen[name])  # EPERM
    assert seen["unshare_user"] == 1
    assert seen["getpid"] == 2 and seen["fork"] == 7 << 8  # ordinary calls still work


def test_mounts_below_a_read_only_bind_are_read_only_too(view: Path, tmp_path: Path) -> None:
    import ctypes

    below = view / "mounted-below"
    below.mkdir()
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.mount(b"tmpfs", bytes(below), b"tmpfs", 0, b"size=1m") == 0
    try:
        seen = look(
            view,
            f"""
            try:
                open({str(below / "written")!r}, "w").write("x")
                seen["write"] = "written"
            except OSError as error:
                seen["write"] = error.errno
            """,
        )
    finally:
        libc.umount2(bytes(below), 2)  # MNT_DETACH
        below.rmdir()
    assert seen["write"] == 30  # EROFS
