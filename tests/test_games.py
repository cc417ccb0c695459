"""The game protocol on the toolkit's two-player games: legality, immutability, values."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import games
from games import (
    MAX,
    MIN,
    BudgetedGame,
    ConnectFour,
    CountingGame,
    GameTree,
    IllegalActionError,
    Nim,
    OutOfStates,
    RecordingGame,
    TicTacToe,
    ordered_tree,
    random_tree,
)

CLASSIC = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]


def test_game_tree_alternates_players_and_exposes_child_indices() -> None:
    game = GameTree(CLASSIC)
    root = game.initial_state()
    assert game.to_move(root) == MAX
    assert game.actions(root) == [0, 1, 2]
    child = game.result(root, 1)
    assert game.to_move(child) == MIN
    leaf = game.result(child, 2)
    assert game.is_terminal(leaf) and game.utility(leaf) == 6


def test_game_tree_can_start_with_min_and_mix_leaf_depths() -> None:
    game = GameTree([5, [1, [7, -3]]], root_player=MIN)
    assert game.to_move(()) == MIN
    assert game.is_terminal((0,)) and game.utility((0,)) == 5
    assert game.to_move((1, 1)) == MIN
    assert game.leaves() == [(0,), (1, 0), (1, 1, 0), (1, 1, 1)]


@pytest.mark.parametrize("bad", [[], [[1, 2], []], [1, "a"], [True, 2]])
def test_game_tree_rejects_malformed_trees_with_the_path(bad: list) -> None:
    with pytest.raises((ValueError, TypeError), match="path"):
        GameTree(bad)


def test_game_tree_utility_of_an_inner_node_says_to_test_for_terminal_first() -> None:
    with pytest.raises(ValueError, match="is_terminal"):
        GameTree(CLASSIC).utility(())


def test_illegal_action_names_the_action_and_the_legal_ones() -> None:
    game = GameTree(CLASSIC)
    with pytest.raises(IllegalActionError, match=r"action 3 .* \[0, 1, 2\]") as error:
        game.result((), 3)
    assert error.value.legal == [0, 1, 2]


def test_random_tree_is_reproducible_and_respects_its_parameters() -> None:
    first = random_tree(branching=(2, 4), depth=4, low=-5, high=5, seed=7, leaf_probability=0.2)
    again = random_tree(branching=(2, 4), depth=4, low=-5, high=5, seed=7, leaf_probability=0.2)
    assert first.tree == again.tree
    depths = {len(path) for path in first.leaves()}
    assert max(depths) == 4 and len(depths) > 1
    assert all(-5 <= first.utility(path) <= 5 for path in first.leaves())


def test_random_tree_with_distinct_values_never_repeats_a_leaf() -> None:
    game = random_tree(branching=3, depth=4, low=0, high=200, seed=1, distinct=True)
    values = [game.utility(path) for path in game.leaves()]
    assert len(values) == len(set(values)) == 81


def test_ordered_tree_puts_the_best_child_first_everywhere() -> None:
    from solutions import minimax_value

    game = ordered_tree(3, 4, seed=2)
    stack = [()]
    while stack:
        state = stack.pop()
        if game.is_terminal(state):
            continue
        values = [minimax_value(game, game.result(state, a)) for a in game.actions(state)]
        best = max(values) if game.to_move(state) == MAX else min(values)
        assert values[0] == best
        stack.extend(game.result(state, a) for a in game.actions(state))


def test_tictactoe_picture_round_trips_and_gives_the_player_to_move() -> None:
    game = TicTacToe()
    state = game.from_picture("X.O\n.X.\n..O")
    assert state == "X.O.X...O"
    assert game.display(state) == "X.O\n.X.\n..O"
    assert game.to_move(state) == MAX
    assert game.actions(state) == [1, 3, 5, 6, 7]


@pytest.mark.parametrize(
    "picture, message",
    [("XXX\n...\n...", "unreachable"), ("XX\n..", "9 squares"), ("XXX\nOOO\n...", "both")],
)
def test_tictactoe_rejects_impossible_pictures(picture: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TicTacToe.from_picture(picture)


def test_tictactoe_result_returns_a_new_state_and_rejects_occupied_squares() -> None:
    game = TicTacToe()
    start = game.initial_state()
    after = game.result(start, 4)
    assert start == "........." and after == "....X...."
    assert game.to_move(after) == MIN
    with pytest.raises(IllegalActionError, match="action 4"):
        game.result(after, 4)


def test_tictactoe_states_of_the_same_position_are_equal_and_hash_equal() -> None:
    game = TicTacToe()
    one = game.result(game.result(game.result(game.initial_state(), 0), 4), 8)
    two = game.result(game.result(game.result(game.initial_state(), 8), 4), 0)
    assert one == two and hash(one) == hash(two)


@pytest.mark.parametrize(
    "picture, utility",
    [("XXX\nOO.\n...", 1), ("XX.\nOOO\nX..", -1), ("XOX\nXOO\nOXX", 0)],
)
def test_tictactoe_utility_is_from_x_point_of_view(picture: str, utility: int) -> None:
    game = TicTacToe()
    state = game.from_picture(picture)
    assert game.is_terminal(state) and game.actions(state) == []
    assert game.utility(state) == utility


def test_nim_normal_play_the_player_taking_the_last_object_wins() -> None:
    game = Nim((1, 2))
    state = game.initial_state()
    assert game.actions(state) == [(0, 1), (1, 1), (1, 2)]
    state = game.result(state, (1, 2))
    assert game.to_move(state) == MIN and not game.is_terminal(state)
    state = game.result(state, (0, 1))
    assert game.is_terminal(state) and game.utility(state) == -1
    with pytest.raises(IllegalActionError):
        game.result(game.initial_state(), (0, 2))


def test_nim_value_matches_the_nim_sum_rule() -> None:
    from solutions import alphabeta_value

    for heaps in [(1, 2, 3), (1, 3, 5), (2, 2), (3, 4)]:
        game = Nim(heaps)
        nim_sum = 0
        for heap in heaps:
            nim_sum ^= heap
        assert alphabeta_value(game, game.initial_state()) == (1 if nim_sum else -1)


def test_counting_game_counts_result_and_utility_calls_and_resets() -> None:
    game = CountingGame(GameTree(CLASSIC))
    leaf = game.result(game.result((), 0), 0)
    game.utility(leaf)
    evaluate = game.counted_evaluation(lambda state: 0)
    evaluate(())
    assert game.states_generated == 2 and game.leaf_evaluations == 2
    with pytest.raises(IllegalActionError):
        game.result((), 9)
    assert game.states_generated == 2  # a refused action generates nothing
    game.reset()
    assert game.counts() == dict.fromkeys(game.counts(), 0)


def test_a_budgeted_game_refuses_the_state_past_its_budget_with_out_of_states() -> None:
    game = BudgetedGame(ConnectFour(), budget=3)
    state = game.initial_state()
    for _ in range(3):
        state = game.result(state, 4)
    with pytest.raises(OutOfStates, match="budget of 3 states is spent") as refused:
        game.result(state, 4)
    assert refused.value.budget == 3 and isinstance(refused.value, Exception)
    assert "return the best move found so far" in str(refused.value)
    with pytest.raises(IllegalActionError):  # an illegal action is refused first, as served
        game.result(state, 9)
    assert game.states_generated == 3
    assert game.evaluate(state) == ConnectFour().evaluate(state)
    assert game.board(state) == ConnectFour().board(state)


def test_a_budgeted_game_offers_only_what_the_served_game_offers() -> None:
    game = BudgetedGame(ConnectFour(), budget=10)
    for name in ("from_moves", "winner", "moves_played", "reset", "counts", "game"):
        assert not hasattr(game, name), name
    with pytest.raises(ValueError, match="an int >= 0"):
        BudgetedGame(ConnectFour(), budget=-1)


def test_recording_game_lists_generated_states_in_order() -> None:
    game = RecordingGame(GameTree(CLASSIC))
    game.result(game.result((), 2), 1)
    assert game.generated == [(2,), (2, 1)]


def test_every_name_games_exports_is_found_in_its_module_on_first_use() -> None:
    """`games` imports its modules lazily; each exported name must lead to the real object."""
    code = (
        "import sys, games\n"
        "assert 'games.drawing' not in sys.modules, 'drawing imported before it was asked for'\n"
        "from games import *\n"
        "for name in games.__all__:\n"
        "    home = sys.modules[games._HOME_OF[name]]\n"
        "    assert getattr(games, name) is getattr(home, name), name\n"
        "assert sorted(games._HOME_OF) == sorted(games.__all__)\n"
        "assert set(games.__all__) <= set(dir(games))\n"
    )
    _passes_in_a_fresh_interpreter(code)
    with pytest.raises(AttributeError, match="no attribute 'minimax'"):
        games.minimax  # noqa: B018 - the look-up is the test


def test_chance_is_the_function_whichever_import_comes_first() -> None:
    code = (
        "import games.chance as module\n"
        "from games.chance import Pig\n"
        "from games import chance\n"
        "import sys\n"
        "assert callable(chance) and chance is sys.modules['games.chance'].chance\n"
    )
    _passes_in_a_fresh_interpreter(code)


def _passes_in_a_fresh_interpreter(code: str) -> None:
    """Run `code` where nothing of `games` is imported yet; its asserts must hold."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_names_editors_see_are_the_names_the_toolkit_exports() -> None:
    """games/__init__.py lists its exports for editors (TYPE_CHECKING imports) and for the lazy
    import (_HOMES): the two lists must agree."""
    source = Path(games.__file__).read_text(encoding="utf-8")
    checked = next(n for n in ast.parse(source).body if isinstance(n, ast.If))
    seen = {(node.module, alias.name) for node in checked.body for alias in node.names}
    assert seen == {(module, name) for name, module in games._HOME_OF.items()}
