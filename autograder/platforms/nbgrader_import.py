"""`python -m autograder nbgrader-import COURSE ASSIGNMENT`: our points into nbgrader's gradebook.

`nbgrader autograde` runs the hidden tests in the student's own kernel, where a submission can
import the reference or read the expected answers from the test cell's frames. This command
grades the same `submitted/` notebooks with the jail and then overwrites the automatic score of
every hidden-test cell in nbgrader's gradebook with the points the jailed grading gave, so that
`nbgrader export` and `nbgrader generate_feedback` carry trustworthy scores. Manual scores an
instructor has entered stay as they are (nbgrader shows a manual score over an automatic one).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.rules import ASSIGNMENT_RULES, selected_rules
from autograder.platforms.nbgrader_export import grade_id
from autograder.reports.files import read_saved
from autograder.reports.terminal import printable


@dataclass(frozen=True)
class Imported:
    """What the import changed for one student's notebook."""

    student: str
    notebook: str
    before: float  # nbgrader's automatic points on our cells before the import
    after: float
    missing: tuple[str, ...] = ()  # our cells that nbgrader's gradebook does not have


class GradebookError(Exception):
    """The gradebook or the graded results cannot be used, with what to do about it."""


def graded_cells(assignment: str) -> dict[str, tuple[str, str]]:
    """grade id -> (rule id, group name) of the hidden-test cells of `assignment`."""
    return {
        grade_id(rule, group): (rule.id, group.name)
        for rule in selected_rules(ASSIGNMENT_RULES[assignment])
        for group in rule.groups
    }


def import_points(course: Path, assignment: str, out: Path) -> list[Imported]:
    """Write the points saved in `out/<student>/results.json` into `course`'s gradebook.

    Raises:
        GradebookError: no gradebook, or a student that nbgrader has not autograded yet.
    """
    from nbgrader.api import Gradebook, MissingEntry

    database = course / "gradebook.db"
    if not database.is_file():
        raise GradebookError(
            f"{database} does not exist: run `nbgrader autograde {assignment}` in {course} first"
        )
    cells = graded_cells(assignment)
    done = []
    with Gradebook(f"sqlite:///{database}") as gradebook:
        for results in sorted(out.glob("*/results.json")):
            record = read_saved(results).record
            points = {
                (rule.id, group.name): group.points
                for rule in record.rules
                for group in rule.groups
            }
            notebook = Path(record.files[0]).stem if record.files else assignment
            before = after = 0.0
            missing = []
            for cell, key in cells.items():
                try:
                    grade = gradebook.find_grade(cell, notebook, assignment, record.student)
                except MissingEntry:
                    missing.append(cell)
                    continue
                before += grade.auto_score or 0.0
                grade.auto_score = float(points.get(key, 0.0))
                after += grade.auto_score
            gradebook.db.commit()
            done.append(Imported(record.student, notebook, before, after, tuple(missing)))
    return done


def out_folder(args: argparse.Namespace) -> Path:
    """Where the jailed grading of `args.course`'s submissions is written."""
    return args.out or args.course / "jailed" / args.assignment


def grade_arguments(args: argparse.Namespace) -> list[str]:
    """The `grade` command that grades `submitted/` with the jail, for the command layer to run
    before `command` (this job never calls the command layer itself)."""
    return [
        "grade", str(args.course / "submitted"), "--assignment", args.assignment,
        "--out", str(out_folder(args)), "--workers", str(args.workers),
        "--timeout", str(args.timeout), "--memory", str(args.memory),
        "--isolation", args.isolation, *(["--quiet"] if args.quiet else []),
    ]  # fmt: skip


def command(args: argparse.Namespace) -> int:
    """Put the points of the grading run of `grade_arguments` into nbgrader's gradebook."""
    out = out_folder(args)
    try:
        imported = import_points(args.course, args.assignment, out)
    except GradebookError as error:
        print(f"python -m autograder nbgrader-import: error: {error}", file=sys.stderr)
        return 2
    for item in imported:
        note = f"; not in the gradebook: {', '.join(item.missing)}" if item.missing else ""
        print(f"{printable(item.student)}: nbgrader {item.before:g} -> jailed {item.after:g}{note}")
    if any(item.missing for item in imported):
        print(f"run `nbgrader autograde {args.assignment}` first for the students named above")
        return 1
    return 0
