"""Counting a game's tree, games and positions: the state-space facts the course quotes."""

from __future__ import annotations

from collections import Counter
from functools import cache

from games import Game, TicTacToe
from games.protocol import State


def nodes_per_ply(game: Game, state: State | None = None) -> list[int]:
    """Return how many nodes the complete game tree has at each ply (index 0 is the root).

    Identical positions reached by different move orders are different nodes: this counts the
    tree, not the state space. Memoised on the state, so it is fast even when the tree is huge.
    """

    @cache
    def below(node: State) -> tuple[int, ...]:
        if game.is_terminal(node):
            return (1,)
        levels = [1]
        for action in game.actions(node):
            for ply, count in enumerate(below(game.result(node, action)), start=1):
                if ply == len(levels):
                    levels.append(0)
                levels[ply] += count
        return tuple(levels)

    return list(below(game.initial_state() if state is None else state))


def game_outcomes(game: Game, state: State | None = None) -> Counter:
    """Return how many complete games (root-to-terminal paths) end in each utility."""

    @cache
    def below(node: State) -> tuple[tuple[float, int], ...]:
        if game.is_terminal(node):
            return ((game.utility(node), 1),)
        total: Counter = Counter()
        for action in game.actions(node):
            for utility, count in below(game.result(node, action)):
                total[utility] += count
        return tuple(sorted(total.items()))

    return Counter(dict(below(game.initial_state() if state is None else state)))


def reachable_states(game: Game, state: State | None = None) -> set[State]:
    """Return every state reachable from `state` (the initial state by default), itself included."""
    start = game.initial_state() if state is None else state
    seen, frontier = {start}, [start]
    while frontier:
        node = frontier.pop()
        for action in game.actions(node):
            child = game.result(node, action)
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return seen


# The 8 symmetries of the square, as permutations of the squares 0..8 (row-major).
_ROTATE = (6, 3, 0, 7, 4, 1, 8, 5, 2)
_MIRROR = (2, 1, 0, 5, 4, 3, 8, 7, 6)


def _compose(first: tuple[int, ...], second: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(first[second[square]] for square in range(9))


def _square_symmetries() -> list[tuple[int, ...]]:
    rotations = [tuple(range(9))]
    for _ in range(3):
        rotations.append(_compose(rotations[-1], _ROTATE))
    return rotations + [_compose(rotation, _MIRROR) for rotation in rotations]


SYMMETRIES = _square_symmetries()


def canonical_tictactoe(board: str) -> str:
    """Return the smallest of the 8 rotations and reflections of a tic-tac-toe board."""
    return min("".join(board[square] for square in symmetry) for symmetry in SYMMETRIES)


def tictactoe_facts() -> dict[str, int]:
    """Compute the published tic-tac-toe numbers live, by exhaustive enumeration."""
    game = TicTacToe()
    outcomes = game_outcomes(game)
    positions = reachable_states(game)
    return {
        "ways to fill the board (3^9)": 3**9,
        "reachable positions": len(positions),
        "positions up to symmetry": len({canonical_tictactoe(p) for p in positions}),
        "possible games": sum(outcomes.values()),
        "games won by X": outcomes[1],
        "games won by O": outcomes[-1],
        "games drawn": outcomes[0],
        "nodes in the complete game tree": sum(nodes_per_ply(game)),
    }
