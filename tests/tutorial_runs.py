"""Running the tutorials' shell commands as a user types them, and what their `pip install`
commands take from the package index.

Each tutorial runs its commands exactly as written, with pip configured through its environment
variables (as a company mirror would configure it) to install from a wheelhouse that
tests/tutorial_fixtures.py downloads from the index once per run, and not to precompile
bytecode (Python compiles what a command imports when it imports it). The index is still asked
once per run, so a tutorial whose packages no longer resolve still fails; the tutorials' three
installs of the same JupyterLab no longer download and resolve it each time.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "docs" / "tutorials"
TUTORIALS_GROUP = "tutorials"
"""The xdist group of the modules that share tests/tutorial_fixtures.py (one worker builds them
once)."""
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
SHOWN_LANGUAGES = {"bash", "python", "{code-block} bash"}
BLOCK_SECONDS = 1500  # a safety net: installing JupyterLab into a fresh environment is the longest
SEPARATORS = {"&&", "||", ";", "|"}
PIP_FLAGS = {"-q", "--quiet", "-U", "--upgrade"}
"""The options of `pip install` the tutorials may show; one with a value (other than -e) would
need reading here, so any other option is refused with a message saying so."""


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


def _commands(text: str) -> list[list[str]]:
    """The simple commands of a shell block, each as its words (split at &&, ||, ; and |)."""
    commands: list[list[str]] = []
    for line in text.splitlines():
        words: list[str] = []
        for word in shlex.split(line, comments=True):
            if word in SEPARATORS:
                commands.append(words)
                words = []
            else:
                words.append(word)
        commands.append(words)
    return [words for words in commands if words]


def pip_installs() -> list[str]:
    """Every requirement the tutorials' `pip install` commands name, as written (a path is in a
    clone)."""
    found: list[str] = []
    for tutorial in sorted(TUTORIALS.glob("*.md")):
        for block in shell_blocks(tutorial):
            for words in _commands(block.text):
                if Path(words[0]).name not in ("pip", "pip3") or words[1:2] != ["install"]:
                    continue
                for word in words[2:]:
                    if word in ("-e", "--editable"):
                        continue  # its value is the next word, a requirement like any other
                    assert word in PIP_FLAGS or not word.startswith("-"), (
                        f"{tutorial.name} runs pip install {word}: teach tests/tutorial_runs.py"
                        " what it means"
                    )
                    if not word.startswith("-") and word not in found:
                        found.append(word)
    return found


def venv_interpreter() -> str:
    """The interpreter the tutorials make their environments with (`python3.11 -m venv ...`)."""
    named = {
        words[0]
        for tutorial in sorted(TUTORIALS.glob("*.md"))
        for block in shell_blocks(tutorial)
        for words in _commands(block.text)
        if words[1:3] == ["-m", "venv"]
    }
    assert len(named) == 1, f"the tutorials make environments with {sorted(named)}"
    return named.pop()


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


def environment(wheelhouse: Path) -> dict[str, str]:
    """The caller's environment without the test's own virtual environment, with pip taking
    every package from `wheelhouse` (the same commands, configured as a local mirror would be)."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INDEX"] = "1"
    env["PIP_FIND_LINKS"] = str(wheelhouse)
    # pip reads PIP_NO_COMPILE=1 as "compile" (an option's "no-" is not applied to its value),
    # so the setting is written as the --compile option's: off. Precompiling every module of
    # JupyterLab's hundred distributions was half of an install's CPU time; Python compiles the
    # few a command imports when it imports them.
    env["PIP_COMPILE"] = "0"
    return env


def bash(commands: str, cwd: Path, wheelhouse: Path) -> str:
    """Run `commands` as a user's bash would (stopping at the first failure); return stdout."""
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands],
        cwd=cwd, env=environment(wheelhouse), capture_output=True, text=True,
        timeout=BLOCK_SECONDS,
    )  # fmt: skip
    assert done.returncode == 0, f"$ {commands}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def run_tutorial(name: str, cwd: Path, wheelhouse: Path) -> str:
    """Run every shell block of tutorial `name` in `cwd`; return what they printed."""
    printed = []
    blocks = shell_blocks(TUTORIALS / f"{name}.md")
    assert blocks, f"{name}.md shows no command"
    for block in blocks:
        if not block.interactive:
            printed.append(bash(block.text, cwd, wheelhouse))
            continue
        for line in block.text.splitlines():
            for word in shlex.split(line):
                if word.endswith(".ipynb"):
                    assert (cwd / word).is_file(), f"{name}.md opens {word}, which is not there"
            printed.append(bash(f"{line} --help", cwd, wheelhouse))
    return "\n".join(printed)


def requirements_of(word: str, clone: Path) -> list[str]:
    """What installing the requirement `word` takes from the index: itself, or for a folder of
    the clone (`.`, `./games[jupyter]`) its dependencies, those of the extras named, and its
    build backend (pip builds the folder in an environment of its own, also from the index).

    Read from the folder's pyproject.toml, as pip would find them, without building it: two
    isolated builds only to learn their metadata cost seconds."""
    if not word.startswith("."):
        return [word]
    folder, _, extras = word.partition("[")
    with (clone / folder / "pyproject.toml").open("rb") as handle:
        pyproject = tomllib.load(handle)
    project = pyproject["project"]
    assert "dependencies" not in project.get("dynamic", []), f"{folder}: dynamic dependencies"
    needed = [*project.get("dependencies", []), *pyproject["build-system"]["requires"]]
    for extra in filter(None, extras.rstrip("]").split(",")):
        needed += project["optional-dependencies"][extra.strip()]
    return needed
