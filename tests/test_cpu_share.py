"""A submission that starts busy processes everywhere cannot take its neighbour's CPU.

The hog forks 30 processes at import, each in a session of its own and re-pinned to every CPU,
which spin while its first three calls sleep (1 s each). Its third call then reads, from /proc,
how much CPU time its spinners got in the seconds since they started and which CPUs they may
run on, and raises an error that carries both into its feedback. Graded beside an honest
submission (two workers, so at the same time), the spinners must have had at most one CPU's
worth of time, on one CPU only, and the honest submission its full grade.

Both are measured by the hog on itself, not by the wall clock, so the check holds however busy
the machine is: another suite's load can only give the spinners less. Unprotected, they would
get nearly both CPUs of an idle 2-core machine, and still a third more than one at load 16.
"""

from __future__ import annotations

import json
import os
import re
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

START = time.monotonic()
SPINNERS = []
for _ in range(30):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
        end = time.monotonic() + 60
        while time.monotonic() < end:
            pass
        os._exit(0)
    SPINNERS.append(pid)

CALLS = []


def spun():
    seconds, cpus = 0.0, set()
    for pid in SPINNERS:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        seconds += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        cpus.update(os.sched_getaffinity(pid))
    return seconds / (time.monotonic() - START), sorted(cpus)


def minimax_value(game, state):
    CALLS.append(state)
    if len(CALLS) <= 3:
        time.sleep(1)
    if len(CALLS) == 3:
        share, cpus = spun()
        raise RuntimeError(f"spinners had {share:.3f} CPUs on CPUs {cpus}")
    return 0
"""
MEASURED = re.compile(r"spinners had ([0-9.]+) CPUs on CPUs \[([0-9, ]*)\]")

pytestmark = pytest.mark.skipif(
    not (jail_support()[0] and {"cpu", "cpuset"} <= set(cgroup_roots())),
    reason="needs the jail with cpu and cpuset cgroups (root on Linux, cgroup v1)",
)


def _verdicts(record: dict) -> list[dict]:
    return [verdict for rule in record["rules"] for group in rule["groups"]
            for verdict in group["verdicts"]]  # fmt: skip


def test_a_cpu_hog_gets_one_cpu_and_its_honest_neighbour_keeps_its_grade(tmp_path: Path):
    folder, out = tmp_path / "class", tmp_path / "out"
    folder.mkdir()
    (folder / "honest.py").write_text(reference_source())
    (folder / "hog.py").write_text(HOG)
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(folder), "--out", str(out),
         "--workers", "2", "--timeout", "5", "--budget", "30", "--quiet"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((out / "honest" / "results.json").read_text())["score"] == 100
    hog = json.loads((out / "hog" / "results.json").read_text())["extra_data"]["record"]
    found = [MEASURED.search(verdict.get("got") or "") for verdict in _verdicts(hog)]
    (share, cpus), *_ = [(float(m[1]), m[2]) for m in found if m] or [(None, None)]
    assert share is not None, "the hog's third call did not report its spinners"
    # The cgroup's quota is one CPU per 100 ms period; the bandwidth's slices may overrun it
    # by a few milliseconds a period.
    assert share <= 1.1, f"30 spinners had {share} CPUs of time"
    if (os.cpu_count() or 1) > 1:
        assert len(cpus.split(",")) == 1, f"the spinners could run on CPUs {cpus}"
