"""Copies found: a disguised copy of the reference is flagged, independent work is not, and no
submission can keep the others from being compared."""

from __future__ import annotations

import ast
import builtins
import csv
import html
import io
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.grading.load import Submission, discover
from autograder.grading.reference import reference_source
from autograder.reports.similarity import (
    REFERENCE,
    THRESHOLD,
    Code,
    CompareLimits,
    assignment_limits,
    compare,
    normalise,
    normalised,
    reference_code,
    submission_code,
)
from autograder.sandbox.bounded import Caps

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


# -- one submission cannot switch copy detection off, or stall it --------------------------------

THOUSAND_TERMS = "def helper():\n    return " + " + ".join(["1"] * 1000) + "\n"
DEEP_CELL = "def helper():\n    return " + "-" * 5000 + "1\n"
SMALL = CompareLimits(source_chars=20_000, code_chars=10_000)


def _copier(source: str) -> str:
    """`source` with its names changed and comments of its own, as a copier hides a copy."""
    return "# all mine\n" + ast.unparse(_Rename().visit(ast.parse(source)))


def _class_with(tmp_path: Path, hostile: dict[str, str]) -> Path:
    """An honest student, a student who copied them, and the `hostile` files (name: code)."""
    folder = tmp_path / "class"
    folder.mkdir()
    honest = INDEPENDENT.read_text()
    (folder / "ines.py").write_text(honest)
    (folder / "carl.py").write_text(_copier(honest))
    for name, code in hostile.items():
        (folder / name).write_text(code)
    return folder


def _pair(comparison, left: str, right: str) -> float:
    return next(m.score for m in comparison.matches if {m.left, m.right} == {left, right})


@pytest.mark.parametrize(
    ("hostile", "says"),
    [
        ({"mallory.py": THOUSAND_TERMS}, "compared without helper (nested too deeply to compare)"),
        ({"mallory.py": DEEP_CELL}, "compared without code cell 1 (nested too deeply to read)"),
        ({"mallory.py": "x = 1\n" * 4000}, "code cells hold 24,000 characters, more than the"),
        ({"mallory.py": "def f():\n" + "    x = 1\n" * 1500}, "functions and classes come to"),
        ({"mallory.ipynb": "{not json"}, "not compared: mallory.ipynb is not a valid notebook"),
        ({f"{REFERENCE}.py": "def minimax_value(game, state):\n    return 0\n"},
         "a submission's name cannot be the one the reference solutions go by"),
    ],
)  # fmt: skip
def test_a_hostile_submission_is_listed_as_not_compared_and_the_copier_is_still_flagged(
    tmp_path: Path, hostile: dict[str, str], says: str
) -> None:
    from autograder.reports.similarity import similarity_report

    folder = _class_with(tmp_path, hostile)
    found = discover([folder])
    out = tmp_path / "out"
    comparison = similarity_report(found.submissions, out, limits=SMALL)
    assert not comparison.failure
    assert _pair(comparison, "ines", "carl") >= THRESHOLD
    (name, why), *others = comparison.not_compared()
    assert name == Path(next(iter(hostile))).stem and says in why and not others
    page = (out / "similarity.html").read_text()
    assert "id='not-compared'" in page and html.escape(says.split(" (")[0]) in page


