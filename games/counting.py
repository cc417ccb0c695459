"""Node counting: wrappers that count the work a search does through the game protocol, and one
that stops it after a budget of states (the Connect Four contest's rule)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from games.protocol import Action, Game, OutOfStates, State


class CountingGame(Game):
    """Wrap a game and count what a search asks of it.

    Exactly what is counted (assignments quote these numbers):

    - `states_generated`: successful calls of `result`, i.e. child states created. The state a
      search starts from is not counted, so "calls including the root" is this number plus 1.
      Calling `result` twice for the same child counts twice: the work was done twice.
    - `leaf_evaluations`: calls of `utility` plus calls of an evaluation function wrapped with
      `counted_evaluation`: how many positions were scored.
    - `actions_calls`, `terminal_tests`: calls of `actions` and `is_terminal`, for the curious.

    Everything else is passed to the wrapped game unchanged, so a search cannot tell the
    difference. `reset()` sets every counter back to 0.

    >>> from games import TicTacToe
    >>> game = CountingGame(TicTacToe())
    >>> _ = game.result(game.initial_state(), 4)
    >>> game.states_generated
    1
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.reset()

    def __repr__(self) -> str:
        return f"CountingGame({self.game!r})"

    def __getattr__(self, name: str) -> Any:
        # Game-specific helpers (from_picture, chance_outcomes, ...) pass straight through.
        return getattr(self.game, name)

    def reset(self) -> None:
        """Set every counter back to zero."""
        self.states_generated = 0
        self.leaf_evaluations = 0
        self.actions_calls = 0
        self.terminal_tests = 0

    def counts(self) -> dict[str, int]:
        """Return the counters as a plain dict."""
        return {
            "states_generated": self.states_generated,
            "leaf_evaluations": self.leaf_evaluations,
            "actions_calls": self.actions_calls,
            "terminal_tests": self.terminal_tests,
        }

    def initial_state(self) -> State:
        return self.game.initial_state()

    def to_move(self, state: State) -> str:
        return self.game.to_move(state)

    def actions(self, state: State) -> list[Action]:
        self.actions_calls += 1
        return self.game.actions(state)

    def result(self, state: State, action: Action) -> State:
        child = self.game.result(state, action)
        self.states_generated += 1
        return child

    def is_terminal(self, state: State) -> bool:
        self.terminal_tests += 1
        return self.game.is_terminal(state)

    def utility(self, state: State) -> float:
        self.leaf_evaluations += 1
        return self.game.utility(state)

    def chance_outcomes(self, state: State) -> list[tuple[Action, float]]:
        return self.game.chance_outcomes(state)

    def display(self, state: State) -> str:
        return self.game.display(state)

    def counted_evaluation(self, evaluate: Callable[[State], float]) -> Callable[[State], float]:
        """Return `evaluate` wrapped so that each call adds one to `leaf_evaluations`."""

        def counted(state: State) -> float:
            self.leaf_evaluations += 1
            return evaluate(state)

        return counted


class RecordingGame(CountingGame):
    """A `CountingGame` that also records every state `result` generated, in order, and the
    states it generated them from.

    `generated` lists the child states as the search created them; drawing a tree with only
    these states shown as visited makes the pruned branches visible. `parents` holds each state
    a child was generated from: a state generated but not in it was never searched below.
    """

    def reset(self) -> None:
        super().reset()
        self.generated: list[State] = []
        self.parents: set[State] = set()

    def result(self, state: State, action: Action) -> State:
        child = super().result(state, action)
        self.generated.append(child)
        with contextlib.suppress(TypeError):  # a game of one's own may have unhashable states
            self.parents.add(state)
        return child


class BudgetedGame(Game):
    """A game whose `result` generates at most `budget` states: one move of the Connect Four
    contest, as the grader serves it.

    In the contest every move has a budget of states; the grader counts each state `result`
    generates and, once the budget is spent, `result` raises `OutOfStates` instead. This
    wrapper does the same on a real game, so a notebook plays the very moves the grader does.
    Wrap the game afresh for each move: each move has a budget of its own.

    It offers what the grader's served game offers and nothing more: the six methods of the
    protocol, and `evaluate` and `board` when the wrapped game has them. `states_generated`
    counts for you; the served game does not offer it, so an agent must not rely on it.

    >>> from games import ConnectFour
    >>> game = BudgetedGame(ConnectFour(), budget=1)
    >>> first = game.result(game.initial_state(), 4)
    >>> game.result(first, 4)
    Traceback (most recent call last):
    ...
    games.protocol.OutOfStates: this move's budget of 1 states is spent: ...
    """

    def __init__(self, game: Game, budget: int) -> None:
        if type(budget) is not int or budget < 0:
            raise ValueError(f"budget is a number of states, an int >= 0, not {budget!r}")
        self._game = game
        self.budget = budget
        self.states_generated = 0

    def __repr__(self) -> str:
        return f"BudgetedGame({self._game!r}, budget={self.budget})"

    def initial_state(self) -> State:
        return self._game.initial_state()

    def to_move(self, state: State) -> str:
        return self._game.to_move(state)

    def actions(self, state: State) -> list[Action]:
        return self._game.actions(state)

    def result(self, state: State, action: Action) -> State:
        child = self._game.result(state, action)  # an illegal action is refused first, as served
        if self.states_generated >= self.budget:
            raise OutOfStates(self.budget)
        self.states_generated += 1
        return child

    def is_terminal(self, state: State) -> bool:
        return self._game.is_terminal(state)

    def utility(self, state: State) -> float:
        return self._game.utility(state)

    def evaluate(self, state: State) -> float:
        """The wrapped game's evaluation (Connect Four: the course's, from lecture 04)."""
        return self._game.evaluate(state)

    def board(self, state: State) -> Any:
        """The wrapped game's picture of the position as plain data (Connect Four: six rows)."""
        return self._game.board(state)
