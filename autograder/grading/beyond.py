"""Lecture 06's graded functions: expectiminimax with chance nodes, max-n for several players.

The reference's `Case` for each call, and the circulating mistakes re-enacted so the feedback
can name the one a wrong answer comes from (their words are in `autograder.grading.mistakes`).
The instances are in `autograder.grading.beyond_instances`.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from autograder.grading.diagnosis import either
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


def _best_for(values: list, whose: int) -> int:
    """The index of the first child whose component `whose` is largest."""
    return max(range(len(values)), key=lambda index: values[index][whose])


def _paranoid(values: list, player: int, root: int, players: int) -> int:
    """The root player maximises its own component, every other player minimises it."""
    if player == root:
        return _best_for(values, root)
    return min(range(len(values)), key=lambda index: values[index][root])


MAXN_RULES = {
    "maxn_wrong_component": lambda values, player, root, players: _best_for(
        values, (player - 1) % players
    ),
    "maxn_root_view": lambda values, player, root, players: _best_for(values, root),
    "maxn_paranoid": _paranoid,
    "maxn_early_return": lambda values, player, root, players: 0,
}
"""Which child each catalogued max-n mistake takes at a node of `player`, as
`rule(children's vectors, player, root player, players)` (the reference: the first child whose
component `player` is largest). `utilities[player - 1]` is the 1-based numbering slip (Python's
index -1 hides it); the root's view reads every node as if the root player moved there; the
paranoid view has every other player minimise the root player's component; a `return` inside
the loop over the actions takes the first child."""


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


def maxn(game: Game, state: Any, rule=None, root: int | None = None) -> tuple:
    """Max-n, the first best child on a tie; `rule(values, player, root, players)` picks the
    child a node takes when given (a mistake re-enacted, see `MAXN_RULES`)."""
    if game.is_terminal(state):
        return tuple(game.utilities(state))
    player = game.to_move(state)
    root = player if root is None else root
    values = [maxn(game, game.result(state, a), rule, root) for a in game.actions(state)]
    if rule is None:
        return values[_best_for(values, player)]
    return values[rule(values, player, root, game.players)]


def child_scores(instance: Instance) -> list:
    """Each action's score for the player to move: its expectiminimax value, or the mover's
    component of its max-n value."""
    game, state = instance.game, instance.state
    children = [game.result(state, action) for action in game.actions(state)]
    if isinstance(game, ChanceTree | Pig):
        return [expectiminimax(game, child) for child in children]
    player = game.to_move(state)
    return [maxn(game, child)[player] for child in children]


def _chosen(instance: Instance, variant) -> tuple:
    """The actions a decision with the mistake `variant` picks. With chance nodes: the first
    best by the mistaken values. In max-n: the mistaken rule's pick at the root, and a correct
    root's pick by the mistaken values (a right decision that calls a mistaken maxn_value, with
    the root's player or, as its own root, with each child's)."""
    game, state = instance.game, instance.state
    actions = game.actions(state)
    children = [game.result(state, action) for action in actions]
    if isinstance(game, ChanceTree | Pig):
        scores = [expectiminimax(game, child, variant) for child in children]
        best = (max if game.to_move(state) != MIN else min)(scores)
        return (actions[scores.index(best)],)
    player = game.to_move(state)
    values = [maxn(game, child, variant, player) for child in children]
    own = [maxn(game, child, variant) for child in children]  # each child is its search's root
    picks = (
        variant(values, player, player, game.players),
        _best_for(values, player),
        _best_for(own, player),
    )
    return tuple(actions[index] for index in dict.fromkeys(picks))


# -- the cases -----------------------------------------------------------------------------------


def beyond_case(function: str, instance: Instance, base: Case) -> Case:
    """The reference's case for one of `FUNCTIONS` on `instance`, with the mistakes' hints: one
    hint per wrong answer, naming every mistake that gives it."""
    game, state = instance.game, instance.state
    chance_game = function.startswith("expectiminimax")
    variants = CHANCE_RULES if chance_game else MAXN_RULES
    named: dict[Any, list[str]] = {}
    if function.endswith("_value"):
        if chance_game:
            value = float(expectiminimax(game, state))
            wrong = {
                mid: float(expectiminimax(game, state, rule)) for mid, rule in variants.items()
            }
        else:
            value = maxn(game, state)
            wrong = {mid: maxn(game, state, rule) for mid, rule in variants.items()}
        for mistake_id, answer in wrong.items():
            if not _same(answer, value):  # 1/3 summed as floats is not always 1/3 exactly
                named.setdefault(answer, []).append(mistake(mistake_id).hint)
        hints = tuple(
            (answer, either("your value equals what a search gives", words))
            for answer, words in named.items()
        )
        suspects = tuple((answer, tuple(words)) for answer, words in named.items())
        return replace(base, value=value, value_hints=hints, suspects=suspects)
    legal = tuple(game.actions(state))
    scores = [float(score) for score in child_scores(instance)]
    maximising = game.to_move(state) != MIN
    best = (max if maximising else min)(scores)
    optimal = tuple(a for a, score in zip(legal, scores, strict=True) if score == best)
    for mistake_id, rule in variants.items():
        for chosen in _chosen(instance, rule):
            if chosen not in optimal:
                named.setdefault(chosen, []).append(mistake(mistake_id).hint)
    hints = tuple(
        (chosen, either("it is the move a search picks", words)) for chosen, words in named.items()
    )
    return replace(
        base,
        to_move=MAX if maximising else MIN,  # at a max-n node the mover maximises its component
        legal=legal,
        value=best,
        optimal=optimal,
        child_values=tuple(scores),
        decision_hints=hints,
        suspects=tuple((chosen, tuple(words)) for chosen, words in named.items()),
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