def test_the_command_finishes_lists_the_hostile_submission_and_flags_the_copier(
    tmp_path: Path, capsys
) -> None:
    folder = _class_with(tmp_path, {"mallory.py": THOUSAND_TERMS, "moe.py": DEEP_CELL})
    assert main(["similarity", str(folder), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "carl  ~  ines" in printed or "ines  ~  carl" in printed
    assert "mallory: compared without helper (nested too deeply to compare)" in printed
    assert "moe: compared without code cell 1 (nested too deeply to read)" in printed


def test_a_copier_who_adds_a_helper_too_deep_to_compare_is_still_flagged(tmp_path: Path) -> None:
    from autograder.reports.similarity import compare_submissions

    folder = _class_with(tmp_path, {})
    (folder / "carl.py").write_text((folder / "carl.py").read_text() + "\n\n" + THOUSAND_TERMS)
    comparison = compare_submissions(discover([folder]).submissions, SMALL)
    assert _pair(comparison, "ines", "carl") >= THRESHOLD
    assert comparison.not_compared() == [("carl", "compared without helper (nested too deeply to "
                                          "compare)")]  # fmt: skip


def test_normalising_leaves_out_only_what_cannot_be_normalised() -> None:
    kept = "def kept(x):\n    return x + 1\n"
    text, left_out = normalised([kept + "\n" + THOUSAND_TERMS, DEEP_CELL, "def broken(:\n"])
    assert text == kept and left_out == [
        "helper (nested too deeply to compare)",
        "code cell 2 (nested too deeply to read)",
    ]
    assert normalise([THOUSAND_TERMS]) == ""


def test_a_comparison_that_cannot_be_made_says_why_and_writes_its_page(
    tmp_path: Path, monkeypatch
) -> None:
    from autograder.reports import similarity

    def exhausting(codes: list[Code]) -> list:
        return [bytearray(2**20) for _ in range(10**6)]  # a terabyte, in the capped child

    monkeypatch.setattr(similarity, "compare", exhausting)
    folder = _class_with(tmp_path, {})
    limits = CompareLimits(pairs=Caps(seconds=60, memory_mb=64))
    comparison = similarity.similarity_report(
        discover([folder]).submissions, tmp_path, limits=limits
    )
    assert comparison.failure == "comparing the pairs needed more than 64 MiB of memory"
    assert comparison.matches == [] and {"ines", "carl"} <= set(comparison.codes)
    page = (tmp_path / "similarity.html").read_text()
    assert "No pair was compared: comparing the pairs needed more than 64 MiB" in page


def test_a_grading_run_lists_on_the_class_page_what_it_could_not_compare(tmp_path: Path) -> None:
    own = "def minimax_value(game, state):\n    return 0\n\n\n"
    folder = _class_with(tmp_path, {"mallory.py": own + THOUSAND_TERMS})
    out = tmp_path / "out"
    argv = ["grade", str(folder), "--out", str(out), "--quiet", "--similarity",
            "--assignment", "minimax"]  # fmt: skip
    assert main(argv) == 0
    page = (out / "class.html").read_text()
    section = page[page.index("<h2>Similar submissions") : page.index("<h2>Time")]
    not_compared = section[section.index("id='not-compared'") : section.index("</ul>")]
    assert "mallory" in not_compared and "helper (nested too deeply to compare)" in not_compared
    rows = section[section.index("id='similar'") :].split("<tr>")
    assert any("ines/feedback.html" in row and "carl/feedback.html" in row for row in rows)


@pytest.mark.parametrize(
    ("assignment", "chosen"), [("chance_and_maxn", "hw6.py"), (None, "lectures.py")]
)
def test_the_file_compared_is_chosen_by_the_functions_of_the_assignment_named(
    tmp_path: Path, assignment: str | None, chosen: str
) -> None:
    """A student who handed in two files: `--assignment chance_and_maxn` compares the one that
    defines its functions, not the one that defines lectures 1-4's."""
    lectures = tmp_path / "lectures.py"
    lectures.write_text("def minimax_value(game, state):\n    return 1\n\n\n"
                        "def minimax_decision(game, state):\n    return 2\n")  # fmt: skip
    hw6 = tmp_path / "hw6.py"
    hw6.write_text("def expectiminimax_value(game, state):\n    return 3\n\n\n"
                   "def maxn_value(game, state):\n    return 4\n")  # fmt: skip
    submission = Submission("eve", (hw6, lectures), pick_one=True)
    code = submission_code(submission, assignment_limits(assignment))
    assert ("expectiminimax_value" in code.text) == (chosen == "hw6.py"), code.text
    assert ("minimax_decision" in code.text) == (chosen == "lectures.py"), code.text
