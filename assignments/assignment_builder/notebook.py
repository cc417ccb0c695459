"""Notebooks from the content templates: render with jinja2, split into cells, add nbgrader data."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.platforms import nbgrader_export

CONTENT = Path(__file__).resolve().parents[1] / "content"
"""The folder of the templates: `<assignment>.md` for each notebook, and the files they include."""

KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}

TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(CONTENT),
    undefined=jinja2.StrictUndefined,  # a variable the builder does not fill is an error
    autoescape=False,  # the output is markdown and Python, not HTML
    trim_blocks=True,  # a line that holds only a {% tag %} leaves no empty line behind
    lstrip_blocks=True,
    keep_trailing_newline=True,  # an included file ends its last line, so it does not run on
)


def render(template: str, **context: Any) -> str:
    """The text of a content template filled with `context`."""
    return TEMPLATES.get_template(template).render(**context)


MARKER = re.compile(r"^<!-- (?P<kind>[a-z-]+)(?P<words>(?: \S+)*) -->$", re.MULTILINE)
"""A line that starts a cell: `<!-- kind [grade_id] [flag] [key=value] -->`."""

KINDS = {
    # kind: (needs a grade id, fenced as ```python, options allowed)
    "markdown": (False, False, ()),
    "code": (False, True, ()),
    "given": (True, True, ("collapsed",)),
    "solution": (True, True, ()),
    "self-check": (True, True, ()),
    "answer": (True, False, ("points",)),
    "hidden-tests": (False, False, ()),
}
"""The cell kinds a template may use; see content/README.md."""

FENCE_OPEN, FENCE_CLOSE = "```python\n", "\n```"


class TemplateError(ValueError):
    """A content template that does not describe a notebook's cells."""


@dataclass(frozen=True)
class CellSpec:
    """One cell as a template describes it."""

    kind: str
    source: str
    grade_id: str = ""
    options: dict[str, str] = field(default_factory=dict)


def split_cells(text: str, template: str) -> list[CellSpec]:
    """The cells of a rendered template: each starts at a marker line and runs to the next."""
    markers = list(MARKER.finditer(text))
    if not markers or text[: markers[0].start()].strip():
        raise TemplateError(f"{template}: the text must start with a cell marker")
    ends = [marker.start() for marker in markers[1:]] + [len(text)]
    return [
        cell_spec(marker, text[marker.end() : end].strip("\n"), template)
        for marker, end in zip(markers, ends, strict=True)
    ]


def cell_spec(marker: re.Match, body: str, template: str) -> CellSpec:
    """The cell a marker starts, with its body unfenced and its options checked."""
    kind, words = marker["kind"], marker["words"].split()
    where = f"{template}: {marker[0]}"
    if kind not in KINDS:
        raise TemplateError(f"{where}: unknown kind {kind!r}, expected one of {sorted(KINDS)}")
    needs_id, fenced, allowed = KINDS[kind]
    grade_id = words.pop(0) if needs_id and words and "=" not in words[0] else ""
    if needs_id and not grade_id:
        raise TemplateError(f"{where}: a {kind} cell needs a grade id")
    options = {key: value for key, _, value in (word.partition("=") for word in words)}
    if unknown := set(options) - set(allowed):
        raise TemplateError(f"{where}: unknown option(s) {sorted(unknown)}")
    if kind == "answer" and not options.get("points"):
        raise TemplateError(f"{where}: an answer cell needs points=<number>")
    if fenced:
        if not (body.startswith(FENCE_OPEN) and body.endswith(FENCE_CLOSE)):
            raise TemplateError(f"{where}: a {kind} cell is one ```python ... ``` block")
        body = body[len(FENCE_OPEN) : -len(FENCE_CLOSE)].strip("\n")
    if kind == "hidden-tests" and body:
        raise TemplateError(f"{where}: the hidden tests are generated; leave the cell empty")
    return CellSpec(kind, body, grade_id, options)


