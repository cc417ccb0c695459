"""Lecture 06's graded functions: expectiminimax with chance nodes, max-n for several players.

The instances (explicit chance trees, Pig positions, three-player trees and take-away heaps),
the reference's `Case` for each call, and the circulating mistakes re-enacted so the feedback
can name the one a wrong answer comes from (their words are in `autograder.grading.mistakes`).

Every instance is built here from fixed numbers and seeds: nothing is searched for, so nothing
needs freezing. `tests/test_beyond.py` checks that each group catches each mistake it is meant
to catch.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from functools import cache
from typing import Any

from autograder.grading.instances import Instance
from autograder.grading.judge import Case
from autograder.grading.mistakes import mistake
from games import (
    CHANCE,
    MAX,
    MIN,
    ChanceTree,
    MultiplayerTree,
    Pig,
    PigState,
    TakeAway,
    chance,
    max_,
    min_,
)
from games.protocol import Game

FUNCTIONS = (
    "expectiminimax_value",
    "expectiminimax_decision",
    "maxn_value",
    "maxn_decision",
)

CHANCE_RULES = {
    "chance_as_max": max,
    "chance_as_min": min,
    "chance_plain_average": lambda values: sum(values) / len(values),
}
"""How each catalogued mistake backs up a chance node (the reference takes the expectation)."""

COMPONENT_RULES = {
    "maxn_wrong_component": lambda player, root, players: (player - 1) % players,
    "maxn_root_view": lambda player, root, players: root,
}
"""Whose component each catalogued max-n mistake maximises at a node of `player` (the
reference: the player's own). `utilities[player - 1]` is the 1-based numbering slip (Python's
index -1 hides it); the root's view reads every node as if the root player moved there."""


# -- re-enacting the searches ------------------------------------------------------------------


def expectiminimax(game: Game, state: Any, chance_rule=None) -> Any:
    """Expectiminimax, exact where the probabilities are; `chance_rule(values)` replaces the
    expectation at chance nodes when given (a mistake re-enacted)."""
    if game.is_terminal(state):
        return game.utility(state)
    player = game.to_move(state)
    if player == CHANCE:
        outcomes = game.chance_outcomes(state)
        values = [expectiminimax(game, game.result(state, o), chance_rule) for o, _ in outcomes]
        if chance_rule is not None:
            return chance_rule(values)
        return sum(p * value for (_, p), value in zip(outcomes, values, strict=True))
    values = [expectiminimax(game, game.result(state, a), chance_rule) for a in game.actions(state)]
    return max(values) if player == MAX else min(values)


def maxn(game: Game, state: Any, component=None, root: int | None = None) -> tuple:
    """Max-n, the first best child on a tie; `component(player, root, players)` names whose
    utility a node maximises when given (a mistake re-enacted)."""
    if game.is_terminal(state):
        return tuple(game.utilities(state))
    player = game.to_move(state)
    root = player if root is None else root
    whose = player if component is None else component(player, root, game.players)
    values = [maxn(game, game.result(state, a), component, root) for a in game.actions(state)]
    return max(values, key=lambda utilities: utilities[whose])


def _child_scores(instance: Instance, variant=None) -> list:
    """Each action's score for the player to move: its expectiminimax value, or the mover's
    component of its max-n value (under `variant`, a mistake, when given)."""
    game, state = instance.game, instance.state
    children = [game.result(state, action) for action in game.actions(state)]
    if isinstance(game, ChanceTree | Pig):
        return [expectiminimax(game, child, variant) for child in children]
    player = game.to_move(state)
    whose = player if variant is None else variant(player, player, game.players)
    return [maxn(game, child, variant, player)[whose] for child in children]


def _chosen(instance: Instance, variant) -> Any:
    """The action a decision with the mistake `variant` picks: the first best for it."""
    scores = _child_scores(instance, variant)
    maximising = instance.game.to_move(instance.state) != MIN
    best = (max if maximising else min)(scores)
    return instance.game.actions(instance.state)[scores.index(best)]


# -- the cases -----------------------------------------------------------------------------------


