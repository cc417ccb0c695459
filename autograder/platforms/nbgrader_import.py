"""`python -m autograder nbgrader-import COURSE ASSIGNMENT`: our points into nbgrader's gradebook.

`nbgrader autograde` runs the hidden tests in the student's own kernel, where a submission can
import the reference or read the expected answers from the test cell's frames. This command
grades with the jail, for each student nbgrader autograded, the very notebook nbgrader graded:
the notebook of the assignment that holds our hidden-test cells, as the gradebook names it,
alone (a notebook the gradebook does not know is graded by neither). It then overwrites the
automatic score of every hidden-test cell of every such student with the jail's points for that
notebook, or with 0 when it could not be graded (none handed in, a link, too large, no saved
result of exactly its bytes): those students are named, and the command ends with 1. The
cells' outputs in `autograded/` then say what the jail found (`nbgrader_feedback`), so that
`nbgrader generate_feedback` and `nbgrader export` carry trustworthy scores and words. Manual
scores an instructor has entered stay (nbgrader shows a manual score over an automatic one).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.downloads import student_id
from autograder.grading.load import SubmissionFileError, read_submission_file
from autograder.grading.records import GradeRecord
from autograder.grading.rules import ASSIGNMENT_RULES, PLAYED_RULE_IDS, selected_rules
from autograder.platforms.nbgrader_export import contest_groups, grade_id, slug
from autograder.platforms.nbgrader_feedback import cell_output, remove_feedback, rewrite_outputs
from autograder.reports.files import load_saved
from autograder.reports.terminal import printable


@dataclass(frozen=True)
class Imported:
    """What the import changed for one student's notebook."""

    student: str
    notebook: str
    before: float  # nbgrader's automatic points on our cells before the import
    after: float
    missing: tuple[str, ...] = ()  # our cells that nbgrader's gradebook does not have
    problem: str = ""  # why the notebook was not graded in the jail (its cells got 0)
    ignored: tuple[str, ...] = ()  # notebooks beside it that nbgrader does not know
    stale_feedback: bool = False  # feedback generated before the import was removed


@dataclass(frozen=True)
class Staged:
    """One student nbgrader autograded: the digest of the notebook copied for the jail to
    grade, or why there is none (then every hidden-test cell gets 0)."""

    student: str  # nbgrader's student id
    digest: str = ""  # sha256 of the notebook's bytes: the saved results must be of these
    problem: str = ""
    ignored: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """What the import grades: the notebook of the assignment that holds our hidden-test cells,
    those cells (grade id -> rule id, group name), and every student nbgrader autograded."""

    assignment: str
    notebook: str
    cells: dict[str, tuple[str, str]]
    students: tuple[Staged, ...]
    not_autograded: tuple[str, ...] = ()  # folders in submitted/ the gradebook has no entry of


class GradebookError(Exception):
    """The gradebook or the graded results cannot be used, with what to do about it."""


def graded_cells(assignment: str) -> dict[str, tuple[str, str]]:
    """grade id -> (rule id, group name) of the hidden-test cells of `assignment`."""
    rule_ids = ASSIGNMENT_RULES[assignment]
    played = [rule_id for rule_id in rule_ids if rule_id in PLAYED_RULE_IDS]
    answered = tuple(rule_id for rule_id in rule_ids if rule_id not in PLAYED_RULE_IDS)
    cells = {
        grade_id(rule, group): (rule.id, group.name)
        for rule in (selected_rules(answered) if answered else ())
        for group in rule.groups
    }
    for rule_id, name, _ in contest_groups(played):
        cells[f"{rule_id}__{slug(name)}"] = (rule_id, name)
    return cells


def _gradebook(course: Path, assignment: str):
    from nbgrader.api import Gradebook

    database = course / "gradebook.db"
    if not database.is_file():
        raise GradebookError(
            f"{database} does not exist: run `nbgrader autograde {assignment}` in {course} first"
        )
    return Gradebook(f"sqlite:///{database}")


def plan(course: Path, assignment: str, stage: Path | None = None) -> Plan:
    """Find the notebook nbgrader grades our hidden tests in and, for every student it has
    autograded, that student's copy in `submitted/`; copy each one that can be graded into
    `stage/submitted/<student>/<assignment>/` (when `stage` is given) for the jail to grade.

    Raises:
        GradebookError: no gradebook, the assignment is not in it, or our cells are in no
            notebook of it or in several.
    """
    from nbgrader.api import MissingEntry

    ours = graded_cells(assignment)
    with _gradebook(course, assignment) as gradebook:
        try:
            entry = gradebook.find_assignment(assignment)
        except MissingEntry:
            raise GradebookError(
                f"the gradebook has no assignment {assignment}: run `nbgrader generate_assignment "
                f"{assignment}` and `nbgrader autograde {assignment}` in {course} first"
            ) from None
        known = {notebook.name for notebook in entry.notebooks}
        holding = {
            notebook.name: {cell.name for cell in notebook.grade_cells} & ours.keys()
            for notebook in entry.notebooks
        }
        autograded = sorted(submission.student.id for submission in entry.submissions)
    holding = {name: cells for name, cells in holding.items() if cells}
    if len(holding) != 1:
        where = f"in {len(holding)} notebooks ({', '.join(sorted(holding))})" if holding else ""
        raise GradebookError(
            f"the gradebook's {assignment} has our hidden-test cells {where or 'in no notebook'}; "
            f"the import grades one notebook a student: release {assignment} from "
            f"assignments/source/{assignment}/ as it is generated"
        )
    [(notebook, cells)] = holding.items()
    submitted = course / "submitted"
    students = tuple(
        _stage_one(submitted, assignment, notebook, known, student, stage) for student in autograded
    )
    others = sorted(
        folder.name
        for folder in _entries(submitted)
        if folder.name not in set(autograded) and (folder / assignment).is_dir()
    )
    in_order = {cell: key for cell, key in ours.items() if cell in cells}
    return Plan(assignment, notebook, in_order, students, tuple(others))


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(Path(entry.path) for entry in os.scandir(folder))
    except OSError:
        return []


