"""The hidden test instances: explicit trees, tic-tac-toe and Connect Four positions.

Many positions are chosen by a search (a value of every kind, a single best move, ...). Each
search is kept here as a `select_...` function that says why its positions were chosen, but
grading does not run them: what they select is frozen as literal data at the end of this module,
and the functions `autograder.rules` calls build their instances from it.
tests/test_frozen_instances.py re-runs every search and checks that it still selects exactly the
frozen data; after changing a search or a game, regenerate the data with
`python -m autograder.instances`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any, TypeVar

from games import MAX, MIN, Game, GameTree, TicTacToe, random_tree

T = TypeVar("T")


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


def _frozen(table: dict[Any, T], key: Any, select: Callable[[], T]) -> T:
    """The selection frozen in `table` for `key`; arguments never frozen are searched afresh."""
    return table[key] if key in table else select()


# Tic-tac-toe positions, selected among the 5,478 reachable ones.


@cache
def _ttt_values() -> dict[str, int]:
    """The minimax value of every reachable position, in sorted order of the positions.

    One memoised pass over the 5,478 positions, instead of a search from each of them.
    """
    from solutions.facts import reachable_states

    @cache
    def value(state: str) -> int:
        if TTT.is_terminal(state):
            return TTT.utility(state)
        children = [value(TTT.result(state, action)) for action in TTT.actions(state)]
        return max(children) if TTT.to_move(state) == MAX else min(children)

    return {state: value(state) for state in sorted(reachable_states(TTT))}


def _ttt_positions(
    keep: Callable[[str], bool], count: int, seed: int, empties: tuple[int, int]
) -> tuple[str, ...]:
    values = _ttt_values()
    pool = [s for s in values if empties[0] <= s.count(".") <= empties[1] and keep(s)]
    return tuple(random.Random(seed).sample(pool, min(count, len(pool))))


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


def _ttt_by_kind(chosen: dict[str, tuple[str, ...]]) -> list[Instance]:
    return [_ttt(kind, state) for kind, states in chosen.items() for state in states]


def select_tictactoe_values(empties: tuple[int, int]) -> dict[str, tuple[str, ...]]:
    """Search for positions with every kind of value and both players to move, by kind."""
    values = _ttt_values()
    live = lambda s: not TTT.is_terminal(s)  # noqa: E731
    return {
        "every move loses": _ttt_positions(
            lambda s: live(s) and TTT.to_move(s) == MAX and values[s] == -1, 2, 1, empties),
        "MIN to move": _ttt_positions(
            lambda s: live(s) and TTT.to_move(s) == MIN, 3, 2, empties),
        "a draw with best play": _ttt_positions(
            lambda s: live(s) and values[s] == 0, 2, 3, empties),
        "MAX wins": _ttt_positions(
            lambda s: live(s) and TTT.to_move(s) == MAX and values[s] == 1, 1, 4, empties),
    }  # fmt: skip


def tictactoe_values(empties: tuple[int, int] = (3, 5)) -> list[Instance]:
    """Positions with every kind of value, both players to move, and terminal roots.

    The live positions are those `select_tictactoe_values` picks, frozen in `TICTACTOE_VALUES`.
    """
    chosen = _frozen(TICTACTOE_VALUES, empties, lambda: select_tictactoe_values(empties))
    return [
        *_ttt_by_kind(chosen),
        _ttt("a terminal root: X has won", TTT.from_picture("XXX\nOO.\n...")),
        _ttt("a terminal root: a full board, drawn", TTT.from_picture("XOX\nXOO\nOXX")),
    ]


def select_tictactoe_decisions(empties: tuple[int, int]) -> dict[str, tuple[str, ...]]:
    """Search for positions with exactly one optimal move, which is never the first action."""
    only_safe = _ttt_positions(
        lambda s: _only_one_move_avoids_loss(s) and _unique_best(s), 4, 5, empties
    )
    min_roots = _ttt_positions(
        lambda s: TTT.to_move(s) == MIN and _unique_best(s) and s not in only_safe, 2, 6, empties
    )
    return {"only one move avoids a loss": only_safe, "a single best move": min_roots}


def tictactoe_decisions(empties: tuple[int, int] = (3, 5)) -> list[Instance]:
    """Positions with exactly one optimal move, which is never the first action.

    They are those `select_tictactoe_decisions` picks, frozen in `TICTACTOE_DECISIONS`.
    """
    return _ttt_by_kind(
        _frozen(TICTACTOE_DECISIONS, empties, lambda: select_tictactoe_decisions(empties))
    )


def select_transpositions(empties: tuple[int, int]) -> tuple[str, ...]:
    """Search for two positions (MAX, then MIN to move) that many move orders reach inside.

    In each, a transposition table that stores a result as exact even when it was only a
    cut-off's bound (in its own window) returns a wrong value: a search with a correct table
    gets them right, a table that ignores the window does not. In the second, no other known
    mistake gives that wrong value, so the feedback can name the table.
    """
    from autograder.diagnosis import VALUE_CAUSES, Variant, search, variant_value

    careless = Variant(bound_as_exact=True)
    others = [v for v in VALUE_CAUSES.values() if v != careless]
    values = _ttt_values()

    def wrong(state: str, player: str, alone: bool) -> bool:
        if TTT.is_terminal(state) or TTT.to_move(state) != player:
            return False
        value = search(TTT, state, careless)
        if value == values[state]:
            return False
        return not alone or all(variant_value(TTT, state, v) != value for v in others)

    return (
        *_ttt_positions(lambda s: wrong(s, MAX, False), 1, 21, empties),
        *_ttt_positions(lambda s: wrong(s, MIN, True), 1, 22, empties),
    )


def tictactoe_transpositions(empties: tuple[int, int] = (5, 7)) -> list[Instance]:
    """Positions where transpositions matter, as `select_transpositions` picks them (frozen in
    `TRANSPOSITIONS`)."""
    chosen = _frozen(TRANSPOSITIONS, empties, lambda: select_transpositions(empties))
    return [_ttt("positions reached again by other move orders", state) for state in chosen]


# Random trees whose root has one best move.


def _decision_tree(tree_seed: int, player: str) -> GameTree:
    return random_tree(
        branching=(3, 4), depth=3, low=-20, high=20, seed=tree_seed, root_player=player
    )


def select_tree_decisions(count: int, seed: int) -> tuple[int, ...]:
    """Search for the seeds of random trees whose root has one best action, not the first one.

    The roots alternate: MAX to move in the first tree, MIN in the second, and so on.
    """
    from solutions.minimax import minimax_value

    rng = random.Random(seed)
    found: list[int] = []
    while len(found) < count:
        player = MAX if len(found) % 2 == 0 else MIN
        tree_seed = rng.randrange(10**6)
        game = _decision_tree(tree_seed, player)
        children = [minimax_value(game, game.result((), a)) for a in game.actions(())]
        best = max(children) if player == MAX else min(children)
        if children.count(best) == 1 and children[0] != best:
            found.append(tree_seed)
    return tuple(found)


def tree_decisions(count: int, seed: int) -> list[Instance]:
    """Random trees whose root has one best action, not the first one.

    The trees are those `select_tree_decisions` picks, their seeds frozen in `TREE_DECISIONS`.
    """
    seeds = _frozen(TREE_DECISIONS, (count, seed), lambda: select_tree_decisions(count, seed))
    found = []
    for index, tree_seed in enumerate(seeds):
        player = MAX if index % 2 == 0 else MIN
        game = _decision_tree(tree_seed, player)
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


def _heuristic_choice_is_telling(state: str, depth: int, must_change: bool) -> bool:
    """One best move at `depth` plies; if `must_change`, a different choice one ply deeper.

    A search that stops one ply early or late then picks another move.
    """
    from solutions.depth_limited import depth_limited_value

    def child_values(plies: int) -> dict[int, float]:
        return {
            a: depth_limited_value(TTT, TTT.result(state, a), plies, tictactoe_evaluation)
            for a in TTT.actions(state)
        }

    pick = max if TTT.to_move(state) == MAX else min
    children, deeper = child_values(depth - 1), child_values(depth)
    best, deeper_best = pick(children.values()), pick(deeper.values())
    unique = list(children.values()).count(best) == 1
    changes = [a for a, v in deeper.items() if v == deeper_best] != [
        a for a, v in children.items() if v == best
    ]
    return unique and (changes or not must_change)


def select_depth_limited_tictactoe(decisions: bool) -> tuple[tuple[str, int], ...]:
    """Search for six (position, depth) pairs to search with `tictactoe_evaluation`.

    The depths cycle through 1, 2, 3. For decisions, each position's heuristic best move is
    unique, and in the first three it changes when searched one ply deeper.
    """
    rng = random.Random(11 if decisions else 12)
    values = _ttt_values()
    pool = sorted(s for s in values if 3 <= s.count(".") <= 7 and not TTT.is_terminal(s))
    found: list[tuple[str, int]] = []
    while len(found) < 6:
        state = rng.choice(pool)
        depth = 1 + len(found) % 3
        if decisions and not _heuristic_choice_is_telling(state, depth, len(found) < 3):
            continue
        found.append((state, depth))
    return tuple(found)


def depth_limited_tictactoe(decisions: bool) -> list[Instance]:
    """Tic-tac-toe positions searched 1 to 3 plies with `tictactoe_evaluation`.

    They are those `select_depth_limited_tictactoe` picks, frozen in `DEPTH_LIMITED_TICTACTOE`.
    """
    chosen = _frozen(
        DEPTH_LIMITED_TICTACTOE, decisions, lambda: select_depth_limited_tictactoe(decisions)
    )
    return [
        _ttt(
            f"depth {depth}",
            state,
            depth=depth,
            evaluate=tictactoe_evaluation,
            evaluation="open lines (X's count double), centre bonus",
        )
        for state, depth in chosen
    ]


def select_depth_limited_ties(count: int) -> tuple[tuple[str, int], ...]:
    """Search for (position, depth) pairs where a tie with a cut-off's bound misleads.

    A decision that carries its window into the later actions and keeps a later action whose
    value only equals the best picks a worse move in each (depth 2 or 3: a cut-off needs a
    search below the root's children).
    """
    from autograder.diagnosis import Variant, decide
    from solutions.depth_limited import depth_limited_value

    rng = random.Random(13)
    pool = sorted(s for s in _ttt_values() if 4 <= s.count(".") <= 7 and not TTT.is_terminal(s))
    found: list[tuple[str, int]] = []
    while len(found) < count:
        state, depth = rng.choice(pool), 2 + len(found) % 2
        values = {
            a: depth_limited_value(TTT, TTT.result(state, a), depth - 1, tictactoe_evaluation)
            for a in TTT.actions(state)
        }
        best = (max if TTT.to_move(state) == MAX else min)(values.values())
        tied = decide(TTT, state, Variant(), True, True, depth, tictactoe_evaluation)
        if values[tied] != best and (state, depth) not in found:
            found.append((state, depth))
    return tuple(found)


def depth_limited_ties(count: int = 2) -> list[Instance]:
    """Positions where a later action ties the best with a cut-off's bound, searched with
    `tictactoe_evaluation`, as `select_depth_limited_ties` picks them (frozen in
    `DEPTH_LIMITED_TIES`)."""
    chosen = _frozen(DEPTH_LIMITED_TIES, count, lambda: select_depth_limited_ties(count))
    return [
        _ttt(
            f"depth {depth}, a later move ties the best at a cut-off",
            state,
            depth=depth,
            evaluate=tictactoe_evaluation,
            evaluation="open lines (X's count double), centre bonus",
        )
        for state, depth in chosen
    ]


# Connect Four end-games.


def select_connect_four_endgames(
    count: int, seed: int, empties: tuple[int, int]
) -> tuple[str, ...]:
    """Search for the move strings of positions near the end of a game, by seeded random play.

    Utilities follow the 22 - k score (a win with one's k-th stone), so values go beyond +-1.
    Positions are kept small enough for plain minimax, and both players get to move.
    """
    from games import ConnectFour
    from solutions.minimax import minimax_value

    game = ConnectFour()
    rng = random.Random(seed)
    found: list[str] = []
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
        found.append(moves)
    return tuple(found)


def connect_four_endgames(count: int, seed: int, empties: tuple[int, int]) -> list[Instance]:
    """Connect Four positions near the end of a game, with `empties` empty squares.

    They are those `select_connect_four_endgames` picks, frozen in `CONNECT_FOUR_ENDGAMES` for
    the arguments `autograder.rules` uses (other arguments search afresh).
    """
    from games import ConnectFour

    game = ConnectFour()
    select = lambda: select_connect_four_endgames(count, seed, empties)  # noqa: E731
    found = []
    for moves in _frozen(CONNECT_FOUR_ENDGAMES, (count, seed, empties), select):
        state = ConnectFour.from_moves(moves)
        name = f"Connect Four after {moves} ({game.to_move(state)} to move)"
        found.append(Instance(name, game, state))
    return found


# Regenerating the frozen selections.


def frozen_tables() -> dict[str, dict]:
    """The frozen tables at the end of this module, by name."""
    names = (
        "TICTACTOE_VALUES",
        "TICTACTOE_DECISIONS",
        "DEPTH_LIMITED_TICTACTOE",
        "TREE_DECISIONS",
        "CONNECT_FOUR_ENDGAMES",
        "TRANSPOSITIONS",
        "DEPTH_LIMITED_TIES",
    )
    return {name: globals()[name] for name in names}


def frozen_selections() -> dict[str, dict]:
    """Re-run every search for the arguments frozen below: what `frozen_tables()` must equal."""
    return {
        "TICTACTOE_VALUES": {e: select_tictactoe_values(e) for e in TICTACTOE_VALUES},
        "TICTACTOE_DECISIONS": {e: select_tictactoe_decisions(e) for e in TICTACTOE_DECISIONS},
        "DEPTH_LIMITED_TICTACTOE": {
            d: select_depth_limited_tictactoe(d) for d in DEPTH_LIMITED_TICTACTOE
        },
        "TREE_DECISIONS": {key: select_tree_decisions(*key) for key in TREE_DECISIONS},
        "CONNECT_FOUR_ENDGAMES": {
            key: select_connect_four_endgames(*key) for key in CONNECT_FOUR_ENDGAMES
        },
        "TRANSPOSITIONS": {e: select_transpositions(e) for e in TRANSPOSITIONS},
        "DEPTH_LIMITED_TIES": {n: select_depth_limited_ties(n) for n in DEPTH_LIMITED_TIES},
    }


def frozen_source(tables: dict[str, dict]) -> str:
    """The tables as Python source laid out as `ruff format` keeps it, to paste below."""
    return "\n\n".join(
        f"{name}: {__annotations__[name]} = {_source(table, len(name) + 2)}"
        for name, table in tables.items()
    )


def _source(value: Any, used: int, indent: str = "") -> str:
    """`value` as source: dicts, and tuples too long for their line, one item per line.

    `used` counts the characters already on the line before `value`.
    """
    if isinstance(value, str):
        return json.dumps(value)
    if not isinstance(value, dict | tuple):
        return repr(value)
    if isinstance(value, tuple):
        items = [_source(item, 0) for item in value]
        inline = f"({', '.join(items)}{',' if len(items) == 1 else ''})"
        if "\n" not in inline and used + len(inline) + 1 <= 100:  # + 1 for a trailing comma
            return inline
    inner = indent + "    "
    if isinstance(value, dict):
        lines = [
            f"{inner}{key_source}: {_source(item, len(inner) + len(key_source) + 2, inner)},"
            for key, item in value.items()
            for key_source in [_source(key, 0)]
        ]
        return "{\n" + "\n".join(lines) + f"\n{indent}}}"
    lines = [f"{inner}{_source(item, len(inner), inner)}," for item in value]
    return "(\n" + "\n".join(lines) + f"\n{indent})"


# ----------------------------------------------------------------------------------------------
# The frozen selections: what the `select_...` searches above pick, keyed by the arguments of
# the function that builds the instances. Generated by `python -m autograder.instances`; paste
# its output over everything from here to the `__main__` block.
# ----------------------------------------------------------------------------------------------

TICTACTOE_VALUES: dict[tuple[int, int], dict[str, tuple[str, ...]]] = {
    (3, 5): {
        "every move loses": (".X..O..XO", "XXO.X..OO"),
        "MIN to move": ("..X.O.XXO", ".O...XXOX", "..XXO.XO."),
        "a draw with best play": (".XO.X..OX", "XOX.O...."),
        "MAX wins": (".X..X.O.O",),
    },
    (5, 8): {
        "every move loses": ("..X..X.OO", "...XOXO.."),
        "MIN to move": ("....X.XO.", "...X...OX", "...OX.X.."),
        "a draw with best play": ("..XX.OO..", "XX.....O."),
        "MAX wins": (".OO..XX..",),
    },
}

TICTACTOE_DECISIONS: dict[tuple[int, int], dict[str, tuple[str, ...]]] = {
    (3, 5): {
        "only one move avoids a loss": ("X.O.OX.XO", ".XO.O...X", "XXO....OX", "O.OXO.XX."),
        "a single best move": ("X..X.X.OO", "..X.OXOX."),
    },
    (5, 8): {
        "only one move avoids a loss": (".X.O.O.X.", "O.X.OX...", "....X..XO", "X..X...OO"),
        "a single best move": ("O..XX....", "....X.X.O"),
    },
}

DEPTH_LIMITED_TICTACTOE: dict[bool, tuple[tuple[str, int], ...]] = {
    False: (
        ("O.X.X.OXO", 1),
        (".X...O.OX", 2),
        ("X..OXX.O.", 3),
        ("OOXO..X.X", 1),
        ("X..XOO...", 2),
        (".XOOXXO..", 3),
    ),
    True: (
        (".O.X.OOXX", 1),
        ("XOOO.X..X", 2),
        ("X.OO.X.X.", 3),
        ("X...OXXO.", 1),
        ("...X..XO.", 2),
        ("O.....X..", 3),
    ),
}

TREE_DECISIONS: dict[tuple[int, int], tuple[int, ...]] = {
    (6, 3): (249523, 621429, 570665, 136758, 633256, 497081),
}

CONNECT_FOUR_ENDGAMES: dict[tuple[int, int, tuple[int, int]], tuple[str, ...]] = {
    (5, 7, (6, 8)): (
        "24222224634154366371751115354154335",
        "746526516246343634136534413277217271",
        "27244514426424266712567656577135111",
        "7437666624711475514452436615553333",
        "221764444573251236336556312515247476",
    ),
    (5, 8, (9, 11)): (
        "4126712723117743725422565551615",
        "13411735334615276113563677257275",
        "13614726243533774366616277731124",
        "7322643721114672331161736474224",
        "171656533645152114316233722445745",
    ),
}

TRANSPOSITIONS: dict[tuple[int, int], tuple[str, ...]] = {
    (5, 7): ("..O...XXO", "....OXX.."),
}

DEPTH_LIMITED_TIES: dict[int, tuple[tuple[str, int], ...]] = {
    2: (("X.OO.X..X", 2), (".XOX...XO", 3)),
}


if __name__ == "__main__":
    print(frozen_source(frozen_selections()))
