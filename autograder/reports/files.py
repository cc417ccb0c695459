"""Write what grading found: grades.csv, results.json, feedback.html and the terminal table."""

from __future__ import annotations

import csv
import fcntl
import hashlib
import io
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.grading.records import GradeRecord
from autograder.grading.rules import ALL_RULE_IDS, RULE_IDS
from autograder.reports.text import printable

if TYPE_CHECKING:
    from autograder.grading.load import Submission
    from autograder.sandbox import Limits


FILE_MODE, FOLDER_MODE = 0o600, 0o700
"""What the grader's files and the folders it creates are: the instructor's alone."""


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader sees the old file or the new one, never half."""
    _make_folder(path.parent)
    if path.is_dir() and not path.is_symlink():
        # Something planted a folder where the file belongs: keep it, but out of the way.
        path.rename(path.with_name(f"{path.name}.moved-aside-{os.getpid()}-{time.time_ns()}"))
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            # Private to the instructor: grades, feedback and the roster's names and e-mails
            # must not be readable by the other users of a shared machine.
            _hand_over(stream.fileno(), FILE_MODE)
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _make_folder(folder: Path) -> None:
    """Create `folder` and its missing parents, private to the instructor (see `_hand_over`);
    a folder that exists already keeps its mode (the instructor chose it)."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for created in reversed(missing):
        created.mkdir(exist_ok=True)
        handle = os.open(created, os.O_RDONLY | os.O_DIRECTORY)
        try:
            _hand_over(handle, FOLDER_MODE)
        finally:
            os.close(handle)


def _hand_over(handle: int, mode: int) -> None:
    """Make a file or folder the grader wrote readable by the instructor: `mode`, and owned by
    the user who ran the grader through sudo (a root run otherwise leaves root's files behind)."""
    os.fchmod(handle, mode)
    if os.geteuid() == 0 and os.environ.get("SUDO_UID", "").isdigit():
        group = os.environ.get("SUDO_GID", "")
        os.fchown(handle, int(os.environ["SUDO_UID"]), int(group) if group.isdigit() else -1)


def results_json(record: GradeRecord, fingerprint: str) -> dict:
    """The Gradescope autograder results format, with our full record under `extra_data`."""
    tests = []
    for rule in record.rules:
        lines = []
        for group in rule.groups:
            mark = "passed" if group.full else "lost"
            lines.append(f"[{mark}] {group.name}: {group.points:g}/{group.max_points:g}")
            first_failed = next((v for v in group.verdicts if not v.passed), None)
            if first_failed is not None:
                lines.append(
                    f"    {first_failed.instance}: expected {first_failed.expected}; "
                    f"got {first_failed.got}. {first_failed.hint}"
                )
        tests.append(
            {
                "name": f"{rule.id}: {rule.description}",
                "score": rule.points,
                "max_score": rule.max_points,
                "output": "\n".join(lines),
            }
        )
    return {
        "score": record.score,
        "max_score": record.max_score,
        "execution_time": record.seconds,
        "output": "\n".join([f"status: {record.status}", *record.messages]),
        "tests": tests,
        "extra_data": {"fingerprint": fingerprint, "record": record.to_json()},
    }


def save_student(out: Path, record: GradeRecord, fingerprint: str, feedback: str) -> None:
    """Write a student's feedback page, then its results (their presence marks it done).

    A previous result for a different submission is kept under `history/` first, so a grade
    once written is never silently lost.
    """
    folder = out / record.student
    results = folder / "results.json"
    if results.is_file() and _another_result(results, record):
        history = folder / "history"
        _make_folder(history)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        kept = history / f"results-{stamp}-{os.getpid()}.json"
        shutil.copy2(results, kept)
        handle = os.open(kept, os.O_RDONLY)
        try:
            _hand_over(handle, FILE_MODE)
        finally:
            os.close(handle)
    write_atomically(folder / "feedback.html", feedback)
    # On one line: with an indent, json falls back from its C encoder to Python, 20 ms a record.
    write_atomically(results, json.dumps(results_json(record, fingerprint)))


