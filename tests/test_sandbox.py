"""Broken and hostile submissions: each loses what it broke, and nothing leaks or survives."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from autograder.grading.grade import Settings, grade
from autograder.grading.load import Submission, load
from autograder.grading.records import GradeRecord
from autograder.grading.reference import reference_source
from autograder.sandbox import Limits, StudentProcess, build_import_view, pipe
from autograder.sandbox.cpu import CHECK_EVERY
from autograder.sandbox.pipe import WALL_SAFETY
from games import TicTacToe

FAST = Limits(timeout=3.0, load_timeout=5.0, memory_mb=512, output_kb=64)


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def grade_source(
    source: str, directory: Path, view: Path, name: str = "student", limits: Limits = FAST
) -> GradeRecord:
    path = directory / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    submission = Submission(name, (path,))
    return grade(submission, load(submission), Settings(limits, view))


def points(record: GradeRecord) -> dict[str, float]:
    return {rule.id: rule.points for rule in record.rules}


def with_reference(extra: str) -> str:
    """The reference solutions followed by `extra`, which may redefine some of them."""
    return reference_source() + "\n" + textwrap.dedent(extra)


def test_the_reference_source_scores_full_marks(tmp_path: Path, view: Path) -> None:
    record = grade_source(reference_source(), tmp_path, view)
    assert record.score == 100 and record.status == "graded"


def test_an_object_that_equals_everything_earns_nothing(tmp_path: Path, view: Path) -> None:
    record = grade_source(
        with_reference(
            """
            class Anything:
                def __eq__(self, other): return True
                def __ne__(self, other): return False
                def __float__(self): return 0.0
                __hash__ = object.__hash__
            def minimax_value(game, state): return Anything()
            def minimax_decision(game, state): return Anything()
            """
        ),
        tmp_path,
        view,
    )
    assert points(record)["minimax_value"] == 0 and points(record)["minimax_decision"] == 0
    assert points(record)["alphabeta_value"] == 15
    verdict = record.rules[0].groups[0].verdicts[0]
    assert "object of type" in verdict.got


def test_booleans_are_not_numbers_and_int_subclasses_are_read_by_value(
    tmp_path: Path, view: Path
) -> None:
    record = grade_source(
        with_reference(
            """
            _real = minimax_value
            class Liar(int):
                def __eq__(self, other): return True
                __hash__ = int.__hash__
            def minimax_value(game, state):
                value = _real(game, state)
                return value == 1 if value in (0, 1) else Liar(value + 1)
            """
        ),
        tmp_path,
        view,
    )
    assert points(record)["minimax_value"] == 0
    hints = [v.hint for g in record.rules[0].groups for v in g.verdicts]
    assert any("not a number here" in hint for hint in hints)


def test_importing_solutions_or_autograder_fails_inside_the_sandbox(view: Path) -> None:
    cells = [
        (1, "import importlib\nfound = []\n"),
        (
            2,
            "for name in ('solutions', 'autograder'):\n"
            "    try:\n        importlib.import_module(name); found.append(name)\n"
            "    except ImportError:\n        pass\n",
        ),  # fmt: skip
        (3, "def minimax_value(game, state):\n    return len(found)\n"),
    ]
    process = StudentProcess(cells, ["minimax_value"], view, FAST)
    try:
        assert process.start().status == "loaded"
        outcome = process.call("minimax_value", TicTacToe(), "XXXOO....")
        assert outcome.status == "returned" and outcome.value == 0
    finally:
        process.close()


def test_exiting_at_import_is_reported_and_scores_zero(tmp_path: Path, view: Path) -> None:
    record = grade_source("import os\nos._exit(3)\n", tmp_path, view)
    assert record.score == 0
    assert "could not load" in record.status and "exited with code 3" in record.status


def test_sys_exit_inside_a_function_loses_only_that_function(tmp_path: Path, view: Path):
    record = grade_source(
        with_reference("import sys\ndef minimax_decision(game, state):\n    sys.exit(0)\n"),
        tmp_path,
        view,
    )
    assert points(record)["minimax_decision"] == 0
    assert record.score == 90


def test_a_memory_hog_loses_only_its_function(tmp_path: Path, view: Path) -> None:
    record = grade_source(
        with_reference(
            "def minimax_decision(game, state):\n    hog = bytearray(4 * 1024**3)\n    return 0\n"
        ),
        tmp_path,
        view,
    )
    assert points(record)["minimax_decision"] == 0
    assert record.score == 90
    got = record.rules[1].groups[0].verdicts[0].got
    assert "MemoryError" in got or "died" in got


def test_unbounded_recursion_is_reported_as_such(tmp_path: Path, view: Path) -> None:
    record = grade_source(
        with_reference(
            "def minimax_decision(game, state):\n    return minimax_decision(game, state)\n"
        ),
        tmp_path,
        view,
    )
    assert points(record)["minimax_decision"] == 0 and record.score == 90
    assert "RecursionError" in record.rules[1].groups[0].verdicts[0].got


def test_flooding_the_output_is_capped_and_grading_goes_on(tmp_path: Path, view: Path) -> None:
    record = grade_source(
        with_reference(
            "_quiet = minimax_value\n"
            "def minimax_value(game, state):\n"
            "    try:\n        print('x' * 100_000)\n    except OSError:\n        pass\n"
            "    return _quiet(game, state)\n"
        ),
        tmp_path,
        view,
    )
    assert record.score == 100
    assert len(record.output) <= 4000


def test_an_infinite_loop_at_import_times_out_without_blocking_the_grade(
    tmp_path: Path, view: Path
) -> None:
    # a second to load: the loop never ends, so any limit shows it (and a start slowed by a busy
    # machine would time out the same way)
    quick = dataclasses.replace(FAST, load_timeout=1.0)
    record = grade_source("while True:\n    pass\n", tmp_path, view, limits=quick)
    assert record.score == 0 and "no answer within 1 s" in record.status


def _own_seconds(whole: int) -> str:
    """A sleep's duration of this test's own: pgrep then finds only what its submission
    started, never another suite's sleep on a shared machine (and kills nothing of theirs)."""
    return f"{whole}.{os.getpid()}{int.from_bytes(os.urandom(3), 'big')}"


