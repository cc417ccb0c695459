"""The reference Connect Four agent of assignment 5: legal, on its budget, sees wins, plays well."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import solutions.agent
from autograder.contest.referee import Allowance, FunctionPlayer, RandomPlayer, play_game
from autograder.contest.student_agent import StudentAgent
from autograder.sandbox import Limits, build_import_view
from games import BudgetedGame, ConnectFour, CountingGame, Game, OutOfStates
from solutions import connect_four_agent

GAME = ConnectFour()
POSITIONS = ["", "4", "4453", "444444", "12345671234567", "2252576253462244111563365343671351"]


def budgeted(states: int = 500) -> BudgetedGame:
    """The real game, refusing the state past `states`, as the grader's served game does."""
    return BudgetedGame(GAME, states)


class TokenGame(Game):
    """ConnectFour behind opaque int tokens, offering only what the grader's served game does,
    and refusing the state past its budget."""

    def __init__(self, budget: int) -> None:
        self.states: list = []
        self.tokens: dict = {}
        self.budget, self.generated = budget, 0

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
        if self.generated >= self.budget:
            raise OutOfStates(self.budget)
        self.generated += 1
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
    column = connect_four_agent(budgeted(), state, 3.0)
    assert type(column) is int and column in GAME.actions(state)


@pytest.mark.parametrize("moves", ["", "4453", "44443"])
def test_the_agent_deepens_until_its_budget_is_spent(moves: str) -> None:
    game = budgeted(2000)
    connect_four_agent(game, ConnectFour.from_moves(moves), 3.0)
    assert game.states_generated == 2000


def test_the_agent_plays_the_move_of_the_deepest_search_its_budget_finishes() -> None:
    """Depth by depth, the states an iteration needs are counted; any budget from what depth d
    needs to one state short of what depth d + 1 needs gives depth d's move."""
    state = ConnectFour.from_moves("4453")
    counted, search, finished = CountingGame(GAME), solutions.agent._Search(), []
    for depth in range(1, 7):
        move, _ = solutions.agent._root_search(counted, state, depth, search)
        finished.append((counted.states_generated, move))
    assert len({move for _, move in finished}) > 1  # deeper searches change their minds here
    for (needed, move), (next_needed, _) in zip(finished, finished[1:], strict=False):
        for budget in (needed, next_needed - 1):
            assert connect_four_agent(budgeted(budget), state, 3.0) == move, budget


def test_the_agent_plays_the_centre_when_not_even_depth_1_fits() -> None:
    assert connect_four_agent(budgeted(3), GAME.initial_state(), 3.0) == 4
    assert connect_four_agent(budgeted(0), ConnectFour.from_moves("444444"), 3.0) == 3


def test_the_agent_takes_a_win_in_one() -> None:
    assert connect_four_agent(budgeted(), ConnectFour.from_moves("121212"), 3.0) == 1


def test_the_agent_blocks_a_loss_in_one() -> None:
    assert connect_four_agent(budgeted(), ConnectFour.from_moves("12121"), 3.0) == 1
    assert connect_four_agent(budgeted(), ConnectFour.from_moves("47516"), 3.0) == 3


def test_the_agent_finds_a_forced_win_that_needs_search() -> None:
    # The solver proves column 3 the only win, in 9 plies; a depth-2 search plays another.
    state = ConnectFour.from_moves("542127277344125544741167112372")
    assert connect_four_agent(budgeted(4000), state, 3.0) == 3


def test_the_agent_uses_only_the_protocol_on_opaque_states() -> None:
    game = TokenGame(budget=500)
    state = game.token(ConnectFour.from_moves("121212"))
    assert connect_four_agent(game, state, 3.0) == 1
    game = TokenGame(budget=500)
    assert connect_four_agent(game, game.initial_state(), 3.0) in range(1, 8)
    assert game.generated == 500


@pytest.mark.parametrize("side", [0, 1])
def test_the_agent_beats_a_random_player_with_either_colour(side: int) -> None:
    agent = FunctionPlayer("reference", connect_four_agent)
    opponent = RandomPlayer(seed=side)
    first, second = (agent, opponent) if side == 0 else (opponent, agent)
    played = play_game(first, second, "", Allowance(500, seconds=3.0))
    assert played.winner == side, played.ended
    assert not any(move.note for move in played.moves)


@pytest.mark.parametrize("seconds", [0, -1, True, "1"])
def test_the_agent_refuses_a_time_that_is_not_positive(seconds) -> None:
    with pytest.raises(ValueError, match="positive"):
        connect_four_agent(budgeted(), GAME.initial_state(), seconds)


def test_the_agent_refuses_a_finished_game() -> None:
    with pytest.raises(ValueError, match="terminal"):
        connect_four_agent(budgeted(), ConnectFour.from_moves("1212121"), 3.0)


def test_the_agent_plays_in_the_sandbox_the_moves_it_plays_on_the_real_game(view: Path) -> None:
    """Through the served game (tokens, each state a round trip) the agent spends the same
    budget and picks the same column as on a `BudgetedGame` of the real one."""
    source = inspect.getsource(solutions.agent)
    agent = StudentAgent("reference", [[1, source]], view, Limits(load_timeout=20))
    try:
        assert agent.load_error == ""
        win = agent.choose(ConnectFour.from_moves("121212"), Allowance(500, 3.0))
        assert (win.status, win.column) == ("moved", 1)
        for moves in ["", "4453", "44443"]:
            state = ConnectFour.from_moves(moves)
            served = agent.choose(state, Allowance(1500, 3.0))
            real = budgeted(1500)
            assert (served.status, served.column, served.states) == (
                "moved",
                connect_four_agent(real, state, 3.0),
                real.states_generated,
            )
    finally:
        agent.close()
