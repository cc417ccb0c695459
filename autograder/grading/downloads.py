"""What learning management systems hand out: who a file of a Canvas or Moodle download belongs
to, and the notebooks of a download's zip, unpacked with caps, one member at a time. The grades
they take back are `autograder.platforms.lms`'s.

An id comes from where the LMS put it, never from a name a student chose: a Moodle student's
folder names her (whatever the files inside it are called), and a file's own name counts only
where the LMS named it (the top of a Canvas download or of Moodle's flat download).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

SUFFIXES = (".ipynb", ".py")
CANVAS_NAME = re.compile(
    r"^(?P<name>[^_]+)_(?:(?i:late)_)?(?P<id>\d+)_(?P<submission>\d+)_(?P<file>.+)$"
)
"""Canvas's "Download Submissions": name_userid_submissionid_filename (LATE_ after the name;
some Canvas versions write it `late_`, so either case)."""
MOODLE_FOLDER = re.compile(r"^(?P<name>[^_]+)_(?P<id>\d+)_assign(?:submission|feedback)_\w+_?$")
"""Moodle's "Download all submissions": a folder per student, Name_id_assignsubmission_file_
(newer Moodles drop the last `_`). Moodle writes a full name's `_` as a space, so the
name holds none."""
MOODLE_FILE = re.compile(
    r"^(?P<name>[^_]+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<file>.+)$"
)
"""Moodle's download with "Download submissions in folders" off: one flat file per file handed
in, Name_id_assignsubmission_file_filename."""

MOST_FILES = 32
"""The most files weighed for one student (a repository may hold many modules); the rest are
listed as skipped."""
MOST_DEPTH = 16
"""How deep a student's folder is searched (a zip can nest folders thousands deep)."""
_NOT_STUDENTS = {"__MACOSX", "__pycache__"}


class LmsError(ValueError):
    """A download or roster the grader cannot use, and why, in one line."""


@dataclass(frozen=True)
class Identity:
    """Who a file belongs to, as the LMS that handed it out names them."""

    lms_id: str
    name: str
    lms: str  # "canvas" or "moodle"


def identity(path: Path) -> Identity | None:
    """The LMS student a submitted file belongs to: the Moodle student's folder it lies in (the
    outermost, if a student put such a folder inside hers), else its own name as Canvas or
    Moodle's flat download gives it; None for a file named some other way (its stem is then the
    student id)."""
    for folder in reversed(Path(os.path.abspath(path)).parents):
        found = folder_identity(folder.name)
        if found:
            return found
    return name_identity(path.name)


def folder_identity(name: str) -> Identity | None:
    """The Moodle student whose folder is called `name`; None for any other folder."""
    match = MOODLE_FOLDER.match(name)
    return Identity(match["id"], match["name"], "moodle") if match else None


def name_identity(name: str) -> Identity | None:
    """The student a notebook or Python file called `name` belongs to, if the LMS named it
    (Moodle's flat download, Canvas's download); None otherwise. Only the top of a download
    is named by the LMS: a file inside a student's folder is named by the student."""
    if not is_submission(name):
        return None
    match = MOODLE_FILE.match(name)
    if match:
        return Identity(match["id"], match["name"], "moodle")
    match = CANVAS_NAME.match(name)
    return Identity(match["id"], match["name"], "canvas") if match else None


def is_submission(name: str) -> bool:
    """Notebooks and Python files, whatever the case of the suffix (`.IPYNB` from Windows)."""
    return name.lower().endswith(SUFFIXES)


# -- how a class arrives: its layout on disk -------------------------------------------------


@dataclass
class Found:
    """The students found so far in the paths given: each one's files, in the order found, and
    what was skipped, with why."""

    files: dict[str, list[Path]] = field(default_factory=dict)
    whole: set[str] = field(default_factory=set)  # all their files read together (nbgrader's)
    skipped: list[tuple[Path, str]] = field(default_factory=list)

    def add(self, student: str, path: Path) -> None:
        """One more file of `student`'s, if it is a notebook or Python file."""
        student = student_id(student)
        files = self.files.get(student, [])
        if not is_submission(path.name):
            suffix = path.suffix or "no suffix"
            self.skipped.append((path, f"not a notebook or Python file ({suffix})"))
        elif student in self.whole:
            self.skipped.append((path, f"student {student!r} has an nbgrader folder: not read"))
        elif len(files) >= MOST_FILES:
            self.skipped.append((path, f"more than {MOST_FILES} files for student {student!r}"))
        elif path not in files:
            self.files[student] = [*files, path]

    def add_whole(self, student: str, paths: list[Path]) -> None:
        """An nbgrader student's notebooks, all read as one submission."""
        student = student_id(student)
        if student in self.files:
            self.skipped += [(path, f"a second submission for {student!r}") for path in paths]
        else:
            self.files[student] = list(paths)
            self.whole.add(student)


