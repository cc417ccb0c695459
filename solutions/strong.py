"""Making alpha-beta strong: negamax, move ordering, iterative deepening, transposition tables."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from games import MAX, MIN, Game
from games.protocol import Action, State
from solutions.evaluation import tictactoe_move_score
from solutions.minimax import _require_a_move

Order = Callable[[Game, State, list[Action]], list[Action]]
Evaluation = Callable[[State], float]


# --- Negamax ---------------------------------------------------------------------------------


def negamax_alphabeta(
    game: Game, state: State, alpha: float = -math.inf, beta: float = math.inf
) -> float:
    """Return the value of `state` for the player to move, by alpha-beta in negamax form.

    What changes relative to `alphabeta_value`: one loop serves both players. Values are seen
    from the side to move (MIN's +1 is MAX's -1), so every node maximises; a child's value is
    negated on the way up, and its window is negated and swapped to (-beta, -alpha), because
    what the opponent is assured of is what we cannot exceed. The window is also from the side
    to move. The cut-off is the same >= rule, and the states generated are exactly those of
    `alphabeta_value` (fail-soft in the same way). Like every game of the course, the players
    must alternate: negating assumes the child belongs to the opponent.
    """
    if game.is_terminal(state):
        return _colour(game, state) * game.utility(state)
    value = -math.inf
    for action in game.actions(state):
        value = max(value, -negamax_alphabeta(game, game.result(state, action), -beta, -alpha))
        if value >= beta:
            return value  # the opponent above will never let play reach here
        alpha = max(alpha, value)
    return value


def negamax_value(game: Game, state: State) -> float:
    """Return the minimax value of `state` from MAX's point of view, computed by negamax."""
    return _colour(game, state) * negamax_alphabeta(game, state)


def _colour(game: Game, state: State) -> int:
    player = game.to_move(state)
    if player not in (MAX, MIN):
        raise ValueError(f"negamax needs MAX or MIN to move, but {player!r} moves in {state!r}")
    return 1 if player == MAX else -1


# --- Move ordering ---------------------------------------------------------------------------


def ordered_alphabeta_value(
    game: Game, state: State, order: Order, alpha: float = -math.inf, beta: float = math.inf
) -> float:
    """Return the minimax value of `state` by alpha-beta, examining children in a chosen order.

    What changes relative to `alphabeta_value`: only the order of the loop, which is
    `order(game, state, game.actions(state))` instead of the game's. The value is the same for
    every order; the states generated are not: with the best child first at every node,
    alpha-beta examines b**ceil(d/2) + b**floor(d/2) - 1 leaves (Knuth and Moore).
    `order` must return the actions it was given, rearranged (the cost of ordering itself is
    not counted by `CountingGame`).
    """
    if game.is_terminal(state):
        return game.utility(state)
    actions = game.actions(state)
    ordered = order(game, state, actions)
    if len(ordered) != len(actions) or any(ordered.count(action) != 1 for action in actions):
        raise ValueError(f"order returned {ordered!r}, not a rearrangement of {actions!r}")
    if game.to_move(state) == MAX:
        value = -math.inf
        for action in ordered:
            child = game.result(state, action)
            value = max(value, ordered_alphabeta_value(game, child, order, alpha, beta))
            if value >= beta:
                return value
            alpha = max(alpha, value)
        return value
    value = math.inf
    for action in ordered:
        child = game.result(state, action)
        value = min(value, ordered_alphabeta_value(game, child, order, alpha, beta))
        if value <= alpha:
            return value
        beta = min(beta, value)
    return value


CENTRE_CORNERS_EDGES = (4, 0, 2, 6, 8, 1, 3, 5, 7)
"""Tic-tac-toe squares by the number of lines through them: centre (4), corners (3), edges (2)."""


def centre_corners_edges_order(game: Game, state: str, actions: list[int]) -> list[int]:
    """Order tic-tac-toe moves centre first, then corners, then edges (a fixed, static order)."""
    return sorted(actions, key=CENTRE_CORNERS_EDGES.index)


