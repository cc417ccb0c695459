"""The game protocol every game in the course follows, and the constants for whose turn it is."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable
from typing import Any

MAX = "MAX"
"""The maximising player: utilities are always given from this player's point of view."""

MIN = "MIN"
"""The minimising player."""

CHANCE = "CHANCE"
"""Nature: `to_move` returns this at a chance node; see `Game.chance_outcomes`."""

State = Hashable
Action = Any


class IllegalActionError(ValueError):
    """Raised by `result` when the action is not one of `actions(state)`.

    The message names the action and lists the legal ones, so a student sees at once
    whether the action came from the wrong state or was built by hand.
    """

    def __init__(
        self, state: State, action: Action, legal: list[Action], shown: str | None = None
    ) -> None:
        self.state = state
        self.action = action
        self.legal = list(legal)
        if self.legal:
            choices = f"the legal actions are {self.legal!r}"
        else:
            choices = "there are no legal actions (the state is terminal)"
        where = f"state {state!r}" if shown is None else shown
        super().__init__(f"action {action!r} is not legal in {where}; {choices}")


class OutOfStates(Exception):
    """Raised by `result` when the move's budget of states is spent.

    In the Connect Four contest every move may generate a fixed number of states through
    `game.result` (the grader counts them, as `BudgetedGame` does outside it). An agent that
    searches deeper and deeper catches this exception around its search and returns the best
    move of the deepest search it finished; one that lets it escape has its move forfeited.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        super().__init__(
            f"this move's budget of {budget:,} states is spent: game.result generates no more "
            "states until your next move. Catch OutOfStates around your search and return the "
            "best move found so far"
        )


class Game(ABC):
    """A two-player, turn-taking, zero-sum game with perfect information.

    States are values: immutable, hashable, equal when they describe the same position.
    `result` never changes its argument; it returns a new state.

    The six methods below are all a search algorithm may use:

    - `initial_state()` -- the position the game starts from.
    - `to_move(state)` -- `MAX` or `MIN` (or `CHANCE` in games with chance nodes).
    - `actions(state)` -- the legal actions as a new list, always in the same documented order
      (search algorithms examine children in this order, and node counts depend on it).
    - `result(state, action)` -- the state after `action`; raises `IllegalActionError`.
    - `is_terminal(state)` -- True when the game is over.
    - `utility(state)` -- the value of a terminal state from MAX's point of view.
    """

    @abstractmethod
    def initial_state(self) -> State:
        """Return the state the game starts from."""

    @abstractmethod
    def to_move(self, state: State) -> str:
        """Return whose turn it is in `state`: `MAX` or `MIN` (or `CHANCE`)."""

    @abstractmethod
    def actions(self, state: State) -> list[Action]:
        """Return the legal actions in `state`, in the game's documented order."""

    @abstractmethod
    def result(self, state: State, action: Action) -> State:
        """Return the state reached by playing `action` in `state`."""

    @abstractmethod
    def is_terminal(self, state: State) -> bool:
        """Return True when no more moves can be made."""

    @abstractmethod
    def utility(self, state: State) -> float:
        """Return the value of terminal `state` from MAX's point of view."""

    def chance_outcomes(self, state: State) -> list[tuple[Action, float]]:
        """At a `CHANCE` node, return `(outcome, probability)` pairs; probabilities sum to 1.

        Each outcome is also an action: `result(state, outcome)` gives the state after nature
        has chosen it. Games without chance nodes never call this.
        """
        raise TypeError(f"{type(self).__name__} has no chance nodes")

    def display(self, state: State) -> str:
        """Return a human-readable picture of `state` (used by `print_state` and the player)."""
        return repr(state)

    def print_state(self, state: State) -> None:
        """Print the picture of `state`."""
        print(self.display(state))

    def _illegal(self, state: State, action: Action) -> IllegalActionError:
        return IllegalActionError(state, action, self.actions(state), self._shown(state))

    def _not_terminal(self, state: State) -> ValueError:
        return ValueError(
            f"utility is defined only for terminal states, and {self._shown(state)} is not "
            "terminal; check is_terminal(state) first"
        )

    def _shown(self, state: State) -> str:
        """`state` as an error message shows it: the position a student can read, on one line
        (a board's rows joined by "/"), not the value that stands for it."""
        try:
            rows = [row for row in self.display(state).splitlines() if row.strip()]
        except Exception:  # a value that is no state of this game: show it as it is
            return f"state {state!r}"
        if not rows:
            return f"state {state!r}"
        return f"the position {'/'.join(rows)}" if len(rows) > 1 else f"state {rows[0]}"
