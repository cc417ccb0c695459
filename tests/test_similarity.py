"""Copies found: a disguised copy of the reference is flagged, independent work is not."""

from __future__ import annotations

import ast
import builtins
import csv
import io
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.grading.load import Submission
from autograder.grading.reference import reference_source
from autograder.reports.similarity import (
    REFERENCE,
    THRESHOLD,
    Code,
    compare,
    normalise,
    reference_code,
    submission_code,
)

ROOT = Path(__file__).resolve().parents[1]
INDEPENDENT = ROOT / "tests" / "fixtures" / "independent_solution.py"
KEEP = set(dir(builtins)) | {"math", "MAX", "MIN", "game", "state"}


class _Rename(ast.NodeTransformer):
    """Give every parameter and local variable another name, as a student hiding a copy would."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def _new(self, name: str) -> str:
        if (
            name in KEEP
            or name.startswith("__")
            or name.endswith("_value")
            or name.endswith("_decision")
        ):
            return name
        return self.names.setdefault(name, f"thing{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self._new(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self._new(node.arg)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.name = self._new(node.name)
        self.generic_visit(node)
        return node


def _disguised_reference() -> str:
    """The reference with renamed variables and helpers, its functions in reverse order, and
    comments of its own."""
    tree = _Rename().visit(ast.parse(reference_source()))
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    others = [node for node in tree.body if not isinstance(node, ast.FunctionDef)]
    tree.body = others + functions[::-1]
    return "# my own work\n" + ast.unparse(tree).replace("\n\n", "\n\n# step\n")


def test_normalising_drops_comments_docstrings_and_layout() -> None:
    a = 'def f(x):\n    """Doc."""\n    # why\n    return  x+1\n'
    b = "def f(x):\n\n    return x + 1   # how\n"
    assert normalise([a]) == normalise([b]) == "def f(x):\n    return x + 1\n"
    assert normalise(["def broken(:\n"]) == ""


def test_the_reference_with_renamed_names_and_reordered_helpers_is_flagged() -> None:
    disguised = Code("mallet", normalise([_disguised_reference()]))
    assert "thing0" in disguised.text  # the names really changed
    (match,) = compare([reference_code(), disguised])
    assert match.score >= 0.9 > THRESHOLD


def test_two_independent_correct_solutions_are_not_flagged() -> None:
    independent = submission_code(Submission("ines", (INDEPENDENT,)))
    matches = compare([reference_code(), independent])
    assert all(match.score < THRESHOLD for match in matches)


def test_the_example_class_gets_a_list_led_by_copies_of_the_reference(tmp_path: Path) -> None:
    out = tmp_path / "similar"
    assert main(["similarity", str(ROOT / "examples" / "class"), "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO((out / "similarity.csv").read_text())))
    flagged = [row for row in rows if float(row["score"]) >= THRESHOLD]
    # The example students are built from one set of blocks that follow the reference: those
    # closest to it are listed, and passages the whole class shares are no evidence between two
    # students.
    assert flagged and all(REFERENCE in (row["left"], row["right"]) for row in flagged)
    named = {row["left"] for row in flagged} | {row["right"] for row in flagged}
    assert "alice_correct" in named and "carol_negamax" not in named
    page = (out / "similarity.html").read_text()
    assert "a reason to look at the two submissions, not a verdict" in page
    assert page.count("<mark>") >= len(flagged) and "http" not in page


@pytest.mark.parametrize("missing", [True, False])
def test_the_command_says_when_there_is_nothing_to_compare(tmp_path: Path, missing: bool, capsys):
    folder = tmp_path / ("missing" if missing else "empty")
    if not missing:
        folder.mkdir()
    assert main(["similarity", str(folder), "--out", str(tmp_path / "out")]) == 2
    assert "no submissions found" in capsys.readouterr().err