def beyond_case(function: str, instance: Instance, base: Case) -> Case:
    """The reference's case for one of `FUNCTIONS` on `instance`, with the mistakes' hints."""
    game, state = instance.game, instance.state
    chance_game = function.startswith("expectiminimax")
    variants = CHANCE_RULES if chance_game else COMPONENT_RULES
    if function.endswith("_value"):
        if chance_game:
            value = float(expectiminimax(game, state))
            wrong = {
                mid: float(expectiminimax(game, state, rule)) for mid, rule in variants.items()
            }
        else:
            value = maxn(game, state)
            wrong = {mid: maxn(game, state, rule) for mid, rule in variants.items()}
        hints = {}
        for mistake_id, answer in wrong.items():
            if not _same(answer, value):  # 1/3 summed as floats is not always 1/3 exactly
                words = mistake(mistake_id).hint
                hints.setdefault(answer, f"your value equals what a search gives when {words}")
        return replace(base, value=value, value_hints=tuple(hints.items()))
    legal = tuple(game.actions(state))
    scores = [float(score) for score in _child_scores(instance)]
    maximising = game.to_move(state) != MIN
    best = (max if maximising else min)(scores)
    optimal = tuple(a for a, score in zip(legal, scores, strict=True) if score == best)
    picked: dict[Any, list[str]] = {}
    for mistake_id, rule in variants.items():
        chosen = _chosen(instance, rule)
        if chosen not in optimal:
            picked.setdefault(chosen, []).append(mistake(mistake_id).hint)
    hints = {
        chosen: "it is the move a search picks when " + "; or when ".join(words)
        for chosen, words in picked.items()
    }
    return replace(
        base,
        to_move=MAX if maximising else MIN,  # at a max-n node the mover maximises its component
        legal=legal,
        value=best,
        optimal=optimal,
        child_values=tuple(scores),
        decision_hints=tuple(hints.items()),
    )


def _same(answer: Any, value: Any) -> bool:
    """Whether two values (numbers, or vectors of numbers) are equal up to float rounding."""
    if isinstance(value, tuple):
        return len(answer) == len(value) and all(map(_same, answer, value))
    return math.isclose(answer, value, rel_tol=1e-9, abs_tol=1e-9)


def state_count(instance: Instance) -> int:
    """The states a full search of `instance` generates (each child once per path)."""
    game = instance.game

    def below(state: Any) -> int:
        if game.is_terminal(state):
            return 0
        return sum(1 + below(game.result(state, a)) for a in game.actions(state))

    return below(instance.state)


# -- the instances -------------------------------------------------------------------------------


def _tree(name: str, root) -> Instance:
    return Instance(name, ChanceTree(root), ())


def chance_trees() -> list[Instance]:
    """Small chance trees, each aimed at a mistake: uneven probabilities (an average that
    ignores them is wrong), a zero-probability outcome, MIN at the root, chance at the root."""
    return [
        _tree(
            "MAX over two gambles, 0.9 / 0.1",
            max_(chance((0.9, 2), (0.1, 3)), chance((0.9, 1), (0.1, 4))),
        ),
        _tree(
            "MAX, chance, MIN: the textbook's three levels",
            max_(
                chance((0.25, min_(3, 5)), (0.75, min_(1, 8))),
                chance((0.5, min_(2, 9)), (0.5, min_(4, 6))),
            ),
        ),
        _tree(
            "MIN to move over two gambles",
            min_(chance((0.25, 6), (0.75, 0)), chance((0.5, 1), (0.5, 4))),
        ),
        _tree(
            "nature moves first",
            chance((0.2, max_(1, 9)), (0.8, min_(2, 7))),
        ),
        _tree(
            "an outcome of probability 0",
            max_(chance((0.0, 100), (1.0, -3)), chance((0.5, -2), (0.5, 0))),
        ),
        _tree(
            "leaves that are not whole numbers",
            max_(chance((0.5, 2.5), (0.5, -0.75)), chance((0.25, 1.5), (0.75, 0.25))),
        ),
        _tree(
            "chance under chance: two dice in a row",
            max_(
                chance((0.5, chance((0.5, 4), (0.5, -2))), (0.5, 1)),
                chance((0.25, 3), (0.75, chance((0.2, 6), (0.8, 0.5)))),
            ),
        ),
        _tree("a game already over: the root is a leaf", 3.5),
    ]


def _random_chance_node(rng: random.Random, depth: int, player: str):
    if depth == 0:
        return rng.randint(-20, 20)
    if player == CHANCE:
        weights = [rng.randint(1, 9) for _ in range(rng.randint(2, 3))]
        total = sum(weights)
        branches = [
            (weight / total, _random_chance_node(rng, depth - 1, rng.choice((MAX, MIN))))
            for weight in weights
        ]
        return chance(*branches)
    children = [_random_chance_node(rng, depth - 1, CHANCE) for _ in range(rng.randint(2, 3))]
    return (max_ if player == MAX else min_)(*children)


