"""Every lecture notebook runs top to bottom, quickly, and is stored without stale outputs.

The lectures are executed once, by the course site's build (tests/site_build.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from site_build import built_site

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.xdist_group("site")  # the site's build, once: tests/site_build.py
LECTURES = sorted((ROOT / "lectures").glob("*.ipynb"))
LATER_ASSIGNMENTS = ("expectiminimax_value", "expectiminimax_decision", "maxn_value",
                     "maxn_decision", "connect_four_agent")  # fmt: skip


def graded_names() -> set[str]:
    """Every function or class a student writes in an assignment's solution cells."""
    names = set(LATER_ASSIGNMENTS)
    for path in (ROOT / "assignments" / "source").glob("*/*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
                names |= set(re.findall(r"^(?:def|class) (\w+)", cell.source, re.MULTILINE))
    return names


def _shows_graded_source(text: str) -> list[str]:
    return [
        name
        for name in graded_names()
        if re.search(rf"getsource\([\w.]*\b{name}\b|def {name}\(|class {name}\b", text)
    ]


@pytest.mark.parametrize("path", LECTURES, ids=[p.stem for p in LECTURES])
def test_lecture_runs_top_to_bottom_within_a_minute(path: Path) -> None:
    """The site's build executed the lecture (each cell within 60 s, `nb_execution_timeout`,
    and a lecture that raises fails the build): its outputs are read here, so each lecture
    runs once in the suite (tests/site_build.py)."""
    site = built_site()
    assert site.returncode == 0, site.log[-5000:]
    executed = site.executed / "lectures" / path.name
    notebook = nbformat.read(executed, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.source for cell in code] == [
        cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"
    ], "the build executed another version of the lecture"
    assert all(cell.get("execution_count") for cell in code), "a cell was not executed"
    printed = "".join(
        str(output.get("text", "")) + str(output.get("data", {}).get("text/plain", ""))
        for cell in code
        for output in cell.get("outputs", [])
    )
    assert printed, "the lecture printed nothing"
    assert not _shows_graded_source(printed), "a lecture printed graded code"
    errors = [
        output
        for cell in code
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors


@pytest.mark.parametrize("path", LECTURES, ids=[p.stem for p in LECTURES])
def test_lecture_is_stored_with_outputs_stripped_unless_tagged(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or "keep-output" in cell.metadata.get("tags", []):
            continue
        assert not cell.get("outputs"), f"cell {index} of {path.name} has stored outputs"


def test_there_are_six_lectures() -> None:
    assert len(LECTURES) == 6, [p.name for p in LECTURES]


@pytest.mark.parametrize("path", LECTURES, ids=[p.stem for p in LECTURES])
def test_lecture_never_hands_out_the_code_an_assignment_grades(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert not _shows_graded_source(code)


def test_the_graded_names_include_every_assignment_function() -> None:
    assert {"minimax_value", "alphabeta_decision", "PreferFastWins"} <= graded_names()


TOOLKIT_ONLY = ("01_games_as_search",)
"""Lectures that run with only the student toolkit installed: they import `solutions` for
nothing but an optional opponent (the later lectures trace the searches the assignments ask
students to write, so they need the full course)."""


@pytest.mark.parametrize("name", TOOLKIT_ONLY)
def test_a_toolkit_only_lecture_runs_without_the_course_packages(name: str) -> None:
    notebook = nbformat.read(ROOT / "lectures" / f"{name}.ipynb", as_version=4)
    blocked = "import sys\nsys.modules['solutions'] = sys.modules['autograder'] = None"
    notebook.cells.insert(0, nbformat.v4.new_code_cell(blocked))  # `import solutions` now fails
    client = NotebookClient(notebook, timeout=60, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "lectures")}})  # fmt: skip
    client.execute()
    printed = "".join(
        str(output.get("text", "")) for cell in notebook.cells for output in cell.get("outputs", [])
    )
    assert "549,946  agrees" in printed and "DIFFERS" not in printed
    assert "finished: True" in printed, "the game against the fallback agent was played out"
