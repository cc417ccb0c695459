"""What learning management systems hand out and take back: Canvas and Moodle downloads, a
roster, and a grades file Canvas's gradebook import accepts."""

from __future__ import annotations

import argparse
import csv
import io
import re
import stat
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from autograder import report, terminal
from autograder.records import GradeRecord
from autograder.report import spreadsheet_text

SUFFIXES = (".ipynb", ".py")
CANVAS_NAME = re.compile(
    r"^(?P<name>[^_]+)_(?:LATE_)?(?P<id>\d+)_(?P<submission>\d+)_(?P<file>.+)$"
)
"""Canvas's "Download Submissions": name_userid_submissionid_filename (LATE_ after the name)."""
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assign(?:submission|feedback)_\w+_?$")
"""Moodle's "Download all submissions": a folder per student, Name_id_assignsubmission_file_."""


class LmsError(ValueError):
    """A download or roster the grader cannot use, and why, in one line."""


@dataclass(frozen=True)
class Identity:
    """Who a file belongs to, as the LMS that handed it out names them."""

    lms_id: str
    name: str
    lms: str  # "canvas" or "moodle"


def identity(path: Path) -> Identity | None:
    """The LMS student a submitted file belongs to, read from its name or its folder's name;
    None for a file named some other way (its stem is then the student id)."""
    match = CANVAS_NAME.match(path.name)
    if match and is_submission(path.name):
        return Identity(match["id"], match["name"], "canvas")
    folder = MOODLE_FOLDER.match(path.parent.name)
    if folder:
        return Identity(folder["id"], folder["name"], "moodle")
    return None


def is_submission(name: str) -> bool:
    """Notebooks and Python files, whatever the case of the suffix (`.IPYNB` from Windows)."""
    return name.lower().endswith(SUFFIXES)


def extract(archive: Path, into: Path, max_file_bytes: int, max_total_bytes: int) -> list[Path]:
    """Unpack the notebooks and Python files of an LMS zip into `into`; return their paths.

    Only regular files are taken: symbolic links, devices and folders are skipped, names are
    reduced to safe relative paths (no absolute path, no `..`), and the sizes are checked
    against the caps from the archive's directory before anything is written.

    Raises:
        LmsError: not a zip file, or over a size cap.
    """
    try:
        bundle = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as error:
        raise LmsError(f"{archive.name} is not a zip file that can be read ({error})") from None
    taken, total = [], 0
    with bundle:
        for member in bundle.infolist():
            kind = stat.S_IFMT(member.external_attr >> 16)
            if member.is_dir() or kind not in (0, stat.S_IFREG):
                continue
            parts = [p for p in PurePosixPath(member.filename.replace("\\", "/")).parts
                     if p not in ("", ".", "..", "/")]  # fmt: skip
            if not parts or not is_submission(parts[-1]) or parts[0] == "__MACOSX":
                continue
            if member.file_size > max_file_bytes:
                raise LmsError(
                    f"{member.filename} in {archive.name} is {member.file_size:,} bytes, over "
                    f"the {max_file_bytes:,}-byte cap per notebook"
                )
            total += member.file_size
            if total > max_total_bytes:
                raise LmsError(f"{archive.name} unpacks to more than {max_total_bytes:,} bytes")
            target = into.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with bundle.open(member) as source, open(target, "wb") as sink:
                data = source.read(max_file_bytes + 1)  # the directory may lie about sizes
                if len(data) > max_file_bytes:
                    raise LmsError(f"{member.filename} in {archive.name} is over the size cap")
                sink.write(data)
            taken.append(target)
    return taken


@dataclass(frozen=True)
class Student:
    """One line of a roster."""

    lms_id: str
    name: str
    email: str


def read_roster(path: Path) -> dict[str, Student]:
    """A roster CSV (columns: the LMS id, the name, the e-mail, with a header line naming
    them, in any order: `id`/`lms_id`/`user_id`, `name`, `email`/`e-mail`), keyed by LMS id.

    Raises:
        LmsError: the file cannot be read or has no id column.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise LmsError(f"the roster {path} cannot be read: {error}") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise LmsError(f"the roster {path} is empty")
    header = [cell.strip().lower().replace("-", "").replace(" ", "_") for cell in rows[0]]
    columns = {}
    for field, names in (("lms_id", ("id", "lms_id", "user_id", "canvas_id", "moodle_id")),
                         ("name", ("name", "student", "full_name")),
                         ("email", ("email", "email_address", "mail"))):  # fmt: skip
        columns[field] = next((header.index(n) for n in names if n in header), None)
    if columns["lms_id"] is None:
        raise LmsError(f"the roster {path} has no id column (its header is {rows[0]})")
    students = {}
    for row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue

        def cell(field: str, row: list[str] = row) -> str:
            index = columns[field]
            return row[index].strip() if index is not None and index < len(row) else ""

        students[cell("lms_id")] = Student(cell("lms_id"), cell("name"), cell("email"))
    return students


def canvas_csv(records: list[GradeRecord], roster: dict[str, Student], column: str) -> str:
    """The grades as Canvas's gradebook import reads them: the columns Student, ID, SIS User ID,
    SIS Login ID and Section, then one assignment column (`column`, e.g. "Minimax (1234)",
    Canvas's own name and id for the assignment, to update it rather than create a new one),
    with a "Points Possible" row first."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column])
    maximum = max((float(r.max_score) for r in records), default=0.0)
    writer.writerow(["Points Possible", "", "", "", "", f"{maximum:g}"])
    for record in sorted(records, key=lambda r: r.student):
        student = roster.get(record.student)
        name = student.name if student and student.name else record.student
        login = student.email if student else ""
        cells = [name, record.student, "", login, ""]
        writer.writerow([*map(spreadsheet_text, cells), f"{float(record.score):g}"])
    return buffer.getvalue()


def export_command(args: argparse.Namespace) -> int:
    """Write DIR/canvas.csv from the results saved in DIR."""
    fail = "python -m autograder export: error:"
    if not args.out.is_dir():
        print(f"{fail} --out {args.out} is not a folder of grades", file=sys.stderr)
        return 2
    records = report.whole_class(args.out, report.saved_students(args.out), [])
    if not records:
        print(f"{fail} {args.out} holds no saved grades: run `grade` first", file=sys.stderr)
        return 2
    try:
        roster = read_roster(args.roster) if args.roster else {}
    except LmsError as error:
        print(f"{fail} {error}", file=sys.stderr)
        return 2
    target = args.out / "canvas.csv"
    report.write_atomically(target, canvas_csv(records, roster, args.column))
    unknown = sorted(r.student for r in records if roster and r.student not in roster)
    print(f"wrote {target}: {len(records)} students")
    if unknown:
        names = ", ".join(map(terminal.printable, unknown))
        print(f"not in the roster (check their ids): {names}")
    return 0
