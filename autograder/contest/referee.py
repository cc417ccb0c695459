"""Assignment 5's contest: the referee of Connect Four games, and the grading of an agent's play.

The referee (`play_game`) plays one game from an opening between two `Player`s (see
`opponents.py`; a submission's agent is `student_agent.StudentAgent`), enforcing these rules:

- Each move has an `Allowance`: a budget of states generated through `game.result`
  (`DEFAULT_STATES` when grading), past which `result` raises `games.OutOfStates`, and CPU
  seconds in the agent's own processes (`DEFAULT_SECONDS`) for what it computes besides. No
  rule reads the wall clock, so a busy machine slows a game down but never changes it. A move
  not returned within its allowance is forfeited: the agent let `OutOfStates` escape, or used
  its CPU time (its process is stopped and started again for its next move), or slept past
  the wall-clock safety net, far beyond the CPU time. The grader plays the legal column
  nearest the centre instead, says so in `Move.note`, and the game goes on. After
  `opponents.MAX_STOPS` moves stopped for time, an agent's later moves are forfeited unasked.
- A player that crashes (raises, dies, or floods the grader) or returns anything but a legal
  column (an int 1..7 of a column that is not full: `True` is not 1, and a state is not a
  column) loses that game; the other games are still played.
- The agent's `random` is seeded at each game's first move from the opening and its colour.

The grading (`play_contest`, then `contest_rules`) plays the agent against opponents of rising
strength, from `OPENINGS` (both colours) and `ENDGAMES`; a level earns its points when the
agent's share of the points of its games (a win 1, a draw 1/2) reaches `needed`:

| rule                | opponent                    | games                      | points | needed |
|---------------------|-----------------------------|----------------------------|--------|--------|
| agent_beats_random  | random columns (seeded)     | 2 openings, as X and as O  | 10     | 1      |
| agent_beats_depth_2 | alpha-beta, depth 2         | 2 openings, as X and as O  | 25     | 1      |
| agent_beats_depth_4 | alpha-beta, depth 4         | 2 openings, both colours   | 25     | 1/2    |
| agent_wins_endgames | the exact solver, defending | 4 end-games, a forced win  | 20     | 3/4    |
| agent_moves_in_time | (all the games above)       | every move of every game   | 20     | 1      |

The opponents use the course's evaluation, a judgement that limits every agent that uses it,
so a deeper search wins more often, not always: searching 8 plies, alpha-beta scores 11.5 of 16
against depth 2 on `OPENINGS`. The levels therefore play the openings on which the reference
agent's results were the same at every thinking time from 0.05 to 0.25 s (they are at every
budget from 1,000 to 8,000 states a move too), and ask depth 4 for half the points only.

The opponents are deterministic (the random one is seeded from the opening and the side), so
an agent whose moves depend only on what it is given gets the same games and grade every run.

Time: a game from a four-move opening leaves the agent at most 19 moves, and the end-games at
most 6, 8, 5 and 5, so the contest has at most 8 * 19 + 24 = 176 agent moves. The reference
agent, which spends its budget on every move, takes about 8 s through the sandbox; an agent
stuck in a loop costs `MAX_STOPS` (2) moves' CPU time, an agent asleep two safety nets.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

from autograder.contest.opponents import (
    AGENT_FUNCTION,
    DEFAULT_SECONDS,
    DEFAULT_STATES,
    GAME,
    GRADING,
    Allowance,
    AlphaBetaPlayer,
    Choice,
    FunctionPlayer,
    Player,
    RandomPlayer,
    SolverPlayer,
    centre_first,
)
from autograder.grading.judge import Verdict
from autograder.grading.records import GroupResult, RuleResult
from games.connect_four import ConnectFour, ConnectFourState

__all__ = [
    "AGENT_FUNCTION",
    "DEFAULT_SECONDS",
    "DEFAULT_STATES",
    "ENDGAMES",
    "GRADING",
    "LEVELS",
    "OPENINGS",
    "Allowance",
    "AlphaBetaPlayer",
    "Choice",
    "FunctionPlayer",
    "Level",
    "Move",
    "PlayedGame",
    "Player",
    "RandomPlayer",
    "SolverPlayer",
    "contest_rules",
    "play_contest",
    "play_game",
]

MARKS = ("X", "O")
LOST = "(the game is lost)"

OPENINGS = ("3526", "3625", "3665", "4265", "4326", "3223", "3225", "3232")
"""Eight balanced four-move openings (move strings; X is to move after them).

