"""The grader's own code on a submission's content, in a capped child: an item that exhausts
memory, crashes its process or never ends costs that item alone, and nothing is left running."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from autograder.sandbox.bounded import BoundedChild, Caps, bounded_map


def _children() -> set[int]:
    """The processes whose parent is this one (Linux)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            found.add(int(stat.parent.name))
    return found


def _work(item: str) -> str:
    """What an item does to the code working on it."""
    if item == "hog":
        return str(len([bytearray(2**20) for _ in range(10**6)]))  # a terabyte
    if item == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if item == "endless":
        while True:
            pass
    if item == "deep":

        def down(n: int) -> int:
            return down(n + 1)

        return str(down(0))
    if item == "raises":
        raise ValueError("not a notebook")
    return item.upper()


@pytest.fixture
def no_child_left():
    before = _children()
    yield
    assert _children() <= before


@pytest.mark.usefixtures("no_child_left")
@pytest.mark.parametrize(
    ("bad", "failure"),
    [
        ("hog", "needed more than 64 MiB of memory"),
        ("crash", "crashed (SIGSEGV)"),
        ("deep", "went too deep (RecursionError)"),
        ("raises", "failed (ValueError: not a notebook)"),
    ],
)
def test_an_item_that_breaks_the_work_costs_that_item_alone(bad: str, failure: str) -> None:
    done = bounded_map(_work, ["ann", bad, "bob"], Caps(seconds=60, memory_mb=64))
    assert [d.value for d in done] == ["ANN", None, "BOB"]
    assert done[1].failure == failure


@pytest.mark.usefixtures("no_child_left")
def test_an_endless_item_is_stopped_at_its_time_cap_and_the_next_one_still_runs() -> None:
    first, endless, last = bounded_map(_work, ["ann", "endless", "bob"], Caps(seconds=0.5))
    assert first.value == "ANN" and last.value == "BOB"
    assert endless.failure in ("took longer than 0.5 s", "used more than 1 s of CPU")


@pytest.mark.usefixtures("no_child_left")
def test_an_interrupted_caller_leaves_no_child_running() -> None:
    seen = []

    def interrupt(_signal, _frame):
        # Again every second until seen: on a busy machine the first can land while the fork
        # runs its at-fork hooks (logging's), where Python reports it as unraisable and goes on.
        if not seen:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2, 1.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            bounded_map(_work, ["endless"], Caps(seconds=600))
    finally:
        seen.append(True)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.usefixtures("no_child_left")
def test_a_caller_that_stops_waiting_kills_the_child() -> None:
    child = BoundedChild(_work, ["endless"], Caps(seconds=600))
    started = time.monotonic()
    done = child.next(timeout=0.2)
    assert done.failure == "was not done after the 0.2 s waited"
    assert time.monotonic() - started < 60 and child.pid is None
