"""Nothing outlives grading, on every exit path: Ctrl-C, SIGTERM, a killed worker, a killed
grading command.

Each scenario starts `python -m autograder grade` in a session of its own, on an honest
submission and one that starts a daemon in a session of its own (a tagged `sleep`) and then
blocks in its first call. Once the daemon runs, the scenario strikes; afterwards no tagged
process, no cgroup of the run and no scratch folder of the run may remain (after a killed
grading command: once the next run has started, which sweeps what a dead run left).
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.grading.reference import reference_source
from autograder.sandbox import cgroup_roots, jail_support, sweep

ROOT = Path(__file__).resolve().parents[1]
LINGERER = """\
import subprocess
import time

subprocess.Popen(["sleep", "{tag}"], start_new_session=True)


def minimax_value(game, state):
    time.sleep(60)
"""

pytestmark = pytest.mark.skipif(
    not jail_support()[0], reason="without the jail, a daemon that leaves its session is only "
    "found by the runs that started it (README, Security model)"
)  # fmt: skip


def _tagged(tag: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and tag.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def _cgroups_of(run: int) -> list[Path]:
    return [p for root in cgroup_roots().values() for p in root.glob(f"autograder-{run}-*")]


def _start(folder: Path, scratch: Path, timeout: int = 4) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "autograder", "grade", str(folder), "--out", str(folder / "out"),
         "--workers", "2", "--timeout", str(timeout), "--quiet"],
        cwd=ROOT, env={**os.environ, "TMPDIR": str(scratch)}, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip


def _worker_of(main: int) -> int:
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit():
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == main:
                    return int(entry.name)
        except (OSError, IndexError):
            continue
    raise AssertionError("the grading command has no worker")


@pytest.mark.parametrize("strike", ["ctrl-c", "sigterm", "kill-worker", "kill-grader"])
def test_no_process_cgroup_or_folder_of_a_run_survives_it(tmp_path: Path, strike: str) -> None:
    # Unique on the machine, whatever seeded `random` in this process: other suites run the same
    # test at the same time, and a daemon of theirs must never pass for this run's.
    tag = f"98765{secrets.randbelow(10)}.{secrets.randbelow(10**6):06d}{os.getpid() % 1000:03d}"
    folder, scratch = tmp_path / "class", tmp_path / "tmp"
    folder.mkdir()
    scratch.mkdir()
    (folder / "honest.py").write_text(reference_source())
    (folder / "lingerer.py").write_text(LINGERER.format(tag=tag))
    # The run must still be grading when it is struck, however late a busy machine lets this
    # test see the daemon: the lingerer's call outlasts the checks (the run ends only by the
    # strike), but after a killed worker, where the run goes on to its end and is timed.
    run = _start(folder, scratch, timeout=4 if strike == "kill-worker" else 60)
    try:
        assert _wait_for(lambda: _tagged(tag), 60), "the daemon never started"
        if strike == "ctrl-c":
            os.killpg(run.pid, signal.SIGINT)
        elif strike == "sigterm":
            run.terminate()
        elif strike == "kill-worker":
            os.kill(_worker_of(run.pid), signal.SIGKILL)
        else:
            run.kill()
        code = run.wait(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    if strike == "ctrl-c":
        assert code == 130, run.stderr.read().decode(errors="replace")[-3000:]
    elif strike == "sigterm":
        assert code == 143, run.stderr.read().decode(errors="replace")[-3000:]
    elif strike == "kill-grader":  # the next run sweeps what this one left
        (tmp_path / "next").mkdir()
        (tmp_path / "next" / "honest.py").write_text(reference_source())
        assert _start(tmp_path / "next", scratch).wait(timeout=120) == 0
    assert _wait_for(lambda: not _tagged(tag), 10), "a process of the submission survived"
    assert _wait_for(lambda: not _cgroups_of(run.pid), 10), _cgroups_of(run.pid)
    assert [p.name for p in scratch.iterdir() if p.name.startswith("autograder-run-")] == []


def test_the_next_run_kills_an_agent_a_killed_run_left_frozen() -> None:
    """A run killed while its agent was held (frozen) leaves it frozen in its cgroups, where
    SIGKILL alone cannot end it: the next run's sweep thaws it, it dies, the cgroups go."""
    roots = {name: root for name, root in cgroup_roots().items() if name in ("freezer", "pids")}
    if "freezer" not in roots:
        pytest.skip("no writable freezer cgroup here")
    dead = subprocess.Popen(["true"])
    dead.wait()  # a run whose grading command is gone
    name = f"autograder-{dead.pid}-frozen{secrets.token_hex(4)}"
    held = subprocess.Popen(["sleep", "600"])
    try:
        for root in roots.values():
            (root / name).mkdir()
            (root / name / "cgroup.procs").write_text(str(held.pid))
        (roots["freezer"] / name / "freezer.state").write_text("FROZEN")
        assert _wait_for(
            lambda: (roots["freezer"] / name / "freezer.state").read_text().strip() == "FROZEN", 5
        )
        sweep()
        assert held.wait(timeout=10) == -signal.SIGKILL
        assert [root for root in roots.values() if (root / name).exists()] == []
    finally:
        freezer = roots["freezer"] / name / "freezer.state"
        if freezer.exists():
            freezer.write_text("THAWED")
        held.kill()
        held.wait()
        for root in roots.values():
            if (root / name).exists():
                (root / name).rmdir()
