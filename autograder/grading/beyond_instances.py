"""Lecture 06's instances: explicit chance trees, Pig positions, three-player trees and take-away
heaps, each aimed at the mistakes `autograder.grading.beyond` re-enacts.

Every instance is built here from fixed numbers and seeds: nothing is searched for, so nothing
needs freezing. `tests/test_beyond.py` checks that each group catches each mistake it is meant
to catch.
"""

from __future__ import annotations

import random
from functools import cache

from autograder.grading.beyond import child_scores
from autograder.grading.instances import Instance
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
        scores = child_scores(instance)
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
    of ties, where only the first best child on a tie is right; a game already over; five moves
    where each mistake's decision picks a move of its own."""
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
        Instance(
            "five moves, player 1 at the root: each mistake picks another",
            MultiplayerTree(
                [
                    [[(9, 7, 4), (5, 4, 8)], [(7, 1, 5), (4, 1, 4)]],
                    [[(0, 6, 4), (3, 9, 0)], [(4, 1, 2), (9, 3, 1)]],
                    [[(0, 4, 2), (5, 9, 7)], [(7, 6, 9), (9, 0, 6)]],
                    [(4, 4, 2), [(3, 8, 4), (9, 4, 7)]],
                    [[(1, 7, 3), (9, 0, 6)], [(7, 7, 6), (2, 4, 5)]],
                ],
                root_player=1,
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
