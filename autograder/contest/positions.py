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
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder.contest.frozen_positions import FROZEN_POSITIONS
from autograder.contest.levels import LEVELS, Level, contest_rules, share_points
from autograder.contest.opponents import AGENT_FUNCTION, GAME, GRADING, Allowance, Choice, Player
from autograder.contest.referee import MARKS, PlayedGame
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


POSITIONS = tuple(Position(*position) for position in FROZEN_POSITIONS)
"""The positions the grading asks about: the frozen suite."""

POSITIONS_RULE = "agent_keeps_the_value"
POSITIONS_POINTS = 20.0
POSITIONS_GROUP = "positions solved exactly"
POSITIONS_FLOOR, POSITIONS_TARGET = 0.5, 0.75
"""The shares of positions kept that earn nothing, and all the rule's points."""


def play_positions(
    agent: Player, allowance: Allowance = GRADING, positions: tuple[Position, ...] = POSITIONS
) -> tuple[Choice, ...]:
    """Ask `agent` for one move in each position (as a game's first move from there, so its
    `random` is seeded from the position and its colour); return its choices in order."""
    choices = []
    for position in positions:
        agent.new_game(position.moves, position.side)
        choices.append(agent.choose(ConnectFour.from_moves(position.moves), allowance))
    return tuple(choices)


def positions_rule(
    choices: tuple[Choice, ...], positions: tuple[Position, ...] = POSITIONS
) -> RuleResult:
    """Grade the moves `play_positions` got: the share of positions whose value they keep.

    Raises:
        ValueError: there are not as many choices as positions.
    """
    if len(choices) != len(positions) and choices:
        raise ValueError(f"{len(choices)} moves for {len(positions)} positions")
    verdicts = tuple(_verdict(p, c) for p, c in zip(positions, choices, strict=False))
    kept = sum(verdict.passed for verdict in verdicts)
    share = kept / len(positions) if verdicts else 0.0
    points = share_points(POSITIONS_POINTS, share, POSITIONS_FLOOR, POSITIONS_TARGET)
    description = (
        f"keeps the value of {kept} of {len(positions)} positions (a won one won, a drawn one "
        f"drawn); the points grow from {POSITIONS_FLOOR * 100:g}% of them to "
        f"{POSITIONS_TARGET * 100:g}%"
    )
    group = GroupResult(POSITIONS_GROUP, AGENT_FUNCTION, points, POSITIONS_POINTS, verdicts)
    return RuleResult(POSITIONS_RULE, description, points, POSITIONS_POINTS, (group,))


def _verdict(position: Position, choice: Choice) -> Verdict:
    keeping = ", ".join(position.keeping)
    expected = f"a move that keeps the {position.value}: column {keeping}".replace(
        "column ", "columns " if len(position.keeping) > 1 else "column "
    )
    if choice.status == "moved":
        kept = str(choice.column) in position.keeping
        outcome = "keeps it" if kept else f"throws the {position.value} away"
        got, hint = f"column {choice.column}, which {outcome}", ""
    else:
        kept, got, hint = False, f"no move ({choice.status})", choice.error
    state = ConnectFour.from_moves(position.moves)
    return Verdict(
        instance=f"position {position.moves} ({MARKS[position.side]} to move)",
        passed=kept,
        expected=expected,
        got=got,
        hint=hint,
        picture=f"{GAME.display(state)}\n{position.moves}, {MARKS[position.side]} to move",
    )


def graded_rules(
    games: dict[str, tuple[PlayedGame, ...]],
    choices: tuple[Choice, ...],
    agent_name: str,
    levels: tuple[Level, ...] = LEVELS,
) -> tuple[RuleResult, ...]:
    """Every rule of the contest, in order: the levels' (`levels.contest_rules`), the suite of
    positions', then moving in time."""
    played = contest_rules(games, agent_name, levels)
    return (*played[:-1], positions_rule(choices), played[-1])
