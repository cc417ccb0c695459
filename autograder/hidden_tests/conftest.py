"""Grade one submission once per session; by default the reference solutions.

Set AUTOGRADER_SUBMISSION to a notebook or .py file to run the hidden tests against it:

    AUTOGRADER_SUBMISSION=alice.ipynb pytest --pyargs autograder
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from autograder.grading.grade import Settings, grade
from autograder.grading.load import Submission, load
from autograder.grading.records import GradeRecord
from autograder.grading.reference import reference_source
from autograder.sandbox import Limits, build_import_view


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "rule(id, points): the grading rule a hidden test belongs to"
    )


@pytest.fixture(scope="session")
def graded(tmp_path_factory: pytest.TempPathFactory) -> GradeRecord:
    scratch = tmp_path_factory.mktemp("hidden")
    chosen = os.environ.get("AUTOGRADER_SUBMISSION")
    if chosen:
        path = Path(chosen)
    else:
        path = scratch / "reference.py"
        path.write_text(reference_source(), encoding="utf-8")
    submission = Submission(path.stem, (path,))
    with tempfile.TemporaryDirectory() as view_root:
        settings = Settings(Limits(), build_import_view(Path(view_root)))
        return grade(submission, load(submission), settings)
