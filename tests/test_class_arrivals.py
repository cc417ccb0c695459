"""How a class arrives (Canvas, Moodle, GitHub Classroom, zips of them), struck where a student
can reach: each hole beside an honest student, who keeps full marks, while the attack gains
nothing, the class finishes and nothing is left behind.

Issue 25: a name a student chose claimed another student's grade (2), a second file was
decided silently (3), one bad zip member stopped the class (5), and real layouts were refused (9).
"""

from __future__ import annotations

import csv
import io
import os
import struct
import tempfile
import zipfile
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.grading import choice, downloads
from autograder.grading.load import Submission, discover, load
from autograder.grading.reference import reference_source
from autograder.grading.rules import FUNCTIONS

FULL = reference_source()  # every graded function, right
EMPTY = "pass\n"  # defines nothing: graded in well under a second
MINIMAX = ("minimax_value", "minimax_decision")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _grade(capsys, *paths: Path, out: Path, quiet: bool = False) -> tuple[dict[str, dict], str]:
    """Grade like an instructor (Assignment 1's rules, so 25 is full marks): the rows of
    grades.csv by student, and what the terminal showed. Nothing of the run may stay behind."""
    argv = ["grade", *map(str, paths), "--out", str(out), "--assignment", "minimax"]
    assert main([*argv, "--workers", "1", *(["--quiet"] if quiet else [])]) == 0
    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    left = list(Path(tempfile.gettempdir()).glob(f"autograder-run-{os.getpid()}-*"))
    assert left == [], f"left behind: {left}"
    return rows, " ".join(capsys.readouterr().out.split())  # as one line: rich wraps at 140


# -- 2: an id comes from where the LMS put it, never from a name a student chose --------------

VICTIM, MALLORY = (
    "Victim Person_1234_assignsubmission_file_",
    "Aaron Mallory_5678_assignsubmission_file_",
)
CLAIMS = (
    "x_1234_1_minimax.py",  # Canvas's pattern
    "Victim Person_1234_assignsubmission_file_minimax.py",  # Moodle's flat pattern
    f"{VICTIM}/minimax.py",  # a Moodle folder inside hers
    "1234/minimax.py",  # a GitHub Classroom folder inside hers
)


def test_no_name_inside_a_moodle_folder_takes_another_students_grade(tmp_path, capsys) -> None:
    download = tmp_path / "download"
    _write(download / VICTIM / "minimax.py", FULL)
    for claim in CLAIMS:
        _write(download / MALLORY / claim, EMPTY)
    rows, _ = _grade(capsys, download, out=tmp_path / "out")
    assert set(rows) == {"1234", "5678"}
    assert rows["1234"]["score"] == "25" and rows["1234"]["status"] == "graded"
    assert rows["5678"]["score"] == "0"
    assert rows["5678"]["status"].count("(defines as many of the graded functions as") == 3


@pytest.mark.parametrize(
    ("layout", "honest", "attacker"),
    [
        ({f"{VICTIM}/minimax.py": FULL, **{f"{MALLORY}/{c}": EMPTY for c in CLAIMS}},
         "1234", "5678"),
        ({"victim/minimax.py": FULL, **{f"mallory/{c}": EMPTY for c in CLAIMS}},
         "victim", "mallory"),
        ({"Victim Person_1234_assignsubmission_file_minimax.py": FULL,
          **{f"Aaron Mallory_5678_assignsubmission_file_{Path(c).name}": EMPTY for c in CLAIMS}},
         "1234", "5678"),
        ({"victim_1234_99_minimax.py": FULL, "mallory_5678_98_x_1234_1_minimax.py": EMPTY,
          "mallory_5678_98_Victim Person_1234_assignsubmission_file_minimax.py": EMPTY},
         "1234", "5678"),
    ],
    ids=["moodle-folders", "github-classroom", "moodle-flat", "canvas"],
)  # fmt: skip
def test_every_file_a_student_chose_to_name_stays_hers(
    tmp_path: Path, layout: dict[str, str], honest: str, attacker: str
) -> None:
    for name, text in layout.items():
        _write(tmp_path / "class" / name, text)
    found = {s.student: s for s in discover([tmp_path / "class"]).submissions}
    assert set(found) == {honest, attacker}
    assert [path.read_text() for path in found[honest].files] == [FULL]
    assert {path.read_text() for path in found[attacker].files} == {EMPTY}


