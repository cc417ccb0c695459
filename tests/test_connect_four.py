"""Connect Four: the game protocol, the exact end-game solver and the heuristic evaluation."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.connect_four import ConnectFour, ConnectFourState
from games.protocol import MAX, MIN, IllegalActionError
from solutions.alphabeta import alphabeta_value
from solutions.connect_four import (
    METHODS,
    ConnectFourSolver,
    connect_four_evaluation,
    connect_four_score,
)
from solutions.depth_limited import depth_limited_decision, depth_limited_value

GAME = ConnectFour()
END_EASY = Path(__file__).resolve().parent / "fixtures" / "connect4" / "end_easy.txt"
"""Pons's 1,000 solved end-game positions (fixtures/connect4/README.md says whence)."""
FULL_RUN = os.environ.get("CONNECT4_FULL") == "1"

# Pons's mean nodes per position on end_easy.txt (fixtures/connect4/README.md).
PUBLISHED_MEAN_NODES = {"alphabeta": 284, "centre_first": 140, "strong": 51}

# A212693 (OEIS, John Tromp): distinct legal positions after 0, 1, 2, ... plies.
POSITIONS_AFTER_PLIES = [1, 7, 49, 238, 1120, 4263, 16422, 54859]

# A full board on which nobody has four in a row.
DRAWN_GAME = "547125662261271266215743771576315353334444"


def play_out(choices: list[int]) -> tuple[ConnectFourState, str]:
    """Play the `choices[i] % len(actions)`-th legal action each turn; return state and moves."""
    state, moves = GAME.initial_state(), ""
    for choice in choices:
        if GAME.is_terminal(state):
            break
        actions = GAME.actions(state)
        action = actions[choice % len(actions)]
        state, moves = GAME.result(state, action), moves + str(action)
    return state, moves


games_in_progress = st.lists(st.integers(0, 6), max_size=42).map(play_out)


# --- the game protocol --------------------------------------------------------------------------


def test_initial_state_is_empty_with_max_to_move_and_every_column_open() -> None:
    state = GAME.initial_state()
    assert GAME.to_move(state) == MAX
    assert GAME.actions(state) == [1, 2, 3, 4, 5, 6, 7]
    assert not GAME.is_terminal(state)
    assert GAME.moves_played(state) == 0


def test_actions_skip_full_columns_and_stay_in_ascending_order() -> None:
    state = ConnectFour.from_moves("444444")
    assert GAME.actions(state) == [1, 2, 3, 5, 6, 7]
    assert GAME.actions(ConnectFour.from_moves("111111777777")) == [2, 3, 4, 5, 6]


def test_players_alternate_starting_with_max() -> None:
    assert GAME.to_move(ConnectFour.from_moves("4")) == MIN
    assert GAME.to_move(ConnectFour.from_moves("44")) == MAX


def test_playing_a_full_column_raises_an_illegal_action_error_listing_the_legal_columns() -> None:
    state = ConnectFour.from_moves("444444")
    with pytest.raises(IllegalActionError) as raised:
        GAME.result(state, 4)
    assert raised.value.action == 4
    assert raised.value.legal == [1, 2, 3, 5, 6, 7]
    assert "[1, 2, 3, 5, 6, 7]" in str(raised.value)


@pytest.mark.parametrize("action", [0, 8, -1, "4", 4.0, True, None])
def test_anything_but_a_column_number_from_1_to_7_is_illegal(action: object) -> None:
    with pytest.raises(IllegalActionError):
        GAME.result(GAME.initial_state(), action)


def test_no_action_is_legal_once_someone_has_won() -> None:
    state = ConnectFour.from_moves("7172727")
    assert GAME.actions(state) == []
    with pytest.raises(IllegalActionError, match="no legal actions"):
        GAME.result(state, 3)


def test_result_returns_a_new_state_and_leaves_its_argument_unchanged() -> None:
    state = ConnectFour.from_moves("4453")
    before = (state, GAME.display(state))
    child = GAME.result(state, 4)
    assert (state, GAME.display(state)) == before
    assert child != state
    assert GAME.moves_played(child) == 5


def test_transposed_move_orders_reach_equal_states_with_equal_hashes() -> None:
    states = [ConnectFour.from_moves(moves) for moves in ("4453", "5344", "4354")]
    assert states[0] == states[1] == states[2]
    assert len({hash(state) for state in states}) == 1
    assert ConnectFour.from_moves("45") != ConnectFour.from_moves("54")


def test_distinct_states_after_each_ply_match_the_published_position_counts() -> None:
    # Equal positions must collapse to one state and different ones must stay apart.
    layer = {GAME.initial_state()}
    counts = [1]
    for _ in range(len(POSITIONS_AFTER_PLIES) - 1):
        layer = {
            GAME.result(state, action)
            for state in layer
            if not GAME.is_terminal(state)
            for action in GAME.actions(state)
        }
        counts.append(len(layer))
    assert counts == POSITIONS_AFTER_PLIES


