"""What makes the notebooks work in a browser, checked in CPython: time limits without a timer
signal (games.deadline), tree drawings without matplotlib, set-up cells without either."""

from __future__ import annotations

import io
import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
from browser_notebooks import ASSIGNMENTS, released
from busy import ringing_as_armed, spinning

from games import GameTree, deadline, draw_tree, tree_svg
from games.deadline import time_limit, timer_available

ROOT = Path(__file__).resolve().parents[1]


class Stop(BaseException):
    """What the limits raise in these tests."""


def _helper() -> int:
    return 1


def _calls_forever() -> None:
    while True:
        _helper()


def _stopped_after(seconds: float, cpu: bool = False) -> float:
    """Run an endless loop of calls under a limit of `seconds`; return when it stopped."""
    started = time.monotonic()
    with pytest.raises(Stop), time_limit(seconds, Stop, cpu=cpu):
        _calls_forever()
    return time.monotonic() - started


def _in_a_thread(job):
    """Run `job()` in another thread (no timer signal there) and return what it returned."""
    answer = []
    thread = threading.Thread(target=lambda: answer.append(job()))
    thread.start()
    thread.join(60)
    assert answer, "the job raised or never ended"
    return answer[0]


def test_an_interval_timer_stops_an_endless_loop_in_the_main_thread() -> None:
    assert timer_available()
    before = signal.getsignal(signal.SIGALRM)
    assert 0.2 <= _stopped_after(0.2) < 5
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_without_a_timer_a_hook_stops_an_endless_loop_and_is_removed_after() -> None:
    def job():
        assert not timer_available()
        before = sys.getprofile()
        took = _stopped_after(0.2)
        return took, sys.getprofile() is before

    took, restored = _in_a_thread(job)
    assert 0.2 <= took < 5
    assert restored


def test_without_a_timer_cpu_time_is_counted_too() -> None:
    assert 0.2 <= _in_a_thread(lambda: _stopped_after(0.2, cpu=True)) < 10


def test_a_call_within_its_limit_returns_and_leaves_no_hook_behind() -> None:
    def job():
        with time_limit(5, Stop):
            value = sum(_helper() for _ in range(1000))
        return value, sys.getprofile()

    assert _in_a_thread(job) == (1000, None)


def test_no_limit_is_set_without_seconds() -> None:
    with time_limit(None, Stop):
        assert sys.getprofile() is None and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_the_stop_gets_past_a_students_except_exception() -> None:
    def swallowing() -> None:
        while True:
            try:
                _helper()
            except Exception:  # noqa: BLE001, S112 - what a student may write
                continue

    def job():
        with pytest.raises(Stop), time_limit(0.2, Stop):
            swallowing()
        return True

    assert _in_a_thread(job)


# -- a limit of own time ---------------------------------------------------------------------

STARVED = """
import os, sys, time
from games.deadline import time_limit
class Stop(BaseException):
    pass
os.sched_setaffinity(0, {int(sys.argv[1])})
print("ready", flush=True)
sys.stdin.readline()  # the spinners are on this CPU too
used, started = time.process_time(), time.monotonic()
try:
    with time_limit(1.0, Stop, own=sys.argv[2] == "own"):
        while time.process_time() - used < 0.25:
            pass
    print("returned", time.monotonic() - started)
except Stop:
    print("stopped", time.monotonic() - started)
"""


@pytest.mark.parametrize(("own", "expected"), [(True, "returned"), (False, "stopped")])
def test_a_limit_of_own_time_does_not_count_waiting_for_a_cpu(own: bool, expected: str) -> None:
    """A quarter of a CPU-second of work, on one CPU shared with four spinners, takes more than
    its 1 s limit of wall-clock time: it is not stopped when the limit is of its own time (the
    wall-clock limit beside it shows that the machine made it wait)."""
    cpu = min(os.sched_getaffinity(0))
    command = [sys.executable, "-c", STARVED, str(cpu), "own" if own else "wall"]
    with spinning(4) as spinners:
        for spinner in spinners:
            os.sched_setaffinity(spinner.pid, {cpu})
        child = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
        )
        assert child.stdout.readline() == "ready\n"
        said, _ = child.communicate("go\n", timeout=120)
    outcome, seconds = said.split()
    assert outcome == expected
    assert float(seconds) >= 1.0  # it waited for the CPU past its limit of wall-clock time


