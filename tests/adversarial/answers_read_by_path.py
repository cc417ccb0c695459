"""Attack: find the course repository on disk and run the reference solutions from it.

`solutions` is not on the sandbox's import path, but the student process runs as the grader's
user: the grader's working directory (/proc/<parent>/cwd), the interpreter's own path and the
targets of the import view's symlinks all lead back to the repository (or to the
site-packages that holds `solutions`). This file reads `solutions/{minimax,alphabeta,
depth_limited}.py` from there and executes them. Its own answers are 0 and the first action.
"""

import os
import sys
from pathlib import Path

MODULES = ("minimax", "alphabeta", "depth_limited")


def _places():
    yield Path(f"/proc/{os.getppid()}/cwd")
    yield from Path(sys.executable).parents
    for entry in sys.path:
        folder = Path(entry)
        if folder.is_dir():
            for link in folder.iterdir():
                if link.is_symlink():
                    yield from link.resolve().parents


def _steal():
    for place in _places():
        folder = place / "solutions"
        if all((folder / f"{name}.py").is_file() for name in MODULES):
            namespace = {"__name__": "stolen"}
            for name in MODULES:
                text = (folder / f"{name}.py").read_text()
                kept = [line for line in text.splitlines() if not line.startswith("from solutions")]
                kept = [line for line in kept if not line.startswith("from __future__")]
                exec(compile("\n".join(kept), str(folder / name), "exec"), namespace)
            print("read the reference solutions from", folder)
            return namespace
    return None


def minimax_value(game, state):
    return 0


def minimax_decision(game, state):
    return game.actions(state)[0]


def alphabeta_value(game, state, alpha=0, beta=0):
    return 0


def alphabeta_decision(game, state):
    return game.actions(state)[0]


def depth_limited_value(game, state, depth, evaluate):
    return 0


def depth_limited_decision(game, state, depth, evaluate):
    return game.actions(state)[0]


stolen = _steal()
if stolen is not None:
    for name in list(globals()):
        if name.startswith(("minimax_", "alphabeta_", "depth_limited_")) and name in stolen:
            globals()[name] = stolen[name]
