"""The course site, built once per test session for every test that reads it.

`built_site()` runs the documented build (`python -m sphinx -W --keep-going -b html docs ...`)
into a temporary folder, with every lecture executed afresh (`nb_execution_mode=force`: the
build's cache could hold outputs of code that has changed since). tests/test_docs.py reads the
pages; tests/test_lectures.py reads the executed lectures from the same build, so each lecture
runs once in the suite.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BUILD_SECONDS = 1800  # a safety net: the build takes about a minute on 2 quiet cores


@dataclass(frozen=True)
class Site:
    """A finished build: its HTML, the executed lecture notebooks, and what Sphinx said."""

    html: Path
    executed: Path  # myst-nb's jupyter_execute folder: lectures/<name>.ipynb, outputs in
    returncode: int
    log: str


@functools.cache
def built_site() -> Site:
    """Build the site once for the whole session (cached in this module)."""
    out = Path(tempfile.mkdtemp(prefix="course-site-"))
    command = [
        sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html",
        "-d", str(out / "doctrees"), "-D", "nb_execution_mode=force",
        str(DOCS), str(out / "html"),
    ]  # fmt: skip
    # The lectures' kernels inherit this environment: a backend another test chose for itself
    # (tests/test_drawing.py sets MPLBACKEND=Agg) would keep their figures off the pages.
    env = {name: value for name, value in os.environ.items() if name != "MPLBACKEND"}
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=BUILD_SECONDS, cwd=ROOT, env=env
    )
    return Site(out / "html", out / "jupyter_execute", done.returncode, done.stdout + done.stderr)
