"""The hidden test instances: explicit trees, tic-tac-toe and Connect Four positions.

Many positions are chosen by a search (a value of every kind, a single best move, ...). Each search
is kept in `autograder.grading.selection` as a `select_...` function that says why its positions
were chosen, but grading does not run them: what they select is frozen as JSON package data
(autograder/data/frozen_instances.json), and the functions `autograder.grading.rules` calls build
their instances from it. tests/test_frozen_instances.py re-runs every search and checks that it
still selects exactly the frozen data; after changing a search or a game, regenerate the data with
`python -m autograder.grading.instances`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from autograder.grading.positions import (
    FROZEN_DATA as FROZEN_DATA,  # tests read where the data is through this module
)
from autograder.grading.positions import (
    TTT,
    decision_tree,
    frozen_choice,
    frozen_file,
    tictactoe_evaluation,
)
from games import (
    MAX,
    MIN,
    ChanceTree,
    Game,
    GameTree,
    MultiplayerTree,
    random_tree,
)


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
        if isinstance(self.game, GameTree | ChanceTree | MultiplayerTree):
            return repr(self.game)
        return self.game.display(self.state)

    @cached_property
    def small_tree(self) -> bool:
        return isinstance(self.game, GameTree) and len(self.game.leaves()) <= 40


CLASSIC = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]


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


# The frozen selections of the searches in `autograder.grading.selection`.


def frozen_data() -> dict[str, dict[tuple, Any]]:
    """The frozen selections: by search name, then by the search's positional arguments."""
    return {
        search: {
            _as_tuples(entry["arguments"]): _as_tuples(entry["selection"]) for entry in entries
        }
        for search, entries in frozen_file()["searches"].items()
    }


def chosen_data() -> dict[str, tuple[tuple[int, str], ...]]:
    """The frozen choice of `autograder.grading.coverage`: for each function and candidate
    pool (`rules.slot`), the place (from 0) and the name of each candidate it is called on."""
    return frozen_choice()


def _as_tuples(value: Any) -> Any:
    """`value` read from JSON with its lists as tuples again, as the searches return them."""
    if isinstance(value, list):
        return tuple(_as_tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: _as_tuples(item) for key, item in value.items()}
    return value


def _frozen(search: str, *arguments: Any) -> Any:
    """What `search` selects for `arguments`: frozen, or searched afresh if never frozen."""
    table = frozen_data()[search]
    if arguments in table:
        return table[arguments]
    from autograder.grading import selection  # only then: grading itself runs no search

    return getattr(selection, search)(*arguments)


# Tic-tac-toe positions, selected among the 5,478 reachable ones.


def _ttt(name: str, state: str, **extra) -> Instance:
    return Instance(f"{name} ({TTT.to_move(state)} to move)", TTT, state, **extra)


def _ttt_by_kind(chosen: dict[str, tuple[str, ...]]) -> list[Instance]:
    return [_ttt(kind, state) for kind, states in chosen.items() for state in states]


def tictactoe_values(empties: tuple[int, int] = (3, 5)) -> list[Instance]:
    """Positions with every kind of value, both players to move, and terminal roots.

    The live positions are those `select_tictactoe_values` picks.
    """
    return [
        *_ttt_by_kind(_frozen("select_tictactoe_values", empties)),
        _ttt("a terminal root: X has won", TTT.from_picture("XXX\nOO.\n...")),
        _ttt("a terminal root: a full board, drawn", TTT.from_picture("XOX\nXOO\nOXX")),
    ]


def tictactoe_decisions(empties: tuple[int, int] = (3, 5)) -> list[Instance]:
    """Positions with exactly one optimal move, which is never the first action.

    They are those `select_tictactoe_decisions` picks.
    """
    return _ttt_by_kind(_frozen("select_tictactoe_decisions", empties))


