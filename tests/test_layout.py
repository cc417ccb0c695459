"""The grader's layout: arrows run one way, the folders are its jobs, and every file stays short.

Import circles are found from the source (every `import` at any depth of a file, those under
`if TYPE_CHECKING:` and inside functions included), so a lazy import cannot hide one.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("autograder", "games", "solutions")
JOBS = ("grading", "contest", "reports", "platforms", "sandbox")
MOST_TOP_MODULES = 8
MOST_LINES = 400
MOST_FUNCTION_LINES = 80


def modules(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `packages` under `root`."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if "build" in parts:
                continue
            found[".".join(parts).removesuffix(".__init__")] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that module `name` (at `path`) imports, itself excepted.

    `from autograder.grading import load` imports the module `autograder.grading.load`;
    `from autograder.sandbox import Limits` imports the package `autograder.sandbox`.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            named += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            named += [f"{base}.{alias.name}" for alias in node.names]
    targets = set()
    for dotted in named:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        if dotted and dotted != name:
            targets.add(dotted)
    return targets


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for node in sorted(edges):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return found


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    known = modules(root, packages)
    return {name: imported(name, path, known) for name, path in known.items()}


def test_no_module_imports_one_that_imports_it_back() -> None:
    found = circles(import_graph())
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_circle_finder_sees_a_circle_through_a_lazy_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "jobs").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "jobs" / "__init__.py").write_text("")
    (package / "cli.py").write_text("from pkg.jobs import work\n")
    (package / "jobs" / "work.py").write_text("def run():\n    from pkg import cli\n")
    (package / "jobs" / "alone.py").write_text("import pkg.jobs.work\n")
    graph = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.cli"] == {"pkg.jobs.work"}
    assert circles(graph) == [["pkg.cli", "pkg.jobs.work"]]


def test_the_command_layer_is_imported_by_no_job() -> None:
    graph = import_graph()
    importers = sorted(name for name, targets in graph.items() if "autograder.cli" in targets)
    assert importers == ["autograder.__main__"]


def test_the_top_of_the_grader_holds_only_its_entry_points() -> None:
    top = sorted(path.name for path in (ROOT / "autograder").glob("*.py"))
    assert len(top) <= MOST_TOP_MODULES, top
    folders = sorted(
        path.name for path in (ROOT / "autograder").iterdir() if (path / "__init__.py").is_file()
    )
    assert folders == sorted([*JOBS, "hidden_tests"])


@pytest.mark.parametrize("job", JOBS)
def test_every_job_folder_is_mapped_in_the_graders_readme(job: str) -> None:
    readme = (ROOT / "autograder" / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith(f"| `{job}/` |")]
    assert len(rows) == 1, f"autograder/README.md has no row for {job}/"
    assert "may import" in readme and rows[0].count("|") == 4  # what it holds, what it may import


def test_no_grader_file_or_function_is_longer_than_a_reader_holds_at_once() -> None:
    long_files, long_functions = [], []
    for path in sorted((ROOT / "autograder").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if len(source.splitlines()) > MOST_LINES:
            long_files.append(f"{path.relative_to(ROOT)} ({len(source.splitlines())} lines)")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > MOST_FUNCTION_LINES:
                    long_functions.append(f"{path.relative_to(ROOT)}:{node.name} ({length})")
    assert not long_files, long_files
    assert not long_functions, long_functions
