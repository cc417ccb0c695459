"""How the suite shares two cores (pytest-xdist, `-n 2 --dist loadgroup` in pyproject.toml).

- Tests that share an expensive fixture of module or session scope run on one worker, so the
  fixture is built once per run, not once per worker: each such fixture's users get one
  `xdist_group` (the site build, which is not a fixture, has its group named in its modules).
- The slowest modules start first (`START_FIRST`), so that no long test starts last and keeps one
  core busy while the other waits at the end of the run.
- What must happen once at a time on the machine (downloads into a cache that other workers and
  other runs share) holds the lock of tests/run_wide.py.
- The workers import nbformat (and nbgrader, nbclient) without rfc3987-syntax: jsonschema, which
  nbformat's validator imports, loads it when it is installed to check IRIs, and it builds its
  lark grammars at import, about 1.5 s of each worker's CPU; no schema the suite validates
  against has an IRI format (tests/test_contest_kernel.py's release script does the same).
"""

from __future__ import annotations

import sys

import pytest

sys.modules.setdefault("rfc3987_syntax", None)  # see the docstring: jsonschema then skips it

START_FIRST = (
    # the longest chains of a run, longest first (ranked by --durations): each is under way on
    # one worker while the other takes the many short tests
    "test_browser_site.py",
    "test_nbgrader_course.py",
    "test_docs_tutorials.py",
    "test_docs.py",  # with test_lectures.py: the site's build, then its tests
    "test_lectures.py",
    "test_nbgrader_import.py",
    "test_browser_pyodide.py",
    "test_contest_load.py",
    "test_contest_kernel.py",
    "test_toolkit_dist.py",
    "test_contest_grades.py",
    "test_grader_class.py",
)
SHARED_SCOPES = ("module", "package", "session")
BUILT_AGAIN = ("view", "builder")
"""Shared fixtures that take about a second (the sandbox's import view, a script loaded as a
module): each worker builds its own, and their modules' tests, many and slow, are split."""


def _shared_fixtures(item: pytest.Item) -> list[str]:
    """The project's fixtures of module or session scope that `item` uses (pytest's own and the
    plugins' are left out: they are cheap, and every test uses tmp_path_factory)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    found = []
    for name, definitions in info.name2fixturedefs.items():
        for definition in definitions:
            if definition.scope in SHARED_SCOPES and definition.baseid and name not in BUILT_AGAIN:
                found.append(f"{definition.baseid}::{name}")
    return found


def _groups(items: list[pytest.Item]) -> dict[str, str]:
    """Each item's group, by node id: items joined by a shared fixture (transitively) share one."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    uses = {item.nodeid: _shared_fixtures(item) for item in items}
    for fixtures in uses.values():
        for other in fixtures[1:]:
            parent[root(other)] = root(fixtures[0])
    return {nodeid: root(fixtures[0]) for nodeid, fixtures in uses.items() if fixtures}


def _start_rank(item: pytest.Item) -> int:
    name = item.path.name
    return START_FIRST.index(name) if name in START_FIRST else len(START_FIRST)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # a stable sort by module keeps each module's tests together and in their order, so a
    # module-scoped fixture is still set up once
    items.sort(key=_start_rank)
    groups = _groups(items)
    for item in items:
        named = item.get_closest_marker("xdist_group")  # a module may name its group itself
        if item.nodeid in groups and named is None:
            item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))
