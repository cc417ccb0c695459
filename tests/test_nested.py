"""Alpha-beta on nested lists: minimax values, principal variations and Knuth-Moore leaf counts."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import MAX, MIN, CountingGame, GameTree, ordered_tree, random_tree
from solutions.alphabeta import alphabeta_value
from solutions.minimax import minimax_value
from solutions.nested import alphabeta_nested

random_trees = st.builds(
    random_tree,
    branching=st.sampled_from([1, 2, 3, (1, 3), (2, 4)]),
    depth=st.integers(1, 5),
    low=st.just(-30),
    high=st.just(30),
    seed=st.integers(0, 10**6),
    leaf_probability=st.sampled_from([0.0, 0.2, 0.4]),
    root_player=st.sampled_from([MAX, MIN]),
)


class _CountingNode(list):
    """A list that counts how many of its leaf items a search has looked at."""

    def __init__(self, items: list, seen: list[int]) -> None:
        super().__init__(items)
        self.seen = seen

    def __iter__(self):
        for item in super().__iter__():
            self.seen[0] += not isinstance(item, list)
            yield item


def _counting(node, seen: list[int]):
    if isinstance(node, tuple | list):
        return _CountingNode([_counting(child, seen) for child in node], seen)
    return node


def _leaves_examined(game: GameTree) -> tuple[float, list[int], int]:
    seen = [0]
    value, path = alphabeta_nested(_counting(game.tree, seen), game.root_player == MAX)
    return value, path, seen[0]


def test_the_textbook_tree_is_worth_3_along_its_leftmost_line() -> None:
    assert alphabeta_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]]) == (3, [0, 0])


def test_a_min_root_takes_the_smallest_backed_up_value() -> None:
    assert alphabeta_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]], maximising=False) == (6, [1, 2])


def test_a_leaf_root_is_its_own_value_with_an_empty_path() -> None:
    assert alphabeta_nested(-7) == (-7, [])


def test_leaves_at_odd_and_even_depths_and_values_beyond_one() -> None:
    assert alphabeta_nested([-5, [[-40, 9], 0], [-2, [100]]]) == (0, [1, 1])


@settings(max_examples=150, deadline=None)
@given(random_trees)
def test_value_is_minimax_and_path_is_a_principal_variation(game: GameTree) -> None:
    value, path = alphabeta_nested(game.tree, game.root_player == MAX)
    assert value == minimax_value(game, ())
    assert game.is_terminal(tuple(path)) and game.utility(tuple(path)) == value
    for length in range(len(path) + 1):  # every node on the line is worth the root's value
        assert minimax_value(game, tuple(path[:length])) == value


@settings(max_examples=150, deadline=None)
@given(random_trees)
def test_it_examines_the_same_leaves_as_alphabeta_on_the_game(game: GameTree) -> None:
    counting = CountingGame(game)
    alphabeta_value(counting, ())
    assert _leaves_examined(game)[2] == counting.leaf_evaluations


@settings(max_examples=100, deadline=None)
@given(random_trees, st.integers(-35, 35), st.integers(1, 20))
def test_a_narrow_window_gives_a_fail_soft_bound(game: GameTree, alpha: int, width: int) -> None:
    beta = alpha + width
    value, _ = alphabeta_nested(game.tree, game.root_player == MAX, alpha, beta)
    true_value = minimax_value(game, ())
    if alpha < true_value < beta:
        assert value == true_value
    elif true_value <= alpha:
        assert true_value <= value <= alpha
    else:
        assert beta <= value <= true_value


@pytest.mark.parametrize("branching, depth", [(2, 4), (3, 3), (3, 4), (4, 3), (2, 7)])
@pytest.mark.parametrize("root_player", [MAX, MIN])
def test_perfect_ordering_examines_the_knuth_moore_number_of_leaves(
    branching: int, depth: int, root_player: str
) -> None:
    game = ordered_tree(branching, depth, seed=depth, root_player=root_player)
    value, _, leaves = _leaves_examined(game)
    assert value == minimax_value(game, ())
    expected = branching ** math.ceil(depth / 2) + branching ** math.floor(depth / 2) - 1
    assert leaves == expected < branching**depth


def test_an_empty_inner_node_is_rejected() -> None:
    with pytest.raises(ValueError, match="empty list"):
        alphabeta_nested([[1, 2], []])


@pytest.mark.parametrize("leaf", ["3", None, True])
def test_a_leaf_that_is_not_a_number_is_rejected(leaf: object) -> None:
    with pytest.raises(TypeError, match="leaf must be a number"):
        alphabeta_nested([[1, leaf]])