def _stage_one(
    submitted: Path, assignment: str, notebook: str, known: set, student: str, stage: Path | None
) -> Staged:
    """The student's `<notebook>.ipynb` copied into `stage` (read as the grader reads a file:
    regular files only, within the size limit), or why it cannot be graded."""
    if student in ("", ".", "..") or "/" in student or "\0" in student:
        return Staged(student, problem="its id cannot name a folder of submitted/")
    folder = submitted / student / assignment
    for link in (submitted / student, folder):
        if link.is_symlink():
            return Staged(student, problem=f"{link.name} is a symbolic link: not followed")
    handed_in = [
        path.name
        for path in _entries(folder)
        if path.name.lower().endswith(".ipynb") and path.name[: -len(".ipynb")] not in known
    ]
    shown = f"submitted/{student}/{assignment}/"
    path = folder / f"{notebook}.ipynb"
    if not os.path.lexists(path):
        unknown = f" (handed in: {', '.join(handed_in)}, which nbgrader does not grade)"
        return Staged(
            student, problem=f"no {notebook}.ipynb in {shown}{unknown if handed_in else ''}"
        )
    try:
        data = read_submission_file(path)
    except SubmissionFileError as error:
        return Staged(student, problem=str(error), ignored=tuple(handed_in))
    if stage is not None:
        copy = stage / "submitted" / student / assignment / path.name
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(data)
    return Staged(student, hashlib.sha256(data).hexdigest(), ignored=tuple(handed_in))


def import_points(
    course: Path, assignment: str, out: Path, staged: Plan | None = None
) -> list[Imported]:
    """Write the points saved in `out/<student>/results.json` into `course`'s gradebook, for
    every hidden-test cell of every student nbgrader has autograded: the jail's points when its
    results are of the very notebook nbgrader graded (`staged`, by default what `plan` finds
    now), else 0. Rewrites those cells' outputs in `autograded/` to say so.

    Raises:
        GradebookError: no gradebook, or no usable assignment in it (see `plan`).
    """
    staged = staged or plan(course, assignment)
    by_student = {entry.student: entry for entry in staged.students}
    done = []
    with _gradebook(course, assignment) as gradebook:
        submissions = gradebook.find_assignment(assignment).submissions
        for student in sorted(submission.student.id for submission in submissions):
            entry = by_student.get(student) or Staged(
                student, problem="autograded by nbgrader after the import began: run it again"
            )
            done.append(_import_student(gradebook, course, out, staged, entry))
    return done


def _import_student(gradebook, course: Path, out: Path, staged: Plan, entry: Staged) -> Imported:
    """Overwrite the automatic score of one student's hidden-test cells (committed before
    the notebook's outputs are rewritten)."""
    from nbgrader.api import MissingEntry

    record, problem = _jailed_record(out, entry)
    points = _points(record)
    try:
        notebook = gradebook.find_submission_notebook(
            staged.notebook, staged.assignment, entry.student
        )
        by_cell = {grade.cell.name: grade for grade in notebook.grades}
    except MissingEntry:
        by_cell = {}
    before = after = 0.0
    outputs = {}
    for cell, key in staged.cells.items():
        grade = by_cell.get(cell)
        if grade is not None:
            before += grade.auto_score or 0.0
            grade.auto_score = float(points.get(key, 0.0))
            after += grade.auto_score
            outputs[cell] = cell_output(staged.notebook, key, record, problem, grade.max_score)
    gradebook.db.commit()
    autograded = course / "autograded" / entry.student / staged.assignment
    rewritten = rewrite_outputs(autograded / f"{staged.notebook}.ipynb", outputs)
    feedback = course / "feedback" / entry.student / staged.assignment
    return Imported(
        entry.student,
        staged.notebook,
        before,
        after,
        missing=tuple(cell for cell in staged.cells if cell not in by_cell),
        problem=problem,
        ignored=entry.ignored,
        stale_feedback=rewritten and remove_feedback(feedback),
    )


