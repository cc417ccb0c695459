"""Code for the notebooks read from the code base: solution regions, given helpers, setup cells."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any

from autograder.platforms import nbgrader_export

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def with_solution_regions(source: str, names: tuple[str, ...]) -> str:
    """Wrap the body (after the docstring) of each function called one of `names` in markers."""
    tree = ast.parse(source)
    lines = source.splitlines()
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in names:
            first = node.body[0]
            has_docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            start = first.end_lineno if has_docstring else first.lineno - 1
            spans.append((start, node.end_lineno, node.body[-1].col_offset))
    if len(spans) != len(names):
        raise ValueError(f"not every one of {names} is a function of this source")
    for start, end, indent in sorted(spans, reverse=True):
        pad = " " * indent
        lines[start:end] = [f"{pad}{BEGIN}", *lines[start:end], f"{pad}{END}"]
    return "\n".join(lines)


def solution_source(function: Callable) -> str:
    """The source of a solutions function with its body as a solution region."""
    return with_solution_regions(inspect.getsource(function), (function.__name__,))


def without_markers(source: str) -> str:
    """A solution cell's source with the solution markers removed (what the tests compare)."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in (BEGIN, END))


def module_constant(module: Any, name: str) -> str:
    """The source of a module-level assignment of `name`, with the docstring that follows it."""
    source = inspect.getsource(module)
    tree = ast.parse(source)
    body = tree.body
    for index, node in enumerate(body):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        names = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
        if any(isinstance(t, ast.Name) and t.id == name for t in names):
            end = node.end_lineno
            following = body[index + 1] if index + 1 < len(body) else None
            if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant):
                end = following.end_lineno
            return "\n".join(source.splitlines()[node.lineno - 1 : end])
    raise ValueError(f"{module.__name__} has no top-level assignment of {name}")


def given_source(*objects: Callable) -> str:
    """The sources of helper functions or classes, one after the other."""
    return "\n\n\n".join(inspect.getsource(obj).rstrip("\n") for obj in objects)


GAMES_NAMES = ("MAX", "MIN", "ConnectFour", "CountingGame", "Game", "GameTree", "TicTacToe")
"""The names of the `games` package every setup cell imports."""


def setup_source(
    modules: tuple[str, ...] = (),
    froms: tuple[str, ...] = (),
    games: tuple[str, ...] = (),
    after: str = "",
) -> str:
    """The first code cell: the imports, the self-check helpers, then `after` (collapsed).

    `modules` are extra `import x` lines, `froms` extra `from x import y` lines of the standard
    library, `games` extra names of the `games` package.
    """
    standard = sorted({"import math", *modules}) + sorted(froms)
    if any("matplotlib" in line for line in standard):
        # The browser course has no matplotlib offline: a set-up cell that imported it would
        # fail there, and every check after it with it. A plotting cell imports it itself.
        raise ValueError("a set-up cell must not import matplotlib; import it where it plots")
    names = ", ".join(sorted({*GAMES_NAMES, *games}, key=lambda n: (not n.isupper(), n)))
    course = [
        f"from games import {names}"
        if len(names) < 80
        else "from games import (\n" + "".join(f"    {n},\n" for n in names.split(", ")) + ")",
        "from games.protocol import Action, IllegalActionError, State",
    ]
    if "Evaluation" in after or "LINES" in after:
        course.append("from games.tictactoe import EMPTY, LINES, winner")
    blocks = ["\n".join(standard), "\n".join(course)]
    imports = "\n\n".join(block for block in blocks if block)
    source = nbgrader_export.self_check_helpers_source(imports)
    return source + ("\n\n" + after.strip("\n") + "\n" if after else "")
