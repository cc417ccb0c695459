"""Find the submissions under the given paths and read each one's code cells."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

SUFFIXES = (".ipynb", ".py")
_MAGIC = re.compile(r"^(\s*)([%!])(.*)$")


@dataclass(frozen=True)
class Submission:
    """One student's files (usually one notebook) under a student id."""

    student: str
    files: tuple[Path, ...]


@dataclass
class Loaded:
    """A submission's code cells, or why they could not be read."""

    cells: list[tuple[int, str]] = field(default_factory=list)
    error: str = ""
    notes: list[str] = field(default_factory=list)
    digest: str = ""


@dataclass
class Discovery:
    submissions: list[Submission]
    skipped: list[tuple[Path, str]]


def discover(paths: list[Path], assignment: str | None = None) -> Discovery:
    """Turn PATH arguments into submissions, one per student.

    A PATH is a notebook or Python file (the stem is the student id), a folder of them, or an
    nbgrader course folder / `submitted` folder laid out as `submitted/<student>/<assignment>/`;
    there `assignment` picks one assignment's folder (without it, every notebook of a student
    is read as one submission). Files that are neither notebooks nor Python files are listed as
    skipped, with the reason.
    """
    found: dict[str, list[Path]] = {}
    skipped: list[tuple[Path, str]] = []
    for path in paths:
        path = Path(path)
        if not path.exists():
            skipped.append((path, "no such file or folder"))
        elif path.is_file():
            _add_file(path, path.stem, found, skipped)
        elif (path / "submitted").is_dir():
            _add_nbgrader(path / "submitted", found, skipped, assignment)
        elif path.name == "submitted":
            _add_nbgrader(path, found, skipped, assignment)
        else:
            for entry in sorted(path.iterdir()):
                if entry.name.startswith("."):
                    continue
                if entry.is_dir():
                    skipped.append((entry, "a folder inside a class folder (not nbgrader layout)"))
                else:
                    _add_file(entry, entry.stem, found, skipped)
    submissions = []
    for student, files in sorted(found.items()):
        submissions.append(Submission(student, tuple(files)))
    return Discovery(submissions, skipped)


