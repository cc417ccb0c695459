"""Who a path given alone belongs to, and who may read what the grader writes (issue 33).

Mallory's folder holds her notebook and a helper she called `zoe.py`: graded alone, it is one
student, mallory, and zoe's saved grade is never touched. A file with a Canvas-like name given
alone is named by its stem. What `--out` holds (grades, feedback, the roster's names and
e-mails) is the instructor's alone, and `python -m games notebooks` never writes through a link.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from autograder.grading.load import discover
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
