"""Canvas and Moodle downloads, rosters, and the grades file Canvas's gradebook import reads."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import tempfile
import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.grading import downloads
from autograder.platforms import lms


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("class/smithjane_4412_998877_minimax.ipynb", ("4412", "smithjane", "canvas")),
        ("class/smithjane_LATE_4412_998877_minimax-1.IPYNB", ("4412", "smithjane", "canvas")),
        ("class/smithjane_late_4412_998877_minimax.ipynb", ("4412", "smithjane", "canvas")),
        ("class/smithjane_Late_4412_998877_minimax.ipynb", ("4412", "smithjane", "canvas")),
        ("Jane Smith_733_assignsubmission_file_/minimax.ipynb", ("733", "Jane Smith", "moodle")),
        ("class/alice_correct.ipynb", None),
        ("class/smithjane_4412_998877_notes.txt", None),
    ],
)
def test_the_student_id_comes_from_the_lms_name(path: str, expected) -> None:
    found = downloads.identity(Path(path))
    assert (found and (found.lms_id, found.name, found.lms)) == expected


def _zip(path: Path, members: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as bundle:
        for name, data in members.items():
            bundle.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            bundle.writestr(info, target)
    return path


def test_a_zip_unpacks_only_regular_notebooks_inside_the_target(tmp_path: Path) -> None:
    archive = _zip(
        tmp_path / "submissions.zip",
        {"ann_1_2_a.ipynb": b"{}", "../../escape_3_4_b.ipynb": b"{}", "/abs_5_6_c.py": b"",
         "__MACOSX/._ann_1_2_a.ipynb": b"", "readme.txt": b"hi"},
        links={"eve_7_8_d.ipynb": "/work/solutions/minimax.py"},
    )  # fmt: skip
    into = tmp_path / "into"
    taken = downloads.extract(archive, into, max_file_bytes=1000, max_total_bytes=10_000).files
    assert sorted(p.relative_to(into).as_posix() for p in taken) == [
        "abs_5_6_c.py", "ann_1_2_a.ipynb", "escape_3_4_b.ipynb"
    ]  # fmt: skip
    assert all(p.resolve().is_relative_to(into.resolve()) for p in taken)
    assert not any(p.is_symlink() for p in into.rglob("*"))


def test_a_zip_member_over_the_size_caps_is_skipped_before_it_is_written(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "big.zip", {"ann_1_2_a.ipynb": b"x" * 5000, "bo_3_4_b.py": b"x"})
    into = tmp_path / "into"
    unpacked = downloads.extract(archive, into, max_file_bytes=1000, max_total_bytes=10**6)
    assert unpacked.files == (into / "bo_3_4_b.py",)
    assert unpacked.skipped == (("ann_1_2_a.ipynb", "5,000 bytes, over the 1,000-byte cap per "
                                 "notebook"),)  # fmt: skip
    assert not (into / "ann_1_2_a.ipynb").exists()
    with pytest.raises(downloads.LmsError, match="not a zip file"):
        downloads.extract(tmp_path / "big.zip.missing", tmp_path / "into", 1, 1)


def test_a_roster_is_read_by_its_header_in_any_order(tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("\ufeffE-mail,Name,User ID\njane@uni.edu,Jane Smith,4412\n\n")
    assert lms.read_roster(roster) == {"4412": lms.Student("4412", "Jane Smith", "jane@uni.edu")}
    roster.write_text("Name,E-mail\nJane,jane@uni.edu\n")
    with pytest.raises(lms.LmsError, match="no id column"):
        lms.read_roster(roster)


def _saved(out: Path, student: str, score: float) -> None:
    record = {"student": student, "score": score, "max_score": 25, "status": "graded",
              "rules": [], "messages": []}  # fmt: skip
    (out / student).mkdir(parents=True)
    (out / student / "results.json").write_text(json.dumps({"extra_data": {"record": record}}))


def test_export_writes_what_canvas_gradebook_import_reads(tmp_path: Path, capsys) -> None:
    out = tmp_path / "grades"
    for student, score in (("4412", 25), ("=1+1", 10), ("9999", 0)):
        _saved(out, student, score)
    (out / ".students.json").write_text(json.dumps(["4412", "=1+1", "9999"]))
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\n4412,Jane Smith,jane@uni.edu\n9999,Li Wei,li@uni.edu\n")
    argv = ["export", "--format", "canvas", "--out", str(out), "--roster", str(roster),
            "--column", "Minimax (1234)"]  # fmt: skip
    assert main(argv) == 0
    rows = list(csv.reader(io.StringIO((out / "canvas.csv").read_text())))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Minimax (1234)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "25"]
    assert ["Jane Smith", "4412", "", "jane@uni.edu", "", "25"] in rows
    assert ["'=1+1", "'=1+1", "", "", "", "10"] in rows
    assert "not in the roster" in capsys.readouterr().out


def test_export_refuses_a_folder_without_grades(tmp_path: Path, capsys) -> None:
    assert main(["export", "--format", "canvas", "--out", str(tmp_path)]) == 2
    assert "no saved grades" in capsys.readouterr().err


CLASS = Path(__file__).resolve().parents[1] / "examples" / "class"


def test_a_canvas_zip_is_graded_under_the_canvas_ids(tmp_path: Path) -> None:
    honest = (CLASS / "alice_correct.ipynb").read_bytes()
    archive = _zip(
        tmp_path / "submissions.zip",
        {"smithjane_4412_998877_minimax.IPYNB": honest,
         "doejohn_LATE_5510_998878_minimax-1.ipynb": (CLASS / "yves_empty.ipynb").read_bytes()},
        links={"eve_7_8_minimax.ipynb": "/etc/passwd"},
    )  # fmt: skip
    out = tmp_path / "out"
    assert main(["grade", str(archive), "--out", str(out), "--quiet", "--assignment",
                 "minimax"]) == 0  # fmt: skip
    rows = {row["student"]: row for row in csv.DictReader(io.StringIO(
        (out / "grades.csv").read_text()))}  # fmt: skip
    assert set(rows) == {"4412", "5510"}
    assert rows["4412"]["score"] == "25" and rows["5510"]["score"] == "0"
    unpacked = Path(tempfile.gettempdir()).glob(f"autograder-run-{os.getpid()}-unpacked-*")
    assert list(unpacked) == []  # removed once graded


def test_moodle_folders_are_graded_under_the_moodle_ids(tmp_path: Path) -> None:
    folder = tmp_path / "download"
    for name, student in (("Jane Smith_733_assignsubmission_file_", "alice_correct"),
                          ("John Doe_734_assignsubmission_file_", "yves_empty")):  # fmt: skip
        (folder / name).mkdir(parents=True)
        (folder / name / "minimax.ipynb").write_bytes((CLASS / f"{student}.ipynb").read_bytes())
    (folder / "Eve Ill_735_assignsubmission_file_").mkdir()
    out = tmp_path / "out"
    assert main(["grade", str(folder), "--out", str(out), "--quiet", "--assignment",
                 "minimax"]) == 0  # fmt: skip
    rows = {row["student"]: row["score"] for row in csv.DictReader(io.StringIO(
        (out / "grades.csv").read_text()))}  # fmt: skip
    assert rows == {"733": "25", "734": "0"}


def test_export_writes_a_grading_worksheet_moodle_uploads(tmp_path: Path, capsys) -> None:
    out = tmp_path / "grades"
    for student, score in (("733", 25), ("734", 12.5), ("alice", 0)):
        _saved(out, student, score)
    (out / ".students.json").write_text(json.dumps(["733", "734", "alice"]))
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\n733,Jane Smith,jane@uni.edu\n734,=cmd|x,li@uni.edu\n")
    assert main(["export", "--format", "moodle", "--out", str(out), "--roster", str(roster)]) == 0
    rows = list(csv.DictReader(io.StringIO((out / "moodle.csv").read_text())))
    # What Moodle's upload reads (mod/assign/feedback/offline/importgradeslib.php): the
    # Identifier "Participant <id>", the Grade and the Last modified (grade) it compares.
    assert [row["Identifier"] for row in rows] == ["Participant 733", "Participant 734",
                                                   "Participant alice"]  # fmt: skip
    assert [row["Grade"] for row in rows] == ["25", "12.5", "0"]
    assert rows[0]["Full name"] == "Jane Smith" and rows[0]["Email address"] == "jane@uni.edu"
    assert rows[1]["Full name"] == "'=cmd|x" and rows[0]["Maximum Grade"] == "25"
    assert datetime.fromisoformat(rows[0]["Last modified (grade)"]).tzinfo is not None
    assert "Feedback comments" not in rows[0]  # an empty column would clear Moodle's comments
    printed = capsys.readouterr().out
    assert "not Moodle participant ids (Moodle skips their rows): alice" in printed


def test_a_roster_given_to_grade_names_the_students_in_every_report_and_export(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "download"
    for name, student in (
        ("Jane Smith_733_assignsubmission_file_", "alice_correct"),
        ("John Doe_734_assignsubmission_file_", "rupert_broken_json"),
    ):
        (folder / name).mkdir(parents=True)
        (folder / name / "minimax.ipynb").write_bytes((CLASS / f"{student}.ipynb").read_bytes())
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\n733,Jane Smith,jane@uni.edu\n734,John Doe,john@uni.edu\n")
    out = tmp_path / "out"
    assert main(["grade", str(folder), "--out", str(out), "--quiet", "--assignment", "minimax",
                 "--roster", str(roster)]) == 0  # fmt: skip
    rows = {row["student"]: row for row in csv.DictReader(io.StringIO(
        (out / "grades.csv").read_text()))}  # fmt: skip
    assert rows["733"]["name"] == "Jane Smith" and rows["734"]["name"] == "John Doe"
    page = (out / "class.html").read_text()
    assert "<a href='734/feedback.html'>734 (John Doe)</a>:" in page  # not graded: listed
    summary = (out / "summary.csv").read_text()
    assert "734 (John Doe):" in summary
    # A later run without --roster, and the export, use the roster kept in --out.
    assert main(["grade", str(folder), "--out", str(out), "--quiet", "--assignment",
                 "minimax"]) == 0  # fmt: skip
    assert "734 (John Doe)" in (out / "class.html").read_text()
    assert main(["export", "--format", "moodle", "--out", str(out)]) == 0
    assert "Participant 733,Jane Smith,jane@uni.edu,25" in (out / "moodle.csv").read_text()


def test_a_roster_that_cannot_be_read_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    argv = ["grade", str(CLASS / "alice_correct.ipynb"), "--out", str(tmp_path / "out"),
            "--roster", str(tmp_path / "missing.csv")]  # fmt: skip
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "the roster" in lines[0] and "cannot be read" in lines[0]
    assert not (tmp_path / "out").exists()