def move_score_order(game: Game, state: str, actions: list[int]) -> list[int]:
    """Order tic-tac-toe moves by `tictactoe_move_score`, best first; ties by ascending square."""
    return sorted(actions, key=lambda action: -tictactoe_move_score(state, action))


# --- Iterative deepening ---------------------------------------------------------------------


def iterative_deepening_decision(
    game: Game,
    state: State,
    evaluate: Evaluation,
    time_budget: float,
    max_depth: int | None = None,
) -> tuple[Action, int]:
    """Return `(action, depth_reached)`: the best move of the deepest search finished in time.

    What changes relative to one depth-limited alpha-beta search: the search is repeated at
    depth 1, 2, 3, ... (depth d looks d plies ahead: each action is scored by its child searched
    with d - 1, as `depth_limited_decision` does), each time trying the previous best move
    first. The clock is checked at every node; when `time_budget` seconds are used up the
    unfinished iteration is abandoned and the move of the last finished one returned. The
    deepening stops early at `max_depth`, or once an iteration scored no state with `evaluate`
    (every leaf it examined was terminal, so its value is the exact game value: a proven win,
    draw or loss that no deeper search can change). If not even depth 1 finished, the first
    legal action is returned with depth_reached 0.

    Raises:
        ValueError: `state` is terminal, the budget is negative or `max_depth` below 1.
    """
    _require_a_move(game, state)
    if time_budget < 0 or (max_depth is not None and max_depth < 1):
        raise ValueError(f"need time_budget >= 0 and max_depth >= 1: {time_budget}, {max_depth}")
    clock = _Clock(deadline=time.monotonic() + time_budget)
    best_action, depth_reached = game.actions(state)[0], 0
    while max_depth is None or depth_reached < max_depth:
        clock.used_evaluation = False
        try:
            best_action = _root_search(game, state, depth_reached + 1, evaluate, clock, best_action)
        except _OutOfTime:
            break
        depth_reached += 1
        if not clock.used_evaluation:
            break
    return best_action, depth_reached


class _OutOfTime(Exception):
    """Raised inside the search when the time budget is used up."""


@dataclass
class _Clock:
    deadline: float
    used_evaluation: bool = False

    def check(self) -> None:
        if time.monotonic() >= self.deadline:
            raise _OutOfTime


def _root_search(game, state, depth, evaluate, clock, first) -> Action:
    """Alpha-beta decision looking `depth` plies ahead, with the action `first` examined first."""
    actions = game.actions(state)
    actions.remove(first)
    maximising = game.to_move(state) == MAX
    alpha, beta, best_action = -math.inf, math.inf, None
    for action in [first, *actions]:
        child = game.result(state, action)
        value = _alphabeta_to_depth(game, child, depth - 1, evaluate, alpha, beta, clock)
        if maximising and (best_action is None or value > alpha):
            best_action, alpha = action, value
        elif not maximising and (best_action is None or value < beta):
            best_action, beta = action, value
    return best_action


def _alphabeta_to_depth(game, state, depth, evaluate, alpha, beta, clock) -> float:
    """`alphabeta_value` cut off after `depth` plies, checking the clock at every node."""
    clock.check()
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        clock.used_evaluation = True
        return evaluate(state)
    maximising = game.to_move(state) == MAX
    value = -math.inf if maximising else math.inf
    for action in game.actions(state):
        child = game.result(state, action)
        child_value = _alphabeta_to_depth(game, child, depth - 1, evaluate, alpha, beta, clock)
        if maximising:
            value = max(value, child_value)
            if value >= beta:
                return value
            alpha = max(alpha, value)
        else:
            value = min(value, child_value)
            if value <= alpha:
                return value
            beta = min(beta, value)
    return value


# --- Transposition tables --------------------------------------------------------------------


class Bound(Enum):
    """What a stored value says about the true value v of its state."""

    EXACT = "exact"  # v == value: the search ended inside its window
    LOWER = "lower"  # v >= value: the search failed high (value >= beta), a cut-off
    UPPER = "upper"  # v <= value: the search failed low (value <= alpha), nothing beat alpha


