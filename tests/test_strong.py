"""Negamax, move ordering, iterative deepening and transposition tables against real oracles."""

from __future__ import annotations

import math
import random
import time
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import MAX, MIN, CountingGame, Game, GameTree, Nim, TicTacToe, ordered_tree, random_tree
from solutions.alphabeta import alphabeta_value
from solutions.depth_limited import depth_limited_value
from solutions.evaluation import scaled_tictactoe_heuristic
from solutions.minimax import minimax_value
from solutions.strong import (
    EXACT,
    LOWER,
    UPPER,
    TableEntry,
    TranspositionTable,
    alphabeta_tt_value,
    centre_corners_edges_order,
    iterative_deepening_decision,
    move_score_order,
    negamax_alphabeta,
    negamax_value,
    ordered_alphabeta_value,
)

GAME = TicTacToe()
EMPTY_BOARD = GAME.initial_state()
ALPHABETA_STATES_ON_EMPTY_BOARD = 18_296  # COURSE.md, with the >= cut-off

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


def _reachable(game: Game) -> list:
    seen, frontier = {game.initial_state()}, [game.initial_state()]
    while frontier:
        state = frontier.pop()
        for action in game.actions(state):
            child = game.result(state, action)
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return sorted(seen, key=repr)


REACHABLE = _reachable(GAME)


@cache
def solved(state: str) -> int:
    """Return the minimax value of a tic-tac-toe position; memoised, so all 5,478 are cheap."""
    if GAME.is_terminal(state):
        return GAME.utility(state)
    values = [solved(GAME.result(state, action)) for action in GAME.actions(state)]
    return max(values) if GAME.to_move(state) == MAX else min(values)


def _states_generated(search, game: Game, state, *args) -> tuple[float, int]:
    counting = CountingGame(game)
    value = search(counting, state, *args)
    return value, counting.states_generated


def _knuth_moore(branching: int, depth: int) -> int:
    return branching ** math.ceil(depth / 2) + branching ** math.floor(depth / 2) - 1


def test_the_memoised_oracle_agrees_with_minimax_value() -> None:
    assert len(REACHABLE) == 5478
    for state in REACHABLE:
        if state.count(".") <= 5:
            assert solved(state) == minimax_value(GAME, state)
    assert solved(EMPTY_BOARD) == 0


# --- Negamax -----------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(random_trees)
def test_negamax_value_is_the_minimax_value(game: GameTree) -> None:
    assert negamax_value(game, ()) == minimax_value(game, ())


@settings(max_examples=100, deadline=None)
@given(random_trees)
def test_negamax_generates_exactly_the_states_of_alphabeta(game: GameTree) -> None:
    _, plain = _states_generated(alphabeta_value, game, ())
    _, negamax = _states_generated(negamax_alphabeta, game, ())
    assert negamax == plain


def test_negamax_is_from_the_side_to_move() -> None:
    game = GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]], root_player=MIN)
    assert minimax_value(game, ()) == 6
    assert negamax_alphabeta(game, ()) == -6 and negamax_value(game, ()) == 6
    assert negamax_alphabeta(GameTree([[-1], [-2, 7]]), ()) == -1  # leaves at depth 2


def test_negamax_on_the_empty_board_draws_with_the_published_pruning() -> None:
    value, states = _states_generated(negamax_value, GAME, EMPTY_BOARD)
    assert value == 0 and states == ALPHABETA_STATES_ON_EMPTY_BOARD


@pytest.mark.parametrize("branching, depth", [(2, 5), (3, 4), (4, 3)])
@pytest.mark.parametrize("root_player", [MAX, MIN])
def test_negamax_meets_knuth_moore_on_perfectly_ordered_trees(
    branching: int, depth: int, root_player: str
) -> None:
    game = CountingGame(ordered_tree(branching, depth, seed=1, root_player=root_player))
    assert negamax_value(game, ()) == minimax_value(game.game, ())
    assert game.leaf_evaluations == _knuth_moore(branching, depth)


def test_negamax_refuses_a_chance_node() -> None:
    class Chancy(GameTree):
        def to_move(self, state):
            return "CHANCE"

    with pytest.raises(ValueError, match="MAX or MIN"):
        negamax_value(Chancy([1, 2]), ())


# --- Move ordering -----------------------------------------------------------------------------


def _shuffling(seed: int):
    rng = random.Random(seed)

    def order(game, state, actions):
        return rng.sample(actions, len(actions))

    return order


@settings(max_examples=100, deadline=None)
@given(random_trees, st.integers(0, 1000))
def test_any_order_gives_the_minimax_value(game: GameTree, seed: int) -> None:
    assert ordered_alphabeta_value(game, (), _shuffling(seed)) == minimax_value(game, ())


def test_the_games_own_order_generates_the_states_of_plain_alphabeta() -> None:
    def keep(game, state, actions):
        return actions

    assert _states_generated(ordered_alphabeta_value, GAME, EMPTY_BOARD, keep) == (
        0,
        ALPHABETA_STATES_ON_EMPTY_BOARD,
    )


