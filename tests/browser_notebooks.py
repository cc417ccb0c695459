"""The assignment notebooks as the browser tests run them: released (stubs) or answered; and
the browser course's builder, with its download cache filled safely and the toolkit's wheel
built once a run.

Import it as `from browser_notebooks import answered, released` (pytest puts tests/ on the path).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import shutil
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from run_wide import file_lock

from autograder.grading.rules import ASSIGNMENT_RULES

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = tuple(ASSIGNMENT_RULES)  # the six assignments, in teaching order
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


def course_builder() -> ModuleType:
    """assignments/make_browser_course.py, a script, loaded as a module."""
    spec = importlib.util.spec_from_file_location(
        "make_browser_course", ROOT / "assignments" / "make_browser_course.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def filled_cache(builder: ModuleType) -> Path:
    """The builder's download cache with everything a build takes from it (Pyodide from npm,
    the kernel's wheels from PyPI); return the npm package's folder.

    The cache (~/.cache/adversarial-search-course/browser) is shared by the test workers and by
    any other run on the machine, and the builder writes a download where it will read it: one
    process at a time fills it, so none reads a half-written package. Once it is full, a build
    only reads it, without the lock.
    """
    cache, version = builder.DEFAULT_CACHE, builder.pyodide_version()
    with file_lock(cache / ".lock"):
        folder = builder.npm_pyodide(cache, version)
        packages = json.loads((folder / "pyodide-lock.json").read_text("utf-8"))["packages"]
        for name in builder.dependencies(packages, builder.KERNEL_PACKAGES):
            builder.pypi_wheel(cache, packages[name]["name"], packages[name]["version"])
        builder.pypi_wheel(cache, *builder.COMM)
    return folder


def toolkit_wheel(builder: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toolkit's wheel (`builder.games_wheel`), built once a run for every module that needs
    it (the site's build, Pyodide under Node, the published lock): each build is a pip run with
    an isolated build environment, 3-9 s.

    It is kept in the run's own temporary folder, the one the test workers (pytest-xdist) of
    this run share and no other run sees, so each run builds it from the games/ it tests.
    """
    run_folder = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each worker has a folder of its own in it
        run_folder = run_folder.parent
    work = run_folder / "toolkit-wheel"
    with file_lock(run_folder / "toolkit-wheel.lock"):
        built = sorted((work / "dist").glob("*.whl"))
        if built:
            return built[0]
        shutil.rmtree(work, ignore_errors=True)  # what a failed build left
        return builder.games_wheel(work)
