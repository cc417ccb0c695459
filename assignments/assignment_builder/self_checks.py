"""How a self-check cell is written: one `Check` per small case, answers from the reference."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autograder import nbgrader_export
from autograder.instances import Instance
from games import MAX, CountingGame, TicTacToe
from solutions.alphabeta import alphabeta_decision, alphabeta_value


def game_source(game: Any) -> str:
    """The code that builds `game` in a cell."""
    return nbgrader_export.game_literal(game)


def state_source(game: Any, state: Any) -> str:
    """The code of `state` in a cell: tic-tac-toe boards as pictures, so a student can read them."""
    if isinstance(game, TicTacToe):
        rows = "\\n".join(state[row : row + 3] for row in (0, 3, 6))
        return f'TicTacToe.from_picture("{rows}")'
    return nbgrader_export.state_literal(game, state)


def _dict_source(data: dict) -> str:
    """A dict literal with one sorted item a line, so long hint texts stay readable."""
    inner = "".join(f"    {key!r}: {value!r},\n" for key, value in sorted(data.items()))
    return "{\n" + inner + "}"


@dataclass
class Check:
    """One self-check call: `kind` is "value", "decision" or "states"."""

    kind: str
    name: str
    game: Any
    state: Any = ()
    depth: int | None = None
    evaluate: Callable | None = None
    function: str = ""  # for "states": which function's count ("alphabeta_value"/"_decision")
    game_code: str = ""  # how the cell builds the game, if not from the game's repr

    def instance(self) -> Instance:
        return Instance(self.name, self.game, self.state, self.depth, self.evaluate)

    def args(self) -> tuple:
        return () if self.depth is None else (self.depth, self.evaluate)

    def args_source(self) -> str:
        if self.depth is None:
            return ""
        return f", args=({self.depth}, {self.evaluate.__name__})"

    def source(self, value_function: Callable) -> str:
        """The call of the check, with the expected answer computed by `value_function`."""
        built = self.game_code or game_source(self.game)
        head = f"{self.name!r}, {built}, {state_source(self.game, self.state)}"
        if self.kind == "value":
            value = value_function(self.game, self.state, *self.args())
            hints = nbgrader_export.value_hints(self.instance(), value)
            text = f"check_value(function, {head}, {value!r}{self.args_source()}"
            if hints:
                text += f", hints={_dict_source(hints)}"
            return text + ")"
        if self.kind == "decision":
            optimal, child_values = decision_answer(self, value_function)
            return (
                f"check_decision(function, {head}, {optimal!r}, {child_values!r}"
                f"{self.args_source()})"
            )
        decision = self.function.endswith("_decision")
        counted = CountingGame(self.game)
        if decision:
            alphabeta_decision(counted, self.state)
            answer = decision_answer(self, value_function)
        else:
            answer = alphabeta_value(counted, self.state)
        states = counted.states_generated
        causes = nbgrader_export.pruning_causes(self.instance(), decision, states)
        text = f"check_states(function, {head}, {answer!r}, {states!r}"
        if causes:
            text += f", causes={_dict_source(causes)}"
        return text + ")"


def decision_answer(check: Check, value_function: Callable) -> tuple[tuple, list]:
    """(optimal actions, value of each action) of a decision check, as the grader computes them."""
    game, state = check.game, check.state
    if check.depth is None:
        children = [value_function(game, game.result(state, a)) for a in game.actions(state)]
    else:
        children = [
            value_function(game, game.result(state, a), check.depth - 1, check.evaluate)
            for a in game.actions(state)
        ]
    best = (max if game.to_move(state) == MAX else min)(children)
    optimal = tuple(a for a, v in zip(game.actions(state), children, strict=True) if v == best)
    return optimal, children


def checks_source(function: str, checks: list[Check], value_function: Callable, run: bool) -> str:
    """A cell that defines `check_<function>(function)` and, if `run`, calls it on `function`."""
    lines = [
        f"def check_{function}(function):",
        f'    """Self-checks of {function}: small cases, answers from the reference solution."""',
    ]
    for check in checks:
        lines.append(textwrap.indent(check.source(value_function), "    "))
    text = "\n".join(lines)
    if run:
        text += f"\n\n\ncheck_{function}({function})"
    return text