@pytest.mark.parametrize("branching, depth", [(2, 6), (3, 4), (4, 3), (3, 5)])
@pytest.mark.parametrize("root_player", [MAX, MIN])
def test_best_first_ordering_meets_knuth_moore_on_random_trees(
    branching: int, depth: int, root_player: str
) -> None:
    game = random_tree(
        branching, depth, 0, 10_000, seed=depth, distinct=True, root_player=root_player
    )

    def best_first(game, state, actions):  # an oracle: knows every child's true value
        values = {action: minimax_value(game.game, (*state, action)) for action in actions}
        return sorted(actions, key=values.get, reverse=game.to_move(state) == MAX)

    counting = CountingGame(game)
    assert ordered_alphabeta_value(counting, (), best_first) == minimax_value(game, ())
    assert counting.leaf_evaluations == _knuth_moore(branching, depth)


@pytest.mark.parametrize("order", [centre_corners_edges_order, move_score_order])
def test_tic_tac_toe_orderings_generate_fewer_states(order) -> None:
    value, states = _states_generated(ordered_alphabeta_value, GAME, EMPTY_BOARD, order)
    assert value == 0 and states < ALPHABETA_STATES_ON_EMPTY_BOARD / 2


@pytest.mark.parametrize("order", [centre_corners_edges_order, move_score_order])
def test_tic_tac_toe_orderings_keep_every_value(order) -> None:
    for state in REACHABLE:
        if state.count(".") <= 6:
            assert ordered_alphabeta_value(GAME, state, order) == solved(state)


def test_an_order_that_drops_a_move_is_rejected() -> None:
    def drop_last(game, state, actions):
        return actions[:-1]

    with pytest.raises(ValueError, match="rearrangement"):
        ordered_alphabeta_value(GAME, EMPTY_BOARD, drop_last)


# --- Iterative deepening -----------------------------------------------------------------------


def _optimal_actions(state: str) -> set[int]:
    return {a for a in GAME.actions(state) if solved(GAME.result(state, a)) == solved(state)}


def test_with_enough_time_iterative_deepening_plays_optimally() -> None:
    positions = [s for s in REACHABLE if not GAME.is_terminal(s) and s.count(".") >= 4]
    for state in random.Random(1).sample(positions, 60):
        action, depth = iterative_deepening_decision(GAME, state, scaled_tictactoe_heuristic, 30)
        assert action in _optimal_actions(state), state
        assert 1 <= depth <= state.count(".")


def test_iterative_deepening_stops_once_every_leaf_is_terminal() -> None:
    evaluations = []

    def evaluate(state):
        evaluations.append(state)
        return scaled_tictactoe_heuristic(state)

    action, depth = iterative_deepening_decision(GAME, "XOXOO.X..", evaluate, 30)
    assert action in _optimal_actions("XOXOO.X..")
    assert depth <= 3  # three empty squares: depth 3 sees every end, so it never goes on


@pytest.mark.parametrize("max_depth", [1, 2, 3])
def test_iterative_deepening_respects_max_depth_and_the_depth_convention(max_depth: int) -> None:
    state = "X...O...."
    action, depth = iterative_deepening_decision(
        GAME, state, scaled_tictactoe_heuristic, 30, max_depth
    )
    assert depth == max_depth
    scores = {
        a: depth_limited_value(
            GAME, GAME.result(state, a), max_depth - 1, scaled_tictactoe_heuristic
        )
        for a in GAME.actions(state)
    }
    assert scores[action] == max(scores.values())


@settings(max_examples=100, deadline=None)
@given(random_trees, st.integers(1, 5))
def test_the_decision_is_best_for_the_depth_reached(game: GameTree, max_depth: int) -> None:
    if game.is_terminal(()):
        return

    def evaluate(state):  # any deterministic estimate will do
        return (sum(state) * 7) % 11 - 5

    action, depth = iterative_deepening_decision(game, (), evaluate, 30, max_depth)
    sign = 1 if game.to_move(()) == MAX else -1
    if depth == max_depth:
        scores = {a: depth_limited_value(game, (a,), depth - 1, evaluate) for a in game.actions(())}
    else:  # stopped early: the search saw only terminals, so the move is truly optimal
        scores = {a: minimax_value(game, (a,)) for a in game.actions(())}
    assert sign * scores[action] == max(sign * score for score in scores.values())


@pytest.mark.parametrize("budget", [0.0, 0.001, 0.05])
def test_a_tiny_budget_still_returns_a_legal_move_promptly(budget: float) -> None:
    start = time.monotonic()
    action, depth = iterative_deepening_decision(
        GAME, EMPTY_BOARD, scaled_tictactoe_heuristic, budget
    )
    assert time.monotonic() - start < 2
    assert action in GAME.actions(EMPTY_BOARD) and depth >= 0


def test_an_unfinished_iteration_is_abandoned() -> None:
    def slow(state):
        time.sleep(0.02)
        return scaled_tictactoe_heuristic(state)

    start = time.monotonic()
    action, depth = iterative_deepening_decision(GAME, EMPTY_BOARD, slow, 0.1)
    assert time.monotonic() - start < 2
    assert (action, depth) == (0, 0)  # depth 1 needs 9 slow evaluations: none finished


