"""The grade record: frozen data inside the grader, JSON only where results are saved or loaded."""

from __future__ import annotations

import json
from pathlib import Path

from autograder.grading.judge import Verdict
from autograder.grading.load import Submission, file_digest
from autograder.grading.records import GradeRecord, GroupResult, RuleResult
from autograder.reports import files

DRAWN = Verdict(
    "the classic 3x3 tree",
    False,
    "at most 12 states generated (the reference: 10) and a correct value",
    "13 states generated; 3",
    "look for children generated twice",
    states=13,
    threshold=12,
    picture="GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])",
    visited=((0,), (0, 0), (1,)),
    reference_visited=((0,), (1,)),
)
RECORD = GradeRecord(
    student="ann",
    status="graded",
    score=0,
    max_score=15,
    files=("class/ann.ipynb",),
    digest="d1",
    messages=("code cell 2 of ann.ipynb raised an exception: ...",),
    functions=("alphabeta_value",),
    output="hello\n",
    rules=(
        RuleResult(
            "alphabeta_pruning",
            "prunes like alpha-beta",
            0,
            15,
            (GroupResult("trees without ties", "alphabeta_value", 0, 15, (DRAWN,)),),
        ),
    ),
    seconds=0.25,
)


def test_a_record_comes_back_equal_from_its_json_text() -> None:
    text = json.dumps(RECORD.to_json())
    assert GradeRecord.from_json(json.loads(text)) == RECORD
    assert GradeRecord.from_json(RECORD.to_json()) == RECORD


def test_the_json_layout_is_that_of_results_json() -> None:
    data = RECORD.to_json()
    assert list(data) == ["student", "files", "digest", "status", "messages", "functions",
                          "output", "rules", "score", "max_score", "seconds"]  # fmt: skip
    rule = data["rules"][0]
    assert list(rule) == ["id", "description", "points", "max_points", "groups", "diagnosis"]
    assert list(rule["groups"][0]) == ["name", "function", "points", "max_points", "verdicts"]
    verdict = rule["groups"][0]["verdicts"][0]
    assert verdict["visited"] == [[0], [0, 0], [1]] and verdict["states"] == 13
    assert json.loads(json.dumps(data)) == data  # plain JSON data: no tuples left


def _saved(out: Path, record: GradeRecord, stamp: str) -> None:
    files.save_student(out, record, stamp, "<html></html>")


def test_an_unchanged_submission_reuses_its_saved_record_and_nothing_else(tmp_path: Path) -> None:
    notebook = tmp_path / "ann.py"
    notebook.write_text("def minimax_value(game, state):\n    return 0\n")
    submission = Submission("ann", (notebook,))
    out = tmp_path / "out"
    _saved(out, GradeRecord("ann", "graded", 10, 100, digest=file_digest(submission)), "s|jail|x")
    reused = files.unchanged_record(out, submission, "s|jail|x", 1 << 20)
    assert reused is not None and reused.score == 10
    assert files.unchanged_record(out, submission, "s|process|x", 1 << 20) is not None
    assert files.unchanged_record(out, submission, "t|jail|x", 1 << 20) is None  # other grader
    notebook.write_text("def minimax_value(game, state):\n    return 1\n")
    assert files.unchanged_record(out, submission, "s|jail|x", 1 << 20) is None  # other files


def test_a_saved_record_missing_fields_loads_and_one_that_is_no_record_does_not(
    tmp_path: Path,
) -> None:
    (tmp_path / "old").mkdir()
    minimal = {"student": "old", "status": "graded", "score": 5, "max_score": 25}
    (tmp_path / "old" / "results.json").write_text(json.dumps({"extra_data": {"record": minimal}}))
    saved = files.load_saved(tmp_path, "old")
    assert saved is not None and saved.record == GradeRecord("old", "graded", 5, 25)
    for junk in ([], {"extra_data": []}, {"extra_data": {"record": {"score": 1}}}, "text"):
        (tmp_path / "old" / "results.json").write_text(json.dumps(junk))
        assert files.load_saved(tmp_path, "old") is None