EXACT, LOWER, UPPER = Bound.EXACT, Bound.LOWER, Bound.UPPER


@dataclass(frozen=True)
class TableEntry:
    """One stored search result: `value`, what kind of `bound` it is, and the `depth` searched.

    `depth` is the number of plies searched below the state, or None when the search went to
    the end of the game (as `alphabeta_tt_value` does); a depth-limited search would reuse an
    entry only if its depth is at least the depth still wanted.
    """

    value: float
    bound: Bound
    depth: int | None = None


class TranspositionTable:
    """A memory of search results, keyed by state, shared by every search that is given it.

    A state reached by different move orders (a transposition) is searched once. Because a
    search with a window (alpha, beta) often proves only a bound, each entry says which kind of
    value it holds. `lookups`, `hits` and `stores` count the traffic, for the curious.
    """

    def __init__(self) -> None:
        self.entries: dict[State, TableEntry] = {}
        self.lookups = self.hits = self.stores = 0

    def __repr__(self) -> str:
        return f"<TranspositionTable: {len(self)} entries>"

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, state: State) -> bool:
        return state in self.entries

    def lookup(self, state: State) -> TableEntry | None:
        """Return the entry stored for `state`, or None."""
        self.lookups += 1
        entry = self.entries.get(state)
        self.hits += entry is not None
        return entry

    def store(self, state: State, value: float, bound: Bound, depth: int | None = None) -> None:
        """Store a result for `state`, replacing any older one."""
        self.stores += 1
        self.entries[state] = TableEntry(value, bound, depth)


def alphabeta_tt_value(
    game: Game,
    state: State,
    alpha: float = -math.inf,
    beta: float = math.inf,
    table: TranspositionTable | None = None,
) -> float:
    """Return the minimax value of `state` (MAX's view) by alpha-beta with a transposition table.

    What changes relative to `alphabeta_value`: before searching a state the table is asked.
    An exact value is returned at once; a stored lower bound >= beta or upper bound <= alpha
    is returned at once too (a valid fail-soft answer: a cut-off without search); any other
    lower bound raises alpha, and any other upper bound lowers beta, before searching. After
    the search the result is stored as what it is: an upper bound if it is <= the window's
    alpha (fail low), a lower bound if >= its beta (fail high), exact only strictly in between.
    Storing a fail-low or fail-high result as exact is the classic bug: the next search with a
    wider window would take a bound for the value. The result is fail-soft like
    `alphabeta_value`'s, so the same `table` may serve any number of searches with any open
    windows. Terminal states are not stored.

    Raises:
        ValueError: alpha >= beta. In an empty window a result equal to alpha and beta would be
            an upper and a lower bound at once, and the table could not tell which to store.
    """
    if not alpha < beta:
        raise ValueError(f"the window must be open, alpha < beta, not ({alpha}, {beta})")
    if table is None:
        table = TranspositionTable()
    if game.is_terminal(state):
        return game.utility(state)
    entry = table.lookup(state)
    if entry is not None:
        if entry.bound is EXACT:
            return entry.value
        if entry.bound is LOWER:
            if entry.value >= beta:
                return entry.value
            alpha = max(alpha, entry.value)
        else:
            if entry.value <= alpha:
                return entry.value
            beta = min(beta, entry.value)
    window_alpha, window_beta = alpha, beta
    maximising = game.to_move(state) == MAX
    value = -math.inf if maximising else math.inf
    for action in game.actions(state):
        child_value = alphabeta_tt_value(game, game.result(state, action), alpha, beta, table)
        if maximising:
            value = max(value, child_value)
            if value >= beta:
                break
            alpha = max(alpha, value)
        else:
            value = min(value, child_value)
            if value <= alpha:
                break
            beta = min(beta, value)
    bound = UPPER if value <= window_alpha else LOWER if value >= window_beta else EXACT
    table.store(state, value, bound)
    return value
