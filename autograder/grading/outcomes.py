"""How a command's run ends before it is done: its paths or --out refused, or SIGTERM.

The commands (`autograder.cli`) and the jobs they run (the tournament) both raise and catch
these; they live here, below both, so that no job imports the command layer.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path


class Terminated(BaseException):
    """SIGTERM arrived: stop like Ctrl-C, keeping every grade written so far."""


def terminated(_signal: int, _frame) -> None:
    """The SIGTERM handler of a run: raise `Terminated` where the run is."""
    raise Terminated


def refused(args: argparse.Namespace) -> str:
    """Why the paths or --out of a grading run cannot be used, in one line; "" if they can."""
    for path in args.paths:
        if not os.path.lexists(path):
            return f"{path} does not exist: give notebooks, .py files or folders of them"
    return out_refused(args.out)


def out_refused(out: Path) -> str:
    """Why the folder `out` can neither be used nor created, in one line; "" if it can.

    Found without creating anything: the nearest part of the path that exists must be a
    folder this process may write in (not a file, a broken link, or another user's folder).
    """
    if out.exists() and not out.is_dir():
        return f"--out {out} is a file: give a folder (it is created if missing)"
    existing = Path(os.path.abspath(out))
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if existing.is_symlink() and not existing.exists():
        return f"--out {out} cannot be created: {existing} is a broken symbolic link"
    if not existing.is_dir():
        return f"--out {out} cannot be created: {existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        what = "used" if existing == Path(os.path.abspath(out)) else "created"
        return f"--out {out} cannot be {what}: {existing} is not writable by this user"
    return ""
