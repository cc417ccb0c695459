"""The reference Connect Four agent of assignment 5: legal, on time, sees wins, plays well."""

from __future__ import annotations

import inspect
import time
from pathlib import Path

import pytest

import solutions.agent
from autograder.contest.referee import GRACE, FunctionPlayer, RandomPlayer, play_game
from autograder.contest.student_agent import StudentAgent
from autograder.sandbox import Limits, build_import_view
from games import ConnectFour, Game
from solutions import connect_four_agent

GAME = ConnectFour()
POSITIONS = ["", "4", "4453", "444444", "12345671234567", "2252576253462244111563365343671351"]


class TokenGame(Game):
    """ConnectFour behind opaque int tokens, offering only what the grader's served game does."""

    def __init__(self) -> None:
        self.states: list = []
        self.tokens: dict = {}

    def token(self, state) -> int:
        if state not in self.tokens:
            self.tokens[state] = len(self.states)
            self.states.append(state)
        return self.tokens[state]

    def initial_state(self) -> int:
        return self.token(GAME.initial_state())

    def to_move(self, token: int) -> str:
        return GAME.to_move(self.states[token])

    def actions(self, token: int) -> list[int]:
        return GAME.actions(self.states[token])

    def result(self, token: int, action: int) -> int:
        return self.token(GAME.result(self.states[token], action))

    def is_terminal(self, token: int) -> bool:
        return GAME.is_terminal(self.states[token])

    def utility(self, token: int) -> int:
        return GAME.utility(self.states[token])

    def evaluate(self, token: int) -> float:
        return GAME.evaluate(self.states[token])


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


@pytest.mark.parametrize("moves", POSITIONS)
def test_the_agent_returns_a_legal_column_as_an_int(moves: str) -> None:
    state = ConnectFour.from_moves(moves)
    column = connect_four_agent(GAME, state, 0.05)
    assert type(column) is int and column in GAME.actions(state)


class _Clock:
    """A clock that moves on by `step` seconds each time it is read: the agent's time checks,
    tested without depending on how fast (or how busy) this machine is."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def monotonic(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("seconds", [0.05, 0.2])
def test_the_agent_stops_once_its_share_of_the_time_is_used(seconds: float, monkeypatch) -> None:
    for moves in ["", "4453", "44443"]:
        clock = _Clock(step=0.0001)
        monkeypatch.setattr(solutions.agent, "time", clock)
        connect_four_agent(GAME, ConnectFour.from_moves(moves), seconds)
        assert clock.now <= solutions.agent.TIME_SHARE * seconds + 2 * clock.step
        assert clock.now >= solutions.agent.TIME_SHARE * seconds  # it used its time to search


def test_the_agent_moves_at_once_even_with_almost_no_time() -> None:
    started = time.monotonic()
    assert connect_four_agent(GAME, GAME.initial_state(), 1e-6) in range(1, 8)
    assert time.monotonic() - started < 0.05


def test_the_agent_takes_a_win_in_one() -> None:
    assert connect_four_agent(GAME, ConnectFour.from_moves("121212"), 0.05) == 1


def test_the_agent_blocks_a_loss_in_one() -> None:
    assert connect_four_agent(GAME, ConnectFour.from_moves("12121"), 0.5) == 1
    assert connect_four_agent(GAME, ConnectFour.from_moves("47516"), 0.5) == 3


def test_the_agent_finds_a_forced_win_that_needs_search() -> None:
    # The solver proves column 3 the only win, in 9 plies; a depth-2 search plays another.
    state = ConnectFour.from_moves("542127277344125544741167112372")
    assert connect_four_agent(GAME, state, 0.2) == 3


def test_the_agent_uses_only_the_protocol_on_opaque_states() -> None:
    game = TokenGame()
    state = game.token(ConnectFour.from_moves("121212"))
    assert connect_four_agent(game, state, 0.05) == 1
    assert connect_four_agent(game, game.initial_state(), 0.05) in range(1, 8)


@pytest.mark.parametrize("side", [0, 1])
def test_the_agent_beats_a_random_player_with_either_colour(side: int) -> None:
    agent = FunctionPlayer("reference", connect_four_agent)
    opponent = RandomPlayer(seed=side)
    first, second = (agent, opponent) if side == 0 else (opponent, agent)
    played = play_game(first, second, "", seconds=0.25)
    assert played.winner == side, played.ended
    assert not any(move.note for move in played.moves)


@pytest.mark.parametrize("seconds", [0, -1, True, "1"])
def test_the_agent_refuses_a_thinking_time_that_is_not_positive(seconds) -> None:
    with pytest.raises(ValueError, match="positive"):
        connect_four_agent(GAME, GAME.initial_state(), seconds)


def test_the_agent_refuses_a_finished_game() -> None:
    with pytest.raises(ValueError, match="terminal"):
        connect_four_agent(GAME, ConnectFour.from_moves("1212121"), 0.05)


def test_the_agent_plays_in_the_sandbox_on_the_served_game(view: Path) -> None:
    source = inspect.getsource(solutions.agent)
    agent = StudentAgent("reference", [[1, source]], view, Limits(load_timeout=20))
    try:
        assert agent.load_error == ""
        win = agent.choose(ConnectFour.from_moves("121212"), 0.25)
        assert (win.status, win.column) == ("moved", 1)
        opening = agent.choose(GAME.initial_state(), 0.25)
        assert opening.status == "moved" and opening.column in range(1, 8)
        assert opening.seconds <= 0.25 + GRACE
    finally:
        agent.close()
