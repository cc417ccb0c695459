"""Build a Gradescope autograder bundle, and grade one submission inside Gradescope's layout."""

from __future__ import annotations

import json
import stat
import tempfile
import zipfile
from pathlib import Path

from autograder import report
from autograder.grade import Settings, feedback, grade, warm_up
from autograder.load import SUFFIXES, Submission, load
from autograder.sandbox import Limits, build_import_view

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "games", "solutions", "autograder")

SETUP_SH = """#!/usr/bin/env bash
# Runs once when Gradescope builds the autograder image. Choose a base image with Python 3.11 or
# newer (Ubuntu 24.04 ships 3.12).
set -euo pipefail
apt-get update
apt-get install -y python3 python3-venv python3-pip
python3 -c 'import sys; assert sys.version_info >= (3, 11), "the grader needs Python 3.11+"'
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install /autograder/source
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Runs for every submission: grades /autograder/submission into /autograder/results/results.json.
# AUTOGRADER_ROOT and AUTOGRADER_PYTHON let the layout be simulated outside Gradescope.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
PY="${AUTOGRADER_PYTHON:-$ROOT/venv/bin/python}"
cd "$ROOT/source"
exec "$PY" -m autograder gradescope-run --root "$ROOT"
"""


def build_bundle(out: Path) -> Path:
    """Write the zip Gradescope expects: setup.sh and run_autograder at the top, the source beside.

    The hidden tests travel inside the `autograder` package; the reference answers are
    computed by the grader at run time, never shipped to the student's process.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            bundle.writestr(info, text)
        for name in SOURCES:
            path = ROOT / name
            files = [path] if path.is_file() else sorted(path.rglob("*"))
            for file in files:
                if file.is_file() and "__pycache__" not in file.parts:
                    bundle.write(file, file.relative_to(ROOT).as_posix())
    return out


def run_in_gradescope(root: Path, limits: Limits | None = None) -> dict:
    """Grade every notebook or .py file in `root/submission` as one student's submission."""
    submitted = root / "submission"
    files = tuple(sorted(p for p in submitted.rglob("*") if p.suffix in SUFFIXES and p.is_file()))
    results_path = root / "results" / "results.json"
    if not files:
        results = {
            "score": 0,
            "output": "No notebook (.ipynb) or Python file was found in your submission. "
            "Upload your completed notebook.",
            "tests": [],
        }
        report.write_atomically(results_path, json.dumps(results, indent=1))
        return results
    warm_up()
    submission = Submission("submission", files)
    with tempfile.TemporaryDirectory(prefix="autograder-") as scratch:
        settings = Settings(limits or Limits(), build_import_view(Path(scratch)))
        record = grade(submission, load(submission), settings)
    results = report.results_json(record, fingerprint="gradescope")
    report.write_atomically(results_path, json.dumps(results, indent=1))
    report.write_atomically(root / "results" / "feedback.html", feedback(record))
    return results