def test_iterative_deepening_rejects_a_finished_game_and_bad_limits() -> None:
    with pytest.raises(ValueError, match="terminal"):
        iterative_deepening_decision(GAME, "XXXOO....", scaled_tictactoe_heuristic, 1)
    with pytest.raises(ValueError, match="max_depth"):
        iterative_deepening_decision(GAME, EMPTY_BOARD, scaled_tictactoe_heuristic, 1, 0)


# --- Transposition tables ----------------------------------------------------------------------

WINDOWS = [(-math.inf, math.inf), (-1, 0), (0, 1), (-0.5, 0.5), (0, 0.5), (-1, 1), (1, math.inf)]


def _fail_soft_ok(result: float, true_value: float, alpha: float, beta: float) -> bool:
    if alpha < true_value < beta:
        return result == true_value
    if true_value <= alpha:
        return true_value <= result <= alpha
    return beta <= result <= true_value


def _check_every_position(table: TranspositionTable) -> list[str]:
    """Query every reachable position with varying windows through one table; list failures."""
    failures = []
    rng = random.Random(3)
    for state in rng.sample(REACHABLE, len(REACHABLE)):
        for alpha, beta in [rng.choice(WINDOWS), (-math.inf, math.inf)]:
            result = alphabeta_tt_value(GAME, state, alpha, beta, table)
            if not _fail_soft_ok(result, solved(state), alpha, beta):
                failures.append(f"{state} in ({alpha}, {beta}): {result}, not {solved(state)}")
    return failures


def test_one_shared_table_gives_every_reachable_position_its_minimax_value() -> None:
    table = TranspositionTable()
    assert _check_every_position(table) == []
    assert {entry.bound for entry in table.entries.values()} <= {EXACT, LOWER, UPPER}


def test_the_check_catches_a_table_that_stores_bounds_as_exact() -> None:
    class Careless(TranspositionTable):
        def store(self, state, value, bound, depth=None):
            super().store(state, value, EXACT, depth)

    assert _check_every_position(Careless()) != []


queries = st.lists(st.tuples(st.integers(0, 10**6), st.integers(-35, 35), st.integers(1, 20)))


@settings(max_examples=100, deadline=None)
@given(random_trees, queries)
def test_a_shared_table_gives_minimax_values_on_random_trees(game: GameTree, queries) -> None:
    table = TranspositionTable()
    inner = sorted({leaf[:length] for leaf in game.leaves() for length in range(len(leaf))})
    for pick, alpha, width in queries:  # any inner node, any open window, one table
        state = inner[pick % len(inner)] if inner else ()
        result = alphabeta_tt_value(game, state, alpha, alpha + width, table)
        assert _fail_soft_ok(result, minimax_value(game, state), alpha, alpha + width)
    for state in inner:
        assert alphabeta_tt_value(game, state, table=table) == minimax_value(game, state)


@pytest.mark.parametrize("heaps", [(1, 2, 3), (2, 2, 3), (1, 3, 4)])
def test_a_shared_table_solves_every_nim_position(heaps: tuple[int, ...]) -> None:
    game, table = Nim(heaps), TranspositionTable()
    for state in _reachable(game):
        assert alphabeta_tt_value(game, state, -1, 0, table) <= 0 or minimax_value(game, state) > 0
        assert alphabeta_tt_value(game, state, table=table) == minimax_value(game, state)


def test_the_table_saves_most_of_the_work_on_the_empty_board() -> None:
    table = TranspositionTable()
    value, states = _states_generated(
        alphabeta_tt_value, GAME, EMPTY_BOARD, -math.inf, math.inf, table
    )
    assert value == 0 and states < ALPHABETA_STATES_ON_EMPTY_BOARD / 3
    assert len(table) < 5478 and table.hits > 0
    assert _states_generated(alphabeta_tt_value, GAME, EMPTY_BOARD, -math.inf, math.inf, table) == (
        0,
        0,
    )  # asked again, the root's exact entry answers at once


def test_a_stored_bound_cuts_only_on_its_side_of_the_window() -> None:
    game = GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])  # worth 3
    table = TranspositionTable()
    upper = alphabeta_tt_value(game, (), 5, 10, table)
    assert 3 <= upper <= 5 and table.entries[()] == TableEntry(upper, UPPER)  # failed low
    assert _states_generated(alphabeta_tt_value, game, (), 6, 10, table) == (upper, 0)
    value, states = _states_generated(alphabeta_tt_value, game, (), -math.inf, math.inf, table)
    assert (value, table.entries[()]) == (3, TableEntry(3, EXACT)) and states > 0


@pytest.mark.parametrize("alpha, beta", [(0, 0), (1, -1)])
def test_an_empty_window_is_refused_because_its_result_has_no_kind(alpha, beta) -> None:
    with pytest.raises(ValueError, match="alpha < beta"):
        alphabeta_tt_value(GAME, EMPTY_BOARD, alpha, beta)
