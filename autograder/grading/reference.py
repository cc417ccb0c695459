"""The reference solutions as a student would hand them in: one Python source, graded like any."""

from __future__ import annotations

import inspect
from types import ModuleType

from solutions import alphabeta, chance, depth_limited, minimax, multiplayer

MODULES = (minimax, alphabeta, depth_limited)
"""The modules of the functions graded by default (lectures 1-4)."""

ALL_MODULES = (*MODULES, chance, multiplayer)
"""With lecture 06's expectiminimax and max-n (`--assignment chance_and_maxn`)."""


def reference_source(modules: tuple[ModuleType, ...] = MODULES) -> str:
    """The graded reference functions as one self-contained source that imports only `games`.

    Imports of `solutions` and `__future__` are dropped: the modules are concatenated in
    dependency order, so every name they shared is defined above its use.
    """
    lines = ["import math", "from games import MAX, MIN"]
    for module in modules:
        for line in inspect.getsource(module).splitlines():
            if line.startswith(("from solutions", "from __future__")):
                continue
            lines.append(line)
    return "\n".join(lines) + "\n"
