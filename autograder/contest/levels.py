"""Assignment 5's grading by play: the levels, their games, and the points of a share.

`play_contest` plays the agent against opponents of rising strength through the referee
(`referee.play_game`), from `referee.OPENINGS` and `referee.ENDGAMES`; `contest_rules` turns
the games into `RuleResult`s. A level pays by the agent's share of its games' points (a win 1,
a draw 1/2), in proportion between a floor and a target (`share_points`): nothing at the floor
or below, all the level's points at the target or above, so one game more or less moves the
grade by a step, never by a whole level. The in-time rule pays by the share of the games in
which every move of the agent was a legal column returned within its allowance. (The test suite
of positions, the sixth rule, is `positions.py`'s.) See `referee.py`'s docstring for the table.

The floors and targets come from measurements at the grading's allowance: the reference agent
reaches every target with a game (depth 2) or half a game (depth 4) to spare, a greedy or random
agent stays near the floors, and the example agent that beats another head to head is graded
above it (`tests/test_contest_grades.py`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

from autograder.contest.opponents import (
    AGENT_FUNCTION,
    GAME,
    GRADING,
    Allowance,
    AlphaBetaPlayer,
    Player,
    RandomPlayer,
    SolverPlayer,
)
from autograder.contest.referee import (
    ENDGAMES,
    LOST,
    MARKS,
    OPENINGS,
    Move,
    PlayedGame,
    play_game,
)
from autograder.grading.judge import Verdict
from autograder.grading.records import GroupResult, RuleResult


def share_points(points: float, share: float, floor: float, target: float) -> float:
    """`points` times where `share` lies between `floor` (0) and `target` (1), clamped to 0..1
    and rounded to hundredths of a point.

    >>> share_points(20, 0.75, 0.5, 1.0)
    10.0
    """
    if not 0 <= floor < target <= 1:
        raise ValueError(f"a floor and a target are shares with floor < target: {floor}, {target}")
    fraction = min(1.0, max(0.0, (share - floor) / (target - floor)))
    return round(points * fraction + 1e-9, 2)


@dataclass(frozen=True)
class Level:
    """One level of the contest: an opponent (made from a seed), the games against it (opening,
    the agent's side), their points, and the shares of the games' points that earn nothing
    (`floor`) and all of them (`target`)."""

    name: str
    opponent: Callable[[int], Player]
    points: float
    games: tuple[tuple[str, int], ...]
    floor: float
    target: float
    rule_id: str = ""


ALTERNATE_SIDES = tuple((opening, index % 2) for index, opening in enumerate(OPENINGS))
"""Each opening once, the agent X in the first, O in the second, and so on: 8 games."""

OTHER_SIDES = tuple((opening, 1 - side) for opening, side in ALTERNATE_SIDES)
"""Each opening once, with the other colour: with `ALTERNATE_SIDES`, every opening from both
sides (the depth-2 level plays one half, the depth-4 level the other)."""

LEVELS = (
    Level("random", RandomPlayer, 10, ALTERNATE_SIDES, 0.5, 1.0, "agent_beats_random"),
    Level(
        "alpha-beta depth 2",
        lambda seed: AlphaBetaPlayer(2),
        20,
        ALTERNATE_SIDES,
        0.25,
        0.75,
        "agent_beats_depth_2",
    ),
    Level(
        "alpha-beta depth 4",
        lambda seed: AlphaBetaPlayer(4),
        20,
        OTHER_SIDES,
        0.125,
        0.625,
        "agent_beats_depth_4",
    ),
    Level(
        "end-games against the solver",
        SolverPlayer,
        10,
        tuple((position, len(position) % 2) for position in ENDGAMES),
        0.0,
        0.75,
        "agent_wins_endgames",
    ),
)
"""The levels of assignment 5, weakest opponent first (see `referee.py`'s table)."""

SECOND_COPY = ("random", "alpha-beta depth 4")
"""The levels a second copy of the agent plays, loaded afresh; the first copy plays the other
levels and then the suite of positions. Each copy keeps its own module-level data and restarts
from one game to the next, so what one plays never depends on the other's games, and both can
play at once on two CPUs (`autograder.contest.copies`). The split halves the reference agent's
served states (about 5.8 and 5.6 s of its 11.4 s, one after the other)."""


def copy_levels(levels: tuple[Level, ...], second: bool) -> tuple[Level, ...]:
    """The levels of `levels` that the second copy of the agent plays (`second`), or the first."""
    return tuple(level for level in levels if (level.name in SECOND_COPY) == second)


IN_TIME_RULE = "agent_moves_in_time"
IN_TIME_POINTS = 20.0
IN_TIME_GROUP = "legal moves in time"


def play_contest(
    agent: Player, allowance: Allowance = GRADING, levels: tuple[Level, ...] = LEVELS
) -> dict[str, tuple[PlayedGame, ...]]:
    """Play every game of every level with `agent`; return each level's games by its name.

    The opponent of a game is made afresh from a seed of its opening and side, and closed
    after it; the agent is the caller's to close.
    """
    played = {}
    for level in levels:
        games = []
        for opening, side in level.games:
            opponent = level.opponent(zlib.crc32(f"{opening}/{side}".encode()))
            try:
                first, second = (agent, opponent) if side == 0 else (opponent, agent)
                games.append(play_game(first, second, opening, allowance))
            finally:
                opponent.close()
        played[level.name] = tuple(games)
    return played


def contest_rules(
    games: dict[str, tuple[PlayedGame, ...]],
    agent_name: str,
    levels: tuple[Level, ...] = LEVELS,
) -> tuple[RuleResult, ...]:
    """Grade the games `play_contest` played: a rule per level, and one for moving in time.

    Each game becomes a `Verdict` (passed: the agent won it); a level pays by the agent's share
    of its games' points (`share_points`). A game in which the grader played every move of the
    agent (each forfeited) is not the agent's game: it counts as a loss. The last rule pays by
    the share of the games in which every move of the agent was a legal column returned within
    its allowance (none forfeited, no illegal answer, no crash).

    Raises:
        ValueError: a level of `games` is not in `levels`, or `agent_name` did not play a game.
    """
    by_name = {level.name: level for level in levels}
    unknown = sorted(set(games) - set(by_name))
    if unknown:
        raise ValueError(f"no level is called {unknown}; the levels are {sorted(by_name)}")
    rules = [_level_rule(by_name[name], played, agent_name) for name, played in games.items()]
    every_game = [game for played in games.values() for game in played]
    rules.append(_in_time_rule(every_game, agent_name))
    return tuple(rules)


def agent_score(game: PlayedGame, side: int) -> float:
    """The agent's points of a game (a win 1, a draw 1/2), 0 if the grader played all its moves."""
    moves = [move for index, move in enumerate(game.moves) if game.mover(index) == side]
    if moves and all(move.note for move in moves):
        return 0.0
    return game.score(side)


def _level_rule(level: Level, games: tuple[PlayedGame, ...], agent_name: str) -> RuleResult:
    verdicts = tuple(_game_verdict(game, agent_name) for game in games)
    scores = [agent_score(game, _side(game, agent_name)) for game in games]
    share = sum(scores) / len(scores) if scores else 0.0
    points = share_points(level.points, share, level.floor, level.target)
    description = (
        f"beats {level.name}: {sum(scores):g} of the points of {len(games)} games (a win 1, a "
        f"draw 1/2); the points grow from {level.floor * 100:g}% of them to {level.target * 100:g}%"
    )
    group = GroupResult(level.name, AGENT_FUNCTION, points, level.points, verdicts)
    return RuleResult(level.rule_id or level.name, description, points, level.points, (group,))


def _in_time_rule(games: list[PlayedGame], agent_name: str) -> RuleResult:
    verdicts = tuple(_in_time_verdict(game, agent_name) for game in games)
    clean = sum(verdict.passed for verdict in verdicts)
    share = clean / len(verdicts) if verdicts else 0.0
    points = share_points(IN_TIME_POINTS, share, 0.0, 1.0)
    description = (
        f"every move a legal column, returned within its states and CPU time, in {clean} of "
        f"{len(games)} games; each game is worth its share of the points"
    )
    group = GroupResult(IN_TIME_GROUP, AGENT_FUNCTION, points, IN_TIME_POINTS, verdicts)
    return RuleResult(IN_TIME_RULE, description, points, IN_TIME_POINTS, (group,))


def _game_verdict(game: PlayedGame, agent_name: str) -> Verdict:
    side = _side(game, agent_name)
    score = agent_score(game, side)
    result = {1.0: "a win", 0.5: "a draw", 0.0: "a loss"}[score]
    forfeits = _forfeits(game, side)
    hint = ""
    if forfeits:
        hint = f"{len(forfeits)} of your moves were forfeited, e.g. {forfeits[0].note}"
    if score != game.score(side):
        hint = f"the grader played every one of your moves (all forfeited): {forfeits[0].note}"
    return Verdict(
        instance=f"{_where(game)}, agent plays {MARKS[side]}",
        passed=score == 1.0,
        expected="a win",
        got=f"{result} in {len(game.moves)} moves: {game.ended}",
        hint=hint,
        picture=_picture(game),
    )


def _in_time_verdict(game: PlayedGame, agent_name: str) -> Verdict:
    side = _side(game, agent_name)
    forfeits = _forfeits(game, side)
    faulted = game.ended.startswith(f"{MARKS[side]} ") and game.ended.endswith(LOST)
    problems = [f"{len(forfeits)} moves forfeited"] if forfeits else []
    if faulted:
        problems.append(game.ended)
    moves = sum(game.mover(index) == side for index in range(len(game.moves)))
    return Verdict(
        instance=f"{_where(game)}, agent plays {MARKS[side]}",
        passed=not problems,
        expected="every move a legal column, within its allowance",
        got="; ".join(problems) or f"all {moves} moves legal and within their allowance",
        hint=forfeits[0].note if forfeits else "",
    )


def _side(game: PlayedGame, agent_name: str) -> int:
    if agent_name not in game.players:
        raise ValueError(f"{agent_name!r} did not play the game {game.players}")
    return game.players.index(agent_name)


def _forfeits(game: PlayedGame, side: int) -> list[Move]:
    return [move for i, move in enumerate(game.moves) if move.note and game.mover(i) == side]


def _where(game: PlayedGame) -> str:
    if len(game.opening) > 8:
        return f"end-game {game.opening}"
    return f"opening {game.opening}" if game.opening else "the empty board"


def _picture(game: PlayedGame) -> str:
    played = " ".join(str(move.column) for move in game.moves)
    return f"{GAME.display(game.final_state())}\nopening {game.opening or '-'}, then {played}"
