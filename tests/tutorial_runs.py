"""Running the tutorials' shell commands as a user types them.

Each command runs exactly as written, in bash, with the caller's environment less the test's
own virtual environment. One setting is pip's, made through its environment as a machine's pip
configuration would be: pip does not precompile the bytecode of what it installs (Python
compiles what a command imports when it imports it). Precompiling every module of JupyterLab's
hundred distributions was about a fifth of each install's CPU time (29 s against 22.5 s for the
student's, at load 6), and no tutorial says anything about it.
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


def environment() -> dict[str, str]:
    """The caller's environment without the test's own virtual environment, with pip set not to
    precompile bytecode."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # PIP_NO_COMPILE=1 would mean "compile": pip gives the value to the --no-compile option's
    # destination as it is, so the setting is made through the --compile option's name.
    env["PIP_COMPILE"] = "0"
    return env


def bash(commands: str, cwd: Path) -> str:
    """Run `commands` as a user's bash would (stopping at the first failure); return stdout."""
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands],
        cwd=cwd, env=environment(), capture_output=True, text=True,
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
