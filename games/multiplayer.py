"""Games of three or more players, with one utility per player at each leaf (for max-n)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from numbers import Real

from games.protocol import Game, State
from games.tree import Path, PathTree

Utilities = tuple[float, ...]
MultiplayerTreeNode = Utilities | Sequence["MultiplayerTreeNode"]


class MultiplayerGame(Game):
    """A turn-taking game of `players` players, each scored by its own utility.

    It follows the `Game` protocol with two differences, because the game is not zero-sum
    between two sides:

    - `to_move(state)` returns the index of the player to move, an int in `range(players)`,
      not `MAX` or `MIN`.
    - A terminal state is worth a vector, `utilities(state)`, one number per player, each
      player maximising its own component ("max-n"). `utility(state)` returns player 0's
      component only, so two-player code runs but sees the game from player 0's side alone.
    """

    players: int

    @abstractmethod
    def to_move(self, state: State) -> int:
        """Return the index of the player to move in `state`, in `range(players)`."""

    @abstractmethod
    def utilities(self, state: State) -> Utilities:
        """Return the utilities of terminal `state`, one per player, player 0 first."""

    def utility(self, state: State) -> float:
        """Return player 0's utility of terminal `state` (the first of `utilities(state)`)."""
        return self.utilities(state)[0]


class MultiplayerTree(PathTree, MultiplayerGame):
    """A game of `players` players given as an explicit tree: inner nodes are lists, leaves tuples.

    >>> game = MultiplayerTree([[(1, 2, 3), (4, 1, 2)], [(6, 1, 2), (7, 4, 1)]])
    >>> game.to_move(()), game.to_move((0,)), game.utilities((1, 0))
    (0, 1, (6, 1, 2))

    A leaf is a tuple of numbers, the utility of each player, player 0 first; every leaf has
    one number per player. The root belongs to `root_player` (0 unless told otherwise) and
    the players then take turns level by level: at depth d it is player
    `(root_player + d) % players`. Leaves may sit at any depth. Actions are child indices
    `0..k-1`, in order. A state is the path of child indices from the root, a tuple such as
    `(1, 0)`; treat it as opaque.

    Raises (at construction):
        TypeError: a leaf is not a tuple of numbers, or an inner node is not a list.
        ValueError: an inner node has no children, a leaf has the wrong number of
            utilities, or `players` / `root_player` is out of range.
    """

    def __init__(self, tree: MultiplayerTreeNode, players: int = 3, root_player: int = 0) -> None:
        if not isinstance(players, int) or isinstance(players, bool) or players < 2:
            raise ValueError(f"players must be an int >= 2, not {players!r}")
        if root_player not in range(players) or isinstance(root_player, bool):
            raise ValueError(f"root_player must be in range({players}), not {root_player!r}")
        _check_node(tree, (), players)
        self.tree = _freeze(tree)
        self.players = players
        self.root_player = root_player

    def __repr__(self) -> str:
        options = "" if self.players == 3 else f", players={self.players}"
        options += "" if self.root_player == 0 else f", root_player={self.root_player}"
        return f"MultiplayerTree({_thaw(self.tree)!r}{options})"

    @staticmethod
    def _is_leaf(node: MultiplayerTreeNode) -> bool:
        # After checking, inner nodes hold nodes (tuples) and leaves numbers, never both.
        return _is_number(node[0])

    def to_move(self, state: Path) -> int:
        return (self.root_player + len(state)) % self.players

    def utilities(self, state: Path) -> Utilities:
        return self._leaf_value(state)


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _check_node(node: MultiplayerTreeNode, path: Path, players: int) -> None:
    if isinstance(node, tuple) and all(_is_number(value) for value in node):
        if len(node) != players:
            raise ValueError(
                f"leaf at path {path} is {node!r}: it needs one utility per player ({players})"
            )
        return
    if not isinstance(node, list):
        raise TypeError(
            f"node at path {path} is {node!r}: expected a leaf, a tuple of {players} numbers "
            "such as (1, 0, 0), or an inner node, a list of nodes"
        )
    if not node:
        raise ValueError(f"node at path {path} is an empty list: an inner node needs children")
    if all(_is_number(value) for value in node):
        raise TypeError(
            f"node at path {path} is a list of numbers, {node!r}: write a leaf as a tuple, "
            f"{tuple(node)!r}; lists are inner nodes"
        )
    for index, child in enumerate(node):
        _check_node(child, (*path, index), players)


def _freeze(node: MultiplayerTreeNode) -> MultiplayerTreeNode:
    return tuple(_freeze(child) for child in node) if isinstance(node, list) else node


def _thaw(node: MultiplayerTreeNode) -> MultiplayerTreeNode:
    return node if MultiplayerTree._is_leaf(node) else [_thaw(child) for child in node]


TakeAwayState = tuple[int, int]


class TakeAway(MultiplayerGame):
    """Take-away for three (or more) players: whoever takes the last object scores 1.

    Rules. One heap of `heap` objects. Players 0, 1, 2, ... move in turn, starting with
    player 0; a move takes between 1 and `max_take` objects (never more than are left). The
    player who takes the last object gets utility 1, every other player 0.

    A state is `(objects_left, player_to_move)`, e.g. `(7, 0)`. Actions are the numbers of
    objects to take, in ascending order: `[1, 2, ..., min(max_take, objects_left)]`.

    >>> game = TakeAway(heap=4, max_take=2)
    >>> game.actions(game.initial_state()), game.result((4, 0), 2)
    ([1, 2], (2, 1))

    A player that cannot win any more chooses which opponent wins (it is a "kingmaker"); so
    max-n values here depend on how ties are broken.
    """

    def __init__(self, heap: int = 7, max_take: int = 2, players: int = 3) -> None:
        for name, value, least in (
            ("heap", heap, 1),
            ("max_take", max_take, 1),
            ("players", players, 2),
        ):
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ValueError(f"{name} must be an int >= {least}, not {value!r}")
        self.heap, self.max_take, self.players = heap, max_take, players

    def __repr__(self) -> str:
        players = "" if self.players == 3 else f", players={self.players}"
        return f"TakeAway(heap={self.heap}, max_take={self.max_take}{players})"

    def initial_state(self) -> TakeAwayState:
        return (self.heap, 0)

    def to_move(self, state: TakeAwayState) -> int:
        return state[1]

    def actions(self, state: TakeAwayState) -> list[int]:
        return list(range(1, min(self.max_take, state[0]) + 1))

    def result(self, state: TakeAwayState, action: int) -> TakeAwayState:
        if (
            isinstance(action, bool)
            or not isinstance(action, int)
            or action not in self.actions(state)
        ):
            raise self._illegal(state, action)
        objects_left, player = state
        return (objects_left - action, (player + 1) % self.players)

    def is_terminal(self, state: TakeAwayState) -> bool:
        return state[0] == 0

    def utilities(self, state: TakeAwayState) -> Utilities:
        if not self.is_terminal(state):
            raise self._not_terminal(state)
        last_mover = (state[1] - 1) % self.players
        return tuple(1 if player == last_mover else 0 for player in range(self.players))

    def display(self, state: TakeAwayState) -> str:
        objects_left, player = state
        return f"{'|' * objects_left} ({objects_left} left), player {player} to move"
