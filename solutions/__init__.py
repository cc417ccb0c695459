"""Reference solutions: the functions the assignments ask for, and the rest of the course."""

from solutions.agent import connect_four_agent
from solutions.alphabeta import alphabeta_decision, alphabeta_value
from solutions.chance import expectiminimax_decision, expectiminimax_value
from solutions.connect_four import ConnectFourSolver, connect_four_evaluation, connect_four_score
from solutions.depth_limited import depth_limited_decision, depth_limited_value
from solutions.evaluation import (
    PreferFastWins,
    scaled_tictactoe_heuristic,
    tictactoe_heuristic,
    tictactoe_move_score,
)
from solutions.minimax import minimax_decision, minimax_value
from solutions.multiplayer import maxn_decision, maxn_value
from solutions.nested import alphabeta_nested
from solutions.strong import (
    TranspositionTable,
    alphabeta_tt_value,
    iterative_deepening_decision,
    negamax_alphabeta,
    negamax_value,
    ordered_alphabeta_value,
)
from solutions.tables import OPENING_BOOK, table_decision, tictactoe_table
from solutions.trees import backed_up_values

__all__ = [
    "OPENING_BOOK",
    "ConnectFourSolver",
    "PreferFastWins",
    "TranspositionTable",
    "alphabeta_decision",
    "alphabeta_nested",
    "alphabeta_tt_value",
    "alphabeta_value",
    "backed_up_values",
    "connect_four_agent",
    "connect_four_evaluation",
    "connect_four_score",
    "depth_limited_decision",
    "depth_limited_value",
    "expectiminimax_decision",
    "expectiminimax_value",
    "iterative_deepening_decision",
    "maxn_decision",
    "maxn_value",
    "minimax_decision",
    "minimax_value",
    "negamax_alphabeta",
    "negamax_value",
    "ordered_alphabeta_value",
    "scaled_tictactoe_heuristic",
    "table_decision",
    "tictactoe_heuristic",
    "tictactoe_move_score",
    "tictactoe_table",
]