def table_bound_states() -> tuple[str, ...]:
    """Pinned tic-tac-toe decisions, kept whatever the coverage chooses: the cheapest positions
    with one best move where an alpha-beta whose transposition table stores a cut-off's bound
    as exact picks another move, in every form that circulates and flips somewhere (the root's
    window carried or fresh; one table per root child or one shared by them), as
    `select_table_bound_decisions` picks them. Without them such a table could lose
    `alphabeta_value` and keep every point of `alphabeta_decision`."""
    return _frozen("select_table_bound_decisions", (5, 8))


def table_bound_decisions() -> list[Instance]:
    """The `table_bound_states` positions, as instances."""
    return [
        _ttt("a position where a table's bound flips the move", s) for s in table_bound_states()
    ]


def cheap_decisions(empties: tuple[int, int], function: str, count: int) -> list[Instance]:
    """Positions with one best move that cost `function` few states for the guessing they
    rule out, as `select_cheap_decisions` picks them."""
    picked = _frozen("select_cheap_decisions", empties, function, count)
    return [_ttt("one best move, a small search", state) for state in picked]


def tictactoe_transpositions(empties: tuple[int, int] = (5, 7)) -> list[Instance]:
    """Positions where transpositions matter, as `select_transpositions` picks them."""
    chosen = _frozen("select_transpositions", empties)
    return [_ttt("positions reached again by other move orders", state) for state in chosen]


# Random trees whose root has one best move.


def tree_decisions(count: int, seed: int) -> list[Instance]:
    """Random trees whose root has one best action, not the first one.

    The trees are those `select_tree_decisions` picks.
    """
    found = []
    for index, tree_seed in enumerate(_frozen("select_tree_decisions", count, seed)):
        player = MAX if index % 2 == 0 else MIN
        game = decision_tree(tree_seed, player)
        found.append(Instance(f"random tree #{tree_seed} ({player} to move)", game, ()))
    return found


# Depth-limited search: evaluation functions that are deliberately asymmetric.


def path_evaluation(state: tuple[int, ...]) -> int:
    """A made-up score of a tree node that depends on the path, never symmetric in the players.

    Terminal states are scored too (differently from their utility), so a search that asks the
    evaluation at a terminal state instead of the utility gets a different value.
    """
    return (sum((i + 3) * (a + 2) for i, a in enumerate(state)) * 37 + 11) % 43 - 19


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
    """Tic-tac-toe positions searched 1 to 3 plies with `tictactoe_evaluation`.

    They are those `select_depth_limited_tictactoe` picks.
    """
    return [
        _ttt(
            f"depth {depth}",
            state,
            depth=depth,
            evaluate=tictactoe_evaluation,
            evaluation="open lines (X's count double), centre bonus",
        )
        for state, depth in _frozen("select_depth_limited_tictactoe", decisions)
    ]


def depth_limited_ties(count: int = 2) -> list[Instance]:
    """Positions where a later action ties the best with a cut-off's bound, searched with
    `tictactoe_evaluation`, as `select_depth_limited_ties` picks them."""
    return [
        _ttt(
            f"depth {depth}, a later move ties the best at a cut-off",
            state,
            depth=depth,
            evaluate=tictactoe_evaluation,
            evaluation="open lines (X's count double), centre bonus",
        )
        for state, depth in _frozen("select_depth_limited_ties", count)
    ]


# Connect Four end-games.


def connect_four_endgames(count: int, seed: int, empties: tuple[int, int]) -> list[Instance]:
    """Connect Four positions near the end of a game, with `empties` empty squares.

    They are those `select_connect_four_endgames` picks, frozen for the arguments
    `autograder.grading.rules` uses (other arguments search afresh).
    """
    from games import ConnectFour

    game = ConnectFour()
    found = []
    for moves in _frozen("select_connect_four_endgames", count, seed, empties):
        state = ConnectFour.from_moves(moves)
        name = f"Connect Four after {moves} ({game.to_move(state)} to move)"
        found.append(Instance(name, game, state))
    return found


if __name__ == "__main__":
    from autograder.grading.frozen_writer import write_frozen_data

    print(write_frozen_data())
