"""The fast layer of the browser course's tests: every released notebook run in Pyodide under Node.

Pyodide (the Python the browser course runs on) is the npm package `make_browser_course.py`
installs, the toolkit its wheel: no browser, no web server. Each notebook runs top to bottom,
as Run All would, with the reference answers written in (every self-check passes), with the
stubs it is released with (each says what to write first) and with a catalogued mistake, whose
hint must be the one CPython gives. One Node process runs them all (Pyodide starts once).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from browser_notebooks import (
    ASSIGNMENTS,
    answered,
    code_cells,
    course_builder,
    filled_cache,
    released,
    toolkit_wheel,
)

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
RUNNER, DRIVER = HERE / "browser" / "run_cells.mjs", HERE / "browser" / "driver.py"
MUTANT_FROM = "return max(values) if game.to_move(state) == MAX else min(values)"
MUTANT_TO = "return max(values)"  # every level maximises: the players do not alternate


def _mutant_cells() -> list[str]:
    """Minimax's cells up to its last self-check, with a catalogued mistake in minimax_value.

    The hints are the self-checks' words; the cells after them (the full tic-tac-toe tree,
    549,946 states, about 1 s in CPython and 2 in Pyodide, then the hidden tests' places) say
    nothing more of a mistake, and run in Pyodide with the answers ("answered minimax")."""
    cells = code_cells(answered("minimax"))
    assert sum(MUTANT_FROM in cell for cell in cells) == 1
    last = next(
        i for i, cell in enumerate(cells) if "check_minimax_decision(minimax_decision)" in cell
    )
    return [cell.replace(MUTANT_FROM, MUTANT_TO) for cell in cells[: last + 1]]


SELF_CHECK_LIMIT = "SELF_CHECK_TIMEOUT = 5.0\n"
ENDLESS_LIMIT = "SELF_CHECK_TIMEOUT = 0.2\n"
"""The endless notebook's limit a self-check call: each of its seven checks that loops waits it
out, twice (Pyodide, then CPython), and how long the wait is says nothing of who stops the loop
and with what words (at 5 s, the test took over a minute of the suite; at 1 s, 14 s; at 0.3 s,
4 s of CPU). The one check that does not loop (a terminal state) returns in microseconds, far
inside it even at a load of 16."""


def _endless_cells() -> list[str]:
    """Minimax's cells up to its self-check, with a minimax_value that never returns (and
    self-checks that give up on a call sooner than the released notebook's)."""
    cells = code_cells(answered("minimax"))
    last = next(i for i, cell in enumerate(cells) if "check_minimax_value(minimax_value)" in cell)
    cells = cells[: last + 1]
    assert any(SELF_CHECK_LIMIT in cell for cell in cells)
    return [
        cell.replace(MUTANT_FROM, "while True:\n        pass").replace(
            SELF_CHECK_LIMIT, ENDLESS_LIMIT
        )
        for cell in cells
    ]


def _notebooks() -> dict[str, list[str]]:
    runs = {f"answered {name}": code_cells(answered(name)) for name in ASSIGNMENTS}
    runs |= {f"released {name}": code_cells(released(name)) for name in ASSIGNMENTS}
    runs["mutant minimax"] = _mutant_cells()
    runs["endless minimax"] = _endless_cells()
    return runs


@pytest.fixture(scope="module")
def pyodide_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    """What each notebook's cells printed and raised in Pyodide, by run."""
    if shutil.which("node") is None:
        pytest.fail("the browser tests need Node.js (node, npm): apt-get install nodejs npm")
    builder = course_builder()
    pyodide = filled_cache(builder)
    wheel = toolkit_wheel(builder, tmp_path_factory)
    driver = DRIVER.read_text(encoding="utf-8")
    job = {
        "wheels": [str(wheel)],
        "cells": _notebooks(),
        "driver": driver,
        "entry": "run_notebooks",
    }
    done = subprocess.run(
        ["node", str(RUNNER), str(pyodide)],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=1800,  # about 30 s in the suite on two cores: a safety net, not a target
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _errors(results: list[dict]) -> list[str]:
    return [result["error"] for result in results if result["error"]]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_reference_answers_pass_every_self_check_in_pyodide(
    pyodide_runs: dict, assignment: str
) -> None:
    results = pyodide_runs[f"answered {assignment}"]
    assert _errors(results) == []
    printed = "".join(result["output"] for result in results)
    assert "ok  " in printed
    assert "NotImplementedError" not in printed


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_released_notebook_runs_in_pyodide_and_asks_for_the_functions_first(
    pyodide_runs: dict, assignment: str
) -> None:
    results = pyodide_runs[f"released {assignment}"]
    assert _errors(results) == []
    printed = "".join(result["output"] for result in results)
    assert "not written yet" in printed or "raises NotImplementedError" in printed


def _in_cpython(cells: list[str]) -> list[dict]:
    """What the cells print and raise here, run by the same driver as in Pyodide."""
    namespace: dict = {}
    exec(compile(DRIVER.read_text(encoding="utf-8"), str(DRIVER), "exec"), namespace)
    return json.loads(namespace["run_cells"](json.dumps(cells)))


def test_a_catalogued_mistake_gets_the_same_hint_in_pyodide_as_in_cpython(
    pyodide_runs: dict,
) -> None:
    failed = _errors(_in_cpython(_mutant_cells()))
    assert failed and failed[0].startswith("AssertionError") and "Hint" in failed[0]
    assert _errors(pyodide_runs["mutant minimax"]) == failed


def test_a_self_check_stops_an_endless_loop_in_pyodide_with_cpythons_words(
    pyodide_runs: dict,
) -> None:
    # Pyodide has no signal.setitimer: the limit comes from games.deadline's monitoring hook
    failed = _errors(_in_cpython(_endless_cells()))
    assert len(failed) == 1 and "minimax_value" in failed[0]
    assert _errors(pyodide_runs["endless minimax"]) == failed
