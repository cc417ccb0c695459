"""The reference solutions as a student would hand them in: one Python source, graded like any."""

from __future__ import annotations

import inspect

from solutions import alphabeta, depth_limited, minimax

MODULES = (minimax, alphabeta, depth_limited)


def reference_source() -> str:
    """The graded reference functions as one self-contained source that imports only `games`.

    Imports of `solutions` and `__future__` are dropped: the modules are concatenated in
    dependency order, so every name they shared is defined above its use.
    """
    lines = ["import math", "from games import MAX, MIN"]
    for module in MODULES:
        for line in inspect.getsource(module).splitlines():
            if line.startswith(("from solutions", "from __future__")):
                continue
            lines.append(line)
    return "\n".join(lines) + "\n"
