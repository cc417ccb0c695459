"""Find the submissions under the given paths and read each one's code cells."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grading import choice, downloads
from autograder.grading.notebook_json import NotebookError, code_sources
from autograder.grading.rules import ASSIGNMENT_RULES, FUNCTIONS

SUFFIXES = (".ipynb", ".py")
MAX_BYTES = 20 * 1024 * 1024
"""The largest notebook or Python file read (`--max-size`): 20 MiB is fifty times a notebook
with plots; anything larger is refused before it is read."""
_MAGIC = re.compile(r"^(\s*)([%!])(.*)$")


@dataclass(frozen=True)
class Submission:
    """One student's files under a student id.

    Every file is read, in order (an nbgrader student's notebooks), unless `pick_one`: the files
    are then the several a student handed in where one notebook was asked for (a scratch
    `Untitled.ipynb` beside it, a repository's modules), and `load` reads the one that defines
    the most of the graded functions (`grading/choice.py`).
    """

    student: str
    files: tuple[Path, ...]
    problem: str = ""  # why the files cannot be graded (a link, a FIFO, ...): it earns nothing
    pick_one: bool = False


@dataclass
class Loaded:
    """A submission's code cells, or why they could not be read; the files they come from, and
    a line for each other file of the student that was not graded (and why)."""

    cells: list[tuple[int, str]] = field(default_factory=list)
    error: str = ""
    notes: list[str] = field(default_factory=list)
    digest: str = ""
    files: list[Path] = field(default_factory=list)
    passed_over: list[str] = field(default_factory=list)


@dataclass
class Discovery:
    submissions: list[Submission]
    skipped: list[tuple[Path, str]]


def discover(
    paths: list[Path],
    assignment: str | None = None,
    unpack: Path | None = None,
    student: str | None = None,
) -> Discovery:
    """Turn PATH arguments into submissions, one per student.

    A PATH is a notebook or Python file (the stem is the student id), a class folder of them
    (a folder in it is one student, named by the folder: GitHub Classroom's `class/<login>/`,
    sub-folders and other files included), an nbgrader course folder / `submitted` folder laid
    out as `submitted/<student>/<assignment>/` (there `assignment` picks one assignment's
    folder; without it, every notebook of a student is read as one submission), or an LMS
    download: Canvas's `submissions.zip` or its folder (`name_userid_submissionid_file.ipynb`),
    Moodle's per-student folders (`Name_id_assignsubmission_file_/`) or its flat download
    (`Name_id_assignsubmission_file_minimax.ipynb`), graded under the LMS's id. An id comes from
    where the LMS put it, never from a name inside a student's folder (`grading/downloads.py`).
    A zip is unpacked into `unpack` (regular notebooks only; a member that cannot be unpacked is
    skipped with the reason). Suffixes count in any case (`.IPYNB`). Only regular files are
    submissions: a symbolic link, FIFO, socket or device with a notebook's name becomes a
    submission with a `problem` (the student's row says why it earned nothing), and links to
    folders are never followed. A student with several files gets one submission that
    `pick_one`s among them. Other files are listed as skipped, with the reason.

    Who a path given alone belongs to: a file is named by its stem (a Canvas-like pattern in
    its name claims no one), and a folder that is one student's (`one_students_folder`: a
    repository, or a folder holding an assignment's notebook) is named by the folder, so that
    her helper `zoe.py` is never graded as student zoe. `student` (`--student`) names the one
    student every path belongs to.
    """
    found = downloads.Found()
    if student is not None:
        for path in map(Path, paths):
            if path.is_dir() and not path.is_symlink():
                downloads.add_student_folder(path, student, found)
            else:
                found.add(student, path)
        return _submissions(found)
    for number, path in enumerate(map(Path, paths)):
        if not os.path.lexists(path):
            found.skipped.append((path, "no such file or folder"))
        elif path.suffix.lower() == ".zip" and not path.is_symlink() and path.is_file():
            if unpack is None:
                found.skipped.append(
                    (path, "a zip file: unpack it, or grade it from the command line")
                )
            else:
                downloads.add_zip(path, unpack / f"zip-{number}", found, MAX_BYTES)
        elif not path.is_dir():
            found.add(path.stem, path)
        elif (path / "submitted").is_dir():
            downloads.add_nbgrader(path / "submitted", found, assignment)
        elif path.name == "submitted":
            downloads.add_nbgrader(path, found, assignment)
        elif moodle := downloads.folder_identity(path.name):  # one Moodle student's folder
            downloads.add_student_folder(path, moodle.lms_id, found)
        elif one_students_folder(path):
            downloads.add_student_folder(path, path.resolve().name, found)
        else:
            downloads.add_class_folder(path, found)
    return _submissions(found)


def one_students_folder(folder: Path) -> bool:
    """Whether `folder`, given alone, is one student's work rather than a class: a repository
    (GitHub Classroom's clone, `.git` inside) or a folder holding an assignment's notebook
    (`connect_four.ipynb`); a class folder holds its students' files or folders instead."""
    if (folder / ".git").exists():
        return True
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.is_file(follow_symlinks=False)]
    except OSError:
        return False
    return any(Path(name).stem.lower() in ASSIGNMENT_RULES for name in names)


def _submissions(found: downloads.Found) -> Discovery:
    submissions = []
    for student, files in sorted(found.files.items()):
        if student in found.whole or len(files) == 1:
            problem = next((why for why in map(not_a_regular_file, files) if why), "")
            submissions.append(Submission(student, tuple(files), problem))
        else:  # the one to grade is chosen when loading, with the reasons in the status
            submissions.append(Submission(student, tuple(files), pick_one=True))
    return Discovery(submissions, found.skipped)


def not_a_regular_file(path: Path) -> str:
    """Why `path` is not graded as a submission file ("" if it is a regular file)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError as error:
        return f"{path.name} cannot be read: {error.strerror}"
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISLNK(mode):
        kind = "a symbolic link"
    elif stat.S_ISFIFO(mode):
        kind = "a FIFO"
    elif stat.S_ISSOCK(mode):
        kind = "a socket"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        kind = "a device"
    else:
        kind = "not a regular file"
    return f"{path.name} is {kind}: only regular files are graded"


def strip_magics(source: str) -> tuple[str, bool]:
    """Comment out IPython magics and shell escapes; return the code and whether any were found.

    A cell magic (`%%time`, `%%capture`) applies to the whole cell: its first line is dropped
    and the body is kept, except for `%%bash`/`%%sh`/`%%script` and friends, whose body is not
    Python and is dropped too.
    """
    lines = source.split("\n")  # not splitlines(): U+2028 or a form feed is not a new line
    if lines and lines[0].lstrip().startswith("%%"):
        magic = lines[0].lstrip()[2:].split()[0] if lines[0].lstrip()[2:].split() else ""
        if magic not in {"time", "timeit", "capture", "prun"}:
            return "# cell magic removed by the grader\n", True
        lines = ["# " + lines[0], *lines[1:]]
        changed = True
    else:
        changed = False
    kept = []
    for line in lines:
        match = _MAGIC.match(line)
        if match:
            indent = match.group(1)
            kept.append(
                f"{indent}pass  # magic removed by the grader: {match.group(2)}{match.group(3)}"
            )
            changed = True
        else:
            kept.append(line)
    if not changed:
        return source, False  # a cell without magics is graded exactly as it was written
    return "\n".join(kept), True


def load(
    submission: Submission, max_bytes: int = MAX_BYTES, functions: Collection[str] = FUNCTIONS
) -> Loaded:
    """Read the code cells of every file of `submission`, in order (of the one file that
    defines the most of `functions`, if it `pick_one`s: see `_load_one_of`).

    Every file is opened without following a symbolic link and without blocking (a FIFO
    cannot hang the grader), checked to be a regular file of at most `max_bytes`, and only
    then read. Any problem becomes `Loaded.error`, the student's status.
    """
    if submission.problem:
        return Loaded(error=submission.problem)
    if submission.pick_one:
        return _load_one_of(submission, max_bytes, functions)
    loaded = Loaded(files=list(submission.files))
    digest = hashlib.sha256()
    for path in submission.files:
        try:
            data = read_submission_file(path, max_bytes)
            cells, notes = _code_cells(path, data, first=len(loaded.cells) + 1)
        except SubmissionFileError as error:
            loaded.error = str(error)
            return loaded
        digest.update(data)
        loaded.cells += cells
        loaded.notes += notes
    loaded.digest = digest.hexdigest()
    if not loaded.cells:
        loaded.error = "the submission has no code cells"
    return loaded


def _load_one_of(submission: Submission, max_bytes: int, functions: Collection[str]) -> Loaded:
    """The one file of a student's several that defines the most of `functions` (the first on
    a tie; never one that cannot be read), found by parsing the code cells of each, never
    running them, with a line in `passed_over` for each other file. The digest covers every
    file, as `file_digest`'s does."""
    digest = hashlib.sha256()
    candidates: list[choice.Candidate] = []
    best, chosen = Loaded(), 0
    for path, name in zip(submission.files, choice.shown_names(submission.files), strict=True):
        one = Loaded(files=[path])
        try:
            data = read_submission_file(path, max_bytes)
            digest.update(data)
            one.cells, one.notes = _code_cells(path, data, first=1)
        except SubmissionFileError as error:
            one.error = str(error)
        sources = [source for _, source in one.cells]
        candidate = choice.Candidate(name, choice.defined_functions(sources, functions), one.error)
        if not candidates or choice.better(candidate, candidates[chosen]):
            best, chosen = one, len(candidates)
        candidates.append(candidate)
    best.passed_over = choice.passed_over(candidates, chosen, functions)
    if not best.error:
        best.digest = digest.hexdigest()
        best.error = "" if best.cells else "the submission has no code cells"
    return best


def _code_cells(path: Path, data: bytes, first: int) -> tuple[list[tuple[int, str]], list[str]]:
    """The code cells of one file's bytes, numbered from `first` (a .py file is one cell), with
    IPython magics neutralised, and a note for each cell that had any.

    Raises:
        SubmissionFileError: the bytes are not UTF-8 text, or not a notebook.
    """
    if path.suffix.lower() == ".py":
        try:
            return [(first, data.decode("utf-8"))], []
        except UnicodeDecodeError:
            raise SubmissionFileError(f"{path.name} is not UTF-8 text") from None
    try:
        sources = code_sources(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise SubmissionFileError(f"{path.name} is not a valid notebook (not UTF-8 text)") from None
    except NotebookError as error:
        raise SubmissionFileError(f"{path.name} is not a valid notebook ({error})") from None
    cells, notes = [], []
    for index, raw in enumerate(sources, first):  # numbered from 1, as a student counts them
        source, changed = strip_magics(raw)
        if changed:
            notes.append(f"cell {index}: IPython magics and shell commands were skipped")
        cells.append((index, source))
    return cells, notes


class SubmissionFileError(Exception):
    """A submission file that cannot be read safely, in one line for the student's status."""


def read_submission_file(path: Path, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file of at most `max_bytes`, opened without following a link.

    Raises:
        SubmissionFileError: a link, FIFO, device or folder; too large; unreadable.
    """
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        problem = not_a_regular_file(path) or f"{path.name} could not be read: {error.strerror}"
        raise SubmissionFileError(problem) from None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            problem = not_a_regular_file(path) or f"{path.name} is not a regular file"
            raise SubmissionFileError(problem)
        if info.st_size > max_bytes:
            raise SubmissionFileError(
                f"{path.name} is {info.st_size / 2**20:.1f} MiB, over the "
                f"{max_bytes / 2**20:g} MiB limit for one file (--max-size): clear its outputs "
                "and hand it in again"
            )
        chunks, have = [], 0
        while have <= max_bytes:
            chunk = os.read(handle, min(1 << 20, max_bytes + 1 - have))
            if not chunk:
                break
            chunks.append(chunk)
            have += len(chunk)
        if have > max_bytes:
            raise SubmissionFileError(f"{path.name} grew past the size limit while being read")
        return b"".join(chunks)
    except OSError as error:
        raise SubmissionFileError(f"{path.name} could not be read: {error.strerror}") from None
    finally:
        os.close(handle)


def file_digest(submission: Submission, max_bytes: int = MAX_BYTES) -> str:
    """The digest `load` records, from the bytes alone (read in bounded chunks, never parsed):
    how the main process recognises an unchanged submission. "" if it cannot be read."""
    if submission.problem:
        return ""
    digest = hashlib.sha256()
    try:
        for path in submission.files:
            digest.update(read_submission_file(path, max_bytes))
    except SubmissionFileError:
        return ""
    return digest.hexdigest()


@contextlib.contextmanager
def unpacking(paths: list[Path]):
    """A folder for the LMS zips among `paths` (None if there are none), removed afterwards.
    Named after this run, so that a later run removes it if this one is killed."""
    if not any(str(path).lower().endswith(".zip") for path in paths):
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix=f"autograder-run-{os.getpid()}-unpacked-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
