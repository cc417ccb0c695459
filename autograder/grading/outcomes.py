"""How a command's run ends before it is done: its paths or --out refused, or SIGTERM.

The commands (`autograder.cli`) and the jobs they run (the tournament) both raise and catch
these; they live here, below both, so that no job imports the command layer.
"""

from __future__ import annotations

import argparse
import os


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
    if args.out.exists() and not args.out.is_dir():
        return f"--out {args.out} is a file: give a folder (it is created if missing)"
    return ""
