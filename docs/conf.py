"""Sphinx configuration of the course site: MyST pages, the lectures run by myst-nb, furo.

Build it with `python -m sphinx -W --keep-going -b html docs docs/_build/html` (the `[docs]`
extra installs what it needs). The lectures are copied in from `lectures/` before the build
reads its sources, and executed (cached in `docs/_build/.jupyter_cache`).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(ROOT), str(DOCS / "_ext")]


def _copy_lectures() -> None:
    """Bring `lectures/*.ipynb` into `docs/lectures/`, touching only those that changed, so an
    incremental build re-reads (and the cache re-executes) only an edited lecture."""
    target = DOCS / "lectures"
    shipped = {path.name: path for path in (ROOT / "lectures").glob("*.ipynb")}
    for stale in target.glob("*.ipynb"):
        if stale.name not in shipped:
            stale.unlink()
    for name, source in shipped.items():
        copy = target / name
        if not copy.exists() or copy.read_bytes() != source.read_bytes():
            shutil.copyfile(source, copy)


_copy_lectures()

project = "Adversarial search: a course and an autograder"
author = "the course's authors"
copyright = "the course's authors, MIT licence"

extensions = [
    "myst_nb",  # MyST Markdown pages and executed notebooks (brings myst_parser)
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinxarg.ext",
    "course_reference",  # tables generated from the grader's own rules (docs/_ext)
]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

# The lectures run at build time, so a reader with only the toolkit sees every output. The
# cache keys on each notebook's code: an unchanged lecture is not run again.
nb_execution_mode = "cache"
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 60  # seconds per cell, as tests/test_lectures.py always allowed
nb_execution_raise_on_error = True  # a lecture that fails breaks the build
nb_execution_show_tb = True
nb_merge_streams = True

default_role = "code"  # `name` in a docstring is code, as in the Markdown pages
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}
napoleon_google_docstring = True

html_theme = "furo"
html_title = "Adversarial search"
html_show_sourcelink = False
html_theme_options = {"navigation_with_keys": True}
nitpicky = False
suppress_warnings = ["mystnb.unknown_mime_type"]