def test_a_moodle_students_folder_given_alone_is_hers_whatever_is_inside(tmp_path) -> None:
    for claim in CLAIMS:
        _write(tmp_path / MALLORY / claim, EMPTY)
    (submission,) = discover([tmp_path / MALLORY]).submissions
    assert submission.student == "5678" and len(submission.files) == len(CLAIMS)
    inner = tmp_path / MALLORY / CLAIMS[0]
    assert downloads.identity(inner).lms_id == "5678"  # a file given alone: her folder decides
    nested = tmp_path / MALLORY / CLAIMS[2]
    assert downloads.identity(nested).lms_id == "5678"  # the outermost Moodle folder decides


# -- 3: several files for one student: the assignment's notebook, and every other one named ---


def test_a_canvas_students_scratch_notebook_is_named_and_her_assignment_graded(
    tmp_path: Path, capsys
) -> None:
    canvas = tmp_path / "canvas"
    _write(canvas / "smithjane_4412_998877_Untitled.py", "x = 1\n")  # sorts first: 'U' < 'm'
    _write(canvas / "smithjane_4412_998877_minimax.py", FULL)
    _write(canvas / "doejohn_5510_998878_minimax.py", FULL)
    out = tmp_path / "out"
    rows, _ = _grade(capsys, canvas, out=out, quiet=True)
    assert rows["4412"]["score"] == "25" and rows["5510"]["score"] == "25"
    status = rows["4412"]["status"]
    assert status.startswith("graded; also handed in, not graded: ")
    assert "smithjane_4412_998877_Untitled.py (defines 0 of the 2 graded functions" in status
    assert rows["5510"]["status"] == "graded"
    assert "smithjane_4412_998877_Untitled.py" in (out / "class.html").read_text()
    assert "smithjane_4412_998877_Untitled.py" in (out / "4412" / "feedback.html").read_text()


def test_the_file_that_defines_the_functions_wins_without_running_anything(tmp_path) -> None:
    ran = tmp_path / "ran"
    helper = _write(tmp_path / "a_helper.py", f"open({str(ran)!r}, 'w')\ndef minimax_value(): 1\n")
    notebook = _write(
        tmp_path / "b_minimax.py",
        "def minimax_value(game, state):\n    return 0\n\n"
        "if True:\n    def minimax_decision(game, state):\n        return None\n",
    )
    broken = _write(tmp_path / "c_broken.py", "def minimax_value(:\ndef minimax_decision(x):\n")
    loaded = load(Submission("ann", (helper, notebook, broken), pick_one=True), functions=MINIMAX)
    assert loaded.files == [notebook] and not ran.exists()
    assert loaded.passed_over == [
        "a_helper.py (defines 1 of the 2 graded functions; b_minimax.py, graded, defines 2)",
        "c_broken.py (defines as many of the graded functions as b_minimax.py, graded as the "
        "first by name)",
    ]
    assert loaded.digest and loaded.cells == [(1, notebook.read_text())]


def test_a_file_that_cannot_be_read_is_never_chosen(tmp_path) -> None:
    honest = _write(tmp_path / "b.py", "def minimax_value(game, state): return 0\n")
    (tmp_path / "a.py").symlink_to(honest)
    loaded = load(Submission("ann", (tmp_path / "a.py", honest), pick_one=True))
    assert loaded.files == [honest] and not loaded.error
    assert loaded.passed_over == ["a.py (a.py is a symbolic link: only regular files are graded)"]


def test_a_status_names_a_few_files_and_counts_the_rest() -> None:
    lines = [f"f{n}.py (why)" for n in range(8)]
    assert choice.status_note(lines).endswith("f4.py (why); and 3 more")
    assert (
        choice.defined_functions(["class A:\n    def minimax_value(self): 0\n"], FUNCTIONS) == set()
    )


# -- 5: one bad zip member is that member's skipped line; the rest of the class is graded ----


def _member_offsets(data: bytes, name: str) -> tuple[int, int]:
    """Where the local header and the central directory entry of member `name` start."""
    local = zipfile.ZipFile(io.BytesIO(data)).getinfo(name).header_offset
    central = data.find(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(name)] != name.encode():
        central = data.find(b"PK\x01\x02", central + 4)
    return local, central


