"""The searches that select the hidden positions (their picks are frozen in the JSON data that
`autograder.grading.frozen_writer` writes)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from functools import cache
from typing import Any

from autograder.grading.positions import (
    TTT,
    decision_tree,
    tictactoe_evaluation,
)
from games import MAX, MIN

# The positional arguments of every call of a search that `autograder.grading.rules` makes through a
# builder of `autograder.grading.instances`: what the frozen data holds, and all it holds.
FROZEN_ARGUMENTS: dict[str, tuple[tuple, ...]] = {
    "select_tictactoe_values": (((3, 5),), ((5, 8),)),
    "select_tictactoe_decisions": (((3, 5),), ((5, 8),)),
    "select_depth_limited_tictactoe": ((False,), (True,)),
    "select_tree_decisions": ((6, 3),),
    "select_connect_four_endgames": ((5, 7, (6, 8)), (5, 8, (9, 11))),
    "select_transpositions": (((5, 7),),),
    "select_table_bound_decisions": (((5, 8),),),
    "select_cheap_decisions": (((3, 5), "minimax_decision", 8), ((5, 8), "alphabeta_decision", 6)),
    "select_depth_limited_ties": ((2,),),
}


# Tic-tac-toe positions, selected among the 5,478 reachable ones.


@cache
def _ttt_values() -> dict[str, int]:
    """The minimax value of every reachable position, in sorted order of the positions.

    One memoised pass over the 5,478 positions, instead of a search from each of them.
    """
    from solutions.facts import reachable_states

    @cache
    def value(state: str) -> int:
        if TTT.is_terminal(state):
            return TTT.utility(state)
        children = [value(TTT.result(state, action)) for action in TTT.actions(state)]
        return max(children) if TTT.to_move(state) == MAX else min(children)

    return {state: value(state) for state in sorted(reachable_states(TTT))}


def _ttt_positions(
    keep: Callable[[str], bool], count: int, seed: int, empties: tuple[int, int]
) -> tuple[str, ...]:
    values = _ttt_values()
    pool = [s for s in values if empties[0] <= s.count(".") <= empties[1] and keep(s)]
    return tuple(random.Random(seed).sample(pool, min(count, len(pool))))


def _child_values(state: str) -> dict[int, int]:
    values = _ttt_values()
    return {action: values[TTT.result(state, action)] for action in TTT.actions(state)}


def _optimal(state: str) -> list[int]:
    """The optimal moves of a live position, in the order of its actions."""
    children = _child_values(state)
    best = (max if TTT.to_move(state) == MAX else min)(children.values())
    return [a for a, v in children.items() if v == best]


def _unique_best(state: str) -> bool:
    """Exactly one optimal move, and it is not the first action."""
    if TTT.is_terminal(state):
        return False
    optimal = _optimal(state)
    return len(optimal) == 1 and optimal[0] != TTT.actions(state)[0]


def _served(function: str, state: str) -> int:
    """The states the reference `function` generates on a tic-tac-toe position: what a correct
    submission is served there, the price of grading it."""
    import solutions
    from games import CountingGame

    counted = CountingGame(TTT)
    getattr(solutions, function)(counted, state)
    return counted.states_generated


def _cheapest(keep: Callable[[str], bool], function: str, empties: tuple[int, int]) -> str:
    """The position with `empties` empty squares that `keep` accepts and on which `function`
    generates the fewest states (the first in sorted order among equals)."""
    pool = [s for s in _ttt_values() if empties[0] <= s.count(".") <= empties[1] and keep(s)]
    return min(pool, key=lambda state: (_served(function, state), state))


def _only_one_move_avoids_loss(state: str) -> bool:
    if TTT.is_terminal(state):
        return False
    sign = 1 if TTT.to_move(state) == MAX else -1
    safe = [a for a, v in _child_values(state).items() if sign * v >= 0]
    return len(safe) == 1 and len(_child_values(state)) >= 3


def select_tictactoe_values(empties: tuple[int, int]) -> dict[str, tuple[str, ...]]:
    """Search for positions with every kind of value and both players to move, by kind."""
    values = _ttt_values()
    live = lambda s: not TTT.is_terminal(s)  # noqa: E731
    return {
        "every move loses": _ttt_positions(
            lambda s: live(s) and TTT.to_move(s) == MAX and values[s] == -1, 2, 1, empties),
        "MIN to move": _ttt_positions(
            lambda s: live(s) and TTT.to_move(s) == MIN, 3, 2, empties),
        "a draw with best play": _ttt_positions(
            lambda s: live(s) and values[s] == 0, 2, 3, empties),
        "MAX wins": _ttt_positions(
            lambda s: live(s) and TTT.to_move(s) == MAX and values[s] == 1, 1, 4, empties),
    }  # fmt: skip


def select_tictactoe_decisions(empties: tuple[int, int]) -> dict[str, tuple[str, ...]]:
    """Search for positions with exactly one optimal move, which is never the first action."""
    only_safe = _ttt_positions(
        lambda s: _only_one_move_avoids_loss(s) and _unique_best(s), 4, 5, empties
    )
    min_roots = _ttt_positions(
        lambda s: TTT.to_move(s) == MIN and _unique_best(s) and s not in only_safe, 2, 6, empties
    )
    return {"only one move avoids a loss": only_safe, "a single best move": min_roots}


def select_transpositions(empties: tuple[int, int]) -> tuple[str, ...]:
    """Search for two positions (MAX, then MIN to move) that many move orders reach inside.

    In each, a transposition table that stores a result as exact even when it was only a
    cut-off's bound (in its own window) returns a wrong value: a search with a correct table
    gets them right, a table that ignores the window does not. In the second, no mistake the
    diagnosis tries before the table gives that wrong value, so the feedback names the table.
    """
    from autograder.grading.diagnosis import VALUE_VARIANTS, Variant, search, variant_value

    careless = Variant(bound_as_exact=True)
    tried = list(VALUE_VARIANTS.values())
    others = tried[: tried.index(careless)]
    values = _ttt_values()

    def wrong(state: str, player: str, alone: bool) -> bool:
        if TTT.is_terminal(state) or TTT.to_move(state) != player:
            return False
        value = search(TTT, state, careless)
        if value == values[state]:
            return False
        return not alone or all(variant_value(TTT, state, v) != value for v in others)

    return (
        _cheapest(lambda s: wrong(s, MAX, False), "alphabeta_value", empties),
        _cheapest(lambda s: wrong(s, MIN, True), "alphabeta_value", empties),
    )


def select_table_bound_decisions(empties: tuple[int, int]) -> tuple[str, ...]:
    """Search for the cheapest positions with one best move (not the first action) where a
    decision whose transposition table stores a cut-off's bound as exact picks another move.

    The table's forms are those the diagnosis re-enacts (`diagnosis.table_picks`): the root's
    window carried or fresh, one table per root child or one shared by them. A greedy cover
    keeps the position that flips the most forms not yet flipped per state a correct decision
    generates there, until every form that flips on some position flips on a kept one.
    """
    from autograder.grading.diagnosis import Variant, decide

    exact, forms = Variant(bound_as_exact=True), [(c, s) for c in (1, 0) for s in (1, 0)]
    flips: dict[str, frozenset] = {}
    for state in _ttt_values():
        if empties[0] <= state.count(".") <= empties[1] and _unique_best(state):
            optimal = _optimal(state)
            flips[state] = frozenset(
                (carry, shared)
                for carry, shared in forms
                if decide(TTT, state, exact, bool(carry), shared_table=bool(shared)) not in optimal
            )
    cost = {state: _served("alphabeta_decision", state) for state, f in flips.items() if f}
    left, kept = set().union(*flips.values()), []
    while left:
        state = min(cost, key=lambda s: (-len(flips[s] & left) / cost[s], cost[s], s))
        kept.append(state)
        left -= flips[state]
    return tuple(kept)


def select_cheap_decisions(empties: tuple[int, int], function: str, count: int) -> tuple[str, ...]:
    """Search for `count` positions with one best move (not the first action), MAX and MIN to
    move in turn, on which `function` generates the fewest states per bit a random move must
    guess (states / log(legal moves)): the cheapest guard against guessing a decision group.
    Positions `select_tictactoe_decisions` picks for the same `empties` are left out."""
    taken = {s for states in select_tictactoe_decisions(empties).values() for s in states}
    pool = [
        s
        for s in _ttt_values()
        if empties[0] <= s.count(".") <= empties[1] and _unique_best(s) and s not in taken
    ]
    price = {s: _served(function, s) / math.log(len(TTT.actions(s))) for s in pool}
    ranked = {
        player: sorted((s for s in pool if TTT.to_move(s) == player), key=lambda s: (price[s], s))
        for player in (MAX, MIN)
    }
    return tuple(ranked[MAX if i % 2 == 0 else MIN][i // 2] for i in range(count))


# Random trees whose root has one best move.


def select_tree_decisions(count: int, seed: int) -> tuple[int, ...]:
    """Search for the seeds of random trees whose root has one best action, not the first one.

    The roots alternate: MAX to move in the first tree, MIN in the second, and so on.
    """
    from solutions.minimax import minimax_value

    rng = random.Random(seed)
    found: list[int] = []
    while len(found) < count:
        player = MAX if len(found) % 2 == 0 else MIN
        tree_seed = rng.randrange(10**6)
        game = decision_tree(tree_seed, player)
        children = [minimax_value(game, game.result((), a)) for a in game.actions(())]
        best = max(children) if player == MAX else min(children)
        if children.count(best) == 1 and children[0] != best:
            found.append(tree_seed)
    return tuple(found)


# Depth-limited tic-tac-toe, searched with `tictactoe_evaluation`.


def _heuristic_choice_is_telling(state: str, depth: int, must_change: bool) -> bool:
    """One best move at `depth` plies; if `must_change`, a different choice one ply deeper.

    A search that stops one ply early or late then picks another move.
    """
    from solutions.depth_limited import depth_limited_value

    def child_values(plies: int) -> dict[int, float]:
        return {
            a: depth_limited_value(TTT, TTT.result(state, a), plies, tictactoe_evaluation)
            for a in TTT.actions(state)
        }

    pick = max if TTT.to_move(state) == MAX else min
    children, deeper = child_values(depth - 1), child_values(depth)
    best, deeper_best = pick(children.values()), pick(deeper.values())
    unique = list(children.values()).count(best) == 1
    changes = [a for a, v in deeper.items() if v == deeper_best] != [
        a for a, v in children.items() if v == best
    ]
    return unique and (changes or not must_change)


def select_depth_limited_tictactoe(decisions: bool) -> tuple[tuple[str, int], ...]:
    """Search for six (position, depth) pairs to search with `tictactoe_evaluation`.

    The depths cycle through 1, 2, 3. For decisions, each position's heuristic best move is
    unique, and in the first three it changes when searched one ply deeper.
    """
    rng = random.Random(11 if decisions else 12)
    values = _ttt_values()
    pool = sorted(s for s in values if 3 <= s.count(".") <= 7 and not TTT.is_terminal(s))
    found: list[tuple[str, int]] = []
    while len(found) < 6:
        state = rng.choice(pool)
        depth = 1 + len(found) % 3
        if decisions and not _heuristic_choice_is_telling(state, depth, len(found) < 3):
            continue
        found.append((state, depth))
    return tuple(found)


def select_depth_limited_ties(count: int) -> tuple[tuple[str, int], ...]:
    """Search for (position, depth) pairs where a tie with a cut-off's bound misleads.

    A decision that carries its window into the later actions and keeps a later action whose
    value only equals the best picks a worse move in each (depth 2 or 3: a cut-off needs a
    search below the root's children).
    """
    from autograder.grading.diagnosis import Variant, decide
    from solutions.depth_limited import depth_limited_value

    rng = random.Random(13)
    pool = sorted(s for s in _ttt_values() if 4 <= s.count(".") <= 7 and not TTT.is_terminal(s))
    found: list[tuple[str, int]] = []
    while len(found) < count:
        state, depth = rng.choice(pool), 2 + len(found) % 2
        values = {
            a: depth_limited_value(TTT, TTT.result(state, a), depth - 1, tictactoe_evaluation)
            for a in TTT.actions(state)
        }
        best = (max if TTT.to_move(state) == MAX else min)(values.values())
        tied = decide(TTT, state, Variant(), True, True, depth, tictactoe_evaluation)
        if values[tied] != best and (state, depth) not in found:
            found.append((state, depth))
    return tuple(found)


# Connect Four end-games.


def select_connect_four_endgames(
    count: int, seed: int, empties: tuple[int, int]
) -> tuple[str, ...]:
    """Search for the move strings of positions near the end of a game, by seeded random play.

    Utilities follow the 22 - k score (a win with one's k-th stone), so values go beyond +-1.
    Positions are kept small enough for plain minimax, and both players get to move.
    """
    from games import ConnectFour
    from solutions.minimax import minimax_value

    game = ConnectFour()
    rng = random.Random(seed)
    found: list[str] = []
    seen_values: set = set()
    while len(found) < count:
        state, moves = game.initial_state(), ""
        target = rng.randint(*empties)
        while not game.is_terminal(state) and 42 - len(moves) > target:
            action = rng.choice(game.actions(state))
            state, moves = game.result(state, action), moves + str(action)
        if game.is_terminal(state) or 42 - len(moves) != target:
            continue
        value = minimax_value(game, state)
        player = game.to_move(state)
        if (value, player) in seen_values and len(seen_values) < 4:
            continue  # prefer a spread of values and players first
        seen_values.add((value, player))
        found.append(moves)
    return tuple(found)


# The frozen data.


def frozen_selections() -> dict[str, list[dict[str, Any]]]:
    """Every search re-run for its `FROZEN_ARGUMENTS`, laid out as the frozen data holds it."""
    return {
        search: [
            {"arguments": arguments, "selection": globals()[search](*arguments)}
            for arguments in argument_sets
        ]
        for search, argument_sets in FROZEN_ARGUMENTS.items()
    }
