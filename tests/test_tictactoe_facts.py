"""Tic-tac-toe's published numbers, recomputed by the toolkit and the reference searches."""

from __future__ import annotations

from games import CountingGame, TicTacToe
from solutions import alphabeta_decision, alphabeta_value, minimax_value
from solutions.facts import nodes_per_ply, tictactoe_facts


def test_every_published_tictactoe_number_is_recomputed_exactly() -> None:
    assert tictactoe_facts() == {
        "ways to fill the board (3^9)": 19_683,
        "reachable positions": 5_478,
        "positions up to symmetry": 765,
        "possible games": 255_168,
        "games won by X": 131_184,
        "games won by O": 77_904,
        "games drawn": 46_080,
        "nodes in the complete game tree": 549_946,
    }


def test_complete_tree_has_the_published_node_count_at_every_ply() -> None:
    assert nodes_per_ply(TicTacToe()) == [
        1, 9, 72, 504, 3_024, 15_120, 54_720, 148_176, 200_448, 127_872,
    ]  # fmt: skip


def test_minimax_generates_every_node_of_the_tree_but_the_root_and_values_it_a_draw() -> None:
    game = CountingGame(TicTacToe())
    assert minimax_value(game, game.initial_state()) == 0
    assert game.states_generated == 549_945


def test_alphabeta_with_ties_pruning_generates_18296_states_from_the_empty_board() -> None:
    game = CountingGame(TicTacToe())
    assert alphabeta_value(game, game.initial_state()) == 0
    assert game.states_generated == 18_296  # 18,297 calls counting the root


def test_alphabeta_decision_prunes_exactly_as_much_as_alphabeta_value_at_the_root() -> None:
    game = CountingGame(TicTacToe())
    alphabeta_decision(game, game.initial_state())
    assert game.states_generated == 18_296
