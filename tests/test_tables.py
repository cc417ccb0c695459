"""The tic-tac-toe endgame table and opening book: complete, optimal, and used without search."""

from __future__ import annotations

import random

import pytest

from games import MAX, CountingGame, TicTacToe
from solutions.minimax import minimax_value
from solutions.tables import OPENING_BOOK, Solved, table_decision, tictactoe_table

GAME = TicTacToe()


def _reachable() -> set[str]:
    seen, frontier = {GAME.initial_state()}, [GAME.initial_state()]
    while frontier:
        state = frontier.pop()
        for action in GAME.actions(state):
            child = GAME.result(state, action)
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return seen


REACHABLE = _reachable()


def test_the_table_holds_exactly_the_5478_reachable_positions() -> None:
    table = tictactoe_table()
    assert len(REACHABLE) == 5478  # the published count
    assert set(table) == REACHABLE
    terminal = {state for state in REACHABLE if GAME.is_terminal(state)}
    assert {state for state, entry in table.items() if not entry.best_actions} == terminal
    assert len(REACHABLE - terminal) == 4520


def test_the_empty_board_is_a_draw_and_every_first_move_keeps_it() -> None:
    assert tictactoe_table()[GAME.initial_state()] == Solved(0, tuple(range(9)))


def test_every_entry_agrees_with_its_children() -> None:
    # Terminal entries hold the utility; every other value is the max (X) or min (O) of its
    # children's, and the best actions are exactly the children reaching it. By induction from
    # the terminals, every entry is then the minimax value.
    table = tictactoe_table()
    for state, (value, best_actions) in table.items():
        if GAME.is_terminal(state):
            assert value == GAME.utility(state)
            continue
        children = {a: table[GAME.result(state, a)].value for a in GAME.actions(state)}
        best = (max if GAME.to_move(state) == MAX else min)(children.values())
        assert value == best
        assert best_actions == tuple(a for a, v in children.items() if v == best)


def test_sampled_entries_agree_with_plain_minimax() -> None:
    table = tictactoe_table()
    positions = sorted(state for state in REACHABLE if state.count(".") <= 6)
    for state in random.Random(0).sample(positions, 200):
        assert table[state].value == minimax_value(GAME, state)
        for action in table[state].best_actions:
            assert minimax_value(GAME, GAME.result(state, action)) == table[state].value


def test_the_table_is_built_once_and_cannot_be_changed() -> None:
    assert tictactoe_table() is tictactoe_table()
    with pytest.raises(TypeError):
        tictactoe_table()["........."] = Solved(1, (4,))


def test_every_book_move_is_optimal() -> None:
    table = tictactoe_table()
    for state, action in OPENING_BOOK.items():
        assert action in table[state].best_actions, state
    assert table["X........"].best_actions == (4,)  # after a corner, only the centre draws


def test_a_table_decision_generates_no_state_and_is_optimal() -> None:
    game = CountingGame(GAME)
    table = tictactoe_table()
    for state in REACHABLE:
        if not GAME.is_terminal(state):
            assert table_decision(game, state) in table[state].best_actions
    assert game.states_generated == 0


def test_a_table_decision_follows_the_book_first() -> None:
    assert table_decision(GAME, ".........") == OPENING_BOOK["........."] == 0
    assert table_decision(GAME, "....X....") == 0
    assert table_decision(GAME, ".X.......") == 4  # the table alone would say 0


@pytest.mark.parametrize("table_player", ["X", "O"])
def test_the_table_never_loses_against_any_opponent(table_player: str) -> None:
    lost_for_table = -1 if table_player == "X" else 1
    frontier = [GAME.initial_state()]
    while frontier:
        state = frontier.pop()
        if GAME.is_terminal(state):
            assert GAME.utility(state) != lost_for_table, state
            continue
        mover = "X" if GAME.to_move(state) == MAX else "O"
        replies = [table_decision(GAME, state)] if mover == table_player else GAME.actions(state)
        frontier += [GAME.result(state, action) for action in replies]


@pytest.mark.parametrize("state", ["XXXXXXXXX", "XX.......", "abc"])
def test_an_unreachable_position_is_rejected(state: str) -> None:
    with pytest.raises(ValueError, match="not a tic-tac-toe position reachable"):
        table_decision(GAME, state)


def test_a_finished_game_has_no_move() -> None:
    with pytest.raises(ValueError, match="terminal"):
        table_decision(GAME, "XXXOO....")
