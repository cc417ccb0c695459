"""Alpha-beta straight on a nested list, returning the value and the principal variation."""

from __future__ import annotations

import math

from games.tree import Tree


def alphabeta_nested(
    tree: Tree,
    maximising: bool = True,
    alpha: float = -math.inf,
    beta: float = math.inf,
) -> tuple[float, list[int]]:
    """Return `(value, path)` for a tree written as nested lists whose numbers are the leaves.

    What changes relative to `alphabeta_value`: there is no `Game`. A list is a node whose
    children are its items (the player alternates level by level, `maximising` says who owns
    the root), a number is a leaf worth that much to MAX. Besides the value, the search returns
    the path of child indices from `tree` to the leaf the value came from; when the value lies
    inside the window (always with the default window) that path is the principal variation,
    the line both players play when they play optimally (of equal children, the first). The
    cut-off rule is the same (>=) and so is the fail-soft value.

    >>> alphabeta_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    (3, [0, 0])
    """
    if not isinstance(tree, list | tuple):
        if isinstance(tree, bool) or not isinstance(tree, int | float):
            raise TypeError(f"a leaf must be a number, not {tree!r}")
        return tree, []
    if not tree:
        raise ValueError("an inner node must have children, but found an empty list")
    best_value, best_path = (-math.inf if maximising else math.inf), []
    for index, child in enumerate(tree):
        value, path = alphabeta_nested(child, not maximising, alpha, beta)
        better = value > best_value if maximising else value < best_value
        if index == 0 or better:
            best_value, best_path = value, [index, *path]
        if maximising:
            if best_value >= beta:
                break
            alpha = max(alpha, best_value)
        else:
            if best_value <= alpha:
                break
            beta = min(beta, best_value)
    return best_value, best_path
