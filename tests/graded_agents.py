"""The example class's contest agents graded once for the modules that read their records:
at the grading's allowance (all but `STOPPED_EVERYWHERE`), and twice at a small allowance
beside it.

`python -m autograder grade --assignment connect_four` with the default allowance is the
costliest run of the contest's tests (half a minute on an idle 2-core machine):
`test_contest_grades.py` checks the grades it gives, `test_contest_kernel.py` that nbgrader's
hidden cells give the points its records give. Two more runs of the same agents at a small
allowance start with it, and must give the very same games and grades although each competes
for the two cores with the other and with the long run (`test_contest_load.py`): the long run
is their load, and useful work. The three runs are made once per test process (a pytest-xdist
worker), by whichever test asks first; the tests that read them are in one xdist group,
`GROUP`, so that a single worker makes them. Import it as `from graded_agents import ...`
(pytest puts tests/ on the path).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from example_class import make_class

from autograder.platforms.nbgrader_export import slug

ROOT = Path(__file__).resolve().parents[1]
CLASS = ROOT / "examples" / "class"
GROUP = "example-agents-graded"
"""The xdist group of every test that reads the runs (`pytest.mark.xdist_group(GROUP)`)."""

SMALL_ALLOWANCE = ("--move-states", "50", "--move-seconds", "0.25")
"""The two short runs' allowance: the rules are the same at any allowance (the grades are not).
At 50 states the reference agent still deepens until its budget is spent (one ply takes 7, two
up to 56), and still earns the class's best grade; an agent's own CPU time a move (a hundredth
of a second or so) stays far below the 0.25 s it may use. (At 100 states each short run took a
third more CPU, for the same checks.)"""

STOPPED_EVERYWHERE = "trent_infinite_loop"
"""The agent left out of the run at the grading's allowance: he never answers, so each move he is
asked is stopped for its CPU time at any allowance, and his games, verdicts and 0 points are the
same at the short runs' 0.25 s as at the grading's 3 s, where his four stops spun 12 s of CPU
(a quarter of that run's). The short runs grade him, and `test_contest_load.py` checks his 0
and the reason for it there."""

SAFETY_NET = 900
"""Seconds after which a run is stopped and its test fails: a safety net only (the long run
takes about a minute beside the short ones on an idle machine, several at load 16)."""


@dataclass(frozen=True)
class ContestRuns:
    """The runs' output folders, and whether the long run was still going when each short run
    ended (so that it was their load from start to end)."""

    grading: Path
    small: tuple[Path, ...]
    beside_the_grading_run: tuple[bool, ...]


_RUNS: list[ContestRuns] = []


def contest_runs(tmp_path_factory: pytest.TempPathFactory) -> ContestRuns:
    """The example agents graded at the default allowance (all but `STOPPED_EVERYWHERE`) and,
    at the same time, all of them twice at `SMALL_ALLOWANCE` (each run with two workers, as an
    instructor runs it); made on the first call in this process."""
    if not _RUNS:
        agents = _copied(tmp_path_factory.mktemp("agents"), make_class.AGENTS)
        answering = _copied(
            tmp_path_factory.mktemp("answering-agents"),
            [student for student in make_class.AGENTS if student != STOPPED_EVERYWHERE],
        )
        grading = tmp_path_factory.mktemp("agents-at-the-grading-allowance")
        small = tuple(tmp_path_factory.mktemp("agents-at-a-small-allowance") for _ in range(2))
        with contextlib.ExitStack() as stack:
            long_run = _start(stack, answering, grading, ())
            short_runs = [_start(stack, agents, out, SMALL_ALLOWANCE) for out in small]
            beside = []
            for run in short_runs:
                _finish(run)
                beside.append(long_run[0].poll() is None)
            _finish(long_run)
        _RUNS.append(ContestRuns(grading, small, tuple(beside)))
    return _RUNS[0]


def _copied(folder: Path, students) -> Path:
    """`folder` with the notebooks of `students` from the example class copied into it."""
    for student in students:
        shutil.copy(CLASS / f"{student}.ipynb", folder)
    return folder


def _start(
    stack: contextlib.ExitStack, submissions: Path, out: Path, allowance: tuple[str, ...]
) -> tuple[subprocess.Popen, Path]:
    """Start a grading run of the agents into `out`; it is stopped when `stack` closes."""
    command = [sys.executable, "-m", "autograder", "grade", str(submissions), "--out", str(out),
               "--assignment", "connect_four", *allowance, "--quiet", "--workers", "2"]  # fmt: skip
    error = out.with_name(out.name + ".stderr")
    with error.open("w") as stderr:  # a file: a run never waits for anyone to read it
        run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr)
    stack.callback(_stop, run)
    return run, error


def _finish(started: tuple[subprocess.Popen, Path]) -> None:
    run, error = started
    assert run.wait(timeout=SAFETY_NET) == 0, error.read_text()


def _stop(run: subprocess.Popen) -> None:
    """End a run no test waits for any more (another failed), as a run is meant to be ended."""
    if run.poll() is None:
        run.terminate()
        run.wait(timeout=60)


def record(out: Path, student: str) -> dict:
    """The student's grade record, as the run saved it."""
    saved = json.loads((out / student / "results.json").read_text(encoding="utf-8"))
    return saved["extra_data"]["record"]


def group_points(out: Path, student: str) -> dict[str, float]:
    """Each group's points in the student's record, by the grade id of its hidden cell."""
    return {
        f"{rule['id']}__{slug(group['name'])}": group["points"]
        for rule in record(out, student)["rules"]
        for group in rule["groups"]
    }
