"""The graded reference searches against independent oracles and published counts."""

from __future__ import annotations

import math
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import MAX, MIN, CountingGame, GameTree, TicTacToe, ordered_tree, random_tree
from solutions import (
    alphabeta_decision,
    alphabeta_value,
    depth_limited_decision,
    depth_limited_value,
    minimax_decision,
    minimax_value,
)
from solutions.facts import reachable_states

TTT = TicTacToe()
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@cache
def brute_force(board: str) -> int:
    """An independent tic-tac-toe solver that shares no code with the toolkit."""
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return 1 if board[a] == "X" else -1
    empty = [i for i, mark in enumerate(board) if mark == "."]
    if not empty:
        return 0
    x_moves = board.count("X") == board.count("O")
    mark = "X" if x_moves else "O"
    children = [brute_force(board[:i] + mark + board[i + 1 :]) for i in empty]
    return max(children) if x_moves else min(children)


ALL_POSITIONS = sorted(reachable_states(TTT))


def test_alphabeta_and_minimax_agree_with_brute_force_on_every_reachable_position() -> None:
    for state in ALL_POSITIONS:
        expected = brute_force(state)
        assert alphabeta_value(TTT, state) == expected, state
        if state.count(".") <= 6:  # minimax below the first plies is cheap; above, see next test
            assert minimax_value(TTT, state) == expected, state


def test_minimax_agrees_on_the_expensive_opening_positions_too() -> None:
    for state in ALL_POSITIONS:
        if state.count(".") > 6:
            assert minimax_value(TTT, state) == brute_force(state), state


def test_every_decision_on_every_reachable_position_is_optimal() -> None:
    for state in ALL_POSITIONS:
        if TTT.is_terminal(state):
            continue
        best = brute_force(state)
        for decide in (
            (alphabeta_decision, minimax_decision)
            if state.count(".") <= 6
            else (alphabeta_decision,)
        ):
            action = decide(TTT, state)
            assert action in TTT.actions(state)
            assert brute_force(TTT.result(state, action)) == best, (decide.__name__, state)


def test_decisions_refuse_a_terminal_state_with_a_clear_message() -> None:
    state = TTT.from_picture("XXX\nOO.\n...")
    for decide in (minimax_decision, alphabeta_decision):
        with pytest.raises(ValueError, match="terminal"):
            decide(TTT, state)


@pytest.mark.parametrize("branching", [2, 3, 4])
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6])
def test_knuth_moore_perfect_ordering_evaluates_the_minimal_number_of_leaves(
    branching: int, depth: int
) -> None:
    game = CountingGame(ordered_tree(branching, depth, seed=branching * 10 + depth))
    alphabeta_value(game, game.initial_state())
    expected = branching ** math.ceil(depth / 2) + branching ** math.floor(depth / 2) - 1
    assert game.leaf_evaluations == expected


def test_worst_first_ordering_prunes_far_less_than_best_first() -> None:
    best_first = CountingGame(ordered_tree(3, 4, seed=5))
    worst_first = CountingGame(GameTree(_reverse(best_first.game.tree)))
    assert alphabeta_value(best_first, ()) == alphabeta_value(worst_first, ())
    assert best_first.leaf_evaluations == 17  # 3**2 + 3**2 - 1
    assert worst_first.leaf_evaluations > 3 * best_first.leaf_evaluations


def _reverse(node):
    return [_reverse(child) for child in reversed(node)] if isinstance(node, tuple) else node


@st.composite
def trees(draw) -> GameTree:
    seed = draw(st.integers(0, 10_000))
    return random_tree(
        branching=(1, 4),
        depth=draw(st.integers(1, 5)),
        low=-30,
        high=30,
        seed=seed,
        leaf_probability=draw(st.sampled_from([0.0, 0.2])),
        root_player=draw(st.sampled_from([MAX, MIN])),
    )


@settings(max_examples=150, deadline=None)
@given(trees(), st.integers(-35, 35), st.integers(0, 30))
def test_alphabeta_is_exact_inside_its_window_and_a_fail_soft_bound_outside(
    game: GameTree, low: int, width: int
) -> None:
    alpha, beta = low, low + width + 1
    true = minimax_value(game, ())
    found = alphabeta_value(game, (), alpha, beta)
    if alpha < true < beta:
        assert found == true
    elif true <= alpha:
        assert true <= found <= alpha
    else:
        assert beta <= found <= true
    assert alphabeta_value(game, ()) == true


@settings(max_examples=100, deadline=None)
@given(trees())
def test_alphabeta_never_generates_more_states_than_minimax_and_decides_optimally(
    game: GameTree,
) -> None:
    pruned, full = CountingGame(game), CountingGame(game)
    assert alphabeta_value(pruned, ()) == minimax_value(full, ())
    assert pruned.states_generated <= full.states_generated
    if not game.is_terminal(()):
        best = minimax_value(game, ())
        for decide in (alphabeta_decision, minimax_decision):
            assert minimax_value(game, game.result((), decide(game, ()))) == best


# Depth-limited search: the depth convention of the course brief.


def _evaluate_by_path(state: tuple[int, ...]) -> int:
    """An asymmetric evaluation: depends on the path, so sign errors show."""
    return 100 + 7 * sum(state) - len(state)


def test_depth_zero_evaluates_the_state_itself_and_a_terminal_uses_utility() -> None:
    game = GameTree([[3, 12], [-2, [4, 6]]])
    assert depth_limited_value(game, (), 0, _evaluate_by_path) == 100
    assert depth_limited_value(game, (0, 0), 0, _evaluate_by_path) == 3


def test_depth_one_backs_up_evaluations_of_the_children() -> None:
    game = GameTree([[3, 12], [-2, [4, 6]], 9])
    # children: (0,) -> 100 + 0 - 1 = 99; (1,) -> 100 + 7 - 1 = 106; (2,) is a leaf worth 9.
    assert depth_limited_value(game, (), 1, _evaluate_by_path) == 106


def test_full_depth_equals_minimax_and_terminals_inside_the_horizon_use_utility() -> None:
    game = GameTree([[3, 12], [-2, [4, 6]], [9, 1]])
    for depth in (3, 4, 10):
        assert depth_limited_value(game, (), depth, _evaluate_by_path) == minimax_value(game, ())


def test_depth_limited_decision_looks_exactly_depth_plies_ahead() -> None:
    game = GameTree([[3, 12], [-2, [4, 6]], [9, 1]])
    # depth 1: children evaluated: 99, 106, 113 -> action 2.
    assert depth_limited_decision(game, (), 1, _evaluate_by_path) == 2
    # depth 2: MIN children: min(3, 12)=3; min(-2, eval(1,1)=100+14-2=112) = -2; min(9, 1) = 1.
    assert depth_limited_decision(game, (), 2, _evaluate_by_path) == 0


def test_depth_limited_rejects_negative_depth_and_decisions_at_depth_zero() -> None:
    game = GameTree([[3, 12], [2, 4]])
    with pytest.raises(ValueError, match="negative"):
        depth_limited_value(game, (), -1, _evaluate_by_path)
    with pytest.raises(ValueError, match="at least one ply"):
        depth_limited_decision(game, (), 0, _evaluate_by_path)


def test_depth_limited_search_on_tictactoe_with_zero_evaluation_finds_a_forced_win() -> None:
    state = TTT.from_picture("XO.\n.O.\nX..")
    assert depth_limited_decision(TTT, state, 1, lambda s: 0) == 3
    assert depth_limited_value(TTT, state, 1, lambda s: 0) == 1
