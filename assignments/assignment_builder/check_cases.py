"""The small cases each graded function's self-checks run, and the checks of the other cells."""

from __future__ import annotations

from typing import Any

from autograder.grading.instances import connect_four_endgames
from games import MAX, MIN, ConnectFour, GameTree, TicTacToe, random_tree
from solutions import evaluation

from .chance_checks import (
    expectiminimax_decision_checks,
    expectiminimax_value_checks,
    maxn_decision_checks,
    maxn_value_checks,
)
from .self_checks import Check, checks_source

TTT = TicTacToe()
C4 = ConnectFour()

# ----------------------------------------------------------------------------------------------
# Assignment 1: minimax.
# ----------------------------------------------------------------------------------------------

CLASSIC = GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])


def _c4_endgame(seed: int, empties: tuple[int, int]) -> Any:
    return connect_four_endgames(1, seed=seed, empties=empties)[0].state


NEGATIVE = GameTree([[-3, -12, -8], [-2, -4, -6], [-14, -5, -2]])
ODD_AND_EVEN = GameTree([[5, [-4, 8]], [[1, 9], -6], 3])
X_LOST = TicTacToe.from_picture("..O\nXOX\n...")
X_WINS_O_TO_MOVE = TicTacToe.from_picture("...\n.X.\n.OX")
ONLY_SAFE = TicTacToe.from_picture("O.O\n.X.\nX..")
LAST_IS_BEST = GameTree([[4, 9], [-2, 7], [6, 8]])
TIE_AT_A_BOUND = GameTree([5, [5, 1]])  # the second move's 5 is only a cut-off's bound


def _value_checks() -> list[Check]:
    """The value checks minimax and alpha-beta share: the trees of the lectures' mistakes."""
    return [
        Check("value", "the classic 3x3 tree", CLASSIC),
        Check("value", "every leaf negative", NEGATIVE),
        Check("value", "the classic tree with MIN to move", GameTree(CLASSIC.tree, MIN)),
        Check("value", "leaves at odd and even depths", ODD_AND_EVEN),
        Check("value", "a terminal root", GameTree(7)),
        Check("value", "tic-tac-toe: X to move and lost", TTT, X_LOST),
    ]


def minimax_value_checks() -> list[Check]:
    return [
        *_value_checks(),
        Check("value", "tic-tac-toe: O to move, X wins anyway", TTT, X_WINS_O_TO_MOVE),
        Check("value", "a Connect Four end-game (scores beyond +-1)", C4, _c4_endgame(21, (7, 7))),
    ]


def minimax_decision_checks() -> list[Check]:
    return [
        Check("decision", "the classic 3x3 tree", CLASSIC),
        Check("decision", "the classic tree with MIN to move", GameTree(CLASSIC.tree, MIN)),
        Check("decision", "a tree whose best move is the last", LAST_IS_BEST),
        Check("decision", "only one move avoids a loss", TTT, ONLY_SAFE),
        Check("decision", "O to move: win at once", TTT, TicTacToe.from_picture("XX.\nOO.\nX..")),
    ]


# ----------------------------------------------------------------------------------------------
# Assignment 2: alpha-beta.
# ----------------------------------------------------------------------------------------------

NO_TIES = "random_tree(branching=3, depth=4, low=-99, high=99, seed=5, distinct=True)"
NO_TIES_MIN = (
    "random_tree(branching=3, depth=4, low=-99, high=99, seed=3, distinct=True, root_player=MIN)"
)
MIDGAME = "X...O...."


def _no_ties(seed: int, root_player: str = MAX) -> GameTree:
    return random_tree(
        branching=3, depth=4, low=-99, high=99, seed=seed, distinct=True, root_player=root_player
    )


def alphabeta_value_checks() -> list[Check]:
    return [
        *_value_checks(),
        Check("value", "a Connect Four end-game", C4, _c4_endgame(22, (9, 9))),
        Check("states", "a tree without ties", _no_ties(5), game_code=NO_TIES,
              function="alphabeta_value"),
        Check("states", "a tree without ties, MIN to move", _no_ties(3, MIN),
              game_code=NO_TIES_MIN, function="alphabeta_value"),
        Check("states", "tic-tac-toe after two moves (ties everywhere)", TTT, MIDGAME,
              function="alphabeta_value"),
    ]  # fmt: skip


def alphabeta_decision_checks() -> list[Check]:
    return [
        Check("decision", "the classic 3x3 tree", CLASSIC),
        Check("decision", "the classic tree with MIN to move", GameTree(CLASSIC.tree, MIN)),
        Check("decision", "a tree whose best move is the last", LAST_IS_BEST),
        Check("decision", "a later move that only ties at a cut-off's bound", TIE_AT_A_BOUND),
        Check("decision", "only one move avoids a loss", TTT, ONLY_SAFE),
        Check("states", "a tree without ties: the root carries its window", _no_ties(5),
              game_code=NO_TIES, function="alphabeta_decision"),
    ]  # fmt: skip


# ----------------------------------------------------------------------------------------------
# Assignment 3: depth-limited search; its evaluations are shown in the notebook as they are here.
# ----------------------------------------------------------------------------------------------


