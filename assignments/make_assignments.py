"""Write the nbgrader source notebooks of the assignments: `source/<assignment>/<assignment>.ipynb`.

    python assignments/make_assignments.py          # rewrite every source notebook
    python assignments/make_assignments.py --check  # exit 1 if one is out of date

The text of each notebook is the jinja2 template `content/<assignment>.md` (its format is
described in content/README.md); this script fills it and writes the notebook. Nothing in a
notebook is a second copy that could drift:

- every solution region (### BEGIN SOLUTION ... ### END SOLUTION) is the source of a function of
  the `solutions` package, read with `inspect.getsource`, and so are the given helper cells
  (`assignment_builder.sources`, `assignment_builder.contexts`);
- every hidden test cell is generated from `autograder.grading.rules` by
  `autograder.platforms.nbgrader_export`, one cell per rule group with the group's points, so
  nbgrader and `python -m autograder grade` give the same points;
- the expected answers of the public self-checks are computed here by the reference solutions
  (`assignment_builder.self_checks`, `assignment_builder.check_cases`), and the bug hunt's
  buggy functions are real functions (`assignment_builder.bug_hunt`).

The output is deterministic: a second run changes no byte (tests/test_assignments.py checks
that the committed notebooks are up to date).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The helper package sits next to this script. Tests load the script by path (importlib), so
# its folder is not necessarily on sys.path: put it there before importing the package.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import nbformat  # noqa: E402
from assignment_builder.bug_hunt import BUGS  # noqa: E402
from assignment_builder.contexts import CONTEXTS, common_context  # noqa: E402
from assignment_builder.notebook import build_notebook  # noqa: E402
from assignment_builder.sources import BEGIN, END, without_markers  # noqa: E402

from autograder.grading.rules import ASSIGNMENT_RULES  # noqa: E402

# What tests/test_assignments.py uses of this script, some of it defined in the package.
__all__ = [
    "ASSIGNMENTS",
    "BEGIN",
    "BUGS",
    "END",
    "RULES_OF",
    "main",
    "notebook",
    "notebook_path",
    "notebook_text",
    "without_markers",
]

SOURCE = HERE / "source"
ASSIGNMENTS = tuple(ASSIGNMENT_RULES)
"""The assignments, in teaching order; each is `source/<name>/<name>.ipynb`."""

RULES_OF = {assignment: ASSIGNMENT_RULES[assignment] for assignment in ASSIGNMENTS}
"""The autograder rules each assignment's hidden tests grade."""


def notebook(assignment: str) -> nbformat.NotebookNode:
    """The source notebook of `assignment`: its template filled and split into cells."""
    rule_ids = RULES_OF[assignment]
    context = common_context(rule_ids) | CONTEXTS[assignment]()
    return build_notebook(assignment, rule_ids, context)


def notebook_path(assignment: str) -> Path:
    """Where the source notebook of `assignment` is written."""
    return SOURCE / assignment / f"{assignment}.ipynb"


def notebook_text(assignment: str) -> str:
    """The source notebook of `assignment`, as the exact text written to disk."""
    return nbformat.writes(notebook(assignment)) + "\n"


RELEASED = HERE.parent / "games" / "notebooks"
"""Where the released notebooks go: the student toolkit ships them (`python -m games notebooks`)."""

STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
"""What a released notebook holds where a solution was (nbgrader_config.py's code_stub)."""


def released_path(assignment: str) -> Path:
    """Where the released notebook of `assignment` is written."""
    return RELEASED / f"{assignment}.ipynb"


def released_text(assignment: str) -> str:
    """The notebook students get, as nbgrader's generate_assignment makes it: the solutions
    replaced by a stub and the hidden tests removed."""
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    released = notebook(assignment)
    for step in (ClearSolutions(code_stub={"python": STUB}), ClearHiddenTests()):
        released, _ = step.preprocess(released, {})
    return nbformat.writes(released) + "\n"


def outputs(assignment: str) -> list[tuple[Path, str]]:
    """Every file written for `assignment`: its source notebook and its released notebook."""
    return [
        (notebook_path(assignment), notebook_text(assignment)),
        (released_path(assignment), released_text(assignment)),
    ]


def main(argv: list[str] | None = None) -> int:
    """Write the notebooks that are out of date, or with --check only list them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", default=list(ASSIGNMENTS), help="which ones")
    parser.add_argument("--check", action="store_true", help="only check they are up to date")
    args = parser.parse_args(argv)
    stale = []
    for path, text in (pair for assignment in args.assignments for pair in outputs(assignment)):
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parent)}")
    if args.check and stale:
        print("out of date (run python assignments/make_assignments.py):")
        for path in stale:
            print(f"  {path.relative_to(HERE.parent)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
