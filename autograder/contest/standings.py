"""The tournament's ratings: each agent's openskill rating (Plackett-Luce, the games taken in a
fixed order) and record, as the leaderboard shows them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from autograder.contest import referee
from autograder.contest.referee import PlayedGame


@dataclass(frozen=True)
class Standing:
    """An agent's rating and record."""

    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0  # moves over time, played by the grader
    crashes: int = 0  # games lost by a crash or an illegal move


def game_order(game: PlayedGame) -> tuple:
    """The order the games are rated and numbered in: by pair, opening, then colour."""
    return (*sorted(game.players), game.opening, game.players)


def rate(games: Sequence[PlayedGame], names: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Each agent's (mu, sigma) after the games, taken in `game_order`."""
    from openskill.models import PlackettLuce  # here: only the tournament rates, and every
    # `python -m autograder` command imports this module through the tournament's parser

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    for game in sorted(games, key=game_order):
        first, second = game.players
        ranks = [0, 0] if game.winner is None else [game.winner, 1 - game.winner]
        [[ratings[first]], [ratings[second]]] = model.rate(
            [[ratings[first]], [ratings[second]]], ranks=ranks
        )
    return {name: (rating.mu, rating.sigma) for name, rating in ratings.items()}


def standings(games: Sequence[PlayedGame], names: Sequence[str]) -> list[Standing]:
    """Every playing agent's rating and record, best conservative rating (mu - 3 sigma) first."""
    record = {name: Counter() for name in names}
    for game in games:
        forfeited = [game.mover(index) for index, move in enumerate(game.moves) if move.note]
        for side, name in enumerate(game.players):
            score = game.score(side)
            record[name]["wins" if score == 1 else "draws" if score == 0.5 else "losses"] += 1
            record[name].update(games=1, forfeits=forfeited.count(side))
            record[name]["crashes"] += crashed(game, side)
    rows = [
        Standing(name, mu, sigma, mu - 3 * sigma, **record[name])
        for name, (mu, sigma) in rate(games, names).items()
    ]
    return sorted(rows, key=lambda row: (-row.ordinal, row.name))


def crashed(game: PlayedGame, side: int) -> bool:
    """Whether `side` lost the game by a crash or an illegal answer (the referee's words)."""
    mark = referee.MARKS[side]
    faulted = game.ended.startswith(f"{mark} ") and game.ended.endswith(referee.LOST)
    return game.winner == 1 - side and faulted