def student_id(name: str) -> str:
    """A student id that is valid text: undecodable bytes of a file name become U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def add_class_folder(folder: Path, found: Found) -> None:
    """One student per file, named by the LMS (else by its stem), and one per folder: a Moodle
    student's folder names her by the LMS's id, any other folder (GitHub Classroom's) by its
    own name."""
    for entry in _entries(folder):
        if _ignored(entry):
            continue
        if entry.is_symlink() and entry.is_dir():
            found.skipped.append((entry, "a symbolic link to a folder: not followed"))
        elif entry.is_dir():
            known = folder_identity(entry.name)
            add_student_folder(entry, known.lms_id if known else entry.name, found)
        else:
            known = name_identity(entry.name)
            found.add(known.lms_id if known else entry.stem, entry)


def add_student_folder(folder: Path, student: str, found: Found) -> None:
    """Every notebook and Python file in a student's folder, at any depth, is hers: the names
    she gave them claim nothing."""
    files = [path for path in _files_under(folder, found.skipped) if is_submission(path.name)]
    if not files:
        found.skipped.append((folder, "no notebook in this student's folder"))
    for path in files:
        found.add(student, path)


def add_nbgrader(submitted: Path, found: Found, assignment: str | None) -> None:
    """nbgrader's `submitted/<student>/<assignment>/`: every notebook of a student's (of one
    assignment's, if named) is read as one submission."""
    for student_dir in _entries(submitted):
        if student_dir.is_symlink():
            found.skipped.append((student_dir, "a symbolic link: not followed"))
            continue
        if not student_dir.is_dir():
            continue
        student = student_dir.name
        if assignment is not None:
            student_dir = student_dir / assignment
            if student_dir.is_symlink():
                found.skipped.append((student_dir, "a symbolic link: not followed"))
                continue
        files = _files_under(student_dir, found.skipped)
        notebooks = [path for path in files if path.name.lower().endswith(".ipynb")]
        if notebooks:
            found.add_whole(student, notebooks)
        else:
            found.skipped.append((student_dir, "no notebook in this student's folder"))


def add_zip(archive: Path, into: Path, found: Found, max_file_bytes: int) -> None:
    """An LMS zip, unpacked into `into` (at most 50 times `max_file_bytes` in all) and read as
    a class folder; each member it cannot unpack is skipped, with why."""
    try:
        unpacked = extract(archive, into, max_file_bytes, 50 * max_file_bytes)
    except LmsError as error:
        found.skipped.append((archive, str(error)))
        return
    found.skipped += [(Path(f"{archive}/{member}"), why) for member, why in unpacked.skipped]
    add_class_folder(_class_root(into), found)


def _class_root(unpacked: Path) -> Path:
    """Where the class starts in an unpacked zip: a zip of a class folder (`zip -r class.zip
    class`) holds that folder and nothing else, and the folders inside it are the students."""
    top = [entry for entry in _entries(unpacked) if not _ignored(entry)]
    alone = len(top) == 1 and top[0].is_dir() and not top[0].is_symlink()
    return top[0] if alone and not folder_identity(top[0].name) else unpacked


def _files_under(folder: Path, skipped: list) -> list[Path]:
    """The files under `folder`, sorted, without following links to folders and without hidden
    files and folders (`.git`, `.ipynb_checkpoints`), at most `MOST_DEPTH` folders deep."""
    files, pending = [], [(folder, 0)]
    while pending:
        current, depth = pending.pop()
        for entry in _entries(current):
            if _ignored(entry):
                continue
            if entry.is_symlink() and entry.is_dir():
                skipped.append((entry, "a symbolic link to a folder: not followed"))
            elif entry.is_dir() and depth >= MOST_DEPTH:
                skipped.append((entry, f"more than {MOST_DEPTH} folders deep: not searched"))
            elif entry.is_dir():
                pending.append((entry, depth + 1))
            else:
                files.append(entry)
    return sorted(files)


def _ignored(entry: Path) -> bool:
    return entry.name.startswith(".") or entry.name in _NOT_STUDENTS


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(Path(entry.path) for entry in os.scandir(folder))
    except OSError:
        return []


# -- a zip, unpacked one member at a time ----------------------------------------------------


@dataclass(frozen=True)
class Unpacked:
    """What `extract` took out of a zip, and each member it could not take: (name, why)."""

    files: tuple[Path, ...]
    skipped: tuple[tuple[str, str], ...]


def extract(archive: Path, into: Path, max_file_bytes: int, max_total_bytes: int) -> Unpacked:
    """Unpack the notebooks and Python files of an LMS zip into `into`.

    Only regular files are taken: symbolic links, devices and folders are ignored, names are
    reduced to safe relative paths (no absolute path, no `..`), and the sizes are checked
    against the caps from the archive's directory before anything is written. Each member is
    taken or skipped on its own: one over the cap per file, encrypted, compressed by a method
    Python cannot read, damaged (a bad CRC, sizes that lie, data cut short) or whose path
    clashes with another member's (`x.py` beside `x.py/y.py`) is skipped with the reason, and
    the others are unpacked. Past the total cap, nothing more is.

    Raises:
        LmsError: the file is not a zip that can be read at all.
    """
    try:
        bundle = zipfile.ZipFile(archive)
    except Exception as error:  # noqa: BLE001 - a hostile directory raises many kinds
        raise LmsError(f"{archive.name} is not a zip file that can be read ({error})") from None
    into.mkdir(parents=True, exist_ok=True)
    taken: list[Path] = []
    skipped: list[tuple[str, str]] = []
    total = 0
    with bundle:
        members = [(member, parts) for member in bundle.infolist() if (parts := _parts(member))]
        for number, (member, parts) in enumerate(members):
            total += member.file_size
            if total > max_total_bytes:
                rest = len(members) - number - 1
                skipped.append((member.filename, _over_total(archive, rest, max_total_bytes)))
                break
            why = _unreadable(member, max_file_bytes)
            if not why:
                try:
                    taken.append(_unpack_member(bundle, member, into.joinpath(*parts)))
                except Exception as error:  # noqa: BLE001 - zipfile's, zlib's, bz2's, lzma's
                    why = _damage(error)
            if why:
                skipped.append((member.filename, why))
    return Unpacked(tuple(taken), tuple(skipped))


def _parts(member: zipfile.ZipInfo) -> list[str]:
    """The safe relative path of a regular notebook or Python file in a zip; [] for any other
    member (a folder, a link, another kind of file, macOS's `__MACOSX` copies)."""
    kind = stat.S_IFMT(member.external_attr >> 16)
    if member.is_dir() or kind not in (0, stat.S_IFREG):
        return []
    parts = [p for p in PurePosixPath(member.filename.replace("\\", "/")).parts
             if p not in ("", ".", "..", "/")]  # fmt: skip
    if not parts or not is_submission(parts[-1]) or parts[0] == "__MACOSX":
        return []
    return parts


_READABLE = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}


def _unreadable(member: zipfile.ZipInfo, max_file_bytes: int) -> str:
    """Why a member cannot be unpacked, read from the directory alone ("" if it may be)."""
    if member.file_size > max_file_bytes:
        return f"{member.file_size:,} bytes, over the {max_file_bytes:,}-byte cap per notebook"
    if member.flag_bits & 0x1:
        return "encrypted: the grader has no password (hand it in unencrypted)"
    if member.compress_type not in _READABLE:
        return f"compressed by a method Python cannot read (method {member.compress_type})"
    return ""


def _unpack_member(bundle: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path) -> Path:
    """Write one member to `target`, never over another file; a half-written one is removed.
    Reading stops at the size the directory gives (checked against the cap), where zipfile
    checks the CRC: data longer than it says fails the check, shorter ends too early."""
    with bundle.open(member) as source:
        data = source.read(member.file_size)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(target, "xb") as sink:
            sink.write(data)
    except FileExistsError:
        raise  # another member's file or folder: not ours to remove
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return target


def _over_total(archive: Path, rest: int, max_total_bytes: int) -> str:
    return (
        f"not unpacked, nor the {rest} notebook(s) after it: {archive.name} unpacks to more "
        f"than {max_total_bytes:,} bytes"
    )


def _damage(error: Exception) -> str:
    """What went wrong unpacking a member, in words an instructor can act on."""
    if isinstance(error, OSError) and error.errno in (errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
        return "its path clashes with another member's (a file and a folder of one name)"
    if isinstance(error, OSError):
        return f"could not be written ({error.strerror or error})"
    if isinstance(error, EOFError):
        return "damaged: its data ends before the size the zip's directory gives"
    return f"damaged ({type(error).__name__}: {error})"
