"""The example class graded once per test process, for the modules that read that run.

`grade examples/class --workers 2` is the costliest run of the grader's class tests:
`test_grader_class.py` checks every grade and page it writes, and `test_gradescope.py` that a
few of its students, graded again with one worker, get the very same rows. The run is made once
per test process (a pytest-xdist worker), by whichever test asks first; the tests that read it
are in one xdist group, `GROUP`, so that a single worker makes it. Import it as
`from graded_class import ...` (pytest puts tests/ on the path).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.cli import main

ROOT = Path(__file__).resolve().parents[1]
CLASS = ROOT / "examples" / "class"
GROUP = "example-class-graded"
"""The xdist group of every test that reads the run (`pytest.mark.xdist_group(GROUP)`)."""

TIMEOUT = ("--timeout", "3")
"""A call's limit, of the submission's own time, for the class's runs. trent's two functions that
never answer spin a core until it runs out (at the default 10 s, those 20 s were the whole class's
run). At 1.5 s, olivia's minimax on a Connect Four position once ran out in the whole suite's run
(the machine's two cores busy), and at 3 s mallory's alphabeta at load 15, when the limit was the
wall clock's; a call's wait for a CPU is no longer its time."""

_GRADED: list[Path] = []


def example_class_graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output folder of `grade examples/class --workers 2`, made on the first call."""
    if not _GRADED:
        out = tmp_path_factory.mktemp("example-class-grades")
        argv = ["grade", str(CLASS), "--out", str(out), *TIMEOUT, "--workers", "2", "--quiet"]
        assert main(argv) == 0
        _GRADED.append(out)
    return _GRADED[0]
