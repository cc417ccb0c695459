"""Assignment 5's reference Connect Four agent: iterative deepening alpha-beta on a state budget.

It uses only the game protocol, `game.evaluate` (the course's evaluation from lecture 04) and
`OutOfStates`, so it plays the real `ConnectFour` and the grader's served game alike, where
states are opaque tokens that are equal for equal positions. It imports nothing but `games`
and the standard library: the grader runs this very source in the sandbox, as a submission.

In the contest each move may generate a budget of states through `game.result`; past it,
`result` raises `OutOfStates` (`games.BudgetedGame` does the same outside the grader). The
agent's search is bounded by that budget alone, never by a clock, so it plays the same move
for the same position on any machine, however busy.

What it adds to `depth_limited_decision` (lecture 04), each in its own function:

- iterative deepening (`connect_four_agent`): depth 1, 2, 3, ... until the budget is spent;
  the unfinished iteration is abandoned and the last finished one's move is played;
- move ordering (`_ordered`): the best move found for the state so far (by the previous
  iteration, through the table) first, then the columns from the centre outwards;
- a transposition table keyed by state (`_Search.look_up`, `_Search.store`), holding the
  depth searched, the value, what kind of bound it is, and the best move.

Wins are the game's utility, +-(22 - k) for a win with the k-th stone, beyond the evaluation's
+-0.99, so a proven win always beats a heuristic position and a quicker win a slower one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from games import MAX, OutOfStates

CENTRE_FIRST = (4, 3, 5, 2, 6, 1, 7)
"""Columns from the centre outwards: a central stone joins more lines of four."""

EXACT, LOWER, UPPER = "exact", "lower", "upper"


def connect_four_agent(game, state, seconds: float) -> int:
    """Return the column to play in `state`: the move of the deepest search the budget allows.

    Searches depth 1, 2, 3, ... by alpha-beta with `game.evaluate` at the frontier, until
    `game.result` raises `OutOfStates` (the move's budget of states is spent), a win or loss is
    proven (|value| >= 1: only terminal states are worth that much), or no frontier state was
    evaluated (the search reached the end of every line, so deeper cannot change anything).
    The column nearest the centre is ready before any search, in case not even depth 1 fits.

    `seconds` is the CPU time the grader allows the move; this agent computes little besides
    its states and needs a small share of it. On a game without a budget (the plain
    `ConnectFour()`) it deepens until the end of the game: wrap the game in a `BudgetedGame`.

    Raises:
        ValueError: `seconds` is not a positive number, or `state` is terminal.
    """
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not seconds > 0:
        raise ValueError(f"seconds is the time allowed, a positive number, not {seconds!r}")
    if game.is_terminal(state):
        raise ValueError(f"state {state!r} is terminal: there is no move to choose")
    search = _Search()
    best_action, depth = _ordered(game.actions(state), None)[0], 0
    while search.used_evaluation:
        depth += 1
        search.used_evaluation = False
        try:
            best_action, value = _root_search(game, state, depth, search)
        except OutOfStates:
            break
        if abs(value) >= 1:
            break
    return best_action


@dataclass
class _Search:
    """What one move's searches share: the transposition table, and whether the last
    iteration evaluated a frontier state."""

    used_evaluation: bool = True
    table: dict = field(default_factory=dict)  # state -> (depth, value, bound, best action)

    def look_up(self, state, depth: int, alpha: float, beta: float):
        """Return (value or None, alpha, beta, best action or None) from the table.

        A stored value counts only if it was searched at least `depth` plies deep: then an
        exact value is the answer, and a bound either settles the question (a lower bound
        >= beta, an upper bound <= alpha) or narrows the window. The best action is used for
        ordering whatever its depth.
        """
        entry = self.table.get(state)
        if entry is None:
            return None, alpha, beta, None
        stored_depth, value, bound, action = entry
        if stored_depth >= depth:
            if bound == EXACT:
                return value, alpha, beta, action
            if bound == LOWER:
                alpha = max(alpha, value)
            else:
                beta = min(beta, value)
            if alpha >= beta:
                return value, alpha, beta, action
        return None, alpha, beta, action

    def store(self, state, depth: int, value: float, window: tuple, action) -> None:
        """Store a search result as what it proves: exact only strictly inside its window."""
        alpha, beta = window
        bound = UPPER if value <= alpha else LOWER if value >= beta else EXACT
        self.table[state] = (depth, value, bound, action)


def _root_search(game, state, depth: int, search: _Search) -> tuple[int, float]:
    """Return (best action, its value) looking `depth` plies ahead; the first best on ties."""
    value = _alphabeta(game, state, depth, -math.inf, math.inf, search)
    return search.table[state][3], value


def _alphabeta(game, state, depth: int, alpha: float, beta: float, search: _Search) -> float:
    """Depth-limited alpha-beta (lecture 04), with the table and move ordering.

    The MAX and MIN halves are those of `alphabeta_value`; what is new is asking the table
    before searching, trying its best action first, and storing the result afterwards. When
    the budget is spent, `game.result` raises `OutOfStates` out of the whole recursion.
    """
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        search.used_evaluation = True
        return game.evaluate(state)
    known, alpha, beta, first = search.look_up(state, depth, alpha, beta)
    if known is not None:
        return known
    window, maximising, best_action = (alpha, beta), game.to_move(state) == MAX, None
    value = -math.inf if maximising else math.inf
    for action in _ordered(game.actions(state), first):
        child_value = _alphabeta(game, game.result(state, action), depth - 1, alpha, beta, search)
        if maximising:
            if child_value > value:
                value, best_action = child_value, action
            if value >= beta:
                break
            alpha = max(alpha, value)
        else:
            if child_value < value:
                value, best_action = child_value, action
            if value <= alpha:
                break
            beta = min(beta, value)
    search.store(state, depth, value, window, best_action)
    return value


def _ordered(actions: list, first) -> list:
    """The actions with `first` (the best found so far, or None) first, then centre-first."""
    ordered = sorted(actions, key=lambda column: CENTRE_FIRST.index(column))
    if first in ordered:
        ordered.remove(first)
        ordered.insert(0, first)
    return ordered