def _another_result(results: Path, record: GradeRecord) -> bool:
    """Whether the results saved in `results` are of other files, or give another score (an
    unreadable file counts as another result: it is kept too)."""
    try:
        old = json.loads(results.read_text(encoding="utf-8"))
        old_digest = old["extra_data"]["record"]["digest"]
    except (ValueError, KeyError, OSError):
        old_digest = None
    return old_digest != record.digest or old.get("score") != record.score


def remove_temporary_files(out: Path) -> int:
    """Delete the half-written files a killed run left behind (only ours: `.<name>.*.tmp`)."""
    removed = 0
    for path in out.rglob(".*.tmp"):
        if path.is_file():
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def graded_rule_ids(records: list[GradeRecord]) -> tuple[str, ...]:
    """The rule ids the records were graded on, in the usual order."""
    present = list(dict.fromkeys(rule.id for record in records for rule in record.rules))
    known = tuple(rule_id for rule_id in ALL_RULE_IDS if rule_id in present)
    return (*known, *(rule_id for rule_id in present if rule_id not in known)) or RULE_IDS


def grades_csv(records: list[GradeRecord], names: dict[str, str] | None = None) -> str:
    """One row per student: student, score, max_score, one column per rule id, status; with a
    roster's `names` (by LMS id), a name column after the student's id."""
    rule_ids = graded_rule_ids(records)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    named = ["name"] if names else []
    writer.writerow(["student", *named, "score", "max_score", *rule_ids, "status"])
    for record in sorted(records, key=lambda r: r.student):
        points = {rule.id: rule.points for rule in record.rules}
        name = [spreadsheet_text(names.get(record.student, ""))] if names else []
        writer.writerow(
            [
                spreadsheet_text(record.student),
                *name,
                _number(record.score),
                _number(record.max_score),
                *(_number(points.get(rule_id, 0)) for rule_id in rule_ids),
                spreadsheet_text(record.status),
            ]
        )
    return buffer.getvalue()