def path_score(path: tuple[int, ...]) -> int:
    """A made-up evaluation of a tree node: a number that depends on the path to the node.

    It is not symmetric in the players, and it scores finished games differently from their
    utility, so a search that asks it at the wrong place gets a different value.
    """
    return (sum((i + 2) * (a + 3) for i, a in enumerate(path)) * 29 + 7) % 31 - 15


def open_lines(state: str) -> float:
    """A made-up evaluation of a tic-tac-toe position, from X's point of view.

    Each line X can still complete counts 2, each line O can still complete -1, in twentieths.
    """
    from games.tictactoe import LINES

    x_open = sum(1 for line in LINES if all(state[square] != "O" for square in line))
    o_open = sum(1 for line in LINES if all(state[square] != "X" for square in line))
    return (2 * x_open - o_open) / 20


DEPTH_TREE = GameTree([[3, [0, -4]], [[6, -2], 0], [[-5, [1, 8]], 2]])
DEPTH_TREE_MIN = GameTree([[[2, -7], [0, 4]], [-3, [9, 0, -1]], [0, [5, -6]]], root_player=MIN)
DEPTH_TTT = TicTacToe.from_picture("XO.\n...\n...")


def depth_limited_value_checks() -> list[Check]:
    tree, tree_min = DEPTH_TREE, DEPTH_TREE_MIN
    return [
        Check("value", "depth 0 is the evaluation of the root", tree, (), 0, path_score),
        Check("value", "depth 1", tree, (), 1, path_score),
        Check("value", "depth 2 (a finished game inside the horizon)", tree, (), 2, path_score),
        Check("value", "depth 3 (utility 0 at a leaf)", tree, (), 3, path_score),
        Check("value", "MIN to move, depth 1", tree_min, (), 1, path_score),
        Check("value", "MIN to move, depth 2", tree_min, (), 2, path_score),
        Check("value", "a leaf at depth 0 is worth its utility", tree, (2, 1), 0, path_score),
        Check("value", "tic-tac-toe, X to move, depth 2", TTT, DEPTH_TTT, 2, open_lines),
    ]


def depth_limited_decision_checks() -> list[Check]:
    tree, tree_min = DEPTH_TREE, DEPTH_TREE_MIN
    return [
        Check("decision", "depth 1", tree, (), 1, path_score),
        Check("decision", "depth 2", tree, (), 2, path_score),
        Check("decision", "depth 3", tree, (), 3, path_score),
        Check("decision", "MIN to move, depth 2", tree_min, (), 2, path_score),
        Check("decision", "tic-tac-toe, X to move, depth 2", TTT, DEPTH_TTT, 2, open_lines),
        Check("decision", "tic-tac-toe, X to move, depth 3", TTT, DEPTH_TTT, 3, open_lines),
    ]


def heuristic_checks() -> str:
    """The self-check cell of `tictactoe_heuristic`, expected scores from the reference."""
    pictures = {
        "X holds the centre (4 lines)": "...\n.X.\n...",
        "X in a corner, O in the centre": "X..\n.O.\n...",
        "two X in an open row": "XX.\n.O.\n..O",
        "X has won": "XXX\nOO.\n...",
        "O has won": "OX.\nOXX\nO..",
        "a full board, drawn": "XOX\nXOO\nOXX",
    }
    lines = []
    for name, picture in pictures.items():
        state = TicTacToe.from_picture(picture)
        expected = evaluation.tictactoe_heuristic(state)
        shown = picture.replace("\n", "\\n")
        lines.append(
            f'check_call(tictactoe_heuristic, {name!r}, (TicTacToe.from_picture("{shown}"),), '
            f"{expected!r})"
        )
    return "\n".join(lines)


def fast_win_checks() -> str:
    """The self-check cell of `PreferFastWins.utility`."""
    game = evaluation.PreferFastWins(TTT)
    pictures = {
        "X wins after 5 plies": "XXX\nOO.\n...",
        "O wins after 6 plies": "OX.\nOXX\nO..",
        "X wins after 9 plies": "XOX\nOXO\nOXX",
        "a draw": "XOX\nXOO\nOXX",
    }
    lines = ["fast = PreferFastWins(TicTacToe())"]
    for name, picture in pictures.items():
        expected = game.utility(TicTacToe.from_picture(picture))
        shown = picture.replace("\n", "\\n")
        lines.append(
            f'check_call(fast.utility, {name!r}, (TicTacToe.from_picture("{shown}"),), '
            f"{expected!r})"
        )
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Every graded function and its cases.
# ----------------------------------------------------------------------------------------------

CHECKS = {
    "minimax_value": minimax_value_checks,
    "minimax_decision": minimax_decision_checks,
    "alphabeta_value": alphabeta_value_checks,
    "alphabeta_decision": alphabeta_decision_checks,
    "depth_limited_value": depth_limited_value_checks,
    "depth_limited_decision": depth_limited_decision_checks,
    "expectiminimax_value": expectiminimax_value_checks,
    "expectiminimax_decision": expectiminimax_decision_checks,
    "maxn_value": maxn_value_checks,
    "maxn_decision": maxn_decision_checks,
}
"""For each graded function, the function that lists its cases; the answers are the grader's
cases for them (`autograder.grading.cases`), computed once, as for the hidden tests."""


def function_checks(function: str, run: bool) -> str:
    """The self-check cell of a graded `function`; if `run`, the cell also calls it."""
    return checks_source(function, CHECKS[function](), run)
