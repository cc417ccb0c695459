"""The Gradescope bundle runs its own run_autograder in a simulated /autograder layout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.reference import reference_source

CLASS = Path(__file__).resolve().parents[1] / "examples" / "class"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    assert main(["gradescope", "--out", str(out)]) == 0
    return out


def _run(bundle: Path, root: Path, files: dict[str, bytes]) -> dict:
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    run_autograder = root / "source" / "run_autograder"
    run_autograder.chmod(0o755)  # zipfile does not restore modes; Gradescope does
    (root / "submission").mkdir()
    (root / "results").mkdir()
    for name, data in files.items():
        (root / "submission" / name).write_bytes(data)
    env = {
        **os.environ,
        "AUTOGRADER_ROOT": str(root),
        "AUTOGRADER_PYTHON": sys.executable,
        "PYTHONPATH": str(root / "source"),
    }
    run = subprocess.run([str(run_autograder)], env=env, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr
    return json.loads((root / "results" / "results.json").read_text())


def test_the_bundle_has_gradescope_scripts_at_the_top_and_the_hidden_tests(bundle: Path):
    names = zipfile.ZipFile(bundle).namelist()
    assert {"setup.sh", "run_autograder", "pyproject.toml"} <= set(names)
    assert "autograder/hidden_tests/test_rules.py" in names
    modes = {i.filename: i.external_attr >> 16 for i in zipfile.ZipFile(bundle).infolist()}
    assert modes["run_autograder"] & 0o111


def test_run_autograder_grades_a_correct_submission_to_full_marks(bundle: Path, tmp_path):
    results = _run(bundle, tmp_path, {"assignment.py": reference_source().encode()})
    assert results["score"] == 100
    assert len(results["tests"]) == 7
    assert (tmp_path / "results" / "feedback.html").exists()


def test_run_autograder_reports_a_broken_submission_clearly(bundle: Path, tmp_path) -> None:
    broken = (CLASS / "rupert_broken_json.ipynb").read_bytes()
    results = _run(bundle, tmp_path, {"assignment.ipynb": broken})
    assert results["score"] == 0
    assert "not a valid notebook" in results["output"]


def test_run_autograder_with_nothing_uploaded_says_what_to_upload(bundle: Path, tmp_path):
    results = _run(bundle, tmp_path, {"notes.txt": b"hello"})
    assert results["score"] == 0 and "Upload your completed notebook" in results["output"]


def test_workers_do_not_change_the_grades(tmp_path: Path) -> None:
    chosen = ["alice_correct", "dan_strict_cutoff", "heidi_root_picks_min", "mallory_fresh_window",
              "sybil_syntax_error", "xena_value_or_heuristic"]  # fmt: skip
    folder = tmp_path / "class"
    folder.mkdir()
    for student in chosen:
        shutil.copy(CLASS / f"{student}.ipynb", folder)
    for workers in ("1", "2"):
        assert main(["grade", str(folder), "--out", str(tmp_path / workers), "--workers",
                     workers, "--quiet"]) == 0  # fmt: skip
    assert (tmp_path / "1" / "grades.csv").read_text() == (
        tmp_path / "2" / "grades.csv"
    ).read_text()