def _broken(data: bytes, name: str, hole: str) -> bytes:
    """The zip `data` with member `name` broken as `hole` says, by patching its bytes."""
    patched = bytearray(data)
    local, central = _member_offsets(data, name)
    if hole == "bad CRC":
        patched[local + 30 + len(name)] ^= 0xFF  # the first byte of the stored data
    elif hole == "sizes that lie":
        for where in (central + 20, central + 24, local + 18, local + 22):
            patched[where : where + 4] = struct.pack("<I", 4)  # says 4 bytes, holds more
    elif hole == "sizes that lie (more)":
        for where in (central + 20, central + 24):
            size = struct.unpack("<I", patched[where : where + 4])[0]
            patched[where : where + 4] = struct.pack("<I", size + 400)
    elif hole == "encrypted":
        patched[local + 6] |= 1
        patched[central + 8] |= 1
    elif hole == "unknown method":
        patched[local + 8 : local + 10] = struct.pack("<H", 99)
        patched[central + 10 : central + 12] = struct.pack("<H", 99)
    return bytes(patched)


HOLES = {
    "bad CRC": "damaged (BadZipFile: Bad CRC-32",
    "sizes that lie": "damaged (BadZipFile: Bad CRC-32",
    "sizes that lie (more)": "damaged",
    "encrypted": "encrypted: the grader has no password",
    "unknown method": "compressed by a method Python cannot read (method 99)",
}


def _zip(members: dict[str, str], path: Path) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as bundle:
        for name, text in members.items():
            bundle.writestr(name, text)
    path.write_bytes(buffer.getvalue())
    return path


@pytest.mark.parametrize("hole", sorted(HOLES))
def test_a_broken_member_is_skipped_with_why_and_the_others_unpacked(tmp_path, hole) -> None:
    members = {"ann_1_1_minimax.py": FULL, "eve_2_2_minimax.py": EMPTY * 50, "zed_3_3_a.py": FULL}
    archive = _zip(members, tmp_path / "submissions.zip")
    archive.write_bytes(_broken(archive.read_bytes(), "eve_2_2_minimax.py", hole))
    into = tmp_path / "into"
    unpacked = downloads.extract(archive, into, max_file_bytes=10**6, max_total_bytes=10**7)
    assert unpacked.files == (into / "ann_1_1_minimax.py", into / "zed_3_3_a.py")
    ((member, why),) = unpacked.skipped
    assert member == "eve_2_2_minimax.py" and why.startswith(HOLES[hole])
    assert sorted(path.name for path in into.iterdir()) == ["ann_1_1_minimax.py", "zed_3_3_a.py"]


@pytest.mark.parametrize("order", [("x.py", "x.py/y.py"), ("x.py/y.py", "x.py")])
def test_a_file_and_a_folder_of_one_name_in_a_zip_do_not_stop_it(tmp_path, order) -> None:
    archive = _zip({order[0]: EMPTY, order[1]: EMPTY, "ann_1_1_a.py": FULL}, tmp_path / "c.zip")
    unpacked = downloads.extract(archive, tmp_path / "into", 10**6, 10**7)
    assert unpacked.skipped == ((order[1], "its path clashes with another member's (a file and "
                                 "a folder of one name)"),)  # fmt: skip
    assert len(unpacked.files) == 2


def test_a_zip_past_its_total_cap_keeps_what_came_before(tmp_path) -> None:
    archive = _zip({f"s{n}_{n}_1_a.py": "x" * 400 for n in range(5)}, tmp_path / "big.zip")
    unpacked = downloads.extract(archive, tmp_path / "into", 1000, 1000)
    assert len(unpacked.files) == 2
    assert unpacked.skipped == (("s2_2_1_a.py", "not unpacked, nor the 2 notebook(s) after it: "
                                 "big.zip unpacks to more than 1,000 bytes"),)  # fmt: skip


def test_a_class_zip_with_every_broken_member_still_grades_the_rest(tmp_path, capsys) -> None:
    members = {"ann_1001_1_minimax.py": FULL, "x.py": EMPTY, "x.py/y.py": EMPTY}
    members |= {f"eve{n}_{2000 + n}_1_minimax.py": FULL for n in range(len(HOLES))}
    archive = _zip(members, tmp_path / "submissions.zip")
    data = archive.read_bytes()
    for number, hole in enumerate(sorted(HOLES)):
        data = _broken(data, f"eve{number}_{2000 + number}_1_minimax.py", hole)
    archive.write_bytes(data)
    other = _write(tmp_path / "bob.py", FULL)  # another path of the same run
    rows, shown = _grade(capsys, archive, other, out=tmp_path / "out")
    assert set(rows) == {"1001", "bob", "x"}  # x.py was unpacked first; x.py/y.py clashed
    assert rows["1001"]["score"] == rows["bob"]["score"] == "25"
    for number, hole in enumerate(sorted(HOLES)):
        assert f"eve{number}_{2000 + number}_1_minimax.py: {HOLES[hole]}" in shown
    assert "x.py/y.py: its path clashes" in shown


