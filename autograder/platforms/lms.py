"""What learning management systems take back (`python -m autograder export`): a grades file
Canvas's gradebook import accepts, and a grading worksheet Moodle's assignment takes through
"Upload grading worksheet". Reading their downloads is `autograder.grading.downloads`'s; their
rosters are `autograder.reports.roster`'s (the reports show names beside LMS ids too)."""

from __future__ import annotations

import argparse
import csv
import io
import sys
from datetime import datetime
from pathlib import Path

from autograder.grading.downloads import LmsError
from autograder.grading.records import GradeRecord
from autograder.reports import files, terminal
from autograder.reports.files import spreadsheet_text
from autograder.reports.roster import Student, read_roster, saved_roster  # noqa: F401


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


MOODLE_COLUMNS = ("Identifier", "Full name", "Email address", "Grade", "Maximum Grade",
                  "Last modified (grade)")  # fmt: skip
"""The columns of Moodle's grading worksheet that its upload reads (Identifier, Grade, Last
modified (grade): `mod/assign/feedback/offline/importgradeslib.php`), with the name, e-mail and
maximum to check by eye. No "Feedback comments" column: an empty one would clear comments
already written in Moodle."""


def moodle_csv(
    records: list[GradeRecord], roster: dict[str, Student], modified: datetime | None = None
) -> str:
    """The grades as Moodle's "Upload grading worksheet" reads them: a row per student whose
    Identifier is "Participant " and the id of Moodle's download (`Name_733_assignsubmission_
    file_` is participant 733), with the grade and, as when it was last modified, `modified`
    (default: now), so that Moodle keeps a grade changed there since and takes the rest."""
    stamp = (modified or datetime.now()).astimezone().isoformat(timespec="seconds")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(MOODLE_COLUMNS)
    for record in sorted(records, key=lambda r: r.student):
        student = roster.get(record.student)
        cells = [f"Participant {record.student}", student.name if student else "",
                 student.email if student else ""]  # fmt: skip
        numbers = [f"{float(record.score):g}", f"{float(record.max_score):g}", stamp]
        writer.writerow([*map(spreadsheet_text, cells), *numbers])
    return buffer.getvalue()


def add_parser(commands) -> None:
    """The `export` command's arguments."""
    export = commands.add_parser(
        "export", help="write the grades saved in --out in the format an LMS imports"
    )
    export.add_argument(
        "--format",
        choices=("canvas", "moodle"),
        required=True,
        help="canvas: canvas.csv for the gradebook's import; moodle: moodle.csv, a grading "
        "worksheet for the assignment's 'Upload grading worksheet'",
    )
    export.add_argument("--out", type=Path, required=True, help="a folder `grade` wrote")
    export.add_argument(
        "--roster",
        type=Path,
        help="CSV of LMS id, name and e-mail (default: the one `grade --roster` was given)",
    )
    export.add_argument(
        "--column",
        default="Adversarial search",
        help="the gradebook column, as Canvas names it: 'Name (assignment id)' updates that one",
    )


def export_command(args: argparse.Namespace) -> int:
    """Write DIR/canvas.csv or DIR/moodle.csv from the results saved in DIR, with the names of
    --roster or, without it, of the roster the grading run was given."""
    fail = "python -m autograder export: error:"
    if not args.out.is_dir():
        print(f"{fail} --out {args.out} is not a folder of grades", file=sys.stderr)
        return 2
    records = files.whole_class(args.out, files.saved_students(args.out), [])
    if not records:
        print(f"{fail} {args.out} holds no saved grades: run `grade` first", file=sys.stderr)
        return 2
    try:
        roster = read_roster(args.roster) if args.roster else saved_roster(args.out)
    except LmsError as error:
        print(f"{fail} {error}", file=sys.stderr)
        return 2
    if args.format == "moodle":
        target, text = args.out / "moodle.csv", moodle_csv(records, roster)
    else:
        target, text = args.out / "canvas.csv", canvas_csv(records, roster, args.column)
    try:
        files.write_atomically(target, text)
    except OSError as error:
        print(f"{fail} {target} cannot be written: {error.strerror or error}", file=sys.stderr)
        return 2
    print(f"wrote {target}: {len(records)} students")
    unknown = sorted(r.student for r in records if roster and r.student not in roster)
    if unknown:
        print(f"not in the roster (check their ids): {_listed(unknown)}")
    not_moodle = sorted(r.student for r in records if not r.student.isdigit())
    if args.format == "moodle" and not_moodle:
        print(f"not Moodle participant ids (Moodle skips their rows): {_listed(not_moodle)}")
    return 0


def _listed(students: list[str]) -> str:
    return ", ".join(map(terminal.printable, students))
