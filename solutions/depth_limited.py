"""Depth-limited minimax: search `depth` plies, then score the frontier with an evaluation."""

from __future__ import annotations

from collections.abc import Callable

from games import MAX, Game
from games.protocol import Action, State

Evaluation = Callable[[State], float]


def depth_limited_value(game: Game, state: State, depth: int, evaluate: Evaluation) -> float:
    """Return the minimax value of `state` searched `depth` plies ahead.

    `depth` counts the plies still allowed. A terminal state is worth its utility at any depth
    (the game is really over, so the heuristic must not be asked); at depth 0 a non-terminal
    state is worth `evaluate(state)`, which scores it from MAX's point of view.
    """
    if depth < 0:
        raise ValueError(f"depth counts the plies still allowed and cannot be negative: {depth}")
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return evaluate(state)
    values = [
        depth_limited_value(game, game.result(state, action), depth - 1, evaluate)
        for action in game.actions(state)
    ]
    return max(values) if game.to_move(state) == MAX else min(values)


def depth_limited_decision(game: Game, state: State, depth: int, evaluate: Evaluation) -> Action:
    """Return the best action looking `depth` plies ahead (depth >= 1).

    Each action is scored by the value of its child searched with `depth - 1`, so the search
    sees `depth` plies in all. Of several best actions the first is returned.
    """
    if depth < 1:
        raise ValueError(f"a decision must look at least one ply ahead; depth was {depth}")
    if game.is_terminal(state):
        raise ValueError(f"state {state!r} is terminal: there is no move to decide")
    sign = 1 if game.to_move(state) == MAX else -1
    best_action, best_score = None, None
    for action in game.actions(state):
        score = sign * depth_limited_value(game, game.result(state, action), depth - 1, evaluate)
        if best_score is None or score > best_score:
            best_action, best_score = action, score
    return best_action
