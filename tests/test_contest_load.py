"""Assignment 5's grades do not depend on the machine's load (issue 26).

The example class's agents (see examples/README.md: the reference, which deepens until its
budget of states is spent, two fixed-depth searches, a greedy one, an agent with its own evaluation
of `game.board` that draws equal moves at random, a random one and one stuck in a loop) are
graded twice by `python -m autograder grade --assignment connect_four`, while another
grading run of the whole class keeps both cores busy. Every run must give every agent the very
same games, verdicts and points: no rule reads the wall clock.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from example_class import make_class

ROOT = Path(__file__).resolve().parents[1]
CLASS = ROOT / "examples" / "class"
ALLOWANCE = ["--move-states", "200", "--move-seconds", "0.5"]
"""A smaller allowance than the grading's, so that two runs fit in a quarter of a minute (at 500
states a move they took twice as long); the rules are the same at any allowance (the grades are
not: `test_contest_grades.py` checks those)."""

pytestmark = pytest.mark.slow


def _agents() -> list[str]:
    return sorted(make_class.AGENTS)


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "autograder", "grade", *args, "--quiet", "--workers", "2"]


@pytest.fixture
def busy_machine(tmp_path: Path) -> Iterator[list[subprocess.Popen]]:
    """Another grading run of the example class (lectures 1-4, two workers), started again
    whenever it ends, until the test is over; stopped with SIGTERM, as a run is meant to be."""
    lock, stop, runs = threading.Lock(), threading.Event(), []

    def keep_busy() -> None:
        while True:
            with lock:
                if stop.is_set():
                    return
                out = tmp_path / f"load-{len(runs)}"
                command = _command(str(CLASS), "--out", str(out), "--force")
                runs.append(subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL))
            runs[-1].wait()

    thread = threading.Thread(target=keep_busy, daemon=True)
    thread.start()
    try:
        yield runs
    finally:
        with lock:
            stop.set()
            for run in runs:
                if run.poll() is None:
                    run.terminate()
        for run in runs:
            run.wait(timeout=60)
        thread.join(timeout=60)


def _graded(out: Path, students: list[str]) -> dict[str, dict]:
    """Each student's record as saved, without what may differ between runs: how long it took."""
    records = {}
    for student in students:
        saved = json.loads((out / student / "results.json").read_text(encoding="utf-8"))
        record = saved["extra_data"]["record"]
        records[student] = {key: value for key, value in record.items() if key != "seconds"}
    return records


def test_the_example_agents_get_the_same_games_and_grades_on_a_busy_machine(
    tmp_path: Path, busy_machine: list[subprocess.Popen]
) -> None:
    students = _agents()
    submissions = tmp_path / "agents"
    submissions.mkdir()
    for student in students:
        shutil.copy(CLASS / f"{student}.ipynb", submissions)
    runs = []
    for number in range(2):  # any difference between two runs under load fails the test
        out = tmp_path / f"run-{number}"
        command = _command(str(submissions), "--out", str(out), "--assignment", "connect_four")
        graded = subprocess.run(
            # a safety net only (a run takes about 18 s beside the busy run; at load 13, over 120 s)
            [*command, *ALLOWANCE],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert graded.returncode == 0, graded.stderr
        assert any(run.poll() is None for run in busy_machine)  # the other run is still going
        runs.append(((out / "grades.csv").read_text(), _graded(out, students)))
    assert runs[0] == runs[1]
    grades, records = runs[0]
    scores = {student: record["score"] for student, record in records.items()}
    assert scores["alice_correct"] == max(scores.values()) and scores["trent_infinite_loop"] == 0
    assert "it used more than 0.5 s of CPU time" in json.dumps(records["trent_infinite_loop"])
    assert grades.count("\n") == len(students) + 1
