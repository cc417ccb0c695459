"""Who the LMS ids are: a roster of the class (LMS id, name, e-mail), read from the CSV an
instructor gives (`grade --roster`, `export --roster`) and kept in the output folder, so that
every report of a class graded under LMS ids shows names beside them."""

from __future__ import annotations

import argparse
import csv
import io
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from autograder.grading.downloads import LmsError
from autograder.reports.files import write_atomically


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


SAVED = ".roster.json"
"""The roster of the last run given one, in its output folder: later runs and `export` use it."""


def save_roster(out: Path, roster: dict[str, Student]) -> None:
    """Keep `roster` in the output folder `out` for the runs after this one."""
    write_atomically(out / SAVED, json.dumps([asdict(student) for student in roster.values()]))


def saved_roster(out: Path) -> dict[str, Student]:
    """The roster kept in `out` by an earlier run ({} if there is none, or it is unreadable)."""
    try:
        rows = json.loads((out / SAVED).read_text(encoding="utf-8"))
        students = [Student(str(r["lms_id"]), str(r["name"]), str(r["email"])) for r in rows]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {student.lms_id: student for student in students}


def roster_names(roster: dict[str, Student]) -> dict[str, str]:
    """The roster's names by LMS id (only those it has a name for)."""
    return {lms_id: student.name for lms_id, student in roster.items() if student.name}


def labelled(student: str, names: dict[str, str]) -> str:
    """The student id with the name beside it, if `names` has one: "12513 (Jane Smith)"."""
    name = names.get(student, "")
    return f"{student} ({name})" if name else student


def roster_argument(text: str) -> dict[str, Student]:
    """An argparse type (`grade --roster`): the roster in the file `text`, or why it cannot
    be read, in one line."""
    try:
        return read_roster(Path(text))
    except LmsError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def class_roster(out: Path, given: dict[str, Student] | None) -> dict[str, Student]:
    """The roster a run was `given`, kept in `out` for the runs after it; without one, the
    roster kept there ({} if none)."""
    if given is None:
        return saved_roster(out)
    save_roster(out, given)
    return given