Chosen among the four-move openings that start in column 3 or 4 and stay in columns 2..6
(mirror images counted once): those the course's evaluation rates within +-0.1 and a depth-6
alpha-beta search (`opponents.alphabeta_move`) within +-0.02, the eight with the smallest
depth-6 value taken, ties in move-string order. The contest plays each from both sides.
"""

ENDGAMES = (
    "542127277344125544741167112372",
    "357325652462346636765327521",
    "736762432516316567126221231153537",
    "33411516157261762621233255665537",
)
"""End-games where the player to move has a forced win, in 7 or 9 plies, that a depth-2 search
misses (its move does not win): found by random play from a fixed seed and checked with
`ConnectFourSolver`. The agent plays the side to move; the solver defends."""


@dataclass(frozen=True)
class Move:
    """One move of a game: the column played, the states the player generated for it (0 for
    the grader's opponents), and why the grader played it, if it did ("" when the player
    chose it)."""

    column: int
    states: int = 0
    note: str = ""


@dataclass(frozen=True)
class PlayedGame:
    """One finished game: who played, from which opening, every move, and how it ended.

    `winner` is 0 (the first player, X, MAX), 1 (the second, O, MIN) or None for a draw.
    """

    opening: str
    players: tuple[str, str]
    moves: tuple[Move, ...]
    winner: int | None
    ended: str

    def score(self, side: int) -> float:
        """The points of `side` (0 or 1): 1 for a win, 0.5 for a draw, 0 for a loss."""
        if side not in (0, 1):
            raise ValueError(f"side is 0 (the first player) or 1 (the second), not {side!r}")
        return 0.5 if self.winner is None else float(self.winner == side)

    def mover(self, index: int) -> int:
        """The side (0 or 1) that played `moves[index]`."""
        return (len(self.opening) + index) % 2

    def final_state(self) -> ConnectFourState:
        """The position the game ended in (after an illegal answer: the one it was given)."""
        return ConnectFour.from_moves(self.opening + "".join(str(m.column) for m in self.moves))

    def to_json(self) -> dict:
        return {
            "opening": self.opening,
            "players": list(self.players),
            "moves": [[move.column, move.states, move.note] for move in self.moves],
            "winner": self.winner,
            "ended": self.ended,
        }

    @classmethod
    def from_json(cls, data: dict) -> PlayedGame:
        return cls(
            opening=data["opening"],
            players=tuple(data["players"]),
            moves=tuple(Move(*move) for move in data["moves"]),
            winner=data["winner"],
            ended=data["ended"],
        )


# --- The referee -----------------------------------------------------------------------------


def play_game(
    first: Player, second: Player, opening: str = "", allowance: Allowance = GRADING
) -> PlayedGame:
    """Play `first` (X) against `second` (O) from the position after `opening`, to the end,
    each move within `allowance`.

    Raises:
        ValueError: `opening` is not a move string of an unfinished game.
    """
    state = ConnectFour.from_moves(opening)
    if GAME.is_terminal(state):
        raise ValueError(f"the opening {opening!r} has already ended the game")
    players, moves = (first, second), []
    first.new_game(opening, 0)
    second.new_game(opening, 1)
    while not GAME.is_terminal(state):
        side = GAME.moves_played(state) % 2
        move, fault = _referee(players[side].choose(state, allowance), GAME.actions(state))
        if fault:
            ended = f"{MARKS[side]} {fault} {LOST}"
            return PlayedGame(opening, _names(players), tuple(moves), 1 - side, ended)
        moves.append(move)
        state = GAME.result(state, move.column)
    winner = {None: None, "MAX": 0, "MIN": 1}[GAME.winner(state)]
    ended = "the board is full" if winner is None else f"{MARKS[winner]} has four in a row"
    return PlayedGame(opening, _names(players), tuple(moves), winner, ended)


def _referee(choice: Choice, legal: list[int]) -> tuple[Move | None, str]:
    """The move a choice makes, or why it loses the game: (move, "") or (None, fault)."""
    if choice.status == "moved" and type(choice.column) is int and choice.column in legal:
        return Move(choice.column, choice.states), ""
    if choice.status in ("forfeited", "stopped"):
        column = centre_first(legal)[0]
        note = f"forfeited: {choice.error}; the grader played column {column}"
        return Move(column, choice.states, note), ""
    if choice.status == "crashed":
        return None, f"crashed: {choice.error}"
    if choice.status == "illegal":
        return None, choice.error
    return None, f"returned {choice.column!r}, not a legal column of {legal}"


def _names(players: tuple[Player, Player]) -> tuple[str, str]:
    return players[0].name, players[1].name


# --- The assignment's grading ----------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    """One level of the contest: an opponent (made from a seed), the games against it (opening,
    the agent's side), their points, and the share of the games' points needed to earn them."""

    name: str
    opponent: Callable[[int], Player]
    points: float
    games: tuple[tuple[str, int], ...]
    needed: float
    rule_id: str = ""


LEVELS = (
    Level(
        "random", RandomPlayer, 10, ((OPENINGS[0], 0), (OPENINGS[1], 1)), 1.0, "agent_beats_random"
    ),
    Level(
        "alpha-beta depth 2",
        lambda seed: AlphaBetaPlayer(2),
        25,
        ((OPENINGS[3], 0), (OPENINGS[5], 1)),
        1.0,
        "agent_beats_depth_2",
    ),
    Level(
        "alpha-beta depth 4",
        lambda seed: AlphaBetaPlayer(4),
        25,
        ((OPENINGS[0], 0), (OPENINGS[0], 1), (OPENINGS[1], 0), (OPENINGS[1], 1)),
        0.5,
        "agent_beats_depth_4",
    ),
    Level(
        "end-games against the solver",
        SolverPlayer,
        20,
        tuple((position, len(position) % 2) for position in ENDGAMES),
        0.75,
        "agent_wins_endgames",
    ),
)
"""The levels of assignment 5, weakest opponent first (see the module's table)."""

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

    Each game becomes a `Verdict` (passed: the agent won it); a level's points are earned when
    the agent's share of its games' points reaches the level's `needed`. The last rule earns
    its points when every move of every game was a legal column returned within its allowance
    (no move forfeited).

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


def _level_rule(level: Level, games: tuple[PlayedGame, ...], agent_name: str) -> RuleResult:
    verdicts = tuple(_game_verdict(game, agent_name) for game in games)
    share = sum(game.score(_side(game, agent_name)) for game in games) / max(1, len(games))
    points = level.points if games and share >= level.needed - 1e-9 else 0.0
    description = (
        f"beats {level.name}: at least {level.needed:.0%} of the points of {len(games)} games "
        "(a win 1, a draw 1/2)"
    )
    group = GroupResult(level.name, AGENT_FUNCTION, points, level.points, verdicts)
    return RuleResult(level.rule_id or level.name, description, points, level.points, (group,))


def _in_time_rule(games: list[PlayedGame], agent_name: str) -> RuleResult:
    verdicts = tuple(_in_time_verdict(game, agent_name) for game in games)
    passed = bool(verdicts) and all(verdict.passed for verdict in verdicts)
    points = IN_TIME_POINTS if passed else 0.0
    description = (
        "every move of every game is a legal column, returned within its states and CPU time"
    )
    group = GroupResult(IN_TIME_GROUP, AGENT_FUNCTION, points, IN_TIME_POINTS, verdicts)
    return RuleResult(IN_TIME_RULE, description, points, IN_TIME_POINTS, (group,))


def _game_verdict(game: PlayedGame, agent_name: str) -> Verdict:
    side = _side(game, agent_name)
    result = {1.0: "a win", 0.5: "a draw", 0.0: "a loss"}[game.score(side)]
    forfeits = _forfeits(game, side)
    hint = ""
    if forfeits:
        hint = f"{len(forfeits)} of your moves were forfeited, e.g. {forfeits[0].note}"
    return Verdict(
        instance=f"{_where(game)}, agent plays {MARKS[side]}",
        passed=game.score(side) == 1.0,
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
