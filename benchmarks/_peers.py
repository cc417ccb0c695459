"""The peers `bench_grading.py` is compared with, and the command's start-up time.

- Otter-Grader's local grading (`otter.api.grade_submission`, the `otter` extra): the same
  notebooks, each graded by Otter's own runner (a kernel per notebook) against one test file
  holding the same five checks as the notebooks' nbgrader test cell, `workers` at a time.
- The start-up: a fresh `python -c "import autograder.cli"` and `python -m autograder --help`,
  beside a bare `python -c pass`, alternated and the fastest of several kept.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

STARTUP_TARGET = 0.3
"""Seconds `import autograder.cli` and `python -m autograder --help` may take (issue 35)."""


def otter_installed() -> bool:
    return importlib.util.find_spec("otter") is not None


def otter_test_file(checks: list[tuple[str, str]]) -> str:
    """An Otter test file (OK format) of one case: `minimax_value` on each (picture, value)."""
    lines = [">>> from games import TicTacToe", ">>> game = TicTacToe()"]
    for picture, value in checks:
        lines += [f">>> minimax_value(game, {picture!r}) == {value}", "True"]
    case = {"code": "\n".join(lines), "hidden": False, "locked": False}
    suite = {"cases": [case], "scored": True, "setup": "", "teardown": "", "type": "doctest"}
    test = {"name": "q1", "points": 10, "suites": [suite]}
    return f"OK_FORMAT = True\n\ntest = {test!r}\n"


def otter_autograder(folder: Path, checks: list[tuple[str, str]], environment: dict) -> Path:
    """Write the test file and build Otter's autograder zip with `otter generate`."""
    tests = folder / "tests"
    tests.mkdir(parents=True)
    (tests / "q1.py").write_text(otter_test_file(checks))
    zipped = folder / "autograder.zip"
    otter = Path(sys.executable).parent / "otter"
    command = [str(otter), "generate", "-t", "tests", "-o", str(zipped)]
    command += ["--no-config", "--no-requirements", "--no-environment"]
    run = subprocess.run(command, cwd=folder, env=environment, capture_output=True, text=True)
    if run.returncode != 0 or not zipped.exists():
        raise SystemExit(f"otter generate failed:\n{run.stdout}{run.stderr}")
    return zipped


def _otter_grade(notebook: str, autograder: str) -> tuple[float, float | str]:
    """One submission graded by Otter (in a pool worker): (points, possible), or (0, what went
    wrong) when Otter itself failed on it."""
    from otter.api import grade_submission

    try:
        results = grade_submission(notebook, autograder, quiet=True)
    except Exception as error:  # Otter's own failure (a kernel that never answered), said
        return 0.0, f"{type(error).__name__}: {error}"
    return results.total, results.possible


def _quiet_worker() -> None:
    """Otter's kernels warn on stderr for every notebook; the benchmark's output stays a table."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def time_otter(notebooks: list[Path], autograder: Path, workers: int) -> tuple[float, list]:
    """Grade every notebook with Otter, `workers` at a time: the wall time (from the pool's
    start, so the workers' imports count as the command's start-up does) and the scores."""
    started = time.perf_counter()
    with ProcessPoolExecutor(workers, initializer=_quiet_worker) as pool:
        scores = list(
            pool.map(_otter_grade, map(str, notebooks), [str(autograder)] * len(notebooks))
        )
    return time.perf_counter() - started, scores


def startup_times(environment: dict, repeat: int = 7) -> dict[str, float]:
    """The fastest of `repeat` fresh interpreters, alternated: bare Python, `import
    autograder.cli`, `python -m autograder --help` and the grade command's own modules
    (`import autograder.grade_command`, what a `grade` run imports before it reads a
    notebook) (wall seconds)."""
    commands = {
        "python -c pass": ["-c", "pass"],
        "import autograder.cli": ["-c", "import autograder.cli"],
        "python -m autograder --help": ["-m", "autograder", "--help"],
        "import autograder.grade_command": ["-c", "import autograder.grade_command"],
    }
    best = dict.fromkeys(commands, float("inf"))
    for _ in range(repeat):
        for label, arguments in commands.items():
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, *arguments],
                env=environment,
                stdout=subprocess.DEVNULL,
                check=True,
                cwd=os.getcwd(),
            )
            best[label] = min(best[label], time.perf_counter() - started)
    return best