def student_id(name: str) -> str:
    """A student id that is valid text: undecodable bytes of a file name become U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _add_file(path: Path, student: str, found: dict, skipped: list) -> None:
    student = student_id(student)
    if path.suffix not in SUFFIXES:
        skipped.append((path, f"not a notebook or Python file ({path.suffix or 'no suffix'})"))
        return
    if student in found:
        skipped.append((path, f"a second file for student {student!r}; the first one is graded"))
        return
    found[student] = [path]


def _add_nbgrader(submitted: Path, found: dict, skipped: list, assignment: str | None) -> None:
    for student_dir in sorted(p for p in submitted.iterdir() if p.is_dir()):
        if assignment is not None:
            student_dir = student_dir / assignment
        files = sorted(
            f
            for f in student_dir.rglob("*")
            if f.suffix == ".ipynb" and ".ipynb_checkpoints" not in f.parts
        )
        student = student_dir.parent.name if assignment is not None else student_dir.name
        if files:
            found[student_id(student)] = files
        else:
            skipped.append((student_dir, "no notebook in this student's folder"))


def strip_magics(source: str) -> tuple[str, bool]:
    """Comment out IPython magics and shell escapes; return the code and whether any were found.

    A cell magic (`%%time`, `%%capture`) applies to the whole cell: its first line is dropped
    and the body is kept, except for `%%bash`/`%%sh`/`%%script` and friends, whose body is not
    Python and is dropped too.
    """
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        magic = lines[0].lstrip()[2:].split()[0] if lines[0].lstrip()[2:].split() else ""
        if magic not in {"time", "timeit", "capture", "prun"}:
            return "# cell magic removed by the grader\n", True
        lines = ["# " + lines[0], *lines[1:]]
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
    return "\n".join(kept), changed


def load(submission: Submission) -> Loaded:
    """Read the code cells of every file of `submission`, in order."""
    loaded = Loaded()
    digest = hashlib.sha256()
    index = 1  # code cells are numbered from 1, as a student counts them
    for path in submission.files:
        try:
            data = path.read_bytes()
        except OSError as error:
            loaded.error = f"{path.name} could not be read: {error.strerror}"
            return loaded
        digest.update(data)
        if path.suffix == ".py":
            try:
                loaded.cells.append((index, data.decode("utf-8")))
            except UnicodeDecodeError:
                loaded.error = f"{path.name} is not UTF-8 text"
                return loaded
            index += 1
            continue
        try:
            sources = _code_sources(data.decode("utf-8"))
        except UnicodeDecodeError:
            loaded.error = f"{path.name} is not a valid notebook (not UTF-8 text)"
            return loaded
        except NotebookError as error:
            loaded.error = f"{path.name} is not a valid notebook ({error})"
            return loaded
        for raw in sources:
            source, changed = strip_magics(raw)
            if changed:
                loaded.notes.append(f"cell {index}: IPython magics and shell commands were skipped")
            loaded.cells.append((index, source))
            index += 1
    loaded.digest = digest.hexdigest()
    if not loaded.cells:
        loaded.error = "the submission has no code cells"
    return loaded


class NotebookError(ValueError):
    """Why a file cannot be read as a notebook, in one line a student can act on."""


def _code_sources(text: str) -> list[str]:
    """Return the sources of the code cells of the notebook JSON `text`, in order.

    Reads nbformat 4 and 3 directly rather than through nbformat, whose import costs about 2 s
    on every grading run. Only what grading needs is checked: the version, the cell lists and
    the code cells' sources; other cells are skipped unread.

    Raises:
        NotebookError: the text is not a version 3 or 4 notebook, with the reason.
    """
    if not text.strip():
        raise NotebookError("the file is empty")
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(
            f"not JSON: {error.msg}: line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:
        raise NotebookError("not JSON that can be read: it is nested too deeply") from None
    if not isinstance(notebook, dict):
        raise NotebookError(f"the top level is {_kind(notebook)}, not an object")
    if "nbformat" not in notebook:
        raise NotebookError('it has no "nbformat" version number')
    version = notebook["nbformat"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise NotebookError(f'"nbformat" is {_kind(version)}, not an integer')
    if version == 4:
        cells, source_key = _list_in(notebook, "cells", "the notebook"), "source"
    elif version == 3:
        cells, source_key = [], "input"
        for number, worksheet in enumerate(_list_in(notebook, "worksheets", "the notebook"), 1):
            if not isinstance(worksheet, dict):
                raise NotebookError(f"worksheet {number} is {_kind(worksheet)}, not an object")
            cells += _list_in(worksheet, "cells", f"worksheet {number}")
    else:
        raise NotebookError(f"nbformat {version} is not supported; the grader reads 3 and 4")
    sources = []
    for number, cell in enumerate(cells, 1):  # every cell counts, prose included, from the top
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {number} is {_kind(cell)}, not an object")
        if cell.get("cell_type") == "code":
            sources.append(_cell_source(cell, source_key, number))
    return sources


def _cell_source(cell: dict, key: str, number: int) -> str:
    """The code of a code cell, whose lines may be stored as a list of strings."""
    if key not in cell:
        raise NotebookError(f'cell {number} is a code cell without "{key}"')
    source = cell[key]
    if isinstance(source, str):
        return source
    if not isinstance(source, list):
        raise NotebookError(
            f'the "{key}" of cell {number} is {_kind(source)}, not a string or a list of strings'
        )
    for line in source:
        if not isinstance(line, str):
            raise NotebookError(
                f'the "{key}" of cell {number} is a list holding {_kind(line)}, not only strings'
            )
    return "".join(source)


def _list_in(container: dict, key: str, where: str) -> list:
    if key not in container:
        raise NotebookError(f'{where} has no "{key}" list')
    value = container[key]
    if not isinstance(value, list):
        raise NotebookError(f'"{key}" of {where} is {_kind(value)}, not a list')
    return value


def _kind(value: object) -> str:
    """The JSON type of a parsed value, for error messages ("a string", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"
