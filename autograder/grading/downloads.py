"""What learning management systems hand out: who a file of a Canvas or Moodle download belongs
to, and the notebooks of a download's zip, unpacked with caps, one member at a time. The grades
they take back are `autograder.platforms.lms`'s."""

from __future__ import annotations

import errno
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

SUFFIXES = (".ipynb", ".py")
CANVAS_NAME = re.compile(
    r"^(?P<name>[^_]+)_(?:LATE_)?(?P<id>\d+)_(?P<submission>\d+)_(?P<file>.+)$"
)
"""Canvas's "Download Submissions": name_userid_submissionid_filename (LATE_ after the name)."""
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assign(?:submission|feedback)_\w+_?$")
"""Moodle's "Download all submissions": a folder per student, Name_id_assignsubmission_file_."""


class LmsError(ValueError):
    """A download or roster the grader cannot use, and why, in one line."""


@dataclass(frozen=True)
class Identity:
    """Who a file belongs to, as the LMS that handed it out names them."""

    lms_id: str
    name: str
    lms: str  # "canvas" or "moodle"


def identity(path: Path) -> Identity | None:
    """The LMS student a submitted file belongs to, read from its name or its folder's name;
    None for a file named some other way (its stem is then the student id)."""
    match = CANVAS_NAME.match(path.name)
    if match and is_submission(path.name):
        return Identity(match["id"], match["name"], "canvas")
    folder = MOODLE_FOLDER.match(path.parent.name)
    if folder:
        return Identity(folder["id"], folder["name"], "moodle")
    return None


def is_submission(name: str) -> bool:
    """Notebooks and Python files, whatever the case of the suffix (`.IPYNB` from Windows)."""
    return name.lower().endswith(SUFFIXES)


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