def test_a_file_that_is_no_zip_is_one_skipped_line_beside_the_class(tmp_path, capsys) -> None:
    broken = tmp_path / "submissions.zip"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    rows, shown = _grade(capsys, broken, _write(tmp_path / "bob.py", FULL), out=tmp_path / "out")
    assert set(rows) == {"bob"} and rows["bob"]["score"] == "25"
    assert "submissions.zip is not a zip file that can be read" in shown


# -- 9: what real classes hand in -------------------------------------------------------------


def test_a_github_classroom_folder_per_student_is_graded_under_the_login(tmp_path, capsys):
    classroom = tmp_path / "classroom"
    _write(classroom / "octo-ann" / "minimax.py", FULL)
    _write(classroom / "octo-ann" / "README.md", "# minimax\n")
    _write(classroom / "octo-ann" / "helpers" / "plot.py", "import math\n")
    _write(classroom / "octo-ann" / ".git" / "hooks" / "x.py", EMPTY)
    _write(classroom / "octo-ann" / ".ipynb_checkpoints" / "minimax-checkpoint.py", EMPTY)
    _write(classroom / "bob-b" / "work" / "minimax.py", FULL)
    _write(classroom / "cy" / "notes.txt", "nothing yet")
    rows, shown = _grade(capsys, classroom, out=tmp_path / "out")
    assert set(rows) == {"octo-ann", "bob-b"}
    assert rows["octo-ann"]["score"] == rows["bob-b"]["score"] == "25"
    assert "helpers/plot.py (defines 0 of the 2 graded functions" in rows["octo-ann"]["status"]
    assert rows["bob-b"]["status"] == "graded"
    assert "no notebook in this student's folder" in shown


def test_a_zip_of_a_class_folder_is_read_as_the_class(tmp_path, capsys) -> None:
    archive = _zip({"classroom/ann/minimax.py": FULL, "classroom/bob/minimax.py": EMPTY},
                   tmp_path / "classroom.zip")  # fmt: skip
    rows, _ = _grade(capsys, archive, out=tmp_path / "out")
    assert {student: row["score"] for student, row in rows.items()} == {"ann": "25", "bob": "0"}


def test_moodles_flat_download_is_graded_under_the_moodle_ids(tmp_path, capsys) -> None:
    flat = tmp_path / "flat"
    _write(flat / "Jane Smith_733_assignsubmission_file_minimax.py", FULL)
    _write(flat / "John Doe_734_assignsubmission_file_minimax.py", EMPTY)
    _write(flat / "John Doe_734_assignsubmission_onlinetext_onlinetext.html", "<p>hi</p>")
    rows, _ = _grade(capsys, flat, out=tmp_path / "out", quiet=True)
    assert {student: row["score"] for student, row in rows.items()} == {"733": "25", "734": "0"}
    known = downloads.identity(flat / "Jane Smith_733_assignsubmission_file_minimax.py")
    assert known == downloads.Identity("733", "Jane Smith", "moodle")


def test_the_similarity_command_reads_a_broken_zip_as_grade_does(tmp_path, capsys) -> None:
    archive = _zip({"ann_1_1_a.py": FULL, "eve_2_2_a.py": FULL, "x.py": EMPTY, "x.py/y.py": EMPTY},
                   tmp_path / "submissions.zip")  # fmt: skip
    archive.write_bytes(_broken(archive.read_bytes(), "eve_2_2_a.py", "bad CRC"))
    other = _write(tmp_path / "bob.py", FULL)
    assert main(["similarity", str(archive), str(other), "--out", str(tmp_path / "out")]) == 0
    assert "1 ~ bob" in " ".join(capsys.readouterr().out.split())
    assert list(Path(tempfile.gettempdir()).glob(f"autograder-run-{os.getpid()}-*")) == []
