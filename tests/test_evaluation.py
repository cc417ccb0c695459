"""Tic-tac-toe heuristics (state and move scores) and the utilities that prefer faster wins."""

from __future__ import annotations

import pytest

from games import MAX, CountingGame, GameTree, IllegalActionError, TicTacToe
from games.tictactoe import winner
from solutions.depth_limited import depth_limited_decision
from solutions.evaluation import (
    HEURISTIC_BOUND,
    WIN_SCORE,
    PreferFastWins,
    marks_on_board,
    scaled_tictactoe_heuristic,
    tictactoe_heuristic,
    tictactoe_move_score,
)
from solutions.minimax import minimax_decision, minimax_value

GAME = TicTacToe()

# The 8 symmetries of the square, as permutations of the squares 0..8.
ROTATE = (6, 3, 0, 7, 4, 1, 8, 5, 2)
MIRROR = (2, 1, 0, 5, 4, 3, 8, 7, 6)


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


REACHABLE = sorted(_reachable())


def _symmetries(state: str) -> list[str]:
    images, board = [], state
    for _ in range(4):
        board = "".join(board[square] for square in ROTATE)
        images += [board, "".join(board[square] for square in MIRROR)]
    return images


def _swap_players(state: str) -> str:
    return state.translate(str.maketrans("XO", "OX"))


@pytest.mark.parametrize(
    "picture, score",
    [
        (".........", 0),
        ("....X....", 4),  # the centre lies on 4 open lines
        ("X........", 3),  # a corner on 3
        (".X.......", 2),  # an edge on 2
        ("X...O....", -1),  # X keeps a row and a column, O a row, a column and a diagonal
        ("XX..O....", 10 + 1 - 1 - 1),  # X: two in row 0, one in col 0; O: row 1, anti-diagonal
        ("XXX.O.O..", WIN_SCORE),
        ("XX.OOOX..", -WIN_SCORE),
        ("XOXXOOOXX", 0),  # a full board without a winner: every line is dead
    ],
)
def test_the_heuristic_on_hand_scored_positions(picture: str, score: int) -> None:
    assert tictactoe_heuristic(picture) == score


def test_the_heuristic_is_the_same_on_symmetric_boards_and_flips_with_the_players() -> None:
    for state in REACHABLE:
        score = tictactoe_heuristic(state)
        assert all(tictactoe_heuristic(image) == score for image in _symmetries(state))
        assert tictactoe_heuristic(_swap_players(state)) == -score


def test_positions_nobody_has_won_score_inside_the_bound() -> None:
    scores = [tictactoe_heuristic(state) for state in REACHABLE if winner(state) is None]
    assert max(abs(score) for score in scores) < HEURISTIC_BOUND
    assert max(abs(score) for score in scores) <= 80  # 8 lines at most 10 each


def test_the_scaled_heuristic_is_the_utility_at_the_end_and_inside_minus_one_one_before() -> None:
    for state in REACHABLE:
        scaled = scaled_tictactoe_heuristic(state)
        if GAME.is_terminal(state):
            assert scaled == GAME.utility(state)
        else:
            assert -1 < scaled < 1
            assert scaled == tictactoe_heuristic(state) / HEURISTIC_BOUND


@pytest.mark.parametrize(
    "picture, action, score",
    [
        (".........", 4, 4),  # one in each of 4 open lines
        (".........", 0, 3),
        ("X...O....", 8, 1 + 1),  # X: row 2 and column 2 open, the diagonal holds an O
        ("XX.OO....", 2, WIN_SCORE + 1),  # X completes row 0 and opens column 2
        ("XX..O....", 2, 100 + 10 + 1),  # O blocks row 0, makes two on the anti-diagonal
        ("XX..O....", 3, 10),  # O makes two in row 1; column 0 holds an X
    ],
)
def test_the_move_score_on_hand_scored_moves(picture: str, action: int, score: int) -> None:
    assert tictactoe_move_score(picture, action) == score


def test_a_winning_move_scores_highest_and_otherwise_a_block_does() -> None:
    for state in REACHABLE:
        if GAME.is_terminal(state):
            continue
        theirs = "O" if GAME.to_move(state) == MAX else "X"
        scores = {action: tictactoe_move_score(state, action) for action in GAME.actions(state)}
        best = max(scores, key=scores.get)
        wins = [a for a in scores if winner(GAME.result(state, a)) is not None]
        threats = [a for a in scores if winner(state[:a] + theirs + state[a + 1 :]) == theirs]
        if wins:
            assert best in wins and scores[best] >= WIN_SCORE
        elif threats:
            assert best in threats and 100 <= scores[best] < WIN_SCORE
        else:
            assert scores[best] < 100


