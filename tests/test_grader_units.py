"""The grader's stages one at a time: finding submissions, reading cells, locking, writing."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.cli import OutputLock, main
from autograder.load import Submission, discover, load, strip_magics
from autograder.report import grades_csv, write_atomically


def _notebook(path: Path, *sources: str) -> Path:
    notebook = new_notebook(cells=[new_markdown_cell("# hello"), *map(new_code_cell, sources)])
    nbformat.write(notebook, path)
    return path


def test_magics_and_shell_escapes_are_neutralised_keeping_indentation() -> None:
    code, changed = strip_magics("%matplotlib inline\nif True:\n    !pip list\nx = 1")
    assert changed
    compile(code, "<cell>", "exec")
    assert "x = 1" in code


def test_a_timing_cell_magic_keeps_its_body_and_a_bash_cell_is_dropped() -> None:
    kept, _ = strip_magics("%%time\ny = 2")
    dropped, _ = strip_magics("%%bash\nrm -rf /")
    assert "y = 2" in kept and "rm" not in dropped


def test_a_class_folder_gives_one_student_per_file_and_skips_other_files(tmp_path: Path):
    _notebook(tmp_path / "ann.ipynb", "x = 1")
    (tmp_path / "ben.py").write_text("y = 2")
    (tmp_path / "notes.txt").write_text("hi")
    (tmp_path / "ann.py").write_text("z = 3")
    found = discover([tmp_path])
    assert [s.student for s in found.submissions] == ["ann", "ben"]
    reasons = {path.name: reason for path, reason in found.skipped}
    assert "not a notebook" in reasons["notes.txt"] and "second file" in reasons["ann.py"]


def test_an_nbgrader_submitted_tree_is_one_student_per_folder(tmp_path: Path) -> None:
    for student in ("s1", "s2"):
        folder = tmp_path / "submitted" / student / "minimax"
        folder.mkdir(parents=True)
        _notebook(folder / "minimax.ipynb", "a = 1")
    (tmp_path / "submitted" / "s3" / "minimax").mkdir(parents=True)
    found = discover([tmp_path])
    assert [s.student for s in found.submissions] == ["s1", "s2"]
    assert "no notebook" in found.skipped[0][1]


def test_loading_numbers_code_cells_from_one_and_reports_bad_files(tmp_path: Path) -> None:
    path = _notebook(tmp_path / "ann.ipynb", "a = 1", "%time b = 2")
    loaded = load(Submission("ann", (path,)), nbformat)
    assert [index for index, _ in loaded.cells] == [1, 2] and loaded.notes and loaded.digest
    broken = tmp_path / "bad.ipynb"
    broken.write_text('{"cells": [')
    assert "not a valid notebook" in load(Submission("bad", (broken,)), nbformat).error
    empty = _notebook(tmp_path / "empty.ipynb")
    assert "no code cells" in load(Submission("empty", (empty,)), nbformat).error
    latin = tmp_path / "latin.py"
    latin.write_bytes("caf\xe9 = 1".encode("latin-1"))
    assert "not UTF-8" in load(Submission("latin", (latin,)), nbformat).error


def test_a_second_run_on_the_same_folder_refuses_with_a_clear_message(tmp_path: Path) -> None:
    with OutputLock(tmp_path), pytest.raises(SystemExit, match="another grading run"):
        OutputLock(tmp_path).__enter__()


def test_atomic_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "a" / "results.json"
    write_atomically(target, "{}")
    write_atomically(target, '{"x": 1}')
    assert json.loads(target.read_text()) == {"x": 1}
    assert [p.name for p in target.parent.iterdir()] == ["results.json"]


def test_grades_csv_of_no_students_is_just_the_header() -> None:
    assert grades_csv([]).startswith("student,score,max_score,minimax_value,")


def test_the_cli_says_when_there_is_nothing_to_grade(tmp_path: Path, capsys) -> None:
    assert main(["grade", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().out


def test_a_regrade_of_a_changed_submission_keeps_the_old_grade_in_history(tmp_path: Path):
    student = tmp_path / "class" / "ann.py"
    student.parent.mkdir()
    student.write_text("def minimax_value(game, state):\n    return 0\n")
    out = tmp_path / "out"
    assert main(["grade", str(student), "--out", str(out), "--quiet"]) == 0
    student.write_text("def minimax_value(game, state):\n    return 1\n")
    assert main(["grade", str(student), "--out", str(out), "--quiet"]) == 0
    history = list((out / "ann" / "history").iterdir())
    assert len(history) == 1
    old = json.loads(history[0].read_text())["extra_data"]["record"]
    assert (
        old["digest"]
        != json.loads((out / "ann" / "results.json").read_text())["extra_data"]["record"]["digest"]
    )


def test_assignment_option_grades_one_assignment_of_an_nbgrader_course(tmp_path: Path) -> None:
    from autograder.reference import reference_source

    for student in ("s1", "s2"):
        for assignment in ("minimax", "alphabeta"):
            folder = tmp_path / "course" / "submitted" / student / assignment
            folder.mkdir(parents=True)
            _notebook(folder / f"{assignment}.ipynb", reference_source())
    out = tmp_path / "out"
    assert main(["grade", str(tmp_path / "course"), "--out", str(out), "--assignment",
                 "minimax", "--quiet"]) == 0  # fmt: skip
    lines = (out / "grades.csv").read_text().splitlines()
    assert lines[0] == "student,score,max_score,minimax_value,minimax_decision,status"
    assert lines[1:] == ["s1,25,25,15,10,graded", "s2,25,25,15,10,graded"]
    record = json.loads((out / "s1" / "results.json").read_text())["extra_data"]["record"]
    assert record["files"][0].endswith("minimax/minimax.ipynb")
