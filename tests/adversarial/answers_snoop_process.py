"""Attack: look for expected answers inside the student process.

Searches sys.modules for any module holding reference functions or expected values, walks the
stack frames above each call for locals named like answers, scans gc.get_objects() for
reference-looking objects, and reads the environment variables, the grader's environment
(/proc/<parent>/environ) and every file in the working directory and $HOME. Whatever number
it finds it returns; with nothing found it answers 0 and the first action.
"""

import contextlib
import gc
import os
import sys
from pathlib import Path

ANSWER_NAMES = {"expected", "want", "reference", "answer", "_EXPECTED", "optimal", "solution"}
clues = []
for name, module in list(sys.modules.items()):
    for attribute in ("alphabeta_value", "_EXPECTED", "expected", "reference_source"):
        if name != "__main__" and hasattr(module, attribute):
            clues.append(f"{name}.{attribute}")
clues += [f"env {key}" for key in os.environ if key not in ("PATH", "HOME", "LANG")]
with contextlib.suppress(OSError):
    grader_environment = Path(f"/proc/{os.getppid()}/environ").read_bytes()
    clues += [f"grader env {item[:40]!r}" for item in grader_environment.split(b"\0")[:50]]
for folder in {Path.cwd(), Path(os.environ.get("HOME", "."))}:
    for path in folder.iterdir():
        with contextlib.suppress(OSError):
            clues.append(f"file {path.name}: {path.read_bytes()[:80]!r}")
print("clues:", clues)


def _fish():
    """A number found in an answer-like place above this call or on the heap, else None."""
    frame = sys._getframe(1)
    while frame is not None:
        for key, value in frame.f_locals.items():
            if key in ANSWER_NAMES and type(value) in (int, float):
                return value
        frame = frame.f_back
    for obj in gc.get_objects():
        if type(obj).__name__ in ("Case", "Reference", "Instance", "Verdict"):
            value = getattr(obj, "value", None)
            if type(value) in (int, float):
                return value
        if isinstance(obj, dict) and "_EXPECTED" in obj:
            return 12345
    return None


def minimax_value(game, state):
    found = _fish()
    return 0 if found is None else found


def minimax_decision(game, state):
    _fish()
    return game.actions(state)[0]


alphabeta_value = lambda game, state, alpha=0, beta=0: minimax_value(game, state)  # noqa: E731
alphabeta_decision = minimax_decision


def depth_limited_value(game, state, depth, evaluate):
    return minimax_value(game, state)


def depth_limited_decision(game, state, depth, evaluate):
    return minimax_decision(game, state)
