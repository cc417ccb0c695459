"""A class run's serial parts: the reference answers and the import view made in threads while
the run gets ready (and there before the workers fork), and a --quiet run that renders no grade
table."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from autograder import cli, grade_command
from autograder.grading import cases
from autograder.grading import grade as grading
from autograder.grading.outcomes import Terminated
from autograder.grading.rules import ASSIGNMENT_RULES

REPO = Path(__file__).resolve().parents[1]
ALICE = REPO / "examples" / "class" / "alice_correct.ipynb"


def test_the_answers_thread_leaves_every_case_computed_in_this_process() -> None:
    cases.reference.cache_clear()
    answers = grade_command.Beside(grading.warm_up, ASSIGNMENT_RULES["minimax"])
    answers.start()
    assert answers.result() is None
    assert not answers.is_alive()  # no thread left when the workers are forked
    assert cases.reference.cache_info().currsize > 0


def test_an_error_in_the_answers_is_raised_where_the_run_waits() -> None:
    def broken(rule_ids) -> None:
        raise RuntimeError("no answers")

    answers = grade_command.Beside(broken, ASSIGNMENT_RULES["minimax"])
    answers.start()
    with pytest.raises(RuntimeError, match="no answers"):
        answers.result()


def test_a_quiet_run_renders_no_table_and_prints_nothing(tmp_path, monkeypatch, capsys) -> None:
    def never(*args, **kwargs):
        raise AssertionError("a --quiet run built the grade table")

    monkeypatch.setattr(grade_command.terminal, "terminal_table", never)
    code = cli.main(["grade", str(ALICE), "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 0
    assert capsys.readouterr().out == ""
    assert (tmp_path / "out" / "grades.csv").read_text().count("\n") == 2  # header, alice


def test_a_refused_run_waits_for_its_import_view_before_removing_its_folder(
    tmp_path, monkeypatch, capsys
) -> None:
    built = []

    def slow_view(root: Path, fonts, jailed: bool = False):
        import time

        time.sleep(0.3)  # still building when the run is refused
        (root / "site").mkdir()
        built.append(root)
        return root / "site"

    monkeypatch.setattr(grade_command, "build_import_view", slow_view)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli.main(["grade", str(empty), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    assert "no submissions found" in capsys.readouterr().err
    assert len(built) == 1 and not built[0].exists()  # built, then removed with the folder


@pytest.mark.parametrize(("stop", "code"), [(Terminated, 143), (KeyboardInterrupt, 130)])
def test_a_stop_before_the_grading_starts_exits_by_its_code_without_a_traceback(
    tmp_path, monkeypatch, capsys, stop, code
) -> None:
    def stopped(*args, **kwargs):  # a SIGTERM or a Ctrl-C while the run gets ready
        raise stop

    monkeypatch.setattr(grade_command, "run_and_report", stopped)
    before = signal.getsignal(signal.SIGTERM)
    assert cli.main(["grade", str(ALICE), "--out", str(tmp_path / "out"), "--quiet"]) == code
    assert "interrupted" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_view_for_the_jail_is_refused_to_a_submission_outside_it(tmp_path) -> None:
    from autograder.sandbox import Limits, StudentProcess, build_import_view

    view = build_import_view(tmp_path / "run", jailed=True)  # no links: the jail masks
    assert not [entry for entry in view.iterdir() if entry.is_symlink()]
    process = StudentProcess([[0, "x = 1"]], [], view, Limits(isolation="process"))
    try:
        with pytest.raises(RuntimeError, match="for the jail only"):
            process.start()
    finally:
        process.close()