def random_chance_trees(count: int, seed: int) -> list[Instance]:
    """Seeded trees of MAX or MIN nodes over chance nodes with uneven probabilities, four levels
    deep, kept only when their best move is unique."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        root = _random_chance_node(rng, 4, rng.choice((MAX, MIN)))
        instance = _tree(f"seeded chance tree {seed}-{len(found) + 1}", root)
        scores = _child_scores(instance)
        best = (max if root.player == MAX else min)(scores)
        if scores.count(best) == 1:
            found.append(instance)
    return found


PIG = Pig()


def pig_positions() -> list[Instance]:
    """Pig (goal 6, a six-sided die, three turns) at the start and at positions where holding
    and rolling each win: an optimist rolls and a pessimist holds, whatever the position."""
    states = [
        PIG.initial_state(),
        PigState((3, 4), 2, MAX, 1, False),
        PigState((3, 4), 1, MAX, 1, False),
        PigState((0, 3), 3, MAX, 3, False),
        PigState((2, 0), 4, MIN, 2, False),
        PigState((2, 3), 0, MIN, 2, True),
    ]
    return [Instance(f"Pig: {PIG.display(state)}", PIG, state) for state in states]


def multiplayer_trees() -> list[Instance]:
    """Three-player trees whose values tell the mistakes apart, rooted at each player; one full
    of ties, where only the first best child on a tie is right; a game already over."""
    return [
        Instance(
            "ties everywhere: the first best child",
            MultiplayerTree(
                [
                    [(2, 5, 1), (2, 1, 5)],
                    [[(4, 3, 3), (4, 3, 0)], [(1, 3, 6), (0, 3, 2)]],
                    [(4, 0, 0), (4, 7, 7)],
                ]
            ),
            (),
        ),
        Instance("a game already over: the root is a leaf", MultiplayerTree((1.5, 0, 2)), ()),
        Instance(
            "three players, player 0 at the root",
            MultiplayerTree(
                [
                    [(1, 2, 6), (4, 3, 3)],
                    [(6, 1, 2), (7, 4, 1)],
                    [(9, 1, 1), (1, 5, 2)],
                ]
            ),
            (),
        ),
        Instance(
            "three players, player 2 at the root",
            MultiplayerTree(
                [[(3, 1, 5), (2, 6, 4)], [(8, 2, 1), (1, 3, 8)], [(6, 0, 7), (4, 5, 3)]],
                root_player=2,
            ),
            (),
        ),
        Instance(
            "three levels: every player moves once",
            MultiplayerTree(
                [
                    [[(5, 2, 1), (1, 7, 3)], [(2, 2, 8), (9, 1, 0)]],
                    [[(3, 6, 2), (4, 1, 6)], [(0, 3, 5), (6, 4, 4)]],
                ]
            ),
            (),
        ),
    ]


def _random_multiplayer_node(rng: random.Random, depth: int, numbers) -> list | tuple:
    if depth == 0 or (depth < 3 and rng.random() < 0.15):
        return tuple(next(numbers) for _ in range(3))
    return [_random_multiplayer_node(rng, depth - 1, numbers) for _ in range(rng.randint(2, 3))]


def random_multiplayer_trees(count: int, seed: int) -> list[Instance]:
    """Seeded three-player trees, three or four levels, every utility of a player distinct."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        numbers = iter(rng.sample(range(1, 300), 3 * 81))
        tree = _random_multiplayer_node(rng, rng.choice((3, 4)), numbers)
        game = MultiplayerTree(tree, root_player=rng.randrange(3))
        found.append(Instance(f"seeded three-player tree {seed}-{len(found) + 1}", game, ()))
    return found


def takeaway_positions() -> list[Instance]:
    """Take-away with three players (at most two objects a move), heaps where kingmakers decide:
    the first best child on a tie matters, as the assignment says."""
    game = TakeAway(heap=7, max_take=2)
    states = [(7, 0), (5, 1), (4, 2), (6, 2), (8, 1)]
    return [Instance(f"take-away: {game.display(state)}", game, state) for state in states]


def _has_moves(instance: Instance) -> bool:
    return not instance.game.is_terminal(instance.state)


@cache
def instance_sets() -> dict[str, tuple[Instance, ...]]:
    """The groups' instances, by name (built once per process; a decision group reuses the
    value groups' instances, so each call is made once)."""
    hand, seeded, pig = chance_trees(), random_chance_trees(6, seed=11), pig_positions()
    players_hand, players_seeded = multiplayer_trees(), random_multiplayer_trees(6, seed=12)
    return {
        "chance_hand": tuple(hand),
        "chance_random": tuple(seeded),
        "pig": tuple(pig),
        "chance_moves": (
            *(i for i in hand if _has_moves(i) and i.game.to_move(()) != CHANCE),
            *seeded[:3],
        ),  # fmt: skip
        "pig_moves": tuple(i for i in pig if not i.state.rolling and len(PIG.actions(i.state)) > 1),
        "maxn_hand": tuple(players_hand),
        "maxn_random": tuple(players_seeded),
        "maxn_moves": tuple(i for i in (*players_hand, *players_seeded) if _has_moves(i)),
        "takeaway": tuple(takeaway_positions()),
    }
