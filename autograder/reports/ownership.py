"""Whose saved results a grading run may replace: a run never overwrites a saved student it was
not given.

A student's results in `--out` were graded from files in one place: the folder that holds them
(`PLACES` remembers it, resolved). A later run finds a submission under her id; it replaces her
results when it was given her:

- its paths name her: `--student`, or the path that found her is a file given alone or a folder
  given alone as one student's (`grading.load.one_students_folder`, a Moodle student's folder);
- or her files come from the place they came from before (the class folder, download or
  nbgrader tree graded again);
- or they come from somewhere that is not inside that place (a new download, another folder).

What is left is a submission found *inside* the place a saved student was graded from, under
her id but not in her own files: the shape of one student's folder graded alone and read as a
class (mallory's folder, holding a helper she called `zoe.py`, read as students "mallory's
notebook" and "zoe"). That submission is not graded, and the saved student keeps her feedback,
her record and her row in grades.csv; `--force` replaces her all the same.

Why leave her rather than refuse the whole run: the other students of the run are graded as
asked, nothing the instructor did not ask for changes, and the run says which students it left
and how to update them, so no grade is replaced silently or lost.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from autograder.grading import downloads
from autograder.grading.load import Submission, one_students_folder
from autograder.reports.files import load_saved, write_atomically

PLACES = ".places.json"
"""Where each saved student's files were found: student id -> the resolved folder."""


def located(path: str | Path) -> Path:
    """`path` with its folder resolved, itself not followed (a submission may be a link, even a
    link to itself, which is refused and named, never followed)."""
    absolute = os.path.abspath(path)
    return Path(os.path.realpath(os.path.dirname(absolute))) / os.path.basename(absolute)


def place(files: Iterable[str | Path]) -> Path | None:
    """The folder that holds all of `files` (resolved), or None if there are none."""
    folders = [str(located(file).parent) for file in files]
    try:
        return Path(os.path.commonpath(folders)) if folders else None
    except ValueError:  # paths on different drives: no common folder
        return None


def saved_places(out: Path) -> dict[str, str]:
    """The places `remember_places` wrote (empty if none, or unreadable)."""
    try:
        places = json.loads((out / PLACES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return places if isinstance(places, dict) else {}


def remember_places(out: Path, submissions: Iterable[Submission]) -> None:
    """Add where each of `submissions` (saved by this run) was found to `PLACES`."""
    places = saved_places(out)
    for submission in submissions:
        where = place(submission.files)
        if where is not None:
            places[submission.student] = str(where)
    write_atomically(out / PLACES, json.dumps(places, sort_keys=True))


def named(submission: Submission, paths: list[Path], student: str | None) -> bool:
    """Whether the run's paths name `submission`'s student: `--student`, or the path that
    found it is a file given alone or a folder given alone as one student's."""
    if student is not None:
        return True
    files = [located(file) for file in submission.files]
    for path in map(Path, paths):
        given = located(path)
        if given in files and not path.is_dir():
            return True  # a file given alone: named by its stem
        if path.is_dir() and all(given in file.parents for file in files):
            return one_students_folder(path) or downloads.folder_identity(path.name) is not None
    return False


def not_given(
    out: Path,
    submissions: list[Submission],
    known: set[str],
    paths: list[Path],
    student: str | None = None,
) -> dict[str, str]:
    """The submissions of saved students (`known`) this run was not given, by student, with
    why: each found inside the place the student was graded from, outside her own files, by
    paths that do not name her."""
    places = saved_places(out)
    left = {}
    for submission in submissions:
        if submission.student not in known or named(submission, paths, student):
            continue
        before = places.get(submission.student)
        if before is None:  # saved before places were remembered: where its record says
            saved = load_saved(out, submission.student)
            recorded = saved.record.files if saved else ()
            absolute = recorded and all(Path(file).is_absolute() for file in recorded)
            before = place(recorded) if absolute else None
        now = place(submission.files)
        if before is None or now is None:
            continue
        before = Path(before)
        if now != before and before in now.parents:
            left[submission.student] = (
                f"found in {now}, inside {before} where the saved results came from, and not "
                "named by the paths given"
            )
    return left
