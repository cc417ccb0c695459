"""The grader's stages one at a time: finding submissions, reading cells, locking, writing."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.cli import main
from autograder.grading.grade import _run_calls, planned_calls
from autograder.grading.load import Submission, discover, load, strip_magics
from autograder.grading.notebook_json import NotebookError, code_sources
from autograder.grading.rules import selected_rules
from autograder.reports.files import OutputLock, grades_csv, write_atomically
from autograder.sandbox import CallOutcome, Limits

ROOT = Path(__file__).resolve().parents[1]


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
    ann = found.submissions[0]  # her two files: the one with the graded functions is chosen
    assert ann.files == (tmp_path / "ann.ipynb", tmp_path / "ann.py") and ann.pick_one
    assert [(path.name, reason) for path, reason in found.skipped] == [
        ("notes.txt", "not a notebook or Python file (.txt)")
    ]


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
    loaded = load(Submission("ann", (path,)))
    assert [index for index, _ in loaded.cells] == [1, 2] and loaded.notes and loaded.digest
    broken = tmp_path / "bad.ipynb"
    broken.write_text('{"cells": [')
    assert "not a valid notebook" in load(Submission("bad", (broken,))).error
    empty = _notebook(tmp_path / "empty.ipynb")
    assert "no code cells" in load(Submission("empty", (empty,))).error
    latin = tmp_path / "latin.py"
    latin.write_bytes("caf\xe9 = 1".encode("latin-1"))
    assert "not UTF-8" in load(Submission("latin", (latin,))).error


def _v4(*cells: object) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": list(cells)})


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "the file is empty"),
        (" \n", "the file is empty"),
        ('{"cells": [', "not JSON: Expecting value: line 1 column 12"),
        ('{\n  "nbformat": 4,\n  "cells": [}', "not JSON: Expecting value: line 3 column 13"),
        ("[" * 100_000, "not JSON that can be read: it is nested too deeply"),
        ("[]", "the top level is a list, not an object"),
        ('"notebook"', "the top level is a string, not an object"),
        ('{"cells": []}', 'it has no "nbformat" version number'),
        ('{"nbformat": "4", "cells": []}', '"nbformat" is a string, not an integer'),
        ('{"nbformat": 4.0, "cells": []}', '"nbformat" is a decimal number, not an integer'),
        ('{"nbformat": true, "cells": []}', '"nbformat" is a boolean, not an integer'),
        ('{"nbformat": 2}', "nbformat 2 is not supported; the grader reads 3 and 4"),
        ('{"nbformat": 5, "cells": []}', "nbformat 5 is not supported; the grader reads 3 and 4"),
        ('{"nbformat": 4}', 'the notebook has no "cells" list'),
        ('{"nbformat": 4, "cells": {}}', '"cells" of the notebook is an object, not a list'),
        ('{"nbformat": 4, "cells": null}', '"cells" of the notebook is null, not a list'),
        ('{"nbformat": 3}', 'the notebook has no "worksheets" list'),
        ('{"nbformat": 3, "worksheets": [7]}', "worksheet 1 is an integer, not an object"),
        ('{"nbformat": 3, "worksheets": [{}]}', 'worksheet 1 has no "cells" list'),
        (_v4({"cell_type": "raw"}, "x = 1"), "cell 2 is a string, not an object"),
        (_v4({"cell_type": "code"}), 'cell 1 is a code cell without "source"'),
        (
            _v4({"cell_type": "code", "source": 42}),
            'the "source" of cell 1 is an integer, not a string or a list of strings',
        ),
        (
            _v4({"cell_type": "code", "source": ["x = 1\n", None]}),
            'the "source" of cell 1 is a list holding null, not only strings',
        ),
        (
            json.dumps({"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code"}]}]}),
            'cell 1 is a code cell without "input"',
        ),
    ],
)
def test_a_file_that_is_not_a_notebook_is_reported_with_the_reason(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = tmp_path / "alice.ipynb"
    path.write_text(text)
    error = load(Submission("alice", (path,))).error
    assert error == f"alice.ipynb is not a valid notebook ({reason})"


def test_a_notebook_that_is_not_utf8_is_reported_as_not_a_valid_notebook(tmp_path: Path):
    path = tmp_path / "alice.ipynb"
    path.write_bytes(b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": "caf\xe9"}]}')
    error = load(Submission("alice", (path,))).error
    assert error == "alice.ipynb is not a valid notebook (not UTF-8 text)"


def test_prose_cells_are_skipped_without_checking_their_content(tmp_path: Path) -> None:
    path = tmp_path / "alice.ipynb"
    path.write_text(
        _v4(
            {"cell_type": "markdown", "source": 42},
            {"cell_type": "raw"},
            {"source": None},
            {"cell_type": "code", "source": "x = 1"},
        )
    )
    assert load(Submission("alice", (path,))).cells == [(1, "x = 1")]


def test_a_source_stored_as_a_list_of_lines_is_joined_as_written(tmp_path: Path) -> None:
    path = tmp_path / "alice.ipynb"
    path.write_text(_v4({"cell_type": "code", "source": ["def f():\n", "    return 1\n", "f()"]}))
    assert load(Submission("alice", (path,))).cells == [(1, "def f():\n    return 1\nf()")]


def test_an_nbformat_3_notebook_is_read_across_its_worksheets(tmp_path: Path) -> None:
    def code(source: str | list[str]) -> dict:
        return {"cell_type": "code", "language": "python", "input": source, "outputs": []}

    heading = {"cell_type": "heading", "level": 1, "source": "Minimax", "metadata": {}}
    worksheets = [{"cells": [heading, code(["a = 1\n", "b = 2"])]}, {"cells": [code("%time c")]}]
    text = json.dumps(
        {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": worksheets}
    )
    path = tmp_path / "old.ipynb"
    path.write_text(text)
    loaded = load(Submission("old", (path,)))
    assert [index for index, _ in loaded.cells] == [1, 2] and loaded.cells[0][1] == "a = 1\nb = 2"
    assert loaded.notes == ["cell 2: IPython magics and shell commands were skipped"]
    upgraded = nbformat.reads(text, as_version=4)
    assert code_sources(text) == [c.source for c in upgraded.cells if c.cell_type == "code"]


NOTEBOOKS = sorted(
    [*(ROOT / "examples" / "class").glob("*.ipynb"), *(ROOT / "assignments").rglob("*.ipynb")]
)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_the_reader_finds_the_same_code_as_nbformat(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        notebook = nbformat.reads(text, as_version=4)
    except Exception:  # noqa: BLE001 - nbformat raises many kinds; the reader must refuse too
        with pytest.raises(NotebookError):
            code_sources(text)
        return
    expected = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    assert code_sources(text) == expected


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
    (tmp_path / "empty").mkdir()
    assert main(["grade", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert "no submissions found" in capsys.readouterr().err


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
    from autograder.grading.reference import reference_source

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


class _CallsOfTime:
    """A submission process whose every call returns 0 after `wall` seconds of wall-clock time,
    of which `own` are its own (the rest it waited for a CPU)."""

    alive = True

    def __init__(self, wall: float, own: float, budget: float) -> None:
        self.wall, self.own, self.limits = wall, own, Limits(budget=budget)

    def call(self, function, *args, **kwargs) -> CallOutcome:
        return CallOutcome("returned", value=0, seconds=self.wall, own_seconds=self.own)


def _skipped(process: _CallsOfTime) -> tuple[dict[str, int], set[str]]:
    """How many calls of each function the budget skipped, and why (its messages)."""
    calls = planned_calls(selected_rules(("minimax_value", "minimax_decision")))
    outcomes = _run_calls(process, ["minimax_value", "minimax_decision"], calls, messages := [])
    skipped = Counter(f for (f, _), o in outcomes.items() if o.status == "skipped")
    return dict(skipped), {m.split(" used its ")[0] for m in messages}


def test_the_budget_counts_the_calls_own_time_not_the_wall_clocks() -> None:
    # 15 + 13 calls of 2 s each on a busy machine, a tenth of a second of their own: 2.8 s of
    # a budget of 6 s, each function within its third of it
    assert _skipped(_CallsOfTime(wall=2.0, own=0.1, budget=6.0)) == ({}, set())
    # half a second of their own: a function's third (2 s) is spent after its fifth call
    assert _skipped(_CallsOfTime(wall=0.5, own=0.5, budget=6.0)) == (
        {"minimax_value": 10, "minimax_decision": 8},
        {"not run: minimax_value", "not run: minimax_decision"},
    )
    # 2.5 s each: minimax_value's third after one call, the whole 3 s after the next function's
    assert _skipped(_CallsOfTime(wall=2.5, own=2.5, budget=3.0)) == (
        {"minimax_value": 14, "minimax_decision": 12},
        {"not run: minimax_value", "not run: this submission"},
    )