def test_an_illegal_move_is_rejected_with_the_legal_ones_listed() -> None:
    with pytest.raises(IllegalActionError, match="legal actions are"):
        tictactoe_move_score("X........", 0)
    with pytest.raises(IllegalActionError):
        tictactoe_move_score("XXXOO....", 5)  # the game is over
    with pytest.raises(IllegalActionError):
        tictactoe_move_score(".........", True)


@pytest.mark.parametrize("state", ["X..", "X.......Z", 123456789])
def test_a_state_that_is_not_a_board_is_rejected(state: object) -> None:
    with pytest.raises(ValueError, match="9 squares"):
        tictactoe_heuristic(state)


def test_one_ply_with_the_heuristic_takes_a_win_and_two_plies_block_a_threat() -> None:
    win_available = "XX.OO...."  # X to move wins at 2 (O would win at 5 next)
    assert depth_limited_decision(GAME, win_available, 1, scaled_tictactoe_heuristic) == 2
    must_block = "OO.X....X"  # X to move must take 2
    assert depth_limited_decision(GAME, must_block, 2, scaled_tictactoe_heuristic) == 2


# --- Faster wins, slower losses ----------------------------------------------------------------


def test_plain_minimax_may_choose_a_slower_win_but_the_wrapped_game_wins_at_once() -> None:
    state = "XOOX....."  # X wins at once on 6, but 4, 5, 7 and 8 win later too
    plain = minimax_decision(GAME, state)
    assert minimax_value(GAME, GAME.result(state, plain)) == 1
    assert not GAME.is_terminal(GAME.result(state, plain))
    fast = minimax_decision(PreferFastWins(GAME), state)
    assert fast == 6 and GAME.utility(GAME.result(state, fast)) == 1


def test_a_losing_player_delays_the_loss() -> None:
    # MIN to move: losing at once (depth 1) or after three plies (depth 3).
    game = GameTree([1, [[1]]], root_player="MIN")
    assert minimax_decision(game, ()) == 0
    assert minimax_decision(PreferFastWins(game, plies=len, horizon=3), ()) == 1


@pytest.mark.parametrize(
    "picture, value",
    [
        ("XXX\nOO.\n...", 1 * (10 - 5)),  # X won after 5 plies
        ("XOX\nXOO\nXXO", 1 * (10 - 9)),  # ... after 9
        ("OOO\nXX.\nX..", -1 * (10 - 6)),  # O won after 6 plies
        ("XOX\nXOO\nOXX", 0),  # a draw stays 0
    ],
)
def test_wrapped_utilities_weigh_the_result_by_the_plies_left(picture: str, value: int) -> None:
    state = GAME.from_picture(picture)
    assert GAME.is_terminal(state)
    assert PreferFastWins(GAME).utility(state) == value


def test_wrapped_utilities_keep_the_sign_and_never_shrink() -> None:
    game = PreferFastWins(GAME)
    for state in REACHABLE:
        if GAME.is_terminal(state):
            plain, fast = GAME.utility(state), game.utility(state)
            assert (fast > 0) == (plain > 0) and (fast < 0) == (plain < 0)
            assert abs(fast) >= abs(plain)


def test_the_wrapper_delegates_everything_else() -> None:
    game = CountingGame(PreferFastWins(GAME))
    state = game.from_picture("X.O\n.X.\n..O")  # a TicTacToe helper, passed through
    assert game.to_move(state) == MAX and game.actions(state) == [1, 3, 5, 6, 7]
    assert game.result(state, 1) == GAME.result(state, 1) and game.states_generated == 1
    assert game.display(state) == GAME.display(state)
    assert marks_on_board(state) == 4


def test_a_state_beyond_the_horizon_is_an_error_that_names_the_horizon() -> None:
    with pytest.raises(ValueError, match="horizon"):
        PreferFastWins(GAME, horizon=4).utility("XXXOO....")


def test_the_default_plies_count_only_tic_tac_toe_marks() -> None:
    with pytest.raises(TypeError, match="plies"):
        PreferFastWins(GameTree([1, 2])).utility((0,))
