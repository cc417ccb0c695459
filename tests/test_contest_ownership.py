"""Who a path given alone belongs to, and who may read what the grader writes (issue 33).

Mallory's folder holds her notebook and a helper she called `zoe.py`: graded alone, it is one
student, mallory, and zoe's saved grade is never touched. A file with a Canvas-like name given
alone is named by its stem. Whatever a folder is read as, a run never overwrites a saved student
it was not given (`reports/ownership.py`), and still updates one it was given. What `--out`
holds (grades, feedback, the roster's names and e-mails) is the instructor's alone, and
`python -m games notebooks` never writes through a link.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

from autograder.cli import main
from autograder.grading.load import discover
from autograder.grading.records import GradeRecord
from autograder.reports import files, ownership
from autograder.reports.files import OutputLock, write_atomically

ROOT = Path(__file__).resolve().parents[1]
CODE = "def minimax_value(game, state):\n    return 0\n"


def _class(tmp_path: Path) -> Path:
    """A class folder of files, and mallory's folder as GitHub Classroom lays it out."""
    folder = tmp_path / "class"
    (folder / "mallory").mkdir(parents=True)
    (folder / "zoe.py").write_text(CODE)
    (folder / "alice.py").write_text(CODE)
    (folder / "mallory" / "connect_four.py").write_text(CODE)
    (folder / "mallory" / "zoe.py").write_text("x = 1\n")
    return folder


def test_a_student_s_folder_given_alone_is_one_student_named_by_the_folder(tmp_path: Path) -> None:
    folder = _class(tmp_path)
    found = discover([folder / "mallory"])
    assert [(s.student, len(s.files), s.pick_one) for s in found.submissions] == [
        ("mallory", 2, True)
    ]
    whole = discover([folder])  # the class folder: a student per file, and mallory's folder
    assert [s.student for s in whole.submissions] == ["alice", "mallory", "zoe"]
    assert next(s for s in whole.submissions if s.student == "zoe").files == (folder / "zoe.py",)


def test_student_names_the_one_student_every_path_belongs_to(tmp_path: Path) -> None:
    folder = _class(tmp_path)
    found = discover([folder / "mallory"], student="mallory_h")
    assert [(s.student, len(s.files)) for s in found.submissions] == [("mallory_h", 2)]
    found = discover([folder / "zoe.py"], student="zoe_k")
    assert [s.student for s in found.submissions] == ["zoe_k"]


def test_a_file_given_alone_is_named_by_its_stem_never_by_a_canvas_pattern(
    tmp_path: Path,
) -> None:
    lone = tmp_path / "smithjane_4412_998877_minimax.py"
    lone.write_text(CODE)
    found = discover([lone])
    assert [s.student for s in found.submissions] == ["smithjane_4412_998877_minimax"]


def test_grading_mallory_s_folder_alone_leaves_zoe_s_grade_as_it_was(tmp_path: Path) -> None:
    folder, out = _class(tmp_path), tmp_path / "out"
    command = [sys.executable, "-m", "autograder", "grade", "--quiet", "--workers", "1"]
    common = ["--assignment", "minimax", "--out", str(out), "--isolation", "process"]
    subprocess.run([*command, str(folder), *common], cwd=ROOT, check=True, timeout=600)
    zoe = (out / "zoe" / "results.json").read_bytes()
    subprocess.run([*command, str(folder / "mallory"), *common], cwd=ROOT, check=True, timeout=600)
    assert (out / "zoe" / "results.json").read_bytes() == zoe


def _grade(capsys, *argv: str) -> str:
    """Grade with `grade ARGV` (minimax, processes, one worker); what it printed."""
    common = ["--assignment", "minimax", "--isolation", "process", "--workers", "1"]
    assert main(["grade", *argv, *common]) == 0
    return " ".join(capsys.readouterr().out.split())


def _zoe(out: Path) -> tuple[bytes, bytes, str]:
    """zoe's saved results, feedback page and grades.csv row."""
    row = next(line for line in (out / "grades.csv").read_text().splitlines() if line[:4] == "zoe,")
    return (
        (out / "zoe" / "results.json").read_bytes(),
        (out / "zoe" / "feedback.html").read_bytes(),
        row,
    )


def _digest(out: Path, student: str) -> str:
    return json.loads((out / student / "results.json").read_text())["extra_data"]["record"][
        "digest"
    ]


def _unrecognised(tmp_path: Path) -> Path:
    """The class, with mallory's folder in a shape no rule knows as one student's (no
    assignment's notebook, no repository): given alone, it is read as a class of two."""
    folder = _class(tmp_path)
    (folder / "mallory" / "connect_four.py").rename(folder / "mallory" / "my_work.py")
    (folder / "mallory" / "zoe.py").write_text(CODE.replace("return 0", "return 1"))
    return folder


