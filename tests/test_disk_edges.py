"""What arrives on disk: links, FIFOs, devices, huge notebooks and hostile names, beside an
honest student who must still score 100.

Classes arrive as archives that keep symbolic links, FIFOs and devices. Each entry below is one
class of hole; the class is graded in one run, as an instructor runs it, in a subprocess with a
time limit (a FIFO that hung the grader would fail the test, not hang it).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grading.load import Submission, discover, load, strip_magics
from autograder.reports.text import printable

ROOT = Path(__file__).resolve().parents[1]
HONEST = ROOT / "examples" / "class" / "alice_correct.ipynb"
SOLUTION = ROOT / "assignments" / "source" / "minimax" / "minimax.ipynb"
EVE = "eve[bold]x\x1b[31m"


def _with_u2028(target: Path) -> None:
    """The honest notebook with a line separator (U+2028) pasted into a comment of each cell."""
    notebook = json.loads(HONEST.read_text())
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = "# pasted from a web page:\u2028 a comment\n" + source
    target.write_text(json.dumps(notebook))


def _empty_cells(target: Path, cells: int) -> None:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": ""}  # fmt: skip
    target.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                                  "cells": [cell] * cells}))  # fmt: skip


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("class")
    shutil.copy(HONEST, folder / "honest.ipynb")
    (folder / "linked_solution.ipynb").symlink_to(SOLUTION)
    (folder / "escape.ipynb").symlink_to("/etc/passwd")
    (folder / "zero.ipynb").symlink_to("/dev/zero")
    (folder / "loop.ipynb").symlink_to(folder / "loop.ipynb")
    os.mkfifo(folder / "fifo.ipynb")
    os.mknod(
        folder / "device.ipynb", 0o600 | 0o020000, os.makedev(1, 5)
    ) if os.geteuid() == 0 else None
    (folder / "linked_folder").symlink_to(ROOT / "examples" / "class", target_is_directory=True)
    _with_u2028(folder / "pasted.ipynb")
    _empty_cells(folder / "huge.ipynb", 40_000)  # about 3.7 MB, over --max-size 2
    shutil.copy(HONEST, folder / f"{EVE}.ipynb")
    shutil.copy(HONEST, folder / "=HYPERLINK(1).ipynb")
    out = tmp_path_factory.mktemp("out")
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(folder), "--out", str(out),
         "--max-size", "2", "--workers", "2", "--timeout", "5"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    return {"rows": rows, "stdout": done.stdout, "out": out}


def test_the_honest_student_scores_full_marks_beside_every_attack(graded: dict) -> None:
    assert graded["rows"]["honest"]["score"] == "100"


@pytest.mark.parametrize(
    ("student", "says"),
    [
        ("linked_solution", "symbolic link"),
        ("escape", "symbolic link"),
        ("zero", "symbolic link"),
        ("loop", "symbolic link"),
        ("fifo", "FIFO"),
        ("huge", "over the 2 MiB limit"),
    ],
)
def test_a_file_that_is_not_a_regular_notebook_earns_nothing_and_says_why(
    graded: dict, student: str, says: str
) -> None:
    row = graded["rows"][student]
    assert row["score"] == "0" and says in row["status"]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_earns_nothing(graded: dict) -> None:
    assert "a device" in graded["rows"]["device"]["status"]


def test_a_linked_folder_is_not_followed(graded: dict) -> None:
    assert "alice_correct" not in graded["rows"]
    assert "linked_folder" in graded["stdout"] and "not followed" in graded["stdout"]


def test_a_pasted_line_separator_does_not_break_a_correct_notebook(graded: dict) -> None:
    assert graded["rows"]["pasted"]["score"] == "100"


def test_hostile_ids_reach_the_terminal_as_text_and_grades_csv_as_text(graded: dict) -> None:
    assert "\x1b" not in graded["stdout"] and "eve[bold]x" in graded["stdout"]
    assert graded["rows"][printable(EVE)]["score"] == "100"  # grades.csv escapes it too
    assert graded["rows"]["'=HYPERLINK(1)"]["score"] == "100"


def test_the_main_process_never_parses_a_notebook(tmp_path: Path) -> None:
    """300,000 empty cells cost some 140 MiB to parse; the main process must not pay for them."""
    (tmp_path / "class").mkdir()
    _empty_cells(tmp_path / "class" / "empty.ipynb", 300_000)
    # VmHWM is the peak of this process's own memory since it started its program;
    # ru_maxrss would also keep the peak of the forked copy of pytest before exec, which grows
    # with every test that ran before this one.
    probe = (
        "import re, sys; from autograder.cli import main; code = main(sys.argv[1:]); "
        "status = open('/proc/self/status').read(); "
        "print('PEAK', int(re.search(r'VmHWM:\\s+(\\d+)', status).group(1)) // 1024); "
        "sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "grade", str(tmp_path / "class"), "--out",
         str(tmp_path / "out"), "--workers", "2", "--max-size", "100", "--quiet"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    peak_mib = int(done.stdout.split("PEAK")[1].split()[0])
    # Without parsing the notebook the command peaks near 60 MiB of its own (its modules, the
    # forks' bookkeeping); parsing it in this process peaks near 195 MiB.
    assert peak_mib < 130, f"the main process peaked at {peak_mib} MiB"


def test_discovery_in_an_nbgrader_tree_does_not_follow_links(tmp_path: Path) -> None:
    submitted = tmp_path / "submitted"
    (submitted / "ann" / "minimax").mkdir(parents=True)
    shutil.copy(HONEST, submitted / "ann" / "minimax" / "minimax.ipynb")
    (submitted / "bob").mkdir()
    (submitted / "bob" / "minimax").symlink_to(ROOT / "assignments" / "source" / "minimax")
    (submitted / "eve" / "minimax").mkdir(parents=True)
    (submitted / "eve" / "minimax" / "minimax.ipynb").symlink_to(SOLUTION)
    found = discover([tmp_path], "minimax")
    by_student = {s.student: s for s in found.submissions}
    assert set(by_student) == {"ann", "eve"}
    assert by_student["ann"].problem == "" and "symbolic link" in by_student["eve"].problem
    assert "symbolic link" in load(by_student["eve"]).error


def test_a_file_swapped_for_a_link_after_discovery_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "ann.ipynb"
    shutil.copy(HONEST, path)
    (submission,) = discover([tmp_path]).submissions
    path.unlink()
    path.symlink_to(SOLUTION)
    assert "symbolic link" in load(submission).error


def test_cells_without_magics_are_left_exactly_as_written() -> None:
    for source in ("x = 1  # a\u2028b\ny = 2", "s = 'a\x0cb'\r\n", "\u0085x = 1"):
        assert strip_magics(source) == (source, False)
    code, changed = strip_magics("%time x = 1\n# \u2028\ny = 2")
    assert changed and "\u2028" in code and code.endswith("y = 2")


def test_a_submission_over_the_size_cap_is_refused_without_being_read(tmp_path: Path) -> None:
    path = tmp_path / "big.py"
    path.write_text("x = 1\n" * 1000)
    loaded = load(Submission("big", (path,)), max_bytes=100)
    assert "over the" in loaded.error and loaded.cells == []


def test_a_result_is_reused_only_under_the_same_limits_and_isolation_as_strong() -> None:
    from autograder.reports.files import reusable

    base = "abc:minimax_value|{}|timeout=10,memory=2048,max_size=20"
    assert reusable(base.format("jail"), base.format("jail"))
    assert reusable(base.format("jail"), base.format("process"))
    assert not reusable(base.format("process"), base.format("jail"))
    assert not reusable(base.format("jail"), base.format("jail").replace("timeout=10", "timeout=3"))
    assert not reusable("abc:minimax_value", base.format("jail"))  # a result from before stamps


@pytest.mark.skipif(not __import__("autograder.sandbox").sandbox.jail_support()[0],
                    reason="needs the jail (root on Linux)")  # fmt: skip
def test_a_result_graded_without_the_jail_is_graded_again_with_it(tmp_path: Path, capsys) -> None:
    from autograder.cli import main

    out = tmp_path / "out"
    argv = ["grade", str(HONEST), "--out", str(out), "--workers", "1"]
    assert main([*argv, "--isolation", "process"]) == 0
    assert main(argv) == 0  # auto: the jail is available, so alice is graded again
    assert main([*argv, "--isolation", "process"]) == 0  # a jailed result stands for it
    printed = capsys.readouterr().out
    assert printed.count("already graded") == 1
