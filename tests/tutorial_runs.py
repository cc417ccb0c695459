"""Running the tutorials' shell commands as a user types them.

Each command runs exactly as written, in bash, with the caller's environment less the test's
own virtual environment. Some settings are pip's and Python's, made through their environment as
a machine's configuration would be:

- pip does not precompile the bytecode of what it installs: Python compiles what a command
  imports when it imports it, and keeps it, as it does on a user's machine (so a caller's
  PYTHONDONTWRITEBYTECODE is left out too: with it, every command, kernel and build hook compiled
  its imports again). Precompiling every module of JupyterLab's hundred distributions was about
  a fifth of each install's CPU time (29 s against 22.5 s for the student's, at load 6), and no
  tutorial says anything about it.
- pip keeps its build folders (`--no-clean`), in a temporary folder beside the clone, so the
  toolkit's wheel that the student's `pip install './games[jupyter]'` built and installed is
  the very wheel tests/test_toolkit_dist.py inspects (`built_wheels`): it is not built twice.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "docs" / "tutorials"
TUTORIALS_GROUP = "tutorials"
"""The xdist group of the modules that share tests/tutorial_fixtures.py (one worker builds its
fixtures once)."""
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
SHOWN_LANGUAGES = {"bash", "python", "{code-block} bash"}
BLOCK_SECONDS = 1500  # a safety net: installing JupyterLab into a fresh environment is the longest


@dataclass(frozen=True)
class Block:
    """A shell block of a tutorial: its commands, and whether a person uses what it opens."""

    text: str
    interactive: bool


@dataclass(frozen=True)
class TutorialRun:
    """A tutorial run to its end: the clone it ran in and what its commands printed."""

    workspace: Path
    printed: str


def shell_blocks(tutorial: Path) -> list[Block]:
    """The shell blocks of `tutorial`, in order; any other fenced language is refused, so a
    command cannot hide from the tests in a `console` or `sh` block."""
    blocks = []
    for fence in FENCE.finditer(tutorial.read_text(encoding="utf-8")):
        info, body = fence["info"].strip(), fence["body"]
        assert info in SHOWN_LANGUAGES, f"{tutorial.name}: a ```{info} block (use bash)"
        if info == "python":
            continue
        options = [line for line in body.splitlines() if line.startswith(":")]
        commands = "\n".join(line for line in body.splitlines() if not line.startswith(":"))
        blocks.append(Block(commands.strip(), ":class: interactive" in options))
    return blocks


def fresh_copy(folder: Path) -> Path:
    """A fresh copy of the repository in `folder`, as a clone would be, without any environment."""
    copy = folder / "course"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "_build", "jupyter_execute", "__pycache__", "*.egg-info",
            ".pytest_cache", ".ruff_cache", ".hypothesis", "grades", "build",
        ),
    )  # fmt: skip
    return copy


def temporary_folder(workspace: Path) -> Path:
    """The temporary folder (TMPDIR) of the commands run in `workspace`: beside the clone, so it
    goes with it, and pip's kept build folders with it."""
    folder = workspace.parent / "tmp"
    folder.mkdir(exist_ok=True)
    return folder


def environment(workspace: Path) -> dict[str, str]:
    """The environment of the commands run in `workspace`: the caller's, without the test's own
    virtual environment, with the settings of pip and Python this module's docstring gives."""
    dropped = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # PIP_NO_COMPILE=1 would mean "compile": pip gives the value to the --no-compile option's
    # destination as it is, so the setting is made through the --compile option's name.
    env["PIP_COMPILE"] = "0"
    env["PIP_NO_CLEAN"] = "1"  # keeps the wheels pip builds (see built_wheels)
    env["TMPDIR"] = str(temporary_folder(workspace))
    return env


def built_wheels(workspace: Path) -> list[Path]:
    """The wheels pip built from local folders for the commands run in `workspace` (kept in its
    ephemeral wheel cache because of PIP_NO_CLEAN)."""
    cache = temporary_folder(workspace)
    return sorted(cache.glob("pip-ephem-wheel-cache-*/wheels/**/*.whl"))


def bash(commands: str, cwd: Path) -> str:
    """Run `commands` as a user's bash would (stopping at the first failure); return stdout."""
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands],
        cwd=cwd, env=environment(cwd), capture_output=True, text=True,
        timeout=BLOCK_SECONDS,
    )  # fmt: skip
    assert done.returncode == 0, f"$ {commands}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def run_tutorial(name: str, cwd: Path) -> str:
    """Run every shell block of tutorial `name` in `cwd`; return what they printed."""
    printed = []
    blocks = shell_blocks(TUTORIALS / f"{name}.md")
    assert blocks, f"{name}.md shows no command"
    for block in blocks:
        if not block.interactive:
            printed.append(bash(block.text, cwd))
            continue
        for line in block.text.splitlines():
            for word in shlex.split(line):
                if word.endswith(".ipynb"):
                    assert (cwd / word).is_file(), f"{name}.md opens {word}, which is not there"
            printed.append(bash(f"{line} --help", cwd))
    return "\n".join(printed)
