"""Assignment 5's grades do not depend on the machine's load (issue 26).

The example class's agents (see examples/README.md: the reference, which deepens until its
budget of states is spent, two fixed-depth searches, a greedy one, an agent with its own evaluation
of `game.board` that draws equal moves at random, a random one and one stuck in a loop) are
graded twice by `python -m autograder grade --assignment connect_four`, both runs at once and
beside a process that spins: each run's two workers compete with the other run's and with the
spinner for the two cores, the whole time, and never in the same way. Both runs must give every
agent the very same games, verdicts and points: no rule reads the wall clock. (One spinner is
enough: the contest's every served state is a round trip between two processes, and more
spinners only lengthen each trip's wait for a core, not what the test can find.)
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from busy import spinning
from example_class import make_class

ROOT = Path(__file__).resolve().parents[1]
CLASS = ROOT / "examples" / "class"
ALLOWANCE = ["--move-states", "100", "--move-seconds", "0.25"]
"""A smaller allowance than the grading's, so that the runs stay short: the rules are the same at
any allowance (the grades are not: `test_contest_grades.py` checks those at the grading's). At
100 states the reference agent still deepens until its budget is spent, and an agent's own CPU
time a move (some hundredths of a second) stays far below the 0.25 s it may use."""

pytestmark = pytest.mark.slow


def _agents() -> list[str]:
    return sorted(make_class.AGENTS)


def _graded(out: Path, students: list[str]) -> dict[str, dict]:
    """Each student's record as saved, without what may differ between runs: how long it took."""
    records = {}
    for student in students:
        saved = json.loads((out / student / "results.json").read_text(encoding="utf-8"))
        record = saved["extra_data"]["record"]
        records[student] = {key: value for key, value in record.items() if key != "seconds"}
    return records


def _stop(run: subprocess.Popen) -> None:
    """End a run the test no longer waits for (it failed), as a run is meant to be ended."""
    if run.poll() is None:
        run.terminate()
        run.wait(timeout=60)


def test_the_example_agents_get_the_same_games_and_grades_on_a_busy_machine(
    tmp_path: Path,
) -> None:
    students = _agents()
    submissions = tmp_path / "agents"
    submissions.mkdir()
    for student in students:
        shutil.copy(CLASS / f"{student}.ipynb", submissions)
    outs = [tmp_path / f"run-{number}" for number in range(2)]
    errors = [tmp_path / f"run-{number}.err" for number in range(2)]
    with spinning(1) as spinners, contextlib.ExitStack() as stack:
        started = []
        for out, error in zip(outs, errors, strict=True):
            command = [sys.executable, "-m", "autograder", "grade", str(submissions), "--out",
                       str(out), "--assignment", "connect_four", *ALLOWANCE, "--quiet",
                       "--workers", "2"]  # fmt: skip
            with error.open("w") as stderr:  # a file: a run never waits for us to read it
                started.append(
                    subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr)
                )
            stack.callback(_stop, started[-1])
        for run, error in zip(started, errors, strict=True):
            # a safety net only (both runs take about 15 s beside each other and the spinners)
            assert run.wait(timeout=900) == 0, error.read_text()
            assert all(spinner.poll() is None for spinner in spinners)  # spun to the run's end
    runs = [((out / "grades.csv").read_text(), _graded(out, students)) for out in outs]
    assert runs[0] == runs[1]  # any difference between two runs under load fails the test
    grades, records = runs[0]
    scores = {student: record["score"] for student, record in records.items()}
    assert scores["alice_correct"] == max(scores.values()) and scores["trent_infinite_loop"] == 0
    assert "it used more than 0.25 s of CPU time" in json.dumps(records["trent_infinite_loop"])
    assert grades.count("\n") == len(students) + 1
