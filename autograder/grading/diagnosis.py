"""Known mistakes, re-enacted: a lost instance is compared with what each mistake would give.

When a student's answer (or state count) equals exactly what a known mistaken search produces
on the same instance, the feedback names that mistake as the likely cause.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from autograder.grading.mistakes import mistake
from games import MAX, CountingGame, Game


@dataclass(frozen=True)
class Variant:
    """One way of getting alpha-beta or minimax wrong (or differently right)."""

    strict: bool = False  # cut off only when alpha > beta
    fresh_window: bool = False  # children searched with (-inf, +inf)
    eager: bool = False  # all children generated before the loop
    min_cuts: bool = True  # False: the MIN branch never updates beta or cuts off
    prune: bool = True  # False: plain minimax
    pass_up: bool = True  # False: a node cuts off only right after a terminal child
    start: float = math.inf  # running values start at -start / +start
    max_start_zero: bool = False  # a MAX node starts its running value at 0
    every_level_max: bool = False  # players never alternate
    players_swapped: bool = False  # MAX nodes take the min, MIN nodes the max
    bound_as_exact: bool = False  # a transposition table stores every result as exact
    beta_from_alpha: bool = False  # a MIN node sets beta = min(alpha, value)
    swapped: bool = False  # the search starts with alpha = +inf, beta = -inf
    children_swapped: bool = False  # children are searched with (beta, alpha)
    max_cuts: bool = True  # False: the MAX branch never raises alpha (it cuts on value >= beta)


def search(
    game: Game,
    state: Any,
    variant: Variant,
    alpha=-math.inf,
    beta=math.inf,
    depth: int | None = None,
    evaluate=None,
    table: dict | None = None,
) -> float:
    """Alpha-beta with the mistakes of `variant` switched on, to `depth` plies if one is given.

    With `bound_as_exact`, a table keyed by state (one per top-level call, as a student keeps
    it) returns whatever was stored, even a result that was only a bound in its own window.
    """
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return evaluate(state)
    if variant.bound_as_exact:
        table = {} if table is None else table
        if state in table:
            return table[state]
    value = _search_children(game, state, variant, alpha, beta, depth, evaluate, table)
    if table is not None:
        table[state] = value
    return value


def _search_children(game, state, variant, alpha, beta, depth, evaluate, table) -> float:
    maximising = variant.every_level_max or (game.to_move(state) == MAX) != variant.players_swapped
    actions = game.actions(state)
    children = [game.result(state, a) for a in actions] if variant.eager else None
    value = (0 if variant.max_start_zero else -variant.start) if maximising else variant.start
    for index, action in enumerate(actions):
        child = children[index] if children is not None else game.result(state, action)
        window = (beta, alpha) if variant.children_swapped else (alpha, beta)
        window = (-math.inf, math.inf) if variant.fresh_window else window
        below = None if depth is None else depth - 1
        found = search(game, child, variant, *window, below, evaluate, table)
        if variant.beta_from_alpha:  # the lecture's cut-off tests, with beta from alpha
            value = max(value, found) if maximising else min(value, found)
            if value >= beta if maximising else value <= alpha:
                break
            alpha, beta = (max(alpha, value), beta) if maximising else (alpha, min(alpha, value))
            continue
        if maximising:
            value = max(value, found)
            alpha = max(alpha, value) if variant.max_cuts else alpha
        elif variant.min_cuts:
            value = min(value, found)
            beta = min(beta, value)
        else:
            value = min(value, found)
        cut = alpha > beta if variant.strict else alpha >= beta
        if maximising and not variant.max_cuts:  # the cut-off test stays, on the node's value
            cut = value >= beta
        if variant.prune and cut and (variant.pass_up or game.is_terminal(child)):
            break
    return value


def decide(
    game: Game,
    state: Any,
    variant: Variant,
    carry_window: bool = True,
    later_ties: bool = False,
    depth: int | None = None,
    evaluate=None,
    shared_table: bool = False,
) -> Any:
    """The root decision of `variant`, carrying the window into later children if asked.

    With `later_ties`, a later action replaces the best one when its value only equals the
    best: with the window carried, that value may be a cut-off's bound, not the action's value.
    With `shared_table`, one table serves every root child's search (a `bound_as_exact`
    variant's), as a decision that hands its own table down does.
    """
    maximising = game.to_move(state) == MAX
    alpha, beta, best = -math.inf, math.inf, None
    below = None if depth is None else depth - 1
    table = {} if shared_table else None
    for action in game.actions(state):
        window = (alpha, beta) if carry_window else (-math.inf, math.inf)
        child = game.result(state, action)
        value = search(game, child, variant, *window, below, evaluate, table)
        better = value >= alpha if maximising else value <= beta
        if not later_ties:
            better = value > alpha if maximising else value < beta
        if best is None or better:
            best = action
            alpha, beta = (value, beta) if maximising else (alpha, value)
    return best


PRUNING_VARIANTS = {
    "strict_cutoff": Variant(strict=True),
    "fresh_window": Variant(fresh_window=True),
    "eager_children": Variant(eager=True),
    "min_never_cuts": Variant(min_cuts=False),
    "minimax_as_alphabeta": Variant(prune=False),
    "cutoff_not_passed_up": Variant(pass_up=False),
    "alpha_never_raised": Variant(max_cuts=False),
}
"""The mistakes of `autograder.grading.mistakes` recognised by the states they generate, in the
order they are tried (the first whose count equals the student's names the mistake)."""

VALUE_VARIANTS = {
    "max_starts_at_zero": Variant(max_start_zero=True),
    "unit_sentinels": Variant(start=1),
    "no_alternation": Variant(every_level_max=True),
    "max_min_swapped": Variant(players_swapped=True),
    "table_bound_as_exact": Variant(bound_as_exact=True),
    "beta_from_alpha": Variant(beta_from_alpha=True),
    "swapped_window": Variant(swapped=True),
    "children_swapped": Variant(children_swapped=True),
}
"""The mistakes recognised by the value they give, in the order they are tried."""

_NEEDS_PRUNING = ("bound_as_exact", "beta_from_alpha", "swapped", "children_swapped")
"""Variants whose mistake shows only in a pruned search: the others are searched unpruned, so
that only the mistake changes the value."""


@lru_cache(maxsize=4096)
def count_states(
    game: Game, state: Any, variant: Variant, decision: bool, carry_window: bool = True
) -> int:
    """States generated by `variant` on this instance, a decision's root carrying its window or
    not (cached: every student asks the same)."""
    counted = CountingGame(game)
    if decision:
        decide(counted, state, variant, carry_window=carry_window)
    else:
        search(counted, state, variant)
    return counted.states_generated


def wrong_side_value(game: Game, state: Any, depth: int, evaluate) -> float:
    """The depth-limited value when the evaluation is negated at odd plies (scored from the
    side to move instead of MAX's)."""

    def search(state, depth, ply):
        if game.is_terminal(state):
            return game.utility(state)
        if depth == 0:
            value = evaluate(state)
            return -value if ply % 2 else value
        values = [search(game.result(state, a), depth - 1, ply + 1) for a in game.actions(state)]
        return max(values) if game.to_move(state) == MAX else min(values)

    return search(state, depth, 0)


def needs_a_window(variant: Variant) -> bool:
    """Whether `variant`'s mistake is one of alpha-beta's window (taught after minimax)."""
    return any(getattr(variant, name) for name in _NEEDS_PRUNING)


def max_only_horizon_value(game: Game, state: Any, depth: int, evaluate) -> float:
    """The depth-limited value when only MAX nodes test the horizon (`depth == 0`): a MIN node
    at the horizon searches on, its children at depth -1, -2, ... never meet it again."""
    memo: dict = {}

    def search(state, depth):
        if game.is_terminal(state):
            return game.utility(state)
        maximising = game.to_move(state) == MAX
        if depth == 0 and maximising:
            return evaluate(state)
        key = (state, max(depth, -1))  # below the horizon, the depth no longer matters
        if key not in memo:
            values = [search(game.result(state, a), depth - 1) for a in game.actions(state)]
            memo[key] = max(values) if maximising else min(values)
        return memo[key]

    return search(state, depth)


DEPTH_LIMITED_MISTAKES = ("wrong_side_evaluation", "horizon_at_max_only")
"""The mistakes recognised by the depth-limited value they give (see `cases.value_hints`)."""


@lru_cache(maxsize=4096)
def variant_value(game: Game, state: Any, variant: Variant) -> float | None:
    """The value a mistaken search gives here; None if it cannot finish (see `_NEEDS_PRUNING`)."""
    try:
        if variant.swapped:
            return search(game, state, variant, math.inf, -math.inf)
        if any(getattr(variant, name) for name in _NEEDS_PRUNING):
            return search(game, state, variant)
        return _unpruned(game, state, variant, {})
    except (TypeError, ValueError):
        return None


def _unpruned(game: Game, state: Any, variant: Variant, memo: dict) -> float:
    """`search` without pruning, remembering each state's value: without a window, a node's
    value depends only on its position, so positions reached again are not searched again."""
    if state in memo:
        return memo[state]
    if game.is_terminal(state):
        return game.utility(state)
    maximising = variant.every_level_max or (game.to_move(state) == MAX) != variant.players_swapped
    value = (0 if variant.max_start_zero else -variant.start) if maximising else variant.start
    for action in game.actions(state):
        found = _unpruned(game, game.result(state, action), variant, memo)
        value = max(value, found) if maximising else min(value, found)
    memo[state] = value
    return value


def either(start: str, hints: list[str]) -> str:
    """The hint for an answer that each mistake of `hints` (its catalogue words) gives: after
    `start` ("your value equals what a search gives"), "when <words>" for one mistake, and
    "either when ... or when ...: look for both" (or each) for several."""
    if len(hints) == 1:
        return f"{start} when {hints[0]}"
    listed = " or ".join(f"when {hint}" for hint in hints)
    return f"{start} either {listed}: look for {'both' if len(hints) == 2 else 'each'}"


TIE_WITH_A_BOUND = (
    "a later action is kept when its value only equals the best one, but with the window "
    f"carried into the later children {mistake('later_tie_at_a_bound').hint}, and the action "
    "may be worse: replace the best action only on a strict improvement (> for MAX, < for MIN)"
)


def depth_convention(depth: int, searched: int) -> str:
    """The hint for a search that looks `searched` plies deep when `depth` were asked."""
    words = "further" if searched > depth else "less"
    return (
        f"your search looks one ply {words} than asked (as a search to depth {searched}). Here "
        "depth counts the plies still allowed: depth 0 evaluates the state itself, and a "
        f"decision at depth {depth} scores each action by its child searched with depth "
        f"{depth - 1}"
        + (
            ". The textbook convention that starts the root's children at depth 1 and cuts "
            "off when depth > limit looks one ply further"
            if searched > depth
            else ""
        )
    )


def decision_hints(
    game: Game,
    state: Any,
    optimal: tuple,
    depth: int | None = None,
    evaluate=None,
    windows: bool = True,
) -> dict:
    """Wrong actions a known mistake picks here, each with the hint that names the mistake.

    A depth-limited decision is also searched one ply deeper and one ply shallower: an action
    that is best there is a depth-convention mistake, not a max/min mistake. Without `windows`
    (a minimax decision: its lecture has taught no window), the mistakes of a search with a
    window or a table are not tried.
    """
    hints: dict = {}
    if depth is not None:
        from solutions.depth_limited import depth_limited_value

        actions = game.actions(state)
        pick = max if game.to_move(state) == MAX else min
        for searched in (depth + 1, depth - 1):
            if searched < 1:
                continue
            values = [
                depth_limited_value(game, game.result(state, a), searched - 1, evaluate)
                for a in actions
            ]
            best = pick(values)
            for action, value in zip(actions, values, strict=True):
                if value == best and action not in optimal:
                    hints.setdefault(action, depth_convention(depth, searched))
    if not windows:
        return hints
    tied = decide(game, state, Variant(), later_ties=True, depth=depth, evaluate=evaluate)
    if tied not in optimal:
        hints.setdefault(tied, TIE_WITH_A_BOUND)
    if depth is None:
        for action in table_picks(game, state) - set(optimal):
            hints.setdefault(action, TABLE_PICKS)
    return hints


TABLE_PICKS = f"it is the move a search picks when {mistake('table_bound_as_exact').hint}"


def table_picks(game: Game, state: Any) -> set:
    """The moves a decision picks when its search's table stores bounds as exact: the root's
    window carried or fresh, one table per child or one shared by all."""
    exact = Variant(bound_as_exact=True)
    return {
        decide(game, state, exact, carry_window=carry, shared_table=shared)
        for carry in (True, False)
        for shared in (True, False)
    }
