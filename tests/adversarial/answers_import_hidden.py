"""Attack: import the reference solutions or the grader from inside the sandbox.

Tries `import solutions` and `import autograder` every way Python offers (import statement,
importlib, __import__, find_spec, a walk of sys.path). If any works, it answers with the
reference functions; otherwise it answers 0 and the first action, which earn nothing.
"""

import contextlib
import importlib
import importlib.util
import pkgutil
import sys

HIDDEN = ("solutions", "autograder", "solutions.alphabeta", "autograder.grading.judge")
found = {}
for name in HIDDEN:
    for attempt in (importlib.import_module, lambda n: __import__(n, fromlist=["*"])):
        with contextlib.suppress(Exception):  # the attack tries everything
            found[name] = attempt(name)
    with contextlib.suppress(Exception):
        if importlib.util.find_spec(name.split(".")[0]) is not None:
            found.setdefault(name, importlib.import_module(name))
visible = {module.name for module in pkgutil.iter_modules(sys.path)}
print("hidden packages visible on the path:", sorted(visible & {"solutions", "autograder"}))
reference = found.get("solutions")


def minimax_value(game, state):
    return reference.minimax_value(game, state) if reference else 0


def minimax_decision(game, state):
    return reference.minimax_decision(game, state) if reference else game.actions(state)[0]


def alphabeta_value(game, state, alpha=None, beta=None):
    return reference.alphabeta_value(game, state) if reference else 0


def alphabeta_decision(game, state):
    return reference.alphabeta_decision(game, state) if reference else game.actions(state)[0]


def depth_limited_value(game, state, depth, evaluate):
    return reference.depth_limited_value(game, state, depth, evaluate) if reference else 0


def depth_limited_decision(game, state, depth, evaluate):
    if reference:
        return reference.depth_limited_decision(game, state, depth, evaluate)
    return game.actions(state)[0]
