"""What the instructor is told about how the contest's agents played: per agent, the states it
was served and the time it used a move, and the games that look thrown.

None of this changes a point. The contest's allowance is a budget of states through
`game.result` and `seconds` of CPU time (sleep included) for whatever an agent computes outside
it; an agent that runs its own search on `game.board` within its seconds plays by the rules and
keeps its points. But its play then rests on its own clock, so it can differ between two runs,
and its strength is bought with CPU rather than with the states the assignment is about: the
instructor's pages flag it (`usage_flags`), and the tournament's flag the games in which an
agent rated far above its opponent missed a win in one or let a loss in one through, with the
same odd first move from both agents before such a game (`thrown_games`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from autograder.contest.referee import PlayedGame
from games.connect_four import ConnectFour, ConnectFourState

GAME = ConnectFour()

REFERENCE_SECONDS_PER_STATE = 2e-5
"""The reference agent's time per state served, through the sandbox (about 0.02 s of CPU for
2,000 states, `opponents.DEFAULT_SECONDS`'s docstring): its search is `game.result`'s."""

OUTSIDE_FACTOR = 50
"""How many times the reference's time per served state flags an agent as searching outside
the served game (an evaluation of one's own costs a few times the reference's, not fifty)."""

OUTSIDE_FLOOR = 0.02
"""Seconds below which a move is never counted as searching outside: too little to search with."""

FAR_ABOVE = 25 / 3
"""How much higher a rating (openskill's mu) is far above another's: more than a newcomer's
uncertainty (the model's first sigma), so that the game was the stronger one's to win."""

CENTRE_COLUMNS = (3, 4, 5)
"""An agent's first move outside these columns, with the centre still open, is an odd one."""


@dataclass(frozen=True)
class Usage:
    """One agent's moves as the grader served and timed them."""

    name: str
    moves: int = 0
    states: int = 0
    seconds: float = 0.0
    outside: int = 0  # moves whose time is far beyond what their states explain (`outside`)

    @property
    def states_per_move(self) -> float:
        return self.states / self.moves if self.moves else 0.0

    @property
    def seconds_per_move(self) -> float:
        return self.seconds / self.moves if self.moves else 0.0

    @property
    def searches_outside(self) -> bool:
        """Whether most of its moves took far longer than the states they were served explain.

        Judged move by move, not on the total: an own search takes its time on every move it
        thinks, while a stall of the machine (a page fault on a busy disk, say) lengthens one
        move of an honest agent, and must not decide the flag on its own."""
        return 2 * self.outside > self.moves


def outside(states: int, seconds: float) -> bool:
    """Whether one move's `seconds` are far beyond what its `states` served explain."""
    if seconds < OUTSIDE_FLOOR:
        return False
    return seconds > OUTSIDE_FACTOR * REFERENCE_SECONDS_PER_STATE * max(states, 1)


def usage(moves: Sequence[tuple[int, float]], name: str = "") -> Usage:
    """The `Usage` of (states, seconds) pairs, one per move the agent was asked."""
    states, seconds = sum(s for s, _ in moves), sum(t for _, t in moves)
    return Usage(name, len(moves), states, seconds, sum(outside(s, t) for s, t in moves))


def game_usage(games: Sequence[PlayedGame]) -> dict[str, Usage]:
    """Each agent's `Usage` over the moves it chose itself in `games` (not those forfeited)."""
    moves: dict[str, list] = defaultdict(list)
    for game in games:
        for index, move in enumerate(game.moves):
            if not move.note:
                moves[game.players[game.mover(index)]].append((move.states, move.seconds))
    return {name: usage(pairs, name) for name, pairs in moves.items()}


def usage_flags(used: Usage, differs_between_runs: bool = False) -> list[str]:
    """What the instructor is told about an agent's use of its allowance ([] if nothing)."""
    flags = []
    if used.searches_outside:
        served = f"{used.states_per_move:,.0f} states served" if used.states else "no state served"
        flags.append(
            f"searches outside the served game: {used.seconds_per_move:.3f} s a move for "
            f"{served}, {used.outside} of its {used.moves} moves far beyond what their states "
            f"explain (the reference: about {REFERENCE_SECONDS_PER_STATE * 1e6:g} µs a state)"
        )
    if differs_between_runs:
        flags.append("its moves depend on its own clock: asked the same positions twice, it "
                     "answered differently")  # fmt: skip
    return flags


# -- thrown games ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Thrown:
    """A game an agent rated far above its opponent played as if to lose."""

    number: int
    strong: str
    weak: str
    what: str
    signal: str = ""  # the same odd first move of both agents, if any


def thrown_games(
    games: Sequence[PlayedGame], ratings: Mapping[str, tuple[float, float]]
) -> list[Thrown]:
    """The games (numbered from 1 in `games` order) where the agent rated far above the other
    (its mu more than `FAR_ABOVE` higher) missed a win in one or let a loss in one through, with
    any odd first move both agents share. `ratings` maps a name to (mu, sigma)."""
    odd = _odd_first_moves(games)
    found = []
    for number, game in enumerate(games, start=1):
        for side in (0, 1):
            strong, weak = game.players[side], game.players[1 - side]
            mu, other_mu = ratings.get(strong, (0, 0))[0], ratings.get(weak, (0, 0))[0]
            if strong == weak or mu - other_mu <= FAR_ABOVE:
                continue
            what = _blunder(game, side)
            if what:
                shared = odd.get(strong, set()) & odd.get(weak, set())
                signal = ", ".join(f"column {c}" for c in sorted(shared))
                found.append(Thrown(number, strong, weak, what, signal))
    return found


def _blunder(game: PlayedGame, side: int) -> str:
    """The first move of `side` that missed a win in one or let a loss in one through ("")."""
    state = ConnectFour.from_moves(game.opening)
    for index, move in enumerate(game.moves):
        if game.mover(index) == side and not move.note:
            wins = _winning_columns(state)
            after = GAME.result(state, move.column)
            if wins and move.column not in wins:
                return f"move {index + 1}: column {move.column}, with a win in one at {wins[0]}"
            if not wins and _winning_columns(after) and _could_block(state):
                return f"move {index + 1}: column {move.column} let a win in one through"
        state = GAME.result(state, move.column)
    return ""


def _winning_columns(state: ConnectFourState) -> list[int]:
    if GAME.is_terminal(state):
        return []
    mover = GAME.to_move(state)  # "MAX" or "MIN", as `winner` names the side that won
    return [c for c in GAME.actions(state) if GAME.winner(GAME.result(state, c)) == mover]


def _could_block(state: ConnectFourState) -> bool:
    """Whether some move in `state` leaves the opponent no win in one."""
    return any(not _winning_columns(GAME.result(state, c)) for c in GAME.actions(state))


def _odd_first_moves(games: Sequence[PlayedGame]) -> dict[str, set[int]]:
    """Each agent's first moves, over its games, that were odd: off the centre columns while a
    centre column was open."""
    odd: dict[str, set[int]] = defaultdict(set)
    for game in games:
        state = ConnectFour.from_moves(game.opening)
        firsts: set[int] = set()
        for index, move in enumerate(game.moves):
            side = game.mover(index)
            open_centre = any(c in GAME.actions(state) for c in CENTRE_COLUMNS)
            if side not in firsts and not move.note:
                firsts.add(side)
                if move.column not in CENTRE_COLUMNS and open_centre:
                    odd[game.players[side]].add(move.column)
            state = GAME.result(state, move.column)
            if len(firsts) == 2:
                break
    return odd