def _survivors(seconds: str) -> str:
    """The processes still running `sleep {seconds}`, killed (cleaning up before failing)."""
    found = subprocess.run(["pgrep", "-f", f"sleep {seconds}"], capture_output=True, text=True)
    for pid in found.stdout.split():
        with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
            os.kill(int(pid), signal.SIGKILL)
    return found.stdout


def test_background_processes_are_gone_after_grading(tmp_path: Path, view: Path) -> None:
    marker = tmp_path / "still-alive"
    seconds = _own_seconds(300)
    record = grade_source(
        with_reference(
            f"""
            import subprocess
            subprocess.Popen(["sleep", "{seconds}"])
            subprocess.Popen(["sh", "-c", "sleep 2; touch {marker}"])
            """
        ),
        tmp_path,
        view,
    )
    assert record.score == 100
    assert _survivors(seconds) == ""


def test_a_forged_state_is_refused_and_counts_nothing(view: Path) -> None:
    cells = [
        (
            1,
            "def alphabeta_value(game, state, alpha=0, beta=0):\n"
            "    try:\n        game.result(state + 1, 0)\n"
            "    except ValueError as error:\n        return str(error)\n",
        )
    ]
    process = StudentProcess(cells, ["alphabeta_value"], view, FAST)
    try:
        process.start()
        outcome = process.call("alphabeta_value", TicTacToe(), TicTacToe().initial_state())
        assert "is not a state of this game" in outcome.value
        assert outcome.states_generated == 0
    finally:
        process.close()


def test_a_raw_request_for_a_token_never_sent_is_refused_by_the_grader(view: Path) -> None:
    cells = [
        (
            1,
            "def alphabeta_value(game, state, alpha=0, beta=0):\n"
            "    return game._channel.request_child(state ^ 1, 0)  # past the proxy's check\n",
        )
    ]
    process = StudentProcess(cells, ["alphabeta_value"], view, FAST)
    try:
        process.start()
        outcome = process.call("alphabeta_value", TicTacToe(), TicTacToe().initial_state())
        assert "refused a request for an unknown state" in outcome.value
        assert outcome.states_generated == 0
    finally:
        process.close()


def test_flooding_requests_without_reading_the_answers_times_out_instead_of_hanging(
    view: Path,
) -> None:
    cells = [
        (
            1,
            "import os, struct, sys, time\n"
            "def alphabeta_value(game, state, alpha=0, beta=0):\n"
            "    request = struct.pack('>IcQI', 13, b'r', state, 0)\n"
            "    os.write(int(sys.argv[2]), request * 20_000)  # the answers fill the pipe\n"
            "    time.sleep(60)\n",
        )
    ]
    limits = dataclasses.replace(FAST, timeout=1.5)  # the call never returns: any limit shows it
    process = StudentProcess(cells, ["alphabeta_value"], view, limits)
    try:
        process.start()
        outcome = process.call("alphabeta_value", TicTacToe(), TicTacToe().initial_state())
        assert outcome.status == "timeout" and outcome.seconds < limits.timeout + 2
        assert 0 < outcome.states_generated < 20_000
    finally:
        process.close()


