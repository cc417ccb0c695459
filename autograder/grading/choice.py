"""Which of a student's several files is graded: the one that defines the assignment's functions.

A student may hand in a scratch `Untitled.ipynb` beside the assignment's notebook, or a
repository with helper modules beside it. The files are told apart by reading their code, never
by running it: the file whose code cells define (`def`, at the top level) the most of the
functions the selected rules call is graded, the first in name order on a tie, and the status
names every other file with the reason it was not graded.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

_DEF_LINE = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)
SHOWN = 5
"""Files named in a status; past them, only how many more were not graded."""


@dataclass(frozen=True)
class Candidate:
    """One of a student's files: its name as the student knows it, the graded functions it
    defines, and why it cannot be graded at all ("" if it can)."""

    name: str
    defined: frozenset[str]
    problem: str = ""


def defined_functions(sources: Iterable[str], functions: Collection[str]) -> frozenset[str]:
    """Which of `functions` the code cells `sources` define at their top level (inside an `if`
    or a `try` too, not as methods). A cell that does not parse is searched line by line, so a
    syntax error elsewhere in a cell does not hide its functions."""
    wanted, found = set(functions), set()
    for source in sources:
        try:
            names = set(_top_level_defs(ast.parse(source).body))
        except (SyntaxError, ValueError, RecursionError):  # nesting too deep, a NUL byte
            names = set(_DEF_LINE.findall(source))
        found |= names & wanted
    return frozenset(found)


def _top_level_defs(body: list[ast.stmt]) -> Iterator[str]:
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            yield statement.name
        elif not isinstance(statement, ast.ClassDef):
            for block in ("body", "orelse", "finalbody"):
                inner = getattr(statement, block, None)
                if isinstance(inner, list):
                    yield from _top_level_defs(inner)
            for handler in getattr(statement, "handlers", ()):
                yield from _top_level_defs(handler.body)


def better(candidate: Candidate, best: Candidate) -> bool:
    """Whether `candidate` is graded rather than `best`, a file found before it: it can be read
    and defines more of the functions (or `best` cannot be read)."""
    if candidate.problem:
        return False
    return bool(best.problem) or len(candidate.defined) > len(best.defined)


def passed_over(
    candidates: Sequence[Candidate], chosen: int, functions: Collection[str]
) -> list[str]:
    """A line for each candidate but the `chosen` one: which file it is and why it was not
    graded."""
    graded = candidates[chosen]
    lines = []
    for number, candidate in enumerate(candidates):
        if number == chosen:
            continue
        if candidate.problem:
            lines.append(f"{candidate.name} ({candidate.problem})")
        elif len(candidate.defined) == len(graded.defined):
            lines.append(
                f"{candidate.name} (defines as many of the graded functions as "
                f"{graded.name}, graded as the first by name)"
            )
        else:
            lines.append(
                f"{candidate.name} (defines {len(candidate.defined)} of the "
                f"{len(set(functions))} graded functions; {graded.name}, graded, defines "
                f"{len(graded.defined)})"
            )
    return lines


def status_note(lines: Sequence[str]) -> str:
    """What a student's status says of the files that were not graded."""
    shown = "; ".join(lines[:SHOWN])
    more = f"; and {len(lines) - SHOWN} more" if len(lines) > SHOWN else ""
    return f"also handed in, not graded: {shown}{more}"


def shown_names(paths: Sequence[Path]) -> list[str]:
    """The files' names as the student knows them: relative to the folder they all lie in."""
    try:
        common = Path(os.path.commonpath([path.parent for path in paths]))
        return [path.relative_to(common).as_posix() for path in paths]
    except ValueError:  # absolute and relative paths mixed
        return [str(path) for path in paths]
