"""Assignment 5's contest: the referee of Connect Four games, and the grading of an agent's play.

The referee (`play_game`) plays one game from an opening between two `Player`s (see
`opponents.py`; a submission's agent is `student_agent.StudentAgent`), enforcing these rules:

- Each move has an `Allowance`: a budget of states generated through `game.result`
  (`DEFAULT_STATES` when grading), past which `result` raises `games.OutOfStates`, and CPU
  seconds in the agent's own processes (`DEFAULT_SECONDS`) for what it computes besides, its
  time asleep or blocked included (`sandbox/cpu.py`). Time spent waiting for a CPU is never
  charged, so a busy machine slows a game down but never changes it. A move not returned
  within its allowance is forfeited: the agent let `OutOfStates` escape, or used its time
  (its process is stopped and started again for its next move), or passed the wall-clock
  safety net. The CPU it uses after returning a move, before it is held, is taken from its
  next move, and its whole contest is bounded by every move's allowance added up. The grader
  plays the legal column nearest the centre instead, says so in `Move.note`, and the game goes
  on. After `opponents.MAX_STOPS` moves stopped for time, an agent's later moves are forfeited
  unasked.
- A player that crashes (raises, dies, or floods the grader) or returns anything but a legal
  column (an int 1..7 of a column that is not full: `True` is not 1, and a state is not a
  column) loses that game; the other games are still played.
- The agent's `random` is seeded at each game's first move from the opening and its colour.

The grading (`levels.py`: `play_contest`, then `contest_rules`; `positions.py`: the suite of
positions) plays the agent against opponents of rising strength from `OPENINGS` and
`ENDGAMES`, and asks it for one move in each position of a frozen suite. Each rule pays by a
share, in proportion between a floor (nothing) and a target (`top`: every point),
so one game more or less moves the grade by a step (`levels.share_points`):

| rule                  | against                | played                    | pts | floor | top   |
|-----------------------|------------------------|---------------------------|-----|-------|-------|
| agent_beats_random    | random columns, seeded | 8 openings, X, O in turn  | 10  | 50%   | 100%  |
| agent_beats_depth_2   | alpha-beta, depth 2    | 8 openings, X, O in turn  | 20  | 25%   | 75%   |
| agent_beats_depth_4   | alpha-beta, depth 4    | the same, other colours   | 20  | 12.5% | 62.5% |
| agent_wins_endgames   | the solver, defending  | 4 end-games, a forced win | 10  | 0%    | 75%   |
| agent_keeps_the_value | the solver's verdict   | 60 positions, a move each | 20  | 50%   | 75%   |
| agent_moves_in_time   | (the 28 games above)   | games all moves in time   | 20  | 0%    | 100%  |

A level's share is the agent's points of its games (a win 1, a draw 1/2; a game in which the
grader played every move of the agent counts as lost); the suite's, the positions whose value
the agent's move keeps; moving in time's, the games in which every move of the agent was a
legal column returned within its allowance, so a forfeited move costs its game's share only.

The opponents use the course's evaluation, a judgement that limits every agent that uses it,
so a deeper search wins more often, not always: at the grading's budget the reference agent
scores 7 of 8 against depth 2 and 5.5 of 8 against depth 4 (and 4 and 0.5 fewer points with
half the budget; the targets are one game, and half a game, below it), and keeps the value of
48 of the 60 positions. The two depth levels play each opening from both sides between them.

The opponents are deterministic (the random one is seeded from the opening and the side), so
an agent whose moves depend only on what it is given gets the same games and grade every run.

Time: a game from a four-move opening leaves the agent at most 19 moves, and the end-games at
most 6, 8, 5 and 5, so the contest has at most 24 * 19 + 24 + 60 = 540 agent moves; the
reference plays 331 (271 in games), some 480,000 states served one round trip each, which cost
about 10 s through the sandbox on a quiet 2-core machine before Connect Four's children were
computed from their parent's stone (`sandbox/connect_four_children.py`: the grader's CPU fell
to 0.58 of it; `benchmarks/bench_contest.py` measures them); an agent stuck in a loop costs
`MAX_STOPS` (2) moves' time, and so does an agent asleep.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
from games.connect_four import ConnectFour, ConnectFourState

__all__ = [
    "AGENT_FUNCTION",
    "DEFAULT_SECONDS",
    "DEFAULT_STATES",
    "ENDGAMES",
    "GRADING",
    "OPENINGS",
    "Allowance",
    "AlphaBetaPlayer",
    "Choice",
    "FunctionPlayer",
    "Move",
    "PlayedGame",
    "Player",
    "RandomPlayer",
    "SolverPlayer",
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
    seconds: float = field(default=0.0, compare=False)  # the time charged, for the instructor


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
            # Without each move's seconds, which differ between two runs: the same games read
            # the same (the time each agent used is summed in tournament.json's "usage").
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
        return Move(choice.column, choice.states, seconds=choice.seconds), ""
    if choice.status in ("forfeited", "stopped"):
        column = centre_first(legal)[0]
        note = f"forfeited: {choice.error}; the grader played column {column}"
        return Move(column, choice.states, note, choice.seconds), ""
    if choice.status == "crashed":
        return None, f"crashed: {choice.error}"
    if choice.status == "illegal":
        return None, choice.error
    return None, f"returned {choice.column!r}, not a legal column of {legal}"


def _names(players: tuple[Player, Player]) -> tuple[str, str]:
    return players[0].name, players[1].name