def test_a_run_leaves_a_saved_student_it_was_not_given_as_it_was(tmp_path: Path, capsys) -> None:
    """mallory's folder graded alone yields a "zoe" inside the folder zoe was graded from:
    zoe's results, feedback and row stay; the run says so and names --force, which does
    replace her (the replaced results kept under history/)."""
    folder, out = _unrecognised(tmp_path), tmp_path / "out"
    _grade(capsys, str(folder), "--out", str(out))
    saved = _zoe(out)
    printed = _grade(capsys, str(folder / "mallory"), "--out", str(out))
    assert _zoe(out) == saved
    assert "left as saved zoe: found in" in printed and "--force" in printed
    students = [line.split(",")[0] for line in (out / "grades.csv").read_text().splitlines()]
    assert students == ["student", "alice", "mallory", "my_work", "zoe"]
    _grade(capsys, str(folder / "mallory"), "--out", str(out), "--force")
    assert _digest(out, "zoe") != json.loads(saved[0])["extra_data"]["record"]["digest"]
    assert len(list((out / "zoe" / "history").iterdir())) == 1


def test_a_run_given_a_saved_student_updates_her(tmp_path: Path, capsys) -> None:
    """Her file given alone, the class folder graded again, or --student: each updates zoe."""
    folder, out = _unrecognised(tmp_path), tmp_path / "out"
    _grade(capsys, str(folder), "--out", str(out))
    digests = [_digest(out, "zoe")]
    for number, argv in enumerate(
        (
            [str(folder / "zoe.py")],
            [str(folder)],
            [str(folder / "mallory" / "zoe.py"), "--student", "zoe"],
        )
    ):
        (folder / "zoe.py").write_text(CODE + f"# version {number}\n")
        printed = _grade(capsys, *argv, "--out", str(out))
        assert "left as saved" not in printed
        digests.append(_digest(out, "zoe"))
    assert len(set(digests)) == len(digests)


def test_the_guard_reads_where_older_results_came_from_and_knows_a_named_folder(
    tmp_path: Path,
) -> None:
    """Results saved before `.places.json` existed are placed by their record's files; a
    Moodle student's folder given alone names its student, so it is given, not guarded."""
    folder, out = _unrecognised(tmp_path), tmp_path / "out"
    record = GradeRecord("zoe", "graded", 0, 25, files=(str(folder / "zoe.py"),), digest="d")
    files.save_student(out, record, "stamp", "<html></html>")
    found = discover([folder / "mallory"]).submissions
    assert [s.student for s in found] == ["my_work", "zoe"]
    left = ownership.not_given(out, found, {"zoe"}, [folder / "mallory"])
    assert list(left) == ["zoe"] and f"inside {folder}" in left["zoe"]
    moodle = folder / "Zoe Smith_4412_assignsubmission_file_"
    moodle.mkdir()
    (moodle / "zoe.py").write_text(CODE)
    found = discover([moodle]).submissions
    assert [s.student for s in found] == ["4412"]
    assert ownership.not_given(out, found, {"4412"}, [moodle]) == {}
    renamed = [dataclasses.replace(found[0], student="zoe")]  # found under a saved student's id
    assert ownership.not_given(out, renamed, {"zoe"}, [moodle]) == {}
    assert ownership.not_given(out, renamed, {"zoe"}, [folder]) != {}


def test_what_the_grader_writes_is_the_instructor_s_alone(tmp_path: Path) -> None:
    target = tmp_path / "out" / "alice" / "results.json"
    write_atomically(target, "{}")
    assert target.stat().st_mode & 0o777 == 0o600
    assert target.parent.stat().st_mode & 0o777 == 0o700
    assert target.parent.parent.stat().st_mode & 0o777 == 0o700
    with OutputLock(tmp_path / "other"):
        assert (tmp_path / "other").stat().st_mode & 0o777 == 0o700
        assert (tmp_path / "other" / ".grading.lock").stat().st_mode & 0o777 == 0o600
    chosen = tmp_path / "chosen"
    chosen.mkdir(mode=0o750)
    os.chmod(chosen, 0o750)
    write_atomically(chosen / "grades.csv", "")
    assert chosen.stat().st_mode & 0o777 == 0o750  # a folder the instructor made keeps its mode


def test_games_notebooks_never_writes_through_a_link_or_over_a_file(tmp_path: Path) -> None:
    from games.__main__ import copy_notebooks

    course, elsewhere = tmp_path / "course", tmp_path / "elsewhere.ipynb"
    course.mkdir()
    (course / "minimax.ipynb").symlink_to(elsewhere)  # dangling: swapped in by someone else
    (course / "alphabeta.ipynb").write_text("my work")
    assert copy_notebooks(course) == 0
    assert not elsewhere.exists() and (course / "minimax.ipynb").is_symlink()
    assert (course / "alphabeta.ipynb").read_text() == "my work"
    assert (course / "depth_limited.ipynb").stat().st_size > 1000
