"""Faults around a grading run: killed halfway, run twice at once, fed a messy folder.

Each scenario runs the real command, `python -m autograder grade`, in a session of its own and
with its own TMPDIR, on a few fast students of the example class or on files made here. A
fault the grader does not yet handle is a test marked `xfail(strict=True)` whose reason says
what goes wrong.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from autograder.grading.rules import FUNCTIONS, RULE_IDS

ROOT = Path(__file__).resolve().parents[1]
CLASS = ROOT / "examples" / "class"
# Fast students, in grading order: three full solutions first, so that a run killed once three
# results exist has work left; a broken notebook and an empty one give non-"graded" rows.
SUBSET = ("alice_correct", "bob_last_ties", "carol_negamax", "dan_strict_cutoff",
          "rupert_broken_json", "yves_empty")  # fmt: skip
HONEST_MINIMAX_VALUE = """\
from games import MAX


def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)
"""


def start_grading(paths: list[Path], out: Path, scratch: Path) -> subprocess.Popen:
    """Start the grading command with one worker; its output is captured."""
    scratch.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "autograder", "grade", *map(str, paths), "--out", str(out),
         "--workers", "1", "--timeout", "3", "--memory", "512"],
        cwd=scratch.parent,
        env={**os.environ, "TMPDIR": str(scratch)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )  # fmt: skip


def finish(process: subprocess.Popen) -> tuple[int, str, str]:
    try:
        stdout, stderr = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
    return process.returncode, stdout, stderr


def sandbox_processes(scratch: Path) -> list[int]:
    """Processes whose working directory is in `scratch`: the sandboxes of one run."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "cwd").startswith(str(scratch)):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def rows(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def record(out: Path, student: str) -> dict:
    return json.loads((out / student / "results.json").read_text())["extra_data"]["record"]


def one_line(text: str) -> str:
    """Terminal output with rich's line wrapping undone."""
    return " ".join(text.split())


def _messy_folder(folder: Path) -> None:
    """Text, binary and suffix-less files, a sub-folder, an empty file named .ipynb, notebooks
    without code, a notebook of another assignment, one with 20 MB of outputs, and one good
    submission."""
    folder.mkdir()
    (folder / "README.txt").write_text("Submissions of week 3.\n")
    (folder / "notes.pdf").write_bytes(b"%PDF-1.4\n\xff\xfe\x00binary")
    (folder / "Makefile").write_text("all:\n\ttrue\n")
    (folder / "drafts").mkdir()
    nbformat.write(new_notebook(cells=[new_code_cell("x = 1")]), folder / "drafts" / "old.ipynb")
    (folder / "empty.ipynb").write_bytes(b"")
    nbformat.write(new_notebook(), folder / "no_cells.ipynb")
    nbformat.write(new_notebook(cells=[new_markdown_cell("# Only prose")]), folder / "prose.ipynb")
    other = new_notebook(
        cells=[
            new_markdown_cell("# Assignment 5: expectiminimax"),
            new_code_cell("def expectiminimax_value(game, state):\n    return 0\n"),
            new_code_cell("def maxn_value(game, state):\n    return (0, 0, 0)\n"),
        ]
    )
    nbformat.write(other, folder / "other_assignment.ipynb")
    huge = new_code_cell(HONEST_MINIMAX_VALUE + "print('x' * 20_000_000)\n")
    huge.outputs = [new_output("stream", name="stdout", text="x" * 20_000_000 + "\n")]
    nbformat.write(new_notebook(cells=[huge]), folder / "huge_outputs.ipynb")
    (folder / "good.py").write_text(HONEST_MINIMAX_VALUE)