def test_display_draws_the_top_row_first_with_x_for_the_first_player() -> None:
    expected = "\n".join(
        [
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . O . . .",
            ". . O X X . .",
            "1 2 3 4 5 6 7",
        ]
    )
    assert GAME.display(ConnectFour.from_moves("4453")) == expected


def test_the_board_reads_the_rows_top_first_as_x_o_and_dots() -> None:
    board = GAME.board(ConnectFour.from_moves("4453"))
    assert board == (".......",) * 4 + ("...O...", "..OXX..")
    assert board[5][3] == "X"  # row 5 is the bottom, column 4 is index 3


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=42))
def test_the_board_shows_each_stone_where_it_fell(picks: list[int]) -> None:
    state, heights, marks = GAME.initial_state(), [0] * 7, {}
    for pick in picks:
        legal = GAME.actions(state)
        if not legal:
            break
        column = legal[pick % len(legal)]
        marks[(5 - heights[column - 1], column - 1)] = "XO"[GAME.moves_played(state) % 2]
        heights[column - 1] += 1
        state = GAME.result(state, column)
    board = GAME.board(state)
    assert len(board) == 6 and all(len(row) == 7 for row in board)
    assert {
        (r, c): m for r, row in enumerate(board) for c, m in enumerate(row) if m != "."
    } == marks


WINS = [
    # (moves, winner, line, utility): the fastest win is with one's 4th stone, 22 - 4 = 18.
    ("7172727", MAX, "vertical", 18),
    ("7167564", MAX, "horizontal", 18),
    ("45364536566", MAX, "rising diagonal", 16),
    ("32114221361", MAX, "falling diagonal", 16),
    ("44741424", MIN, "vertical", -18),
    ("14655243", MIN, "horizontal", -18),
    ("775435756766", MIN, "rising diagonal", -16),
    ("4765465544", MIN, "falling diagonal", -17),
]


@pytest.mark.parametrize(("moves", "winner", "line", "utility"), WINS)
def test_four_in_a_row_ends_the_game_and_is_worth_22_minus_the_winners_stone_count(
    moves: str, winner: str, line: str, utility: int
) -> None:
    state = ConnectFour.from_moves(moves)
    assert GAME.is_terminal(state), f"{line} four for {winner} not detected"
    assert GAME.winner(state) == winner
    assert GAME.utility(state) == utility
    assert not GAME.is_terminal(ConnectFour.from_moves(moves[:-1]))


def test_a_full_board_without_four_in_a_row_is_a_draw_worth_zero() -> None:
    state = ConnectFour.from_moves(DRAWN_GAME)
    assert GAME.is_terminal(state)
    assert GAME.winner(state) is None
    assert GAME.actions(state) == []
    assert GAME.utility(state) == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=42, max_size=42).map(play_out))
def test_the_player_who_ends_the_game_on_ply_n_wins_with_stone_ceil_n_over_2(
    game: tuple[ConnectFourState, str],
) -> None:
    state, moves = game
    assert GAME.is_terminal(state)
    winner = GAME.winner(state)
    if winner is None:
        assert len(moves) == 42 and GAME.utility(state) == 0
    else:
        assert winner == (MAX if len(moves) % 2 == 1 else MIN)
        stone = (len(moves) + 1) // 2
        assert GAME.utility(state) == (22 - stone if winner == MAX else -(22 - stone))