def _jailed_record(out: Path, entry: Staged) -> tuple[GradeRecord | None, str]:
    """The saved jailed record of the student's staged notebook, or why there is none."""
    if entry.problem:
        return None, entry.problem
    saved = load_saved(out, student_id(entry.student))
    if saved is None:
        return None, "its jailed results were not saved"
    if not saved.record.digest:
        return None, f"the grader failed on it: {saved.record.status}"
    if saved.record.digest != entry.digest:
        return None, "its jailed results are not of the notebook nbgrader graded"
    return saved.record, ""


def _points(record: GradeRecord | None) -> dict[tuple[str, str], float]:
    if record is None:
        return {}
    return {(rule.id, group.name): group.points for rule in record.rules for group in rule.groups}


def out_folder(args: argparse.Namespace) -> Path:
    """Where the jailed grading of `args.course`'s submissions is written."""
    return args.out or args.course / "jailed" / args.assignment


def grade_arguments(args: argparse.Namespace, submitted: Path | None = None) -> list[str]:
    """The `grade` command that grades `submitted` (the notebooks `plan` staged; by default the
    course's `submitted/`) with the jail, for the command layer to run (this job never calls the
    command layer itself: `command` is handed a way to run it)."""
    return [
        "grade", str(submitted or args.course / "submitted"), "--assignment", args.assignment,
        "--out", str(out_folder(args)), "--workers", str(args.workers),
        "--timeout", str(args.timeout), "--memory", str(args.memory),
        "--isolation", args.isolation, *(["--quiet"] if args.quiet else []),
    ]  # fmt: skip


def command(args: argparse.Namespace, grade: Callable[[list[str]], int] | None = None) -> int:
    """Grade the notebooks nbgrader graded with `grade` (which runs `grade_arguments`), then put
    the points into nbgrader's gradebook. Without `grade`, the results already in the out folder
    are imported where they are of those very notebooks, and the other students get 0."""
    out = out_folder(args)
    prefix = f"autograder-run-{os.getpid()}-nbgrader-import-"  # swept if this run is killed
    with tempfile.TemporaryDirectory(prefix=prefix) as stage:
        try:
            staged = plan(args.course, args.assignment, Path(stage))
        except GradebookError as error:
            print(f"python -m autograder nbgrader-import: error: {error}", file=sys.stderr)
            return 2
        if grade is not None and (Path(stage) / "submitted").is_dir():
            graded = grade(grade_arguments(args, Path(stage) / "submitted"))
            if graded != 0:
                return graded
        imported = import_points(args.course, args.assignment, out, staged)
    return _report(args.assignment, imported, staged.not_autograded)


def _report(assignment: str, imported: list[Imported], not_autograded: tuple[str, ...]) -> int:
    """Print what changed for each student; 1 if a student got 0 without being graded or nbgrader
    has not autograded one, else 0."""
    for item in imported:
        notes = [f"0: {item.problem}"] if item.problem else []
        if item.missing:
            notes.append(f"not in the gradebook: {', '.join(item.missing)}")
        if item.ignored:
            notes.append(f"not graded, as nbgrader does not know them: {', '.join(item.ignored)}")
        if item.stale_feedback:
            notes.append(f"feedback/{item.student}/{assignment}/ removed (made before the import)")
        note = "".join(f"; {text}" for text in notes)
        print(printable(f"{item.student}: nbgrader {item.before:g} -> jailed {item.after:g}{note}"))
    for student in not_autograded:
        print(printable(f"{student}: not in the gradebook, nothing imported"))
    unmatched = [item.student for item in imported if item.problem]
    if unmatched:
        print(
            printable(
                f"{', '.join(unmatched)}: 0 for every hidden test, as the notebook nbgrader "
                "graded could not be graded in the jail (see above)"
            )
        )
    if not_autograded or any(item.missing for item in imported):
        print(f"run `nbgrader autograde {assignment}` first for the students named above")
    print(f"then: nbgrader generate_feedback {assignment} && nbgrader export")
    return 1 if unmatched or not_autograded or any(item.missing for item in imported) else 0


def add_parser(commands, seconds: Callable, workers: Callable, memory: Callable) -> None:
    """The command's arguments; `seconds`, `workers` and `memory` are cli.py's argparse types."""
    into = commands.add_parser(
        "nbgrader-import",
        help="grade an nbgrader course's submitted/ notebooks with the jail and write the points "
        "into its gradebook (after `nbgrader autograde`)",
    )
    into.add_argument("course", type=Path, help="the nbgrader course folder (holds gradebook.db)")
    into.add_argument("assignment", choices=sorted(ASSIGNMENT_RULES))
    into.add_argument("--out", type=Path, help="our grades and feedback (default COURSE/jailed/A)")
    into.add_argument("--workers", type=workers, default=os.cpu_count() or 1)
    own = "seconds of its own time per graded call"
    into.add_argument("--timeout", type=seconds, default=10.0, help=own)
    into.add_argument("--memory", type=memory, default=2048, help="MiB per submission")
    into.add_argument(
        "--isolation",
        choices=("jail", "process"),
        default="jail",
        help="jail (default): refuse where submissions cannot be jailed; process: trust less",
    )
    into.add_argument("--quiet", action="store_true", help="no progress bar or table")
