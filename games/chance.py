"""Games with chance nodes: explicit trees with nature's moves, and a tiny game of Pig."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real
from typing import NamedTuple

from games.protocol import CHANCE, MAX, MIN, Game

Path = tuple[int, ...]
PROBABILITY_TOLERANCE = 1e-9
"""How far the probabilities of a chance node may sum from 1 (floats such as 1/3 round)."""


@dataclass(frozen=True)
class Node:
    """An inner node of a `ChanceTree`; build it with `max_`, `min_` or `chance`.

    `player` is `MAX`, `MIN` or `CHANCE`; `children` are nodes or numbers (leaves);
    `probabilities` holds one probability per child at a chance node and is None otherwise.
    """

    player: str
    children: tuple[ChanceTreeNode, ...]
    probabilities: tuple[Real, ...] | None = None

    def __repr__(self) -> str:
        if self.player == CHANCE and self.probabilities is not None:
            branches = ", ".join(
                f"({p!r}, {child!r})"
                for p, child in zip(self.probabilities, self.children, strict=False)
            )
            return f"chance({branches})"
        name = {MAX: "max_", MIN: "min_"}.get(self.player, f"Node[{self.player!r}]")
        return f"{name}({', '.join(repr(child) for child in self.children)})"


ChanceTreeNode = Node | float | int


def max_(*children: ChanceTreeNode) -> Node:
    """Return a MAX node with these children (nodes or numbers), in action order."""
    return Node(MAX, tuple(children))


def min_(*children: ChanceTreeNode) -> Node:
    """Return a MIN node with these children (nodes or numbers), in action order."""
    return Node(MIN, tuple(children))


def chance(*branches: tuple[Real, ChanceTreeNode]) -> Node:
    """Return a chance node from `(probability, child)` pairs, in outcome order.

    >>> chance((0.5, 3), (0.5, max_(1, 7)))
    chance((0.5, 3), (0.5, max_(1, 7)))

    The probabilities are checked when the node is placed in a `ChanceTree`.
    """
    for branch in branches:
        if not (isinstance(branch, tuple) and len(branch) == 2) or isinstance(branch[0], Node):
            raise TypeError(
                f"chance() takes (probability, child) pairs, e.g. chance((0.5, 3), (0.5, 7)); "
                f"got {branch!r}"
            )
    return Node(
        CHANCE,
        tuple(child for _, child in branches),
        tuple(probability for probability, _ in branches),
    )


class ChanceTree(Game):
    """A game given as an explicit tree with MAX, MIN and chance nodes.

    Inner nodes are built with `max_(child, ...)`, `min_(child, ...)` and
    `chance((probability, child), ...)`; leaves are numbers, the utility for MAX. Every node
    names its own player, so levels need not alternate: the textbook shape
    MAX, CHANCE, MIN, CHANCE, ... is written out explicitly.

    >>> game = ChanceTree(max_(chance((0.5, 2), (0.5, 4)), chance((0.9, 0), (0.1, 20))))
    >>> game.to_move(game.initial_state()), game.actions(game.initial_state())
    ('MAX', [0, 1])
    >>> game.chance_outcomes((1,))
    [(0, 0.9), (1, 0.1)]

    Actions are child indices `0..k-1`, in order, at every kind of node; at a chance node they
    are also the outcomes of `chance_outcomes`, so `result(state, outcome)` follows nature's
    choice. A state is the path of child indices from the root, such as `(1, 0)`; treat it as
    opaque. Outcomes of probability 0 are allowed and still listed.

    At a leaf no one moves; `to_move` then returns the opponent of the nearest MAX or MIN node
    above it (MAX for a tree that is a single leaf), as `GameTree` does. Searches should test
    `is_terminal` first and not rely on it.

    Raises (at construction):
        TypeError: a node is neither a number nor built with `max_`, `min_` or `chance`.
        ValueError: a node has no children, or a chance node's probabilities are negative
            or do not sum to 1 (within `PROBABILITY_TOLERANCE`).
    """

    def __init__(self, tree: ChanceTreeNode) -> None:
        _check_node(tree, ())
        self.tree = tree

    def __repr__(self) -> str:
        return f"ChanceTree({self.tree!r})"

    def node(self, state: Path) -> ChanceTreeNode:
        """Return the `Node` or leaf value (a number) at `state`."""
        node = self.tree
        for index in state:
            node = node.children[index]
        return node

    def initial_state(self) -> Path:
        return ()

    def to_move(self, state: Path) -> str:
        node = self.node(state)
        if isinstance(node, Node):
            return node.player
        for depth in range(len(state) - 1, -1, -1):
            above = self.node(state[:depth]).player
            if above != CHANCE:
                return MIN if above == MAX else MAX
        return MAX

    def actions(self, state: Path) -> list[int]:
        node = self.node(state)
        return list(range(len(node.children))) if isinstance(node, Node) else []

    def chance_outcomes(self, state: Path) -> list[tuple[int, Real]]:
        """Return `(outcome, probability)` pairs at a chance node; outcomes are child indices.

        Raises:
            ValueError: `state` is not a chance node.
        """
        node = self.node(state)
        if not isinstance(node, Node) or node.player != CHANCE:
            raise ValueError(
                f"state {state!r} is not a chance node (to_move is {self.to_move(state)!r}); "
                "chance_outcomes is defined only where to_move(state) == CHANCE"
            )
        return list(enumerate(node.probabilities))

    def result(self, state: Path, action: int) -> Path:
        node = self.node(state)
        if (
            not isinstance(node, Node)
            or not isinstance(action, int)
            or isinstance(action, bool)
            or not 0 <= action < len(node.children)
        ):
            raise self._illegal(state, action)
        return (*state, action)

    def is_terminal(self, state: Path) -> bool:
        return not isinstance(self.node(state), Node)

    def utility(self, state: Path) -> float:
        node = self.node(state)
        if isinstance(node, Node):
            raise self._not_terminal(state)
        return node

    def leaves(self) -> list[Path]:
        """Return the paths of every leaf, left to right."""
        found: list[Path] = []

        def walk(node: ChanceTreeNode, path: Path) -> None:
            if isinstance(node, Node):
                for index, child in enumerate(node.children):
                    walk(child, (*path, index))
            else:
                found.append(path)

        walk(self.tree, ())
        return found


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _check_node(node: ChanceTreeNode, path: Path) -> None:
    if _is_number(node):
        return
    if isinstance(node, Sequence) and not isinstance(node, str):
        raise TypeError(
            f"node at path {path} is a plain {type(node).__name__}: in a ChanceTree every inner "
            "node says whose it is, so write max_(...), min_(...) or chance((p, child), ...)"
        )
    if not isinstance(node, Node):
        raise TypeError(
            f"node at path {path} is {node!r}: expected a number or max_/min_/chance(...)"
        )
    if node.player not in (MAX, MIN, CHANCE):
        raise ValueError(f"node at path {path} belongs to {node.player!r}: use MAX, MIN or CHANCE")
    if not node.children:
        raise ValueError(f"node at path {path} has no children: an inner node needs some")
    if node.player == CHANCE:
        _check_probabilities(node, path)
    elif node.probabilities is not None:
        raise ValueError(f"node at path {path} is a {node.player} node with probabilities")
    for index, child in enumerate(node.children):
        _check_node(child, (*path, index))


def _check_probabilities(node: Node, path: Path) -> None:
    probabilities = node.probabilities
    if probabilities is None or len(probabilities) != len(node.children):
        raise ValueError(f"chance node at path {path} needs one probability per child")
    for probability in probabilities:
        if not _is_number(probability) or not probability >= 0:
            raise ValueError(
                f"chance node at path {path} has probability {probability!r}: "
                "probabilities must be numbers >= 0"
            )
    total = sum(probabilities)
    if abs(total - 1) > PROBABILITY_TOLERANCE:
        raise ValueError(
            f"the probabilities of the chance node at path {path} sum to {total!r}, not 1: "
            f"{list(probabilities)!r}"
        )


class PigState(NamedTuple):
    """A position of `Pig`: banked scores, the turn total and whose turn it is.

    `scores` is `(MAX's score, MIN's score)`; `turn_total` the points rolled this turn and not yet
    banked; `player` the player whose turn it is (`MAX` or `MIN`, also while the die rolls);
    `turns_left` the turns still to be played, the current one included; `rolling` is True when
    the die is in the air, i.e. at a chance node.
    """

    scores: tuple[int, int]
    turn_total: int
    player: str
    turns_left: int
    rolling: bool


class Pig(Game):
    """Pig, the dice game of risk, cut down to a few turns so expectiminimax can solve it.

    Rules. On its turn a player rolls a die with `sides` faces, as often as it likes. A 1 ends
    the turn and loses the points rolled this turn (the turn total); any other face is added to
    the turn total. Instead of rolling, a player may hold (once it has rolled at least once):
    the turn total is added to its banked score and the turn passes. A player wins (+1 for MAX,
    -1 for MIN) as soon as its banked score plus its turn total reaches `goal`. After `turns`
    turns in all (both players' turns counted) the game stops: the higher banked score wins, and
    equal scores are a draw (0).

    States are `PigState` tuples. At a decision node (`rolling` False) `to_move` is the player
    and the actions are `"roll"` then `"hold"` (hold only when the turn total is positive).
    `"roll"` leads to a chance node (`rolling` True) where `to_move` is `CHANCE`, and both
    `actions` and `chance_outcomes` list the faces 1..`sides` in ascending order, each with
    probability exactly `Fraction(1, sides)`; so expectiminimax values come out as exact
    fractions.

    >>> game = Pig()
    >>> rolling = game.result(game.initial_state(), "roll")
    >>> game.to_move(rolling), game.chance_outcomes(rolling)[:2]
    ('CHANCE', [(1, Fraction(1, 6)), (2, Fraction(1, 6))])

    With the defaults (goal 6, a six-sided die, 3 turns: MAX, MIN, MAX) the complete tree has
    9,664 nodes, root included: a search takes a fraction of a second.
    """

    def __init__(self, goal: int = 6, sides: int = 6, turns: int = 3, first: str = MAX) -> None:
        for name, value, least in (("goal", goal, 1), ("sides", sides, 2), ("turns", turns, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ValueError(f"{name} must be an int >= {least}, not {value!r}")
        if first not in (MAX, MIN):
            raise ValueError(f"first must be MAX or MIN, not {first!r}")
        self.goal, self.sides, self.turns, self.first = goal, sides, turns, first

    def __repr__(self) -> str:
        first = "" if self.first == MAX else ", first=MIN"
        return f"Pig(goal={self.goal}, sides={self.sides}, turns={self.turns}{first})"

    def initial_state(self) -> PigState:
        return PigState((0, 0), 0, self.first, self.turns, False)

    def to_move(self, state: PigState) -> str:
        return CHANCE if state.rolling else state.player

    def actions(self, state: PigState) -> list:
        if self.is_terminal(state):
            return []
        if state.rolling:
            return list(range(1, self.sides + 1))
        return ["roll", "hold"] if state.turn_total > 0 else ["roll"]

    def chance_outcomes(self, state: PigState) -> list[tuple[int, Fraction]]:
        """Return each face of the die with probability `Fraction(1, sides)`.

        Raises:
            ValueError: `state` is not a chance node (no roll was asked for).
        """
        if not state.rolling or self.is_terminal(state):
            raise ValueError(
                f"state {state!r} is not a chance node: the die is rolled only after 'roll'"
            )
        return [(face, Fraction(1, self.sides)) for face in range(1, self.sides + 1)]

    def result(self, state: PigState, action: int | str) -> PigState:
        legal = isinstance(action, int | str) and not isinstance(action, bool)
        if not legal or action not in self.actions(state):
            raise self._illegal(state, action)
        if action == "roll":
            return state._replace(rolling=True)
        if action == "hold":
            return self._end_turn(state, state.turn_total)
        if action == 1:
            return self._end_turn(state, 0)
        turn_total = state.turn_total + action
        if self._score(state) + turn_total >= self.goal:
            return self._end_turn(state, turn_total)  # reached the goal: banked, game over
        return state._replace(turn_total=turn_total, rolling=False)

    def is_terminal(self, state: PigState) -> bool:
        return state.turns_left == 0 or max(state.scores) >= self.goal

    def utility(self, state: PigState) -> int:
        if not self.is_terminal(state):
            raise self._not_terminal(state)
        max_score, min_score = state.scores
        return (max_score > min_score) - (max_score < min_score)

    def display(self, state: PigState) -> str:
        max_score, min_score = state.scores
        doing = "rolling the die" if state.rolling else "to move"
        return (
            f"MAX {max_score}, MIN {min_score} (goal {self.goal}); {state.player} {doing}, "
            f"turn total {state.turn_total}, {state.turns_left} turn(s) left"
        )

    def _score(self, state: PigState) -> int:
        return state.scores[0 if state.player == MAX else 1]

    def _end_turn(self, state: PigState, banked: int) -> PigState:
        scores = list(state.scores)
        scores[0 if state.player == MAX else 1] += banked
        other = MIN if state.player == MAX else MAX
        return PigState(tuple(scores), 0, other, state.turns_left - 1, False)
