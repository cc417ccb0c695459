"""The bug hunt's buggy functions (Assignment 4) and the catalogued mistakes in each."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from games import MAX
from solutions import alphabeta, depth_limited, minimax
from solutions.alphabeta import alphabeta_value
from solutions.depth_limited import depth_limited_value
from solutions.minimax import minimax_value

# The buggy functions below are pasted into the notebook exactly as written here (with
# `inspect.getsource`), so they look like the code that circulates: no type hints, and the
# decisions call the value functions under their real names (the student's, in the notebook;
# the reference's here, so that they run as they are).


def buggy_minimax_value(game, state):
    """Return the minimax value of `state` from MAX's point of view."""
    if game.is_terminal(state):
        return game.utility(state)
    best = 0
    for action in game.actions(state):
        best = max(best, buggy_minimax_value(game, game.result(state, action)))
    return best


def buggy_minimax_decision(game, state):
    """Return an optimal action for the player to move in `state`."""
    children = [game.result(state, action) for action in game.actions(state)]
    # the children belong to the opponent, so use the opponent's rule on them
    pick = min if game.to_move(state) == MAX else max
    return pick([(minimax_value(game, child), child) for child in children])[1]


def buggy_alphabeta_value(game, state, alpha=math.inf, beta=-math.inf):
    """Return the minimax value of `state`, pruning with the window (`alpha`, `beta`)."""
    if game.is_terminal(state):
        return game.utility(state)
    children = [game.result(state, action) for action in game.actions(state)]
    if game.to_move(state) == MAX:
        value = -math.inf
        for child in children:
            value = max(value, buggy_alphabeta_value(game, child, alpha, beta))
            if value >= beta:
                return value
            alpha = max(alpha, value)
        return value
    value = math.inf
    for child in children:
        value = min(value, buggy_alphabeta_value(game, child, alpha, beta))
    return value


def buggy_alphabeta_decision(game, state):
    """Return an optimal action for the player to move, searching with alpha-beta."""
    maximising = game.to_move(state) == MAX
    best_value = -math.inf if maximising else math.inf
    best_action = None
    for action in game.actions(state):
        value = alphabeta_value(game, game.result(state, action))
        if (maximising and value > best_value) or (not maximising and value < best_value):
            best_value = value
        best_action = action
    return best_action


def buggy_depth_limited_value(game, state, depth, evaluate, ply=0):
    """Return the minimax value of `state` searched `depth` plies ahead."""
    if depth == 0:
        score = evaluate(state)
        return -score if ply % 2 == 1 else score
    if game.is_terminal(state):
        return game.utility(state)
    values = [
        buggy_depth_limited_value(game, game.result(state, action), depth - 1, evaluate, ply + 1)
        for action in game.actions(state)
    ]
    return max(values) if game.to_move(state) == MAX else min(values)


def buggy_depth_limited_decision(game, state, depth, evaluate):
    """Return the best action looking `depth` plies ahead (depth >= 1)."""
    maximising = game.to_move(state) == MAX
    best_value = -1 if maximising else 1
    best_action = None
    for action in game.actions(state):
        value = depth_limited_value(game, game.result(state, action), depth, evaluate)
        if (maximising and value > best_value) or (not maximising and value < best_value):
            best_action, best_value = action, value
    return best_action


@dataclass(frozen=True)
class Bug:
    """A graded function and a version of it with mistakes that circulate.

    The model answer, which explains the mistakes, is the content file
    `content/bug_hunt/explain_<function>.md`.
    """

    function: Callable
    buggy: Callable
    mistake_ids: tuple[
        str, ...
    ]  # entries of autograder/grading/mistakes.py, in the order explained

    @property
    def mistakes(self) -> int:
        """How many mistakes the buggy version holds (each is worth points when explained)."""
        return len(self.mistake_ids)

    @property
    def name(self) -> str:
        """The graded function's name, which the student's fix must keep."""
        return self.function.__name__


BUGS = (
    Bug(minimax.minimax_value, buggy_minimax_value, ("max_starts_at_zero", "no_alternation")),
    Bug(minimax.minimax_decision, buggy_minimax_decision, ("root_picks_min", "returns_child")),
    Bug(
        alphabeta.alphabeta_value,
        buggy_alphabeta_value,
        ("swapped_window", "eager_children", "min_never_cuts"),
    ),
    Bug(
        alphabeta.alphabeta_decision,
        buggy_alphabeta_decision,
        ("fresh_root_window", "last_child"),
    ),
    Bug(
        depth_limited.depth_limited_value,
        buggy_depth_limited_value,
        ("no_terminal_test", "wrong_side_evaluation"),
    ),
    Bug(
        depth_limited.depth_limited_decision,
        buggy_depth_limited_decision,
        ("unit_sentinels", "textbook_depth"),
    ),
)
"""The parts of the bug hunt, in the notebook's order."""
