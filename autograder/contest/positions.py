"""Assignment 5's test suite of positions: one move in each, judged by the exact solver's verdict.

Like a chess engine's EPD suite: the agent is given positions of the middle game (12 to 35
stones, reached by random play) one at a time, as the first move of a game from there, within
the grading's allowance, and the move it plays either keeps the position's value or throws it
away. A won position is kept by a move that still wins, a drawn one by a move that still draws;
the suite holds no lost position and none where every move keeps the value, or where a move wins
at once. The verdicts are frozen in `frozen_positions.py` by `make_positions.py`, which solves
every position and its children with `solutions.connect_four.ConnectFourSolver`.

The rule pays by the share of positions kept, between a floor and a target (`levels.share_points`).
A move forfeited (out of states or CPU time), an illegal answer or a crash keeps nothing.

The answers stay hidden. A term's suite is drawn from a larger frozen pool by a course seed
(`course_positions`: `--course-seed`, or the `AUTOGRADER_COURSE_SEED` variable, which the
notebook's kernel reads too), so one term's answers do not carry to the next; and what a
student sees of the rule is a count of the positions kept in each phase of the game (stones
on the board), never which positions were lost or which columns keep a value.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

from autograder.contest.frozen_positions import FROZEN_POSITIONS
from autograder.contest.levels import LEVELS, Level, contest_rules, share_points
from autograder.contest.opponents import AGENT_FUNCTION, GRADING, Allowance, Choice, Player
from autograder.contest.referee import PlayedGame
from autograder.grading.judge import Verdict
from autograder.grading.records import GroupResult, RuleResult
from games.connect_four import ConnectFour


@dataclass(frozen=True)
class Position:
    """A position of the suite: its move string, its value for the player to move ("win" or
    "draw") and the columns that keep that value, as a string of digits ("34")."""

    moves: str
    value: str
    keeping: str

    @property
    def side(self) -> int:
        """The side to move: 0 (X) or 1 (O)."""
        return len(self.moves) % 2


POOL = tuple(Position(*position) for position in FROZEN_POSITIONS)
"""Every position solved offline: the pool a term's suite is drawn from."""

SUITE_SIZE = 60
"""Positions a term's suite asks about."""

DEFAULT_COURSE_SEED = 2026
"""The seed of a course that sets none: its suite is the pool's first `SUITE_SIZE` positions,
the suite the contest's floors and targets and the example class's grades were measured on."""

COURSE_SEED_VARIABLE = "AUTOGRADER_COURSE_SEED"
"""The environment variable that sets the course seed where no option does (the notebook's
kernel under `nbgrader autograde` reads it as the grader does)."""

PHASES = ((12, 17), (18, 23), (24, 35))
"""The phases of the game a student's count of kept positions is given by: stones on the board."""


def course_seed(seed: int | None = None) -> int:
    """`seed`, else the `AUTOGRADER_COURSE_SEED` variable, else `DEFAULT_COURSE_SEED`.

    Raises:
        ValueError: the variable is set to something that is not an integer.
    """
    if seed is not None:
        return seed
    text = os.environ.get(COURSE_SEED_VARIABLE, "").strip()
    if not text:
        return DEFAULT_COURSE_SEED
    try:
        return int(text)
    except ValueError:
        message = f"{COURSE_SEED_VARIABLE} is a whole number (the course seed): {text!r}"
        raise ValueError(message) from None


def course_positions(seed: int | None = None) -> tuple[Position, ...]:
    """The suite of a course whose seed is `seed` (see `course_seed`): `SUITE_SIZE` positions
    of the pool, as many in each phase as the default suite has, so that every term's suite is
    as hard as the one the floors and targets were measured on."""
    seed = course_seed(seed)
    first = POOL[:SUITE_SIZE]
    if seed == DEFAULT_COURSE_SEED:
        return first
    rng, chosen = random.Random(seed), []
    for phase in PHASES:
        wanted = sum(_phase_of(position) == phase for position in first)
        chosen += rng.sample([p for p in POOL if _phase_of(p) == phase], wanted)
    order = {position: index for index, position in enumerate(POOL)}
    return tuple(sorted(chosen, key=order.__getitem__))


def _phase_of(position: Position) -> tuple[int, int]:
    stones = len(position.moves)
    return next(phase for phase in PHASES if phase[0] <= stones <= phase[1])


