"""The fixtures the tutorials' tests share, built once per run: a pytest plugin.

tests/test_docs_tutorials.py and tests/test_toolkit_dist.py load it (`pytest_plugins`), and
both name the xdist group `TUTORIALS_GROUP`, so they run on one worker, which builds these once:

- `tutorial_wheelhouse`: every distribution the tutorials' `pip install` commands take (read
  from the commands themselves), downloaded from the index once (tests/tutorial_runs.py says
  how the commands then use it);
- `students_tutorial`: the student's tutorial run once in a fresh clone; its toolkit-only
  environment is also the kernel of tests/test_toolkit_dist.py (the same install, tested twice).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tutorial_runs import (
    BLOCK_SECONDS,
    ROOT,
    TutorialRun,
    fresh_copy,
    pip_installs,
    requirements_of,
    run_tutorial,
    venv_interpreter,
)


def _pip_run(python: str, *args: str, cwd: Path) -> None:
    done = subprocess.run(
        [python, "-m", "pip", "--disable-pip-version-check", *args],
        cwd=cwd, capture_output=True, text=True, timeout=BLOCK_SECONDS,
    )  # fmt: skip
    assert done.returncode == 0, f"pip {' '.join(args)}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"


@pytest.fixture(scope="session")
def tutorial_wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every distribution the tutorials install, downloaded from the index once for the run.

    Resolved together by the tutorials' own interpreter, so the versions fit each other and it;
    the requirements that are folders of a clone (`.`, `./games[jupyter]`) are built from the
    clone when a tutorial installs them, and bring their dependencies and build backends here.
    """
    scratch = tmp_path_factory.mktemp("wheelhouse")
    wheelhouse = scratch / "wheels"
    needed = {need for word in pip_installs() for need in requirements_of(word, ROOT)}
    python = venv_interpreter()
    _pip_run(python, "download", "-q", "-d", str(wheelhouse), *sorted(needed), cwd=scratch)
    # a distribution published only as source is built once here, so no install builds it
    sources = [path for path in wheelhouse.iterdir() if not path.name.endswith(".whl")]
    if sources:
        _pip_run(python, "wheel", "-q", "--no-deps", "-w", str(wheelhouse),
                 *map(str, sources), cwd=scratch)  # fmt: skip
        for path in sources:
            path.unlink()
    return wheelhouse


@pytest.fixture(scope="session")
def students_tutorial(
    tmp_path_factory: pytest.TempPathFactory, tutorial_wheelhouse: Path
) -> TutorialRun:
    """The student's tutorial, run once in a clone of its own: its environment (`toolkit-env`,
    the toolkit and Jupyter only) is also the kernel that runs the assignments in
    tests/test_toolkit_dist.py."""
    workspace = fresh_copy(tmp_path_factory.mktemp("student"))
    printed = run_tutorial("student", workspace, tutorial_wheelhouse)
    return TutorialRun(workspace, printed)
