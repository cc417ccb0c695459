"""Reference solutions: the functions the assignments ask for, and the rest of the course."""

from solutions.alphabeta import alphabeta_decision, alphabeta_value
from solutions.depth_limited import depth_limited_decision, depth_limited_value
from solutions.minimax import minimax_decision, minimax_value

__all__ = [
    "alphabeta_decision",
    "alphabeta_value",
    "depth_limited_decision",
    "depth_limited_value",
    "minimax_decision",
    "minimax_value",
]
