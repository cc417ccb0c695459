"""`benchmarks/bench_grading.py` reads a round of Otter-Grader: a notebook Otter itself failed on
(its kernel never answered) leaves the round untimed, and one it graded short of full marks is a
problem with the comparison (every notebook of the bench's class earns Otter's 10 points)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def bench_grading(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the script imports its siblings by name
    for name in ("bench_grading", "_common", "_peers"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module("bench_grading")


def test_a_notebook_otter_failed_on_is_named_and_one_graded_short_is_a_problem(
    bench_grading, tmp_path: Path
) -> None:
    notebooks = [tmp_path / student / "bench" / "bench.ipynb" for student in ("ann", "ben", "cy")]
    scores = [(10.0, 10.0), (0.0, "RuntimeError: Kernel didn't respond in 60 seconds"), (4, 5)]
    failed, wrong = bench_grading.otter_failures(notebooks, scores)
    assert failed == ["ben: RuntimeError: Kernel didn't respond in 60 seconds"]
    assert len(wrong) == 1 and str(notebooks[2]) in wrong[0] and "(4, 5)" in wrong[0]
    assert bench_grading.otter_failures(notebooks[:1], scores[:1]) == ([], [])
