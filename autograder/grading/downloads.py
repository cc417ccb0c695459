"""What learning management systems hand out: who a file of a Canvas or Moodle download belongs
to, and the notebooks of a download's zip, unpacked with caps. The grades they take back are
`autograder.platforms.lms`'s."""

from __future__ import annotations

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


def extract(archive: Path, into: Path, max_file_bytes: int, max_total_bytes: int) -> list[Path]:
    """Unpack the notebooks and Python files of an LMS zip into `into`; return their paths.

    Only regular files are taken: symbolic links, devices and folders are skipped, names are
    reduced to safe relative paths (no absolute path, no `..`), and the sizes are checked
    against the caps from the archive's directory before anything is written.

    Raises:
        LmsError: not a zip file, or over a size cap.
    """
    try:
        bundle = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as error:
        raise LmsError(f"{archive.name} is not a zip file that can be read ({error})") from None
    taken, total = [], 0
    with bundle:
        for member in bundle.infolist():
            kind = stat.S_IFMT(member.external_attr >> 16)
            if member.is_dir() or kind not in (0, stat.S_IFREG):
                continue
            parts = [p for p in PurePosixPath(member.filename.replace("\\", "/")).parts
                     if p not in ("", ".", "..", "/")]  # fmt: skip
            if not parts or not is_submission(parts[-1]) or parts[0] == "__MACOSX":
                continue
            if member.file_size > max_file_bytes:
                raise LmsError(
                    f"{member.filename} in {archive.name} is {member.file_size:,} bytes, over "
                    f"the {max_file_bytes:,}-byte cap per notebook"
                )
            total += member.file_size
            if total > max_total_bytes:
                raise LmsError(f"{archive.name} unpacks to more than {max_total_bytes:,} bytes")
            target = into.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with bundle.open(member) as source, open(target, "wb") as sink:
                data = source.read(max_file_bytes + 1)  # the directory may lie about sizes
                if len(data) > max_file_bytes:
                    raise LmsError(f"{member.filename} in {archive.name} is over the size cap")
                sink.write(data)
            taken.append(target)
    return taken