def spreadsheet_text(text: str) -> str:
    """`text` as a CSV cell a spreadsheet shows and never runs, as it reads on the terminal:
    control and bidirectional characters shown as escapes (`text.printable`: a carriage return
    or an escape sequence in a student id stays out of every file an instructor opens), and a
    cell starting with =, +, - or @, which is read as a formula, given a leading quote."""
    text = printable(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _number(value: float) -> str:
    return f"{value:g}"


# -- loading saved results, and reusing an unchanged one ----------------------------------


@dataclass(frozen=True)
class Saved:
    """A student's results as a run saved them: the record, and the stamp it was graded under
    (see `grading_stamp`)."""

    record: GradeRecord
    stamp: str


def read_saved(results: Path) -> Saved:
    """The results saved in `results` (a results.json).

    Raises:
        OSError, ValueError, KeyError, TypeError, AttributeError: the file cannot be read, or
            holds no record.
    """
    saved = json.loads(results.read_text(encoding="utf-8"))["extra_data"]
    return Saved(GradeRecord.from_json(saved["record"]), saved.get("fingerprint", ""))


def load_saved(out: Path, student: str) -> Saved | None:
    """The saved results of a student, or None if there are none (or they are unreadable)."""
    try:
        return read_saved(out / student / "results.json")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def unchanged_record(
    out: Path, submission: Submission, stamp: str, max_bytes: int
) -> GradeRecord | None:
    """The saved record of `submission` if it may stand for grading it now: graded under a
    `reusable` stamp, from files with the same digest. None if it must be graded again."""
    from autograder.grading.load import (
        file_digest,  # autograder.grading.load imports lms, which imports this
    )

    saved = load_saved(out, submission.student)
    if saved is None or not reusable(saved.stamp, stamp):
        return None
    digest = file_digest(submission, max_bytes)  # after the cheap tests: it reads the files
    return saved.record if digest and saved.record.digest == digest else None


def unchanged_records(
    out: Path, submissions: list[Submission], stamp: str, max_bytes: int
) -> tuple[dict[str, GradeRecord], list[Submission]]:
    """The `unchanged_record` of each submission that has one, by student, and the
    submissions that must be graded."""
    unchanged: dict[str, GradeRecord] = {}
    pending = []
    for submission in submissions:  # read only to be recognised: parsed when graded
        record = unchanged_record(out, submission, stamp, max_bytes)
        if record is None:
            pending.append(submission)
        else:
            unchanged[submission.student] = record
    return unchanged, pending


MANIFEST = ".students.json"
"""The students whose results this grader saved in an output folder, read before any
submission runs: grades.csv is rebuilt from them, never from whatever folders exist."""


def saved_students(out: Path) -> set[str]:
    """The students this grader has saved in `out` (read before any submission runs)."""
    try:
        names = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {name for name in names if isinstance(name, str)} if isinstance(names, list) else set()


def whole_class(out: Path, known: set[str], records: list[GradeRecord]) -> list[GradeRecord]:
    """This run's records plus the saved results of every other student the grader knew
    before the run: regrading one student keeps everyone else in grades.csv."""
    graded = {record.student for record in records}
    whole = list(records)
    for student in sorted(known - graded):
        saved = load_saved(out, student)
        if saved is not None:  # None: its folder was removed by hand, the student has left
            whole.append(saved.record)
    return whole


# -- the grader's stamp, and one run per folder ------------------------------------------

PACKAGES = ("autograder", "solutions", "games")


def fingerprint() -> str:
    """A hash of the grader, the reference and the toolkit: results are reused only if equal."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parents[2]
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class OutputLock:
    """One grading run per output folder: a second one refuses with a clear message."""

    def __init__(self, out: Path) -> None:
        _make_folder(out)
        self.path = out / ".grading.lock"
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, FILE_MODE)
        self.handle = os.fdopen(descriptor, "a+")  # held for the whole run

    def __enter__(self) -> OutputLock:
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.seek(0)
            owner = self.handle.read().strip() or "another process"
            self.handle.close()
            raise SystemExit(
                f"another grading run ({owner}) is writing to {self.path.parent}; wait for it to "
                "finish or choose another --out folder"
            ) from None
        self.handle.seek(0)
        self.handle.truncate()
        self.handle.write(f"pid {os.getpid()}")
        self.handle.flush()
        return self

    def __exit__(self, *exc) -> None:
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def grading_stamp(
    rule_ids: tuple[str, ...],
    isolation: str,
    limits: Limits,
    max_mb: float,
    move_seconds: float | None = None,
    move_states: int | None = None,
    course_seed: int | None = None,
) -> str:
    """What a saved result was graded under: the grader's code, the rules, the isolation and
    the limits (with a contest's states and CPU time a move, and its course seed). A result is
    reused only under the same stamp, or one with weaker isolation."""
    bounds = (
        f"timeout={limits.timeout:g},budget={limits.budget:g},memory={limits.memory_mb},"
        f"max_size={max_mb:g}"
        + (f",move={move_seconds:g}" if move_seconds else "")
        + (f",states={move_states}" if move_states else "")
        + _course(rule_ids, course_seed)
    )
    return f"{fingerprint()}:{','.join(rule_ids)}|{isolation}|{bounds}"


COURSE_SEED_VARIABLE = "AUTOGRADER_COURSE_SEED"
"""Where the course seed is set when no option gives it (`autograder.contest.positions` reads
the same variable)."""


def _course(rule_ids: tuple[str, ...], course_seed: int | None) -> str:
    """The stamp's part for the contest's suite of positions: its course seed ("" without it).

    Raises:
        SystemExit: the variable holds something other than a whole number.
    """
    if "agent_keeps_the_value" not in rule_ids:
        return ""
    text = str(course_seed) if course_seed is not None else os.environ.get(COURSE_SEED_VARIABLE, "")
    if text.strip() and not text.strip().lstrip("-").isdigit():
        raise SystemExit(f"grade: error: {COURSE_SEED_VARIABLE} is a whole number: {text!r}")
    return f",course={text.strip() or 'default'}"


def reusable(previous: str, current: str) -> bool:
    """Whether a result stamped `previous` may stand for one graded now under `current`: the
    same grader, rules and limits, and isolation at least as strong (a result graded without
    the jail is graded again where the jail is available)."""
    if previous == current:
        return True
    old, new = previous.split("|"), current.split("|")
    return len(old) == len(new) == 3 and old[::2] == new[::2] and old[1] == "jail"
