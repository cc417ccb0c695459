"""The assignment notebooks as the browser tests run them: released (stubs) or answered.

Import it as `from browser_notebooks import answered, released` (pytest puts tests/ on the path).
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = (
    "minimax",
    "alphabeta",
    "depth_limited",
    "bug_hunt",
    "connect_four",
    "chance_and_maxn",
)
PYODIDE_VERSION_FILE = ROOT / "assignments" / "make_browser_course.py"


def released(assignment: str) -> nbformat.NotebookNode:
    """The notebook students get (`python -m games notebooks`)."""
    return nbformat.read(ROOT / "games" / "notebooks" / f"{assignment}.ipynb", as_version=4)


def answered(assignment: str) -> nbformat.NotebookNode:
    """The released notebook with the reference answers written in: each solution cell of the
    released notebook replaced by the source notebook's cell of the same id (the others keep
    what the release left of them: the hidden tests are taken out)."""
    source = nbformat.read(
        ROOT / "assignments" / "source" / assignment / f"{assignment}.ipynb", as_version=4
    )
    by_id = {cell.id: cell for cell in source.cells}
    notebook = copy.deepcopy(released(assignment))
    notebook.cells = [
        copy.deepcopy(by_id[cell.id]) if _is_solution(cell) else cell for cell in notebook.cells
    ]
    return notebook


def _is_solution(cell: nbformat.NotebookNode) -> bool:
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get("solution"))


def code_cells(notebook: nbformat.NotebookNode) -> list[str]:
    """The sources of the notebook's code cells, in order."""
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]