def _number(text: str) -> float:
    """A number of points as written, so that 4 stays an int in the notebook's JSON."""
    return int(text) if text.isdigit() else float(text)


def nbgrader_metadata(
    grade_id: str, *, grade: bool, solution: bool, locked: bool, points: float | None = None
) -> dict:
    """The `nbgrader` cell metadata (schema version 3) for one cell."""
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = points
    return meta


COURSE_CODE_TAG = "course-code"
"""The tag of a collapsed given cell (the setup's imports and self-check helpers, the hidden
tests' judge): some 60 KB of the course's code that nbgrader's feedback pages leave out
(nbgrader_config.py), showing only its output."""

# How each kind of graded or read-only cell is marked for nbgrader: (grade, solution, locked).
# Self-checks are autograded tests worth 0 points, so that nbgrader's Validate button reports a
# failing one (they raise AssertionError) while the points come only from the hidden tests.
NBGRADER_FLAGS = {
    "given": (False, False, True),  # read-only: nbgrader restores it if it was changed
    "self-check": (True, False, True),
    "solution": (False, True, False),  # the released version replaces its solution regions
    "answer": (True, True, False),  # graded by hand; the released version says YOUR ANSWER HERE
}


@dataclass
class Builder:
    """Collects the cells of one source notebook, with deterministic cell ids."""

    name: str
    rule_ids: tuple[str, ...]
    cells: list = field(default_factory=list)

    def add(self, spec: CellSpec) -> None:
        """Append the cell(s) `spec` describes."""
        if spec.kind == "hidden-tests":
            self.hidden_tests()
        elif spec.kind == "markdown":
            self.cells.append(new_markdown_cell(spec.source, id=self._position_id()))
        elif spec.kind == "code":
            self.cells.append(new_code_cell(spec.source, id=self._position_id()))
        elif spec.kind == "answer":
            # an answer's cell id keeps the underscores of its grade id, as it always has
            self.graded(new_markdown_cell(spec.source, id=spec.grade_id), spec)
        else:
            self.graded(new_code_cell(spec.source, id=spec.grade_id.replace("_", "-")), spec)

    def _position_id(self) -> str:
        return f"{self.name}-{len(self.cells) + 1:02d}"

    def graded(self, cell: nbformat.NotebookNode, spec: CellSpec) -> None:
        """Append a cell nbgrader knows by its grade id."""
        grade, solution, locked = NBGRADER_FLAGS[spec.kind]
        points = _number(spec.options["points"]) if spec.kind == "answer" else 0
        cell.metadata["nbgrader"] = nbgrader_metadata(
            spec.grade_id, grade=grade, solution=solution, locked=locked, points=points
        )
        if "collapsed" in spec.options:
            cell.metadata["jupyter"] = {"source_hidden": True}
            cell.metadata["tags"] = [COURSE_CODE_TAG]
        self.cells.append(cell)

    def hidden_tests(self) -> None:
        """One autograded cell per rule group, generated from the rules with their points."""
        for graded in nbgrader_export.hidden_test_cells(self.rule_ids):
            cell = new_code_cell(graded.source, id=graded.grade_id.replace("_", "-")[:64])
            cell.metadata["nbgrader"] = nbgrader_metadata(
                graded.grade_id, grade=True, solution=False, locked=True, points=graded.points
            )
            self.cells.append(cell)

    def notebook(self) -> nbformat.NotebookNode:
        """The notebook of the cells so far, checked against nbformat's schema."""
        notebook = new_notebook(
            cells=self.cells,
            metadata={"kernelspec": KERNELSPEC, "language_info": {"name": "python"}},
        )
        nbformat.validate(notebook)
        return notebook


def build_notebook(
    name: str, rule_ids: tuple[str, ...], context: dict[str, Any]
) -> nbformat.NotebookNode:
    """The notebook of the template `content/<name>.md` filled with `context`."""
    template = f"{name}.md"
    builder = Builder(name, rule_ids)
    for spec in split_cells(render(template, name=name, **context), template):
        builder.add(spec)
    return builder.notebook()
