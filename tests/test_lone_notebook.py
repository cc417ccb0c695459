"""`grade one.ipynb` grades that notebook's assignment: a finished minimax notebook is 25/25."""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.grading.assignment_of import assignment_of
from autograder.grading.load import discover
from autograder.grading.reference import reference_source

ROOT = Path(__file__).resolve().parents[1]


def _row(out: Path) -> dict:
    with open(out / "grades.csv", newline="") as handle:
        (row,) = csv.DictReader(handle)
    return row


NOTEBOOK = ROOT / "assignments" / "source" / "minimax" / "minimax.ipynb"
"""A finished minimax notebook: its cells take a few CPU-seconds to run and grade, so it is
graded alone once (`first`), and the second test grades another beside that run's results."""


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """`grade first.ipynb` into an empty folder: the folder, and what the command printed."""
    folder = tmp_path_factory.mktemp("lone")
    notebook = folder / "first.ipynb"
    shutil.copy(NOTEBOOK, notebook)
    out = folder / "out"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["grade", str(notebook), "--out", str(out), "--isolation", "process"]) == 0
    return out, printed.getvalue()


def test_a_finished_minimax_notebook_alone_is_graded_on_its_own_25_points(
    first: tuple[Path, str],
) -> None:
    out, printed = first
    row = _row(out)
    assert (row["score"], row["max_score"]) == ("25", "25")
    assert set(row) == {"student", "score", "max_score", "minimax_value", "minimax_decision",
                        "status"}  # fmt: skip
    assert "assignment: minimax (the functions first.ipynb defines" in printed
    assert f"feedback: {out / 'first' / 'feedback.html'}" in printed  # the page, not a pattern
    assert (out / "first" / "feedback.html").is_file()
    assert "not graded normally" not in printed  # no row is flagged, so no legend for one


def test_a_second_notebook_graded_into_the_same_folder_reports_itself_not_a_class(
    first: tuple[Path, str], tmp_path: Path, capsys
) -> None:
    out = tmp_path / "out"
    shutil.copytree(first[0], out)  # the first notebook's results, graded earlier
    notebook = tmp_path / "second.ipynb"
    shutil.copy(NOTEBOOK, notebook)
    capsys.readouterr()
    assert main(["grade", str(notebook), "--out", str(out), "--isolation", "process"]) == 0
    printed = capsys.readouterr().out
    assert "second: 25 of 25" in printed
    assert "mean" not in printed and "first" not in printed.split("also holds")[0]
    assert "also holds 1 other student(s) graded earlier" in printed
    with open(out / "grades.csv", newline="") as handle:
        assert sorted(row["student"] for row in csv.DictReader(handle)) == ["first", "second"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def minimax_value(g, s): pass\ndef minimax_decision(g, s): pass\n", "minimax"),
        ("def connect_four_agent(g, s, t): pass\n", "connect_four"),
        ("def minimax_value(g, s): pass\n", None),  # half an assignment: every rule, as before
        (None, "bug_hunt"),  # every function of lectures 1-4: the default rules themselves
    ],
)
def test_the_assignment_of_a_lone_file_is_the_largest_it_defines_whole(
    tmp_path: Path, source: str | None, expected: str | None
) -> None:
    path = tmp_path / "one.py"
    path.write_text(reference_source() if source is None else source, encoding="utf-8")
    found = discover([path], None)
    assert assignment_of([path], found.submissions)[0] == expected


def test_a_class_folder_keeps_every_rule(tmp_path: Path) -> None:
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "ann.py").write_text(
        "def minimax_value(g, s): pass\ndef minimax_decision(g, s): pass\n", encoding="utf-8"
    )
    found = discover([tmp_path / "class"], None)
    assert assignment_of([tmp_path / "class"], found.submissions) == (None, "")
