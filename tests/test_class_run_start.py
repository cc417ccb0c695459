"""A class run's serial parts: the reference answers computed in a thread while the run gets
ready (and there before the workers fork), and a --quiet run that renders no grade table."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder import cli, grade_command
from autograder.grading import cases
from autograder.grading import grade as grading
from autograder.grading.rules import ASSIGNMENT_RULES

REPO = Path(__file__).resolve().parents[1]
ALICE = REPO / "examples" / "class" / "alice_correct.ipynb"


def test_the_answers_thread_leaves_every_case_computed_in_this_process() -> None:
    cases.reference.cache_clear()
    answers = grade_command.Answers(ASSIGNMENT_RULES["minimax"])
    answers.start()
    answers.wait()
    assert not answers.is_alive()  # no thread left when the workers are forked
    assert cases.reference.cache_info().currsize > 0


def test_an_error_in_the_answers_is_raised_where_the_run_waits(monkeypatch) -> None:
    def broken(rule_ids) -> None:
        raise RuntimeError("no answers")

    monkeypatch.setattr(grading, "warm_up", broken)
    answers = grade_command.Answers(ASSIGNMENT_RULES["minimax"])
    answers.start()
    with pytest.raises(RuntimeError, match="no answers"):
        answers.wait()


def test_a_quiet_run_renders_no_table_and_prints_nothing(tmp_path, monkeypatch, capsys) -> None:
    def never(*args, **kwargs):
        raise AssertionError("a --quiet run built the grade table")

    monkeypatch.setattr(grade_command.terminal, "terminal_table", never)
    code = cli.main(["grade", str(ALICE), "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 0
    assert capsys.readouterr().out == ""
    assert (tmp_path / "out" / "grades.csv").read_text().count("\n") == 2  # header, alice
