"""What learning management systems take back: a roster of their students, and a grades file
Canvas's gradebook import accepts (`python -m autograder export`). Reading their downloads is
`autograder.grading.downloads`'s."""

from __future__ import annotations

import argparse
import csv
import io
import sys
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.downloads import LmsError
from autograder.grading.records import GradeRecord
from autograder.reports import files, terminal
from autograder.reports.files import spreadsheet_text


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
    records = files.whole_class(args.out, files.saved_students(args.out), [])
    if not records:
        print(f"{fail} {args.out} holds no saved grades: run `grade` first", file=sys.stderr)
        return 2
    try:
        roster = read_roster(args.roster) if args.roster else {}
    except LmsError as error:
        print(f"{fail} {error}", file=sys.stderr)
        return 2
    target = args.out / "canvas.csv"
    try:
        files.write_atomically(target, canvas_csv(records, roster, args.column))
    except OSError as error:
        print(f"{fail} {target} cannot be written: {error.strerror or error}", file=sys.stderr)
        return 2
    unknown = sorted(r.student for r in records if roster and r.student not in roster)
    print(f"wrote {target}: {len(records)} students")
    if unknown:
        names = ", ".join(map(terminal.printable, unknown))
        print(f"not in the roster (check their ids): {names}")
    return 0