# -- the runs ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every scenario's runs, started at once so that they share the two cores:

    - `killed`: the SUBSET class, SIGKILLed once three students have results, then `resumed`;
    - `first` and `second`: the same class into one shared folder at the same moment; the one
      that is not refused is also the uninterrupted run the resumed one is compared with;
    - `messy` and `latin`: folders of things that are not clean notebooks.
    """
    base = tmp_path_factory.mktemp("faults")
    folder = base / "class"
    folder.mkdir()
    for student in SUBSET:
        shutil.copy(CLASS / f"{student}.ipynb", folder)
    _messy_folder(base / "messy")
    latin = base / "latin"
    latin.mkdir()
    (latin / "good.py").write_text(HONEST_MINIMAX_VALUE)
    with open(os.fsencode(latin) + b"/caf\xe9.py", "wb") as handle:
        handle.write(HONEST_MINIMAX_VALUE.encode())
    killed = start_grading([folder], base / "out", base / "scratch-killed")
    started = {
        "first": start_grading([folder], base / "shared", base / "scratch-first"),
        "second": start_grading([folder], base / "shared", base / "scratch-second"),
        "messy": start_grading([base / "messy"], base / "messy-out", base / "scratch-messy"),
        "latin": start_grading([latin], base / "latin-out", base / "scratch-latin"),
    }
    deadline = time.monotonic() + 90
    while len(list((base / "out").glob("*/results.json"))) < 3:
        assert killed.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "no three results within 90 s"
        time.sleep(0.01)
    os.kill(killed.pid, signal.SIGKILL)
    finish(killed)
    after_kill = {
        path.parent.name: (path.read_bytes(), path.stat().st_mtime_ns)
        for path in (base / "out").glob("*/results.json")
    }
    feedback_pages = {path.parent.name: path.read_text() for path in base.glob("out/*/*.html")}
    deadline = time.monotonic() + 5
    while sandbox_processes(base / "scratch-killed") and time.monotonic() < deadline:
        time.sleep(0.1)
    orphaned = sandbox_processes(base / "scratch-killed")
    for pid in orphaned:
        os.kill(pid, signal.SIGKILL)
    # What a SIGKILL inside report.write_atomically leaves: a half-written temporary file.
    unfinished = sorted(set(SUBSET) - set(after_kill))[0]
    (base / "out" / unfinished).mkdir(exist_ok=True)
    half = base / "out" / unfinished / ".results.json.k1ll3d.tmp"
    half.write_text('{"score": 10')
    resumed = start_grading([folder], base / "out", base / "scratch-resumed")
    finished = {name: finish(process) for name, process in started.items()}
    return {
        "base": base,
        "resumed": finish(resumed),
        "after_kill": after_kill,
        "feedback_pages": feedback_pages,
        "orphaned": orphaned,
        "half": half,
        **finished,
    }


# -- killed halfway -------------------------------------------------------------------------


def test_a_run_killed_halfway_leaves_only_complete_results(runs: dict) -> None:
    assert 3 <= len(runs["after_kill"]) < len(SUBSET), "not killed halfway"
    for student, (data, _) in runs["after_kill"].items():
        assert json.loads(data)["extra_data"]["record"]["student"] == student
    for page in runs["feedback_pages"].values():
        assert page.rstrip().endswith("</html>")
    assert runs["orphaned"] == [], "sandboxes outlived the killed grader by 5 s"


def test_the_restarted_run_writes_each_grade_once_and_equals_an_uninterrupted_run(runs: dict):
    base = runs["base"]
    code, stdout, stderr = runs["resumed"]
    assert code == 0, stderr[-2000:]
    done = runs["after_kill"]
    assert f"{len(done)} unchanged submission(s) already graded" in one_line(stdout)
    for student, (data, mtime) in done.items():
        path = base / "out" / student / "results.json"
        assert path.read_bytes() == data and path.stat().st_mtime_ns == mtime, student
    assert not list((base / "out").rglob("history")), "a grade was written twice"
    assert (base / "out" / "grades.csv").read_text() == (base / "shared" / "grades.csv").read_text()
    assert set(rows(base / "out")) == set(SUBSET)


def test_the_restarted_run_removes_half_written_temporary_files(runs: dict) -> None:
    assert not runs["half"].exists()
    assert list(runs["base"].glob("out/**/*.tmp")) == []


# -- two runs at once -------------------------------------------------------------------------


def test_two_runs_on_one_output_folder_one_refuses_the_other_completes(runs: dict) -> None:
    results = [runs["first"], runs["second"]]
    codes = sorted(code for code, _, _ in results)
    assert codes[0] == 0 and codes[1] != 0, results
    refused = next(result for result in results if result[0] != 0)
    assert "another grading run" in one_line(refused[1] + refused[2])
    assert "Traceback" not in refused[2]
    shared = runs["base"] / "shared"
    assert set(rows(shared)) == set(SUBSET)
    assert rows(shared)["alice_correct"]["score"] == "100"
    for student in SUBSET:
        assert record(shared, student)["student"] == student
    assert not list(shared.rglob("*.tmp")) and not list(shared.rglob("history"))


# -- a messy submission folder ----------------------------------------------------------------


def test_files_that_are_not_submissions_are_skipped_with_a_reason(runs: dict) -> None:
    code, stdout, stderr = runs["messy"]
    assert code == 0, stderr[-2000:]
    printed = one_line(stdout)
    for name, reason in (
        ("README.txt", "not a notebook or Python file (.txt)"),
        ("notes.pdf", "not a notebook or Python file (.pdf)"),
        ("Makefile", "not a notebook or Python file (no suffix)"),
    ):
        assert f"skipped {runs['base'] / 'messy' / name}: {reason}" in printed, name
    graded = rows(runs["base"] / "messy-out")
    assert not {"README", "notes", "Makefile", "old"} & set(graded)
    # a folder in a class folder is a student of its own (GitHub Classroom's layout)
    assert graded["drafts"]["score"] == "0"


def test_each_unusable_notebook_gets_a_row_with_a_clear_status(runs: dict) -> None:
    graded = rows(runs["base"] / "messy-out")
    assert set(graded) == {"empty", "no_cells", "prose", "other_assignment", "huge_outputs",
                           "good", "drafts"}  # fmt: skip
    assert graded["empty"]["status"].startswith("empty.ipynb is not a valid notebook")
    assert graded["no_cells"]["status"] == "the submission has no code cells"
    assert graded["prose"]["status"] == "the submission has no code cells"
    for student in ("empty", "no_cells", "prose", "other_assignment"):
        assert graded[student]["score"] == "0", student


def test_a_notebook_of_another_assignment_scores_0_and_says_what_is_missing(runs: dict):
    messages = record(runs["base"] / "messy-out", "other_assignment")["messages"]
    for function in FUNCTIONS:
        assert any(m.startswith(f"{function} is not defined") for m in messages), function


def test_a_notebook_with_20_mb_of_outputs_is_graded_on_its_code(runs: dict) -> None:
    assert (runs["base"] / "messy" / "huge_outputs.ipynb").stat().st_size > 20_000_000
    graded = rows(runs["base"] / "messy-out")
    for student in ("huge_outputs", "good"):
        row = graded[student]
        assert row["status"] == "graded", student
        assert {rule_id: row[rule_id] for rule_id in RULE_IDS} == {
            **dict.fromkeys(RULE_IDS, "0"),
            "minimax_value": "15",
        }
    assert len(record(runs["base"] / "messy-out", "huge_outputs")["output"]) <= 4000


def test_the_status_of_a_notebook_of_another_assignment_says_so(runs: dict) -> None:
    assert rows(runs["base"] / "messy-out")["other_assignment"]["status"] != "graded"


def test_a_file_name_that_is_not_utf8_gets_a_clear_status_and_the_others_are_graded(
    runs: dict,
) -> None:
    code, stdout, stderr = runs["latin"]
    assert code == 0, stderr[-2000:]
    graded = rows(runs["base"] / "latin-out")
    assert graded["good"]["minimax_value"] == "15"
    assert len(graded) == 2 or "caf" in one_line(stdout)
