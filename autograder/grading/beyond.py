"""Lecture 06's graded functions: expectiminimax with chance nodes, max-n for several players.

The reference's `Case` for each call, and the circulating mistakes re-enacted so the feedback
can name the one a wrong answer comes from (their words are in `autograder.grading.mistakes`).
The instances are in `autograder.grading.beyond_instances`.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from autograder.grading.instances import Instance
from autograder.grading.judge import Case
from autograder.grading.mistakes import mistake
from games import CHANCE, MAX, MIN, ChanceTree, Pig
from games.protocol import Game

FUNCTIONS = (
    "expectiminimax_value",
    "expectiminimax_decision",
    "maxn_value",
    "maxn_decision",
)

CHANCE_RULES = {
    "chance_as_max": max,
    "chance_as_min": min,
    "chance_plain_average": lambda values: sum(values) / len(values),
}
"""How each catalogued mistake backs up a chance node (the reference takes the expectation)."""

COMPONENT_RULES = {
    "maxn_wrong_component": lambda player, root, players: (player - 1) % players,
    "maxn_root_view": lambda player, root, players: root,
}
"""Whose component each catalogued max-n mistake maximises at a node of `player` (the
reference: the player's own). `utilities[player - 1]` is the 1-based numbering slip (Python's
index -1 hides it); the root's view reads every node as if the root player moved there."""


# -- re-enacting the searches ------------------------------------------------------------------


def expectiminimax(game: Game, state: Any, chance_rule=None) -> Any:
    """Expectiminimax, exact where the probabilities are; `chance_rule(values)` replaces the
    expectation at chance nodes when given (a mistake re-enacted)."""
    if game.is_terminal(state):
        return game.utility(state)
    player = game.to_move(state)
    if player == CHANCE:
        outcomes = game.chance_outcomes(state)
        values = [expectiminimax(game, game.result(state, o), chance_rule) for o, _ in outcomes]
        if chance_rule is not None:
            return chance_rule(values)
        return sum(p * value for (_, p), value in zip(outcomes, values, strict=True))
    values = [expectiminimax(game, game.result(state, a), chance_rule) for a in game.actions(state)]
    return max(values) if player == MAX else min(values)


def maxn(game: Game, state: Any, component=None, root: int | None = None) -> tuple:
    """Max-n, the first best child on a tie; `component(player, root, players)` names whose
    utility a node maximises when given (a mistake re-enacted)."""
    if game.is_terminal(state):
        return tuple(game.utilities(state))
    player = game.to_move(state)
    root = player if root is None else root
    whose = player if component is None else component(player, root, game.players)
    values = [maxn(game, game.result(state, a), component, root) for a in game.actions(state)]
    return max(values, key=lambda utilities: utilities[whose])


def child_scores(instance: Instance, variant=None) -> list:
    """Each action's score for the player to move: its expectiminimax value, or the mover's
    component of its max-n value (under `variant`, a mistake, when given)."""
    game, state = instance.game, instance.state
    children = [game.result(state, action) for action in game.actions(state)]
    if isinstance(game, ChanceTree | Pig):
        return [expectiminimax(game, child, variant) for child in children]
    player = game.to_move(state)
    whose = player if variant is None else variant(player, player, game.players)
    return [maxn(game, child, variant, player)[whose] for child in children]


def _chosen(instance: Instance, variant) -> Any:
    """The action a decision with the mistake `variant` picks: the first best for it."""
    scores = child_scores(instance, variant)
    maximising = instance.game.to_move(instance.state) != MIN
    best = (max if maximising else min)(scores)
    return instance.game.actions(instance.state)[scores.index(best)]


# -- the cases -----------------------------------------------------------------------------------


def beyond_case(function: str, instance: Instance, base: Case) -> Case:
    """The reference's case for one of `FUNCTIONS` on `instance`, with the mistakes' hints."""
    game, state = instance.game, instance.state
    chance_game = function.startswith("expectiminimax")
    variants = CHANCE_RULES if chance_game else COMPONENT_RULES
    if function.endswith("_value"):
        if chance_game:
            value = float(expectiminimax(game, state))
            wrong = {
                mid: float(expectiminimax(game, state, rule)) for mid, rule in variants.items()
            }
        else:
            value = maxn(game, state)
            wrong = {mid: maxn(game, state, rule) for mid, rule in variants.items()}
        hints = {}
        for mistake_id, answer in wrong.items():
            if not _same(answer, value):  # 1/3 summed as floats is not always 1/3 exactly
                words = mistake(mistake_id).hint
                hints.setdefault(answer, f"your value equals what a search gives when {words}")
        return replace(base, value=value, value_hints=tuple(hints.items()))
    legal = tuple(game.actions(state))
    scores = [float(score) for score in child_scores(instance)]
    maximising = game.to_move(state) != MIN
    best = (max if maximising else min)(scores)
    optimal = tuple(a for a, score in zip(legal, scores, strict=True) if score == best)
    picked: dict[Any, list[str]] = {}
    for mistake_id, rule in variants.items():
        chosen = _chosen(instance, rule)
        if chosen not in optimal:
            picked.setdefault(chosen, []).append(mistake(mistake_id).hint)
    hints = {
        chosen: "it is the move a search picks when " + "; or when ".join(words)
        for chosen, words in picked.items()
    }
    return replace(
        base,
        to_move=MAX if maximising else MIN,  # at a max-n node the mover maximises its component
        legal=legal,
        value=best,
        optimal=optimal,
        child_values=tuple(scores),
        decision_hints=tuple(hints.items()),
    )


def _same(answer: Any, value: Any) -> bool:
    """Whether two values (numbers, or vectors of numbers) are equal up to float rounding."""
    if isinstance(value, tuple):
        return len(answer) == len(value) and all(map(_same, answer, value))
    return math.isclose(answer, value, rel_tol=1e-9, abs_tol=1e-9)


def state_count(instance: Instance) -> int:
    """The states a full search of `instance` generates (each child once per path)."""
    game = instance.game

    def below(state: Any) -> int:
        if game.is_terminal(state):
            return 0
        return sum(1 + below(game.result(state, a)) for a in game.actions(state))

    return below(instance.state)
