"""The hidden test instances: explicit trees, tic-tac-toe and Connect Four positions."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from games import MAX, MIN, Game, GameTree, TicTacToe, random_tree
from solutions.facts import reachable_states


@dataclass(frozen=True, eq=False)
class Instance:
    """One position a student's function is called on.

    `depth` and `evaluate` are given only to depth-limited functions. `evaluation` names the
    evaluation function for the feedback page.
    """

    name: str
    game: Game
    state: Any
    depth: int | None = None
    evaluate: Callable[[Any], float] | None = field(default=None, repr=False)
    evaluation: str = ""

    @property
    def args(self) -> tuple:
        return () if self.depth is None else (self.depth,)

    def picture(self) -> str:
        """How the position looks on the feedback page."""
        return self._picture

    # Every verdict of every submission asks for these: computed once per instance.

    @cached_property
    def _picture(self) -> str:
        if isinstance(self.game, GameTree):
            return repr(self.game)
        return self.game.display(self.state)

    @cached_property
    def small_tree(self) -> bool:
        return isinstance(self.game, GameTree) and len(self.game.leaves()) <= 40


CLASSIC = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
TTT = TicTacToe()


def hand_trees() -> list[Instance]:
    """Small trees, each aimed at one circulating mistake."""
    return [
        Instance("the classic 3x3 tree", GameTree(CLASSIC), ()),
        Instance(
            "every value negative (a MAX node must not start at 0)",
            GameTree([[-3, -12, -8], [-2, -4, -6], [-14, -5, -2]]),
            (),
        ),
        Instance("the classic tree with MIN to move", GameTree(CLASSIC, root_player=MIN), ()),
        Instance(
            "leaves at odd and even depths, values beyond +-1",
            GameTree([[-7, [9, 15]], [[-2, 3], -11], [[[-4, 6], 5], 2]]),
            (),
        ),
        Instance("a terminal root (one leaf)", GameTree(-9), ()),
        Instance(
            "MIN to move, every value below -1",
            GameTree([[-5, [-3, -17]], [-8, -2, -30]], root_player=MIN),
            (),
        ),
    ]


def hand_pruning_trees() -> list[Instance]:
    """Small trees with all leaf values different, small enough to draw in the feedback."""
    return [
        Instance(
            "a small tree without ties (MAX to move)",
            GameTree([[[8, 3], [5, 11]], [[2, 14], [-6, 9]], [[7, -1], [12, 4]]]),
            (),
        ),
        Instance(
            "a small tree without ties (MIN to move)",
            GameTree([[[-3, 6], [10, 1]], [[13, -8], [0, 5]], [[2, 15], [-4, 7]]], MIN),
            (),
        ),
    ]


def seeded_trees(count: int, seed: int, distinct: bool, **shape) -> list[Instance]:
    """Random trees, reproducible from `seed`, half of them with MIN to move."""
    rng = random.Random(seed)
    found = []
    for index in range(count):
        player = MAX if index % 2 == 0 else MIN
        tree_seed = rng.randrange(10**6)
        game = random_tree(seed=tree_seed, distinct=distinct, root_player=player, **shape)
        label = "distinct values" if distinct else "values may repeat"
        found.append(Instance(f"random tree #{tree_seed} ({player} to move, {label})", game, ()))
    return found


@cache
def _ttt_values() -> dict[str, int]:
    """The minimax value of every reachable position, in sorted order of the positions.

    One memoised pass over the 5,478 positions, instead of a search from each of them.
    """

    @cache
    def value(state: str) -> int:
        if TTT.is_terminal(state):
            return TTT.utility(state)
        children = [value(TTT.result(state, action)) for action in TTT.actions(state)]
        return max(children) if TTT.to_move(state) == MAX else min(children)

    return {state: value(state) for state in sorted(reachable_states(TTT))}


def _ttt_positions(
    keep: Callable[[str], bool], count: int, seed: int, empties: tuple[int, int]
) -> list[str]:
    values = _ttt_values()
    pool = [s for s in values if empties[0] <= s.count(".") <= empties[1] and keep(s)]
    return random.Random(seed).sample(pool, min(count, len(pool)))


def _child_values(state: str) -> dict[int, int]:
    values = _ttt_values()
    return {action: values[TTT.result(state, action)] for action in TTT.actions(state)}


def _unique_best(state: str) -> bool:
    """Exactly one optimal move, and it is not the first action."""
    if TTT.is_terminal(state):
        return False
    children = _child_values(state)
    pick = max if TTT.to_move(state) == MAX else min
    best = pick(children.values())
    optimal = [a for a, v in children.items() if v == best]
    return len(optimal) == 1 and optimal[0] != TTT.actions(state)[0]


def _only_one_move_avoids_loss(state: str) -> bool:
    if TTT.is_terminal(state):
        return False
    sign = 1 if TTT.to_move(state) == MAX else -1
    safe = [a for a, v in _child_values(state).items() if sign * v >= 0]
    return len(safe) == 1 and len(_child_values(state)) >= 3


def _ttt(name: str, state: str, **extra) -> Instance:
    return Instance(f"{name} ({TTT.to_move(state)} to move)", TTT, state, **extra)


def tictactoe_values(empties: tuple[int, int] = (3, 5)) -> list[Instance]:
    """Positions with every kind of value, both players to move, and terminal roots."""
    values = _ttt_values()
    live = lambda s: not TTT.is_terminal(s)  # noqa: E731
    chosen = [
        *(_ttt("every move loses", s) for s in _ttt_positions(
            lambda s: live(s) and TTT.to_move(s) == MAX and values[s] == -1, 2, 1, empties)),
        *(_ttt("MIN to move", s) for s in _ttt_positions(
            lambda s: live(s) and TTT.to_move(s) == MIN, 3, 2, empties)),
        *(_ttt("a draw with best play", s) for s in _ttt_positions(
            lambda s: live(s) and values[s] == 0, 2, 3, empties)),
        *(_ttt("MAX wins", s) for s in _ttt_positions(
            lambda s: live(s) and TTT.to_move(s) == MAX and values[s] == 1, 1, 4, empties)),
        _ttt("a terminal root: X has won", TTT.from_picture("XXX\nOO.\n...")),
        _ttt("a terminal root: a full board, drawn", TTT.from_picture("XOX\nXOO\nOXX")),
    ]  # fmt: skip
    return chosen


def tictactoe_decisions(empties: tuple[int, int] = (3, 5)) -> list[Instance]:
    """Positions with exactly one optimal move, which is never the first action."""
    only_safe = _ttt_positions(
        lambda s: _only_one_move_avoids_loss(s) and _unique_best(s), 4, 5, empties
    )
    min_roots = _ttt_positions(
        lambda s: TTT.to_move(s) == MIN and _unique_best(s) and s not in only_safe, 2, 6, empties
    )
    return [
        *(_ttt("only one move avoids a loss", s) for s in only_safe),
        *(_ttt("a single best move", s) for s in min_roots),
    ]


def tree_decisions(count: int, seed: int) -> list[Instance]:
    """Random trees whose root has one best action, not the first one."""
    from solutions.minimax import minimax_value

    rng = random.Random(seed)
    found: list[Instance] = []
    while len(found) < count:
        player = MAX if len(found) % 2 == 0 else MIN
        tree_seed = rng.randrange(10**6)
        game = random_tree(
            branching=(3, 4), depth=3, low=-20, high=20, seed=tree_seed, root_player=player
        )
        children = [minimax_value(game, game.result((), a)) for a in game.actions(())]
        best = max(children) if player == MAX else min(children)
        if children.count(best) == 1 and children[0] != best:
            found.append(Instance(f"random tree #{tree_seed} ({player} to move)", game, ()))
    return found


# Depth-limited search: evaluation functions that are deliberately asymmetric.


def path_evaluation(state: tuple[int, ...]) -> int:
    """A made-up score of a tree node that depends on the path, never symmetric in the players.

    Terminal states are scored too (differently from their utility), so a search that asks the
    evaluation at a terminal state instead of the utility gets a different value.
    """
    return (sum((i + 3) * (a + 2) for i, a in enumerate(state)) * 37 + 11) % 43 - 19


def tictactoe_evaluation(state: str) -> float:
    """Open lines for X minus open lines for O, plus a centre bonus, in tenths inside (-1, 1).

    Asymmetric on purpose: X's two-in-a-line counts more than O's, so scoring from the wrong
    side changes values.
    """
    from games.tictactoe import LINES

    score = 0
    for line in LINES:
        marks = [state[i] for i in line]
        if "O" not in marks:
            score += marks.count("X") * 2
        if "X" not in marks:
            score -= marks.count("O")
    score += 1 if state[4] == "X" else 0
    return max(-9, min(9, score)) / 10


DEPTH_TREES = [
    GameTree([[4, [0, 6]], [[0, -3], 7], [[2, [5, -1]], 0]]),
    GameTree([[[1, -6], [0, 3]], [-2, [8, 0, -4]], [0, [2, 2]]], root_player=MIN),
    GameTree([[[3, [0, -5]], 1], [[-7, 4], [0, [6, -2]]], [9, [-1, 0]]]),
]


def depth_limited_trees() -> list[Instance]:
    """Depth 0 and 1 boundaries, terminals inside the horizon, zero utilities, MIN roots."""
    found = []
    for index, game in enumerate(DEPTH_TREES):
        for depth in (0, 1, 2, 3):
            found.append(
                Instance(
                    f"tree {index + 1} at depth {depth}",
                    game,
                    (),
                    depth=depth,
                    evaluate=path_evaluation,
                    evaluation="the made-up evaluation f(path)",
                )
            )
    return found


def depth_limited_tictactoe(decisions: bool) -> list[Instance]:
    """Tic-tac-toe positions searched 1 to 3 plies with `tictactoe_evaluation`."""
    from solutions.depth_limited import depth_limited_value

    rng = random.Random(11 if decisions else 12)
    values = _ttt_values()
    pool = sorted(s for s in values if 3 <= s.count(".") <= 7 and not TTT.is_terminal(s))
    found: list[Instance] = []
    while len(found) < 6:
        state = rng.choice(pool)
        depth = 1 + len(found) % 3
        if decisions:
            children = {
                a: depth_limited_value(TTT, TTT.result(state, a), depth - 1, tictactoe_evaluation)
                for a in TTT.actions(state)
            }
            pick = max if TTT.to_move(state) == MAX else min
            best = pick(children.values())
            deeper = {
                a: depth_limited_value(TTT, TTT.result(state, a), depth, tictactoe_evaluation)
                for a in TTT.actions(state)
            }
            deeper_best = pick(deeper.values())
            unique = list(children.values()).count(best) == 1
            changes = [a for a, v in deeper.items() if v == deeper_best] != [
                a for a, v in children.items() if v == best
            ]
            if not unique or (len(found) < 3 and not changes):
                continue
        found.append(
            _ttt(
                f"depth {depth}",
                state,
                depth=depth,
                evaluate=tictactoe_evaluation,
                evaluation="open lines (X's count double), centre bonus",
            )
        )
    return found


def connect_four_endgames(count: int, seed: int, empties: tuple[int, int]) -> list[Instance]:
    """Connect Four positions near the end of a game, reached by seeded random play.

    Utilities follow the 22 - k score (a win with one's k-th stone), so values go beyond +-1.
    Positions are kept small enough for plain minimax, and both players get to move.
    """
    from games import ConnectFour
    from solutions.minimax import minimax_value

    game = ConnectFour()
    rng = random.Random(seed)
    found: list[Instance] = []
    seen_values: set = set()
    while len(found) < count:
        state, moves = game.initial_state(), ""
        target = rng.randint(*empties)
        while not game.is_terminal(state) and 42 - len(moves) > target:
            action = rng.choice(game.actions(state))
            state, moves = game.result(state, action), moves + str(action)
        if game.is_terminal(state) or 42 - len(moves) != target:
            continue
        value = minimax_value(game, state)
        player = game.to_move(state)
        if (value, player) in seen_values and len(seen_values) < 4:
            continue  # prefer a spread of values and players first
        seen_values.add((value, player))
        found.append(Instance(f"Connect Four after {moves} ({player} to move)", game, state))
    return found
