"""The self-checks of lecture 06's assignment: chance nodes and several players."""

from __future__ import annotations

from games import MAX, MIN, ChanceTree, MultiplayerTree, Pig, PigState, TakeAway, chance, max_, min_

from .self_checks import Check

PIG = Pig()
GAMBLES = ChanceTree(max_(chance((0.5, 6), (0.5, 0)), chance((0.8, 2), (0.2, 4))))
MIN_GAMBLES = ChanceTree(min_(chance((0.5, 6), (0.5, 0)), chance((0.8, 2), (0.2, 4))))
NATURE_FIRST = ChanceTree(chance((0.3, max_(2, 5)), (0.7, min_(8, 1))))
ZERO_CHANCE = ChanceTree(max_(chance((1.0, 1), (0.0, 50)), 2))
THREE = MultiplayerTree([[(1, 2, 6), (4, 3, 3)], [(6, 1, 2), (7, 4, 1)]])
THREE_FROM_TWO = MultiplayerTree([[(5, 1, 2), (2, 3, 9)], [(1, 8, 4), (4, 6, 7)]], root_player=2)
DEEPER = MultiplayerTree(
    [[[(3, 5, 1), (6, 2, 4)], [(1, 1, 9), (2, 7, 3)]], [[(8, 3, 2), (0, 4, 5)], (5, 5, 5)]]
)
OWN_INTERESTS = MultiplayerTree(  # the paranoid view and the first child each pick another move
    [
        [(1, 8, 6), [(0, 6, 7), (0, 2, 3)]],
        [(6, 9, 0), [(0, 3, 0), (9, 6, 8)]],
        [(6, 2, 8), [(8, 4, 2), (1, 9, 7)]],
    ]
)
FIRST_IS_BEST = MultiplayerTree(  # another player's component and the root's view pick others
    [
        [[(6, 7, 2), (6, 1, 0)], (6, 1, 8)],
        [[(4, 7, 3), (3, 9, 9)], [(8, 9, 5), (7, 1, 0)]],
        [[(0, 6, 9), (7, 6, 4)], [(8, 9, 5), (9, 0, 7)]],
    ]
)
TAKE = TakeAway(heap=4, max_take=2)


def expectiminimax_value_checks() -> list[Check]:
    return [
        Check("value", "a leaf alone", ChanceTree(3)),
        Check("value", "MAX over two gambles", GAMBLES),
        Check("value", "MIN over the same gambles", MIN_GAMBLES),
        Check("value", "nature moves first", NATURE_FIRST),
        Check("value", "an outcome of probability 0 still listed", ZERO_CHANCE),
        Check("value", "Pig: MAX's last turn, one short", PIG, PigState((4, 5), 1, MAX, 1, False)),
    ]


def expectiminimax_decision_checks() -> list[Check]:
    return [
        Check("decision", "MAX over two gambles", GAMBLES),
        Check("decision", "MIN over the same gambles", MIN_GAMBLES),
        Check(
            "decision", "Pig: MAX's last turn, one short", PIG, PigState((4, 5), 1, MAX, 1, False)
        ),
        Check("decision", "Pig: MIN can bank the win", PIG, PigState((3, 2), 4, MIN, 2, False)),
    ]


def maxn_value_checks() -> list[Check]:
    return [
        Check("vector", "a leaf alone", MultiplayerTree((1, 2, 3))),
        Check("vector", "three players, two levels", THREE),
        Check("vector", "player 2 at the root", THREE_FROM_TWO),
        Check("vector", "every player moves once", DEEPER),
        Check("vector", "take-away, 4 objects", TAKE, (4, 0)),
    ]


def maxn_decision_checks() -> list[Check]:
    return [
        Check("decision", "every player looks after itself", OWN_INTERESTS),
        Check("decision", "the first move is the best", FIRST_IS_BEST),
        Check("decision", "three players, two levels", THREE),
        Check("decision", "player 2 at the root", THREE_FROM_TWO),
        Check("decision", "every player moves once", DEEPER),
        Check("decision", "take-away, 5 objects, player 1", TAKE, (5, 1)),
    ]
