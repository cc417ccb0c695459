"""The example class's contest agents graded once, at the grading's allowance, for the modules
that read their records.

`python -m autograder grade --assignment connect_four` with the default allowance is the
costliest run of the contest's tests (half a minute on an idle 2-core machine):
`test_contest_grades.py` checks the grades it gives, `test_contest_kernel.py` that nbgrader's
hidden cells give the points its records give. It is made once per test process (a
pytest-xdist worker), by whichever test asks first, and the tests that read it are in one xdist
group, `GROUP`, so that a single worker makes it. Import it as `from graded_agents import ...`
(pytest puts tests/ on the path).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from example_class import make_class

from autograder.platforms.nbgrader_export import slug

ROOT = Path(__file__).resolve().parents[1]
CLASS = ROOT / "examples" / "class"
GROUP = "example-agents-at-the-grading-allowance"
"""The xdist group of every test that reads the run (`pytest.mark.xdist_group(GROUP)`)."""

_RUN: dict[str, Path] = {}


def graded_agents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output folder of the example agents' grading run at the default allowance (two
    workers, as an instructor runs it), made on the first call in this process."""
    if "out" not in _RUN:
        submissions = tmp_path_factory.mktemp("agents")
        for student in make_class.AGENTS:
            shutil.copy(CLASS / f"{student}.ipynb", submissions)
        out = tmp_path_factory.mktemp("agents-graded")
        command = [sys.executable, "-m", "autograder", "grade", str(submissions), "--out",
                   str(out), "--assignment", "connect_four", "--quiet",
                   "--workers", "2"]  # fmt: skip
        graded = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert graded.returncode == 0, graded.stderr
        _RUN["out"] = out
    return _RUN["out"]


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
