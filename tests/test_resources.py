"""What one submission can take from the others: time, data and states, each one capped.

A sleeper, a flood of replies and a search looping through `game.result` are graded in one run
beside an honest submission, with small limits so that the run stays short.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.grading.grade import RECORD_BYTES, cap_size
from autograder.grading.judge import Verdict
from autograder.grading.records import GradeRecord, GroupResult, RuleResult
from autograder.grading.reference import reference_source

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "tests" / "resources"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    # The per-call limit is far above what any call takes: the looping search reaches its cap of
    # 50,000 states in about 1.4 s idle (27 microseconds a served state), and must meet the cap
    # first on a machine 10 times slower (a limit of 3 s failed at load 14); the sleeper's calls
    # (1.6 s each) are stopped by the budgets only: each of its two functions by its third of the
    # 9 s after its second call.
    folder = tmp_path_factory.mktemp("class")
    (folder / "honest.py").write_text(reference_source())
    for path in HERE.glob("*.py"):
        (folder / path.name).write_text(path.read_text())
    out = tmp_path_factory.mktemp("out")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(folder), "--out", str(out),
         "--timeout", "30", "--budget", "9", "--workers", "2", "--quiet"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    return {"rows": rows, "out": out, "seconds": time.monotonic() - started}


def _record(graded: dict, student: str) -> dict:
    return json.loads((graded["out"] / student / "results.json").read_text())["extra_data"][
        "record"
    ]


def test_the_honest_submission_scores_full_marks_beside_them(graded: dict) -> None:
    assert graded["rows"]["honest"]["score"] == "100"


def test_a_submission_that_sleeps_in_every_call_stops_at_its_budget(graded: dict) -> None:
    record = _record(graded, "sleepy")
    assert record["seconds"] < 9 + 2 * 3 + 5  # the budget, a call under way, loading
    assert any("budget" in message for message in record["messages"])
    verdicts = [v for r in record["rules"] for g in r["groups"] for v in g["verdicts"]]
    assert any("used its" in v["hint"] for v in verdicts)


def test_a_flood_of_replies_leaves_small_results(graded: dict) -> None:
    results = graded["out"] / "flood" / "results.json"
    assert results.stat().st_size < 300_000
    assert graded["rows"]["flood"]["score"] == "0"
    verdict = _record(graded, "flood")["rules"][0]["groups"][0]["verdicts"][0]
    assert len(verdict["got"]) <= 200


def test_a_search_looping_through_result_is_stopped_at_the_state_cap(graded: dict) -> None:
    record = _record(graded, "loop_through_result")
    assert any("more than" in m and "states" in m for m in record["messages"])
    verdict = record["rules"][0]["groups"][0]["verdicts"][0]
    assert verdict["got"] == "stopped: too many states generated"


def test_a_record_over_the_size_cap_is_trimmed_with_a_note() -> None:
    # 5.7 MB of JSON, 44 times the cap (a thousand states drawn a verdict, 10 MB, took 2 s to
    # build and measure, for the same trimming)
    verdict = Verdict("i", False, "e", "g" * 5000, "h", visited=((0,),) * 100)
    group = GroupResult("g", "minimax_value", 0, 5, (verdict,) * 200)
    rule = RuleResult("minimax_value", "", 0, 25, (group,) * 5)
    record = GradeRecord("s", "graded", 0, 25, rules=(rule,), output="o" * 10_000)
    capped = cap_size(record, limit=RECORD_BYTES // 8)
    assert len(json.dumps(capped.to_json())) < RECORD_BYTES // 8
    assert "shortened" in capped.messages[-1]