def test_utility_of_a_game_in_progress_raises_a_value_error() -> None:
    with pytest.raises(ValueError, match="not terminal"):
        GAME.utility(ConnectFour.from_moves("4453"))


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("44x3", "move 3 of '44x3' is 'x'"),
        ("408", "move 2 of '408' is '0'"),
        ("4453 1", "move 5"),
        ("4444444", "move 7 of '4444444' plays column 4, which is full"),
        ("71727271", "move 8 of '71727271' comes after MAX"),
    ],
)
def test_from_moves_rejects_bad_characters_full_columns_and_moves_after_a_win(
    moves: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ConnectFour.from_moves(moves)


def test_from_moves_rejects_a_list_with_a_type_error() -> None:
    with pytest.raises(TypeError, match="string of column numbers"):
        ConnectFour.from_moves([4, 4, 5])


# --- the exact solver ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def end_easy() -> list[tuple[str, int]]:
    positions = []
    for line in END_EASY.read_text().splitlines():
        moves, score = line.split()
        positions.append((moves, int(score)))
    return positions if FULL_RUN else positions[::10]


@pytest.mark.parametrize("method", METHODS)
def test_every_solver_matches_the_published_end_game_scores(
    end_easy: list[tuple[str, int]], method: str
) -> None:
    solver = ConnectFourSolver(method)
    nodes = 0
    for moves, score in end_easy:
        assert solver.solve(moves) == score, f"{method} on {moves}"
        nodes += solver.nodes
    mean = nodes / len(end_easy)
    print(f"\n{method}: {mean:.1f} nodes per position on {len(end_easy)} end-game positions")
    if FULL_RUN:
        assert round(mean) == PUBLISHED_MEAN_NODES[method]


def test_connect_four_score_matches_the_published_scores(end_easy: list[tuple[str, int]]) -> None:
    for moves, score in end_easy[:20]:
        assert connect_four_score(moves) == score, moves


def test_better_move_ordering_and_a_table_search_fewer_nodes(
    end_easy: list[tuple[str, int]],
) -> None:
    nodes = dict.fromkeys(METHODS, 0)
    for method in METHODS:
        solver = ConnectFourSolver(method)
        for moves, _ in end_easy:
            solver.solve(moves)
            nodes[method] += solver.nodes
    assert nodes["alphabeta"] > nodes["centre_first"] > nodes["strong"]


def _few_empty_squares() -> list[str]:
    """End-game positions for a plain search: from the data file and from seeded playouts."""
    chosen = []
    lines = [line.split()[0] for line in END_EASY.read_text().splitlines()]
    for length in range(31, 37):  # 6 to 11 empty squares, both players to move
        chosen += [moves for moves in lines if len(moves) == length][:2]
    rng = random.Random(2024)
    while len(chosen) < 16:
        state, moves = play_out([rng.randrange(7) for _ in range(33)])
        if not GAME.is_terminal(state):
            chosen.append(moves)
    return chosen


@pytest.mark.parametrize("moves", _few_empty_squares())
def test_alphabeta_over_the_game_protocol_agrees_with_the_solver(moves: str) -> None:
    # The utility convention (MAX's view, 22 - k) and the solver's (player to move) must agree.
    state = ConnectFour.from_moves(moves)
    sign = 1 if GAME.to_move(state) == MAX else -1
    assert alphabeta_value(GAME, state) == sign * connect_four_score(moves)


@pytest.mark.parametrize(
    ("moves", "score"), [("7172727", -18), ("4765465544", -17), (DRAWN_GAME, 0)]
)
def test_a_finished_game_scores_as_a_loss_or_draw_for_the_player_to_move(
    moves: str, score: int
) -> None:
    assert connect_four_score(moves) == score


def test_the_solver_accepts_a_state_as_well_as_a_move_string() -> None:
    moves = "2252576253462244111563365343671351441"
    assert connect_four_score(ConnectFour.from_moves(moves)) == connect_four_score(moves) == -1


def test_the_solver_rejects_unknown_methods_and_positions() -> None:
    with pytest.raises(ValueError, match="method must be one of"):
        ConnectFourSolver("minimax")
    with pytest.raises(TypeError, match="move string"):
        connect_four_score(4453)
    with pytest.raises(ValueError, match="which is full"):
        connect_four_score("4444444")


# --- the evaluation -----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(games_in_progress)
def test_the_evaluation_stays_strictly_between_a_loss_and_a_win(
    game: tuple[ConnectFourState, str],
) -> None:
    state, _ = game
    value = connect_four_evaluation(state)
    assert -0.99 <= value <= 0.99
    swapped = ConnectFourState(state.min_stones, state.max_stones)
    assert connect_four_evaluation(swapped) == pytest.approx(-value)


def test_the_evaluation_prefers_an_open_three_for_the_side_that_makes_it() -> None:
    # MAX to move with two on the bottom row: making three beats a stone in the corner.
    max_to_move = ConnectFour.from_moves("1122")
    three = connect_four_evaluation(GAME.result(max_to_move, 3))
    corner = connect_four_evaluation(GAME.result(max_to_move, 7))
    assert three > corner
    # MIN to move with two on the bottom row: its three is worse for MAX.
    min_to_move = ConnectFour.from_moves("71122")
    three = connect_four_evaluation(GAME.result(min_to_move, 3))
    elsewhere = connect_four_evaluation(GAME.result(min_to_move, 6))
    assert three < elsewhere


def test_a_depth_limited_search_never_prefers_the_evaluation_to_a_real_win() -> None:
    state = ConnectFour.from_moves("121212")  # MAX wins in column 1 with its 4th stone
    assert depth_limited_decision(GAME, state, 1, connect_four_evaluation) == 1
    assert depth_limited_value(GAME, state, 1, connect_four_evaluation) == 18
    # MIN to move must block column 1 or lose: looking two plies ahead, the search sees it.
    threatened = ConnectFour.from_moves("12131")
    assert depth_limited_decision(GAME, threatened, 2, connect_four_evaluation) == 1