def test_a_process_that_leaves_its_session_is_still_killed(tmp_path: Path, view: Path) -> None:
    seconds = _own_seconds(301)
    record = grade_source(
        with_reference(
            f"""
            import subprocess
            subprocess.Popen(["sleep", "{seconds}"], start_new_session=True)
            """
        ),
        tmp_path,
        view,
    )
    assert record.score == 100
    assert _survivors(seconds) == ""


def test_the_grading_command_reaps_a_daemon_that_also_cleared_its_environment(
    tmp_path: Path,
) -> None:
    student, seconds = tmp_path / "daemon.py", _own_seconds(302)
    student.write_text(
        "import os, subprocess\n"
        f"subprocess.Popen(['sh', '-c', 'sleep {seconds} & exit'], env={{}}, "
        "start_new_session=True)\n"
        "def minimax_value(game, state):\n    return 0\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(student), "--out", str(tmp_path / "o"),
         "--quiet"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert _survivors(seconds) == ""


RACE = """
import sys, tempfile, threading
from pathlib import Path
from autograder.sandbox import Limits, StudentProcess, become_subreaper, build_import_view
from autograder.sandbox import reap_orphans
assert become_subreaper()
view = build_import_view(Path(tempfile.mkdtemp()))
done, failures = threading.Event(), []

def reaper():
    while not done.is_set():
        reap_orphans()

def student():
    for _ in range(5):
        process = StudentProcess([(1, "x = 1")], [], view, Limits(load_timeout=20))
        status = process.start().status
        if status != "loaded":
            failures.append(status)
        process.close()

threading.Thread(target=reaper, daemon=True).start()
workers = [threading.Thread(target=student) for _ in range(3)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
done.set()
print("failures", failures)
sys.exit(1 if failures else 0)
"""


def test_the_orphan_reaper_never_kills_a_submission_that_is_just_starting() -> None:
    run = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_runner_and_the_grader_speak_the_same_frames() -> None:
    """runner.py runs inside the jail and cannot import the grader: its half of the protocol is
    its own, and must match autograder/sandbox/wire.py byte for byte."""
    import importlib.util

    from autograder.sandbox import wire

    spec = importlib.util.spec_from_file_location("runner_under_test", wire_runner_path())
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    assert runner._LENGTH.format == wire._LENGTH.format
    assert runner._CHILD.format == wire._CHILD.format
    assert runner._REQUEST.size == wire._REQUEST_FRAME
    assert runner._REQUEST.pack(13, b"r", 7, 2)[:5] == wire._REQUEST_HEAD
    assert (ord("c"), ord("r")) == (runner._CHILD_TAG, wire._REQUEST_TAG)


def wire_runner_path():
    from autograder.sandbox import RUNNER

    return RUNNER


SLEEPER = "import time\ndef minimax_value(game, state):\n    time.sleep({seconds})\n    return 0\n"


def test_a_graded_call_asleep_past_its_limit_is_stopped_at_its_own_time(view: Path) -> None:
    process = StudentProcess([(1, SLEEPER.format(seconds=30))], ["minimax_value"], view, FAST)
    try:
        process.start()
        outcome = process.call("minimax_value", TicTacToe(), TicTacToe().initial_state(), timeout=1)
        assert outcome.status == "timeout"
        assert "no answer within 1 s of its own time (the call)" in outcome.error
        assert outcome.seconds < WALL_SAFETY  # the meter's limit, not the wall clock's
        assert outcome.own_seconds == 1  # what the budget counts: the whole limit
    finally:
        process.close()


def test_a_graded_call_that_answers_is_charged_its_own_time(view: Path, monkeypatch) -> None:
    # A meter of a quarter of the wall-clock time, which keeps its readings: what the budget
    # counts is read on it, from the call's first look at it (`cpu.CHECK_EVERY` in) to its end.
    readings: list[float] = []
    meter = lambda: readings.append(time.monotonic() / 4) or readings[-1]  # noqa: E731
    monkeypatch.setattr(StudentProcess, "_own_meter", lambda self: meter)
    process = StudentProcess([(1, SLEEPER.format(seconds=0.5))], ["minimax_value"], view, FAST)
    try:
        process.start()
        readings.clear()  # a load slowed past its first look reads the same meter
        started = time.monotonic()
        outcome = process.call("minimax_value", TicTacToe(), TicTacToe().initial_state(), timeout=5)
        assert (outcome.status, outcome.value) == ("returned", 0)
        assert readings[0] * 4 - started >= CHECK_EVERY  # no reading before the first look
        assert outcome.own_seconds == pytest.approx(readings[-1] - readings[0], abs=1e-6)
        assert 0 < outcome.own_seconds < outcome.seconds / 4
    finally:
        process.close()


def test_a_graded_call_over_before_its_first_look_reads_no_meter(view: Path, monkeypatch) -> None:
    # Reading the meter opens files of /proc: a call that ends before its first look at it
    # (`cpu.CHECK_EVERY` in, a minute here; most graded calls take milliseconds) is charged
    # its wall-clock time without a reading.
    readings = []
    meter = lambda: readings.append(1) or 0.0  # noqa: E731 - a meter that counts its readings
    monkeypatch.setattr(StudentProcess, "_own_meter", lambda self: meter)
    monkeypatch.setattr(pipe, "CHECK_EVERY", 60.0)
    process = StudentProcess([(1, SLEEPER.format(seconds=0))], ["minimax_value"], view, FAST)
    try:
        process.start()
        outcome = process.call("minimax_value", TicTacToe(), TicTacToe().initial_state(), timeout=5)
        assert (outcome.status, outcome.value) == ("returned", 0)
        assert readings == []
        assert outcome.own_seconds == outcome.seconds
    finally:
        process.close()


def test_a_graded_call_is_not_charged_what_it_waited_for_a_cpu(view: Path, monkeypatch) -> None:
    # A meter that stands still: every moment of the call was spent waiting for a CPU, as on a
    # machine busy with other work. The call is not stopped at its 1 s, which it did not use.
    monkeypatch.setattr(StudentProcess, "_own_meter", lambda self: lambda: 0.0)
    process = StudentProcess([(1, SLEEPER.format(seconds=1.5))], ["minimax_value"], view, FAST)
    try:
        process.start()
        outcome = process.call("minimax_value", TicTacToe(), TicTacToe().initial_state(), timeout=1)
        assert (outcome.status, outcome.value) == ("returned", 0)
        assert outcome.seconds >= 1.5
        assert outcome.own_seconds == 0  # nor does the budget count it
    finally:
        process.close()


LOADS_ASLEEP = "import time\ntime.sleep({seconds})\ndef minimax_value(game, state):\n    return 0\n"


def test_a_load_asleep_past_its_limit_is_stopped_at_its_own_time(view: Path) -> None:
    quick = dataclasses.replace(FAST, load_timeout=1.0)
    process = StudentProcess([(1, LOADS_ASLEEP.format(seconds=30))], ["minimax_value"], view, quick)
    try:
        started = time.monotonic()
        report = process.start()
        assert report.status == "timeout"
        assert "no answer within 1 s of its own time (loading)" in report.error
        assert time.monotonic() - started < WALL_SAFETY  # the meter's limit, not the wall clock's
    finally:
        process.close()


def test_a_load_is_not_stopped_for_what_it_waited_for_a_cpu(view: Path, monkeypatch) -> None:
    # A meter that stands still: the load's 1.5 s were all spent waiting for a CPU, as on a
    # machine busy with other work; its limit of 1 s of its own time is not reached. (Before,
    # the wall clock stopped it at 1 s: "no answer within 1 s (loading)".)
    monkeypatch.setattr(StudentProcess, "_own_meter", lambda self: lambda: 0.0)
    quick = dataclasses.replace(FAST, load_timeout=1.0)
    process = StudentProcess(
        [(1, LOADS_ASLEEP.format(seconds=1.5))], ["minimax_value"], view, quick
    )
    try:
        report = process.start()
        assert report.status == "loaded", report.error
        outcome = process.call("minimax_value", TicTacToe(), TicTacToe().initial_state(), timeout=5)
        assert (outcome.status, outcome.value) == ("returned", 0)
    finally:
        process.close()


def test_a_load_whose_own_time_stands_still_is_stopped_by_the_wall_clock(
    view: Path, monkeypatch
) -> None:
    # The safety net: at WALL_SAFETY times the load's limit, whatever the meter says.
    monkeypatch.setattr(StudentProcess, "_own_meter", lambda self: lambda: 0.0)
    quick = dataclasses.replace(FAST, load_timeout=0.2)
    process = StudentProcess([(1, "while True:\n    pass\n")], [], view, quick)
    try:
        started = time.monotonic()
        report = process.start()
        assert report.status == "timeout"
        assert f"no answer within {0.2 * WALL_SAFETY:g} s (loading)" in report.error
        assert time.monotonic() - started >= 0.2 * WALL_SAFETY
    finally:
        process.close()
