"""The frames the grader serves: a cheaper road to a child must give the very same frame.

The contest's Connect Four children are computed from their parent's stone
(`sandbox/connect_four_children.py`) rather than from scratch (`wire._info`): every field of
every child, the evaluation float for float, must be what the generic road gives, on games
played at random to their end from many seeds, whatever order the positions come in.
"""

from __future__ import annotations

import marshal
import math
import random

import pytest

from autograder.sandbox import connect_four_children, wire
from autograder.sandbox.connect_four_children import child_info, raw_score
from autograder.sandbox.wire import _child, _info
from games.connect_four import ConnectFour, evaluation

GAME = ConnectFour()


def _random_games(seed: int, games: int):
    """(parent, its columns, the index of one) for every move of `games` random games."""
    rng = random.Random(seed)
    for _ in range(games):
        state = GAME.initial_state()
        while not GAME.is_terminal(state):
            legal = GAME.actions(state)
            for index in range(len(legal)):
                yield state, legal, index
            state = GAME.result(state, rng.choice(legal))


@pytest.mark.parametrize("seed", range(6))
def test_a_child_from_its_parent_s_stone_is_the_child_computed_whole(seed: int) -> None:
    connect_four_children._RAW.clear()  # the first parents are scored whole, the rest from memory
    checked = 0
    for parent, legal, index in _random_games(seed, 40):
        child, info = child_info(parent, legal, index, evaluated=True)
        assert child == GAME.result(parent, legal[index])
        assert info == _info(GAME, child, GAME.evaluate)
        assert marshal.dumps(info) == marshal.dumps(_info(GAME, child, GAME.evaluate))
        checked += 1
    assert checked > 3000  # many positions, terminal ones (wins and full boards) included


def test_without_an_evaluation_the_child_serves_none_as_the_generic_road_does() -> None:
    for parent, legal, index in _random_games(99, 5):
        child, info = child_info(parent, legal, index, evaluated=False)
        assert info == _info(GAME, child, None)


def test_the_memory_of_raw_scores_starts_again_when_full_and_stays_right(monkeypatch) -> None:
    monkeypatch.setattr(connect_four_children, "_RAW_SIZE", 3)
    connect_four_children._RAW.clear()
    state = GAME.initial_state()
    for column in (4, 4, 5, 3, 3, 2, 6, 1):
        legal = GAME.actions(state)
        state, info = child_info(state, legal, legal.index(column), evaluated=True)
        assert info[4] == evaluation(state)
        assert len(connect_four_children._RAW) <= 3
    assert 0.99 * math.tanh(raw_score(state) / 64) == evaluation(state)


def test_the_served_frame_is_the_cheap_road_only_for_the_game_s_own_evaluation(
    monkeypatch,
) -> None:
    roads = []
    monkeypatch.setattr(wire, "child_info", lambda *args: roads.append(args) or child_info(*args))
    parent = ConnectFour.from_moves("4453")
    legal = GAME.actions(parent)
    own = _child(GAME, GAME.evaluate, parent, legal, 0)
    assert len(roads) == 1  # the contest's game and its own evaluation: from the parent's stone
    other = _child(GAME, lambda state: 0.5, parent, legal, 0)
    assert len(roads) == 1  # another evaluation: the generic road
    assert own[0] == other[0] and marshal.loads(own[3])[4] == evaluation(own[0])
    assert marshal.loads(other[3])[4] == 0.5  # another evaluation is served as it is
