"""Minimax on an explicit tree, every node at once: the values the lectures' drawings show.

The student toolkit draws trees with the values it is given; computing them is minimax, which
the first assignment asks for, so this lives with the solutions, not in `games`.
"""

from __future__ import annotations

from games import MAX, CountingGame, GameTree
from games.tree import Path


def backed_up_values(tree: GameTree) -> dict[Path, float]:
    """Return the minimax value of every node of an explicit tree, keyed by path.

    >>> backed_up_values(GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]]))[()]
    3
    """
    while isinstance(tree, CountingGame):  # the values of what a recorder wraps, unrecorded
        tree = tree.game
    if not isinstance(tree, GameTree):
        raise TypeError(f"backed_up_values needs an explicit GameTree, not {type(tree).__name__}")
    values: dict[Path, float] = {}

    def back_up(path: Path) -> float:
        if tree.is_terminal(path):
            values[path] = tree.utility(path)
        else:
            children = [back_up((*path, action)) for action in tree.actions(path)]
            values[path] = max(children) if tree.to_move(path) == MAX else min(children)
        return values[path]

    back_up(())
    return values