def test_a_limit_of_own_time_stops_a_sleeper_at_it() -> None:
    started = time.monotonic()
    with pytest.raises(Stop), time_limit(0.3, Stop, own=True):
        time.sleep(30)
    assert 0.3 <= time.monotonic() - started < 5
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def _held_by_the_wall() -> float:
    """How long an endless loop ran under a 0.1 s limit of own time whose clock stands still."""
    started = time.monotonic()
    with pytest.raises(Stop), time_limit(0.1, Stop, own=True):
        _calls_forever()
    return time.monotonic() - started


def test_a_limit_of_own_time_is_also_held_by_the_wall_clock(monkeypatch) -> None:
    # an own-time clock that stands still: the wall clock stops the loop at WALL_SAFETY times,
    # with a timer in the main thread and with the hook in another
    monkeypatch.setattr(deadline, "own_clock", lambda: lambda: 0.0)
    safety = 0.1 * deadline.WALL_SAFETY
    assert safety <= _held_by_the_wall() < safety + 5
    assert safety <= _in_a_thread(_held_by_the_wall) < safety + 5


def _ringing_as_armed(monkeypatch) -> None:
    """Make every timer ring as soon as it is armed, as on a machine busy enough that the
    limit passes before the code under it starts."""
    ringing_as_armed(monkeypatch, signal.ITIMER_REAL, signal.SIGALRM)
    # and the own time passes 100 s at each reading after the first
    monkeypatch.setattr(deadline, "own_clock", lambda: itertools.count(0, 100).__next__)


@pytest.mark.parametrize("own", [False, True])
def test_a_limit_that_rings_as_it_is_armed_leaves_no_handler_behind(monkeypatch, own) -> None:
    before = signal.getsignal(signal.SIGALRM)
    _ringing_as_armed(monkeypatch)
    with pytest.raises(Stop), time_limit(5, Stop, own=own):
        pass
    monkeypatch.undo()
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_kernel_call_whose_limit_rings_before_it_starts_is_a_time_out(monkeypatch) -> None:
    from autograder.platforms.kernel_calls import call_function

    _ringing_as_armed(monkeypatch)
    outcome = call_function(lambda game, state: 1, GameTree([1, 2]), 0, timeout=5)
    monkeypatch.undo()
    assert outcome.status == "timeout"


# -- draw_tree without matplotlib ----------------------------------------------------------------


def test_draw_tree_without_matplotlib_returns_the_svg_drawing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    drawing_module = sys.modules["games.drawing"]
    drawing_module._figure_class.cache_clear()  # an earlier test may have found matplotlib
    monkeypatch.setattr(drawing_module, "_figure_class", drawing_module._figure_class.__wrapped__)
    tree = GameTree([[3, 12, 8], [2, 4, 6]])
    drawing = draw_tree(tree, visited={(0,), (0, 0)}, title="pruned")
    assert drawing._repr_svg_() == tree_svg(tree, visited={(0,), (0, 0)}, title="pruned")
    drawing.savefig(tmp_path / "tree.svg")
    assert (tmp_path / "tree.svg").read_text(encoding="utf-8") == drawing.svg
    buffer = io.BytesIO()
    drawing.savefig(buffer, format="svg")
    assert buffer.getvalue().decode("utf-8") == drawing.svg
    with pytest.raises(ValueError, match="SVG only"):
        drawing.savefig(tmp_path / "tree.png")


def test_draw_tree_with_matplotlib_still_returns_a_figure() -> None:
    from matplotlib.figure import Figure

    assert isinstance(draw_tree(GameTree([1, 2])), Figure)


# -- set-up cells --------------------------------------------------------------------------------


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_set_up_cell_needs_matplotlib_or_a_timer_signal(assignment: str) -> None:
    setup = next(c for c in released(assignment).cells if c.cell_type == "code").source
    assert "matplotlib" not in setup
    assert "setitimer" not in setup and "import signal" not in setup
    notebook = nbformat.read(ROOT / "games" / "notebooks" / f"{assignment}.ipynb", 4)
    code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    assert "setitimer" not in code


def test_the_builder_refuses_a_set_up_cell_that_imports_matplotlib() -> None:
    sys.path.insert(0, str(ROOT / "assignments"))
    try:
        from assignment_builder.sources import setup_source
    finally:
        sys.path.remove(str(ROOT / "assignments"))
    with pytest.raises(ValueError, match="matplotlib"):
        setup_source(modules=("import matplotlib.pyplot as plt",))
