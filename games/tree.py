"""Explicit game trees written as nested lists, and generators of random and ordered trees."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.protocol import MAX, MIN, Game

Tree = float | int | Sequence["Tree"]
Path = tuple[int, ...]


class PathTree:
    """What every explicit tree game shares: states are paths of child indices from the root.

    A subclass sets `self.tree` (inner nodes as tuples of children) and says how a leaf looks
    with `_is_leaf`; actions are child indices `0..k-1` in order, a leaf is terminal, and
    `_leaf_value` returns what a leaf holds.
    """

    tree: Any

    @staticmethod
    def _is_leaf(node: Any) -> bool:
        return not isinstance(node, tuple)

    def node(self, state: Path) -> Any:
        """Return the subtree (a tuple of children) or what the leaf holds at `state`."""
        node = self.tree
        for index in state:
            node = node[index]
        return node

    def initial_state(self) -> Path:
        return ()

    def actions(self, state: Path) -> list[int]:
        node = self.node(state)
        return [] if self._is_leaf(node) else list(range(len(node)))

    def result(self, state: Path, action: int) -> Path:
        node = self.node(state)
        if (
            self._is_leaf(node)
            or not isinstance(action, int)
            or isinstance(action, bool)
            or not 0 <= action < len(node)
        ):
            raise self._illegal(state, action)
        return (*state, action)

    def is_terminal(self, state: Path) -> bool:
        return self._is_leaf(self.node(state))

    def _leaf_value(self, state: Path) -> Any:
        node = self.node(state)
        if not self._is_leaf(node):
            raise self._not_terminal(state)
        return node

    def leaves(self) -> list[Path]:
        """Return the paths of every leaf, left to right."""
        found: list[Path] = []

        def walk(node: Any, path: Path) -> None:
            if self._is_leaf(node):
                found.append(path)
            else:
                for index, child in enumerate(node):
                    walk(child, (*path, index))

        walk(self.tree, ())
        return found


class GameTree(PathTree, Game):
    """A game given as an explicit tree: inner nodes are lists, leaves are numbers.

    >>> game = GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    >>> game.actions(game.initial_state())
    [0, 1, 2]

    The root belongs to `root_player` (MAX unless told otherwise) and the players alternate
    level by level. A leaf's number is its utility for MAX. Leaves may sit at any depth.
    Actions are child indices `0..k-1`, in order. A state is the path of child indices from the
    root, a tuple such as `(2, 0)`; treat it as opaque.
    """

    def __init__(self, tree: Tree, root_player: str = MAX) -> None:
        if root_player not in (MAX, MIN):
            raise ValueError(f"root_player must be MAX or MIN, not {root_player!r}")
        _check_tree(tree, ())
        self.tree = _freeze(tree)
        self.root_player = root_player

    def __repr__(self) -> str:
        suffix = "" if self.root_player == MAX else ", root_player=MIN"
        return f"GameTree({_thaw(self.tree)!r}{suffix})"

    def to_move(self, state: Path) -> str:
        other = MIN if self.root_player == MAX else MAX
        return self.root_player if len(state) % 2 == 0 else other

    def utility(self, state: Path) -> float:
        return self._leaf_value(state)


def _check_tree(node: Tree, path: Path) -> None:
    if isinstance(node, bool) or not isinstance(node, int | float | list | tuple):
        raise TypeError(f"node at path {path} is {node!r}: expected a number or a list of nodes")
    if isinstance(node, list | tuple):
        if not node:
            raise ValueError(f"node at path {path} is an empty list: an inner node needs children")
        for index, child in enumerate(node):
            _check_tree(child, (*path, index))


def _freeze(node: Tree) -> Tree:
    return tuple(_freeze(child) for child in node) if isinstance(node, list | tuple) else node


def _thaw(node: Tree) -> Tree:
    return [_thaw(child) for child in node] if isinstance(node, tuple) else node


def random_tree(
    branching: int | tuple[int, int] = 3,
    depth: int = 3,
    low: int = -20,
    high: int = 20,
    seed: int | None = 0,
    leaf_probability: float = 0.0,
    distinct: bool = False,
    root_player: str = MAX,
) -> GameTree:
    """Return a random `GameTree`, reproducible from `seed`.

    Args:
        branching: children per inner node, or an inclusive `(fewest, most)` range.
        depth: plies from the root to the deepest leaves.
        low, high: leaf utilities are integers in `low..high` inclusive.
        leaf_probability: chance that an inner node above the last level is a leaf instead,
            so leaves appear at odd and even depths.
        distinct: make every leaf value different (needs `high - low + 1` >= number of leaves).
        root_player: `MAX` or `MIN`.
    """
    rng = random.Random(seed)
    fewest, most = (branching, branching) if isinstance(branching, int) else branching
    if fewest < 1 or most < fewest:
        raise ValueError(f"branching must be at least 1, got {branching!r}")

    def build(level: int) -> Tree:
        if level == depth or (level > 0 and rng.random() < leaf_probability):
            return None  # placeholder, filled with a value below
        return [build(level + 1) for _ in range(rng.randint(fewest, most))]

    shape = build(0)
    count = _count_leaves(shape)
    if distinct:
        if high - low + 1 < count:
            raise ValueError(f"{count} distinct leaves do not fit in {low}..{high}")
        values = iter(rng.sample(range(low, high + 1), count))
    else:
        values = iter([rng.randint(low, high) for _ in range(count)])
    return GameTree(_fill(shape, values), root_player=root_player)


def ordered_tree(
    branching: int, depth: int, seed: int | None = 0, root_player: str = MAX
) -> GameTree:
    """Return a uniform tree with perfect (best-first) move ordering and distinct leaf values.

    At every inner node the first child is the best one for the player to move, which is the
    case Knuth and Moore analysed: alpha-beta then evaluates exactly
    `b**ceil(d/2) + b**floor(d/2) - 1` leaves.
    """
    leaves = branching**depth
    tree = random_tree(
        branching, depth, 0, 10 * leaves, seed, distinct=True, root_player=root_player
    )
    return GameTree(_sort_best_first(_thaw(tree.tree), root_player == MAX)[1], root_player)


def _sort_best_first(node: Tree, maximising: bool) -> tuple[float, Tree]:
    if not isinstance(node, list):
        return node, node
    scored = [_sort_best_first(child, not maximising) for child in node]
    scored.sort(key=lambda pair: pair[0], reverse=maximising)
    return scored[0][0], [child for _, child in scored]


def _count_leaves(shape: Tree) -> int:
    return 1 if shape is None else sum(_count_leaves(child) for child in shape)


def _fill(shape: Tree, values) -> Tree:
    return next(values) if shape is None else [_fill(child, values) for child in shape]