POSITIONS = course_positions(DEFAULT_COURSE_SEED)
"""The default course's suite."""

POSITIONS_RULE = "agent_keeps_the_value"
POSITIONS_POINTS = 20.0
POSITIONS_GROUP = "positions solved exactly"
POSITIONS_FLOOR, POSITIONS_TARGET = 0.5, 0.75
"""The shares of positions kept that earn nothing, and all the rule's points."""


def play_positions(
    agent: Player, allowance: Allowance = GRADING, positions: tuple[Position, ...] | None = None
) -> tuple[Choice, ...]:
    """Ask `agent` for one move in each position (as a game's first move from there, so its
    `random` is seeded from the position and its colour); return its choices in order. The
    positions are the course's suite (`course_positions()`) unless given."""
    positions = course_positions() if positions is None else positions
    choices = []
    for position in positions:
        agent.new_game(position.moves, position.side)
        choices.append(agent.choose(ConnectFour.from_moves(position.moves), allowance))
    return tuple(choices)


def positions_rule(
    choices: tuple[Choice, ...], positions: tuple[Position, ...] | None = None
) -> RuleResult:
    """Grade the moves `play_positions` got: the share of positions whose value they keep.

    A verdict per phase of the game (`PHASES`) says how many of its positions were kept, and
    nothing of which: the rule's verdicts are what every page a student sees shows.

    Raises:
        ValueError: there are not as many choices as positions.
    """
    positions = course_positions() if positions is None else positions
    if len(choices) != len(positions) and choices:
        raise ValueError(f"{len(choices)} moves for {len(positions)} positions")
    pairs = list(zip(positions, choices, strict=False))
    kept = sum(keeps(position, choice) for position, choice in pairs)
    verdicts = _phase_verdicts(pairs)
    share = kept / len(positions) if pairs else 0.0
    points = share_points(POSITIONS_POINTS, share, POSITIONS_FLOOR, POSITIONS_TARGET)
    description = (
        f"keeps the value of {kept} of {len(positions)} positions (a won one won, a drawn one "
        f"drawn); the points grow from {POSITIONS_FLOOR * 100:g}% of them to "
        f"{POSITIONS_TARGET * 100:g}%"
    )
    group = GroupResult(POSITIONS_GROUP, AGENT_FUNCTION, points, POSITIONS_POINTS, verdicts)
    return RuleResult(POSITIONS_RULE, description, points, POSITIONS_POINTS, (group,))


def keeps(position: Position, choice: Choice) -> bool:
    """Whether `choice` is a move that keeps `position`'s value."""
    return choice.status == "moved" and str(choice.column) in position.keeping


def _phase_verdicts(pairs: list[tuple[Position, Choice]]) -> tuple[Verdict, ...]:
    """One verdict per phase: how many of its positions were kept, and why a move was missing."""
    verdicts = []
    for phase in PHASES:
        asked = [(position, choice) for position, choice in pairs if _phase_of(position) == phase]
        if not asked:
            continue
        kept = sum(keeps(position, choice) for position, choice in asked)
        missing = [choice for _, choice in asked if choice.status != "moved"]
        got = f"kept the value of {kept} of {len(asked)}"
        if missing:
            statuses = sorted({choice.status for choice in missing})
            got += f"; {len(missing)} without a move ({', '.join(statuses)})"
        verdicts.append(
            Verdict(
                instance=f"positions with {phase[0]} to {phase[1]} stones",
                passed=kept == len(asked),
                expected=f"a move keeping the value (a win won, a draw drawn) in all {len(asked)}",
                got=got,
                hint=missing[0].error if missing else "",
            )
        )
    return tuple(verdicts)


def graded_rules(
    games: dict[str, tuple[PlayedGame, ...]],
    choices: tuple[Choice, ...],
    agent_name: str,
    levels: tuple[Level, ...] = LEVELS,
    positions: tuple[Position, ...] | None = None,
) -> tuple[RuleResult, ...]:
    """Every rule of the contest, in order: the levels' (`levels.contest_rules`), the suite of
    positions' (the course's, unless `positions` are given), then moving in time."""
    played = contest_rules(games, agent_name, levels)
    return (*played[:-1], positions_rule(choices, positions), played[-1])
