"""A submission that starts busy processes everywhere cannot take its neighbour's CPU.

The hog forks 30 processes at import, each in a session of its own and re-pinned to every CPU,
which spin while its first three calls sleep (1 s each: 3 s of hogging, several times what the
honest submission takes, about half a second; its later calls return at once, and the run ends).
An honest submission graded beside it (two workers, so at the same time) must get the same
grade, in not much more time than when graded alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grading.reference import reference_source
from autograder.sandbox import cgroup_roots, jail_support

ROOT = Path(__file__).resolve().parents[1]
HOG = """\
import os
import time

for _ in range(30):
    if os.fork() == 0:
        os.setsid()
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
        end = time.monotonic() + 60
        while time.monotonic() < end:
            pass
        os._exit(0)


CALLS = []


def minimax_value(game, state):
    CALLS.append(state)
    if len(CALLS) <= 3:
        time.sleep(1)
    return 0
"""

pytestmark = pytest.mark.skipif(
    not (jail_support()[0] and {"cpu", "cpuset"} <= set(cgroup_roots())),
    reason="needs the jail with cpu and cpuset cgroups (root on Linux, cgroup v1)",
)


def _honest_seconds(folder: Path, out: Path) -> tuple[float, float]:
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(folder), "--out", str(out),
         "--workers", "2", "--timeout", "5", "--budget", "30", "--quiet"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((out / "honest" / "results.json").read_text())
    return results["score"], results["extra_data"]["record"]["seconds"]


def test_an_honest_neighbour_of_a_cpu_hog_keeps_its_grade_and_most_of_its_speed(tmp_path: Path):
    alone, beside = tmp_path / "alone", tmp_path / "beside"
    for folder in (alone, beside):
        folder.mkdir()
        (folder / "honest.py").write_text(reference_source())
    (beside / "hog.py").write_text(HOG)
    measured = []
    # The other suites' load comes in waves: a second pair is measured, rather than a wider bound.
    for attempt in range(2):
        score_alone, seconds_alone = _honest_seconds(alone, tmp_path / f"out-alone-{attempt}")
        score_beside, seconds_beside = _honest_seconds(beside, tmp_path / f"out-beside-{attempt}")
        assert score_alone == score_beside == 100
        measured.append((seconds_alone, seconds_beside))
        # Unprotected, the honest call would share two CPUs with 30 spinners (about 1/16 of a CPU:
        # some 8 s for its half second, in every pair); protected, it takes about as long as
        # alone, up to 5x when other suites load the machine between the two runs.
        if seconds_beside < 5 * seconds_alone + 1.5:
            return
    raise AssertionError(f"slower beside the hog in both pairs (alone, beside): {measured}")
