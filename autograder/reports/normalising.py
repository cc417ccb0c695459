"""What copy detection compares of one submission: its top-level functions and classes,
normalised (no comments or docstrings, one layout, by `ast.unparse`), within caps on its size.
Comparing them is `autograder.reports.similarity`'s."""

from __future__ import annotations

import ast
import io
from dataclasses import dataclass

from autograder.grading.load import FUNCTIONS, Submission, load
from autograder.sandbox.bounded import Caps

REFERENCE = "(reference solutions)"
NOISE_TOKENS = 25  # matches shorter than this many tokens are ignored (copydetect's default)
GUARANTEE_TOKENS = 30  # matches at least this long are always found


@dataclass(frozen=True)
class CompareLimits:
    """What is compared of one submission at most, and what comparing may use."""

    source_chars: int = 500_000
    """Characters of code cells read: thirty times the largest example student's (15,000); a
    submission with more is not parsed (20 MB of code took minutes and gigabytes)."""
    code_chars: int = 200_000
    """Characters of normalised functions and classes compared."""
    submission: Caps = Caps(seconds=30, memory_mb=1024)
    """Reading, normalising and fingerprinting one submission (about 0.05 s each, usually)."""
    pairs: Caps = Caps(seconds=300, memory_mb=2048)
    """Comparing every pair of the class, once each submission is within the caps above."""
    functions: tuple[str, ...] = ()
    """The functions that tell a student's notebook from her other files (`--assignment`'s;
    those of lectures 1-4 when empty)."""


@dataclass(frozen=True)
class Code:
    """What is compared of one submission: its definitions, normalised, and what of it was not
    compared, with the reason ("" if nothing was left out)."""

    name: str
    text: str
    note: str = ""


def normalise(cells: list[str]) -> str:
    """The top-level functions and classes of `cells`, without docstrings or comments, in one
    layout. Cells that do not parse are left out (they are graded as syntax errors anyway)."""
    return normalised(cells)[0]


def normalised(cells: list[str]) -> tuple[str, list[str]]:
    """`normalise(cells)`, and what was left out of it that a submission could hide code in: a
    cell nested too deeply to parse, a definition too deep for `ast.unparse` (a helper of a
    thousand terms is enough)."""
    parts, left_out = [], []
    for number, source in enumerate(cells, start=1):
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        except (RecursionError, MemoryError):
            left_out.append(f"code cell {number} (nested too deeply to read)")
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                try:
                    _drop_docstrings(node)
                    parts.append(ast.unparse(node))
                except (RecursionError, MemoryError):
                    left_out.append(f"{node.name} (nested too deeply to compare)")
    return ("\n\n".join(parts) + "\n" if parts else ""), left_out


def _drop_docstrings(node: ast.AST) -> None:
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            inner.body = body[1:] or [ast.Pass()]


def submission_code(submission: Submission, limits: CompareLimits | None = None) -> Code:
    """What is compared of `submission`, within `limits` (see `CompareLimits`): its code, or
    an empty code whose note says why it is not compared."""
    limits = limits or CompareLimits()
    name = submission.student
    loaded = load(submission, functions=limits.functions or FUNCTIONS)
    if loaded.error:
        return Code(name, "", f"not compared: {loaded.error}")
    size = sum(len(source) for _, source in loaded.cells)
    if size > limits.source_chars:
        return Code(name, "", f"not compared: its code cells hold {size:,} characters, more "
                    f"than the {limits.source_chars:,} compared")  # fmt: skip
    text, left_out = normalised([source for _, source in loaded.cells])
    if len(text) > limits.code_chars:
        return Code(name, "", f"not compared: its functions and classes come to {len(text):,} "
                    f"characters, more than the {limits.code_chars:,} compared")  # fmt: skip
    fingerprint(Code(name, text))  # here, where a failure costs this submission alone
    return Code(name, text, f"compared without {', '.join(left_out)}" if left_out else "")


def reference_code() -> Code:
    from autograder.grading.reference import reference_source

    return Code(REFERENCE, normalise([reference_source()]))


def fingerprint(code: Code, common=None):
    """copydetect's fingerprint of `code`, `common` hashes left out."""
    from copydetect import CodeFingerprint

    window = GUARANTEE_TOKENS - NOISE_TOKENS + 1
    return CodeFingerprint(f"{code.name}.py", NOISE_TOKENS, window, boilerplate=common,
                           fp=io.StringIO(code.text), language="python")  # fmt: skip
