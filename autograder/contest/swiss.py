"""Swiss-system pairing for the tournament's big classes: a few rounds, each agent against one
of about its score, instead of every pair.

With n agents, all pairs are n(n-1)/2 matches; R Swiss rounds are about nR/2. About
log2(n) rounds separate the agents as a knock-out would, and a few more order the middle of the
table, so `rounds_for(n)` suggests ceil(log2 n) + 3. Each round pairs the agents by their
points so far (a game won 1, drawn 1/2), best first, each with the next one it has not played
yet; with an odd number of agents the lowest that has not had one yet sits the round out (a
bye, worth a match won). The pairing is a pure function of the agents and the games played,
and the games are the same every run, so the same class gets the same rounds every run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from autograder.contest.referee import PlayedGame

SEARCH_STEPS = 20_000
"""Candidates `pair_round` tries before it gives up avoiding rematches: enough for every class
that is not nearly exhausted (more rounds than half its agents), and a bound on the time."""


def rounds_for(agents: int) -> int:
    """The number of rounds this module suggests for a class of `agents`: ceil(log2 n) + 3."""
    return math.ceil(math.log2(max(agents, 2))) + 3


def pair_round(
    names: Sequence[str],
    points: dict[str, float],
    played: Iterable[frozenset[str]],
    byes: Iterable[str] = (),
) -> tuple[list[tuple[str, str]], str | None]:
    """One round's pairs, and the agent with the bye (None with an even number of agents).

    `points` is each agent's score so far (missing: 0), `played` the pairs that have met,
    `byes` the agents that have had a bye. The agents are ranked by points, then by name; the
    bye goes to the lowest ranked that has not had one; then each agent from the top meets the
    highest ranked it has not met, backtracking when that leaves the rest without such a
    partner. Only if no pairing avoids every rematch does one pair the ranking in order.
    """
    met = set(played)
    ranked = sorted(names, key=lambda name: (-points.get(name, 0.0), name))
    bye = None
    if len(ranked) % 2:
        had = set(byes)
        bye = next((name for name in reversed(ranked) if name not in had), ranked[-1])
        ranked.remove(bye)
    pairs = _without_rematches(ranked, met)
    if pairs is None:
        pairs = [(ranked[index], ranked[index + 1]) for index in range(0, len(ranked), 2)]
    return pairs, bye


def _without_rematches(ranked: list[str], met: set[frozenset[str]]) -> list | None:
    """Pairs of `ranked` (best first) none of which has met, found depth first: the best
    free agent meets the first free one below it that it has not met, and a choice that leaves
    the rest without such a pairing is undone for the next candidate. None if there is no such
    pairing, or the search took `SEARCH_STEPS` steps."""
    free, placed, start, steps = list(ranked), [], 0, 0
    while free:
        top, rest = free[0], free[1:]
        for index in range(start, len(rest)):
            steps += 1
            if steps > SEARCH_STEPS:
                return None
            if frozenset((top, rest[index])) not in met:
                placed.append((top, rest[index], index))
                free, start = rest[:index] + rest[index + 1 :], 0
                break
        else:  # no partner for `top`: undo the last pair, try its next candidate
            if not placed:
                return None
            top, other, index = placed.pop()
            free, start = [top, *free[:index], other, *free[index:]], index + 1
    return [(top, other) for top, other, _ in placed]


def points(games: Iterable[PlayedGame], byes: Iterable[str], bye_points: float) -> dict:
    """Each agent's points for the pairing: 1 a game won, 1/2 drawn, `bye_points` a bye."""
    scores: dict[str, float] = {}
    for game in games:
        for side, name in enumerate(game.players):
            scores[name] = scores.get(name, 0.0) + game.score(side)
    for name in byes:
        scores[name] = scores.get(name, 0.0) + bye_points
    return scores
