"""How a self-check cell is written: one `Check` per small case, answers from the reference."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autograder.grading import cases
from autograder.grading.instances import Instance
from autograder.platforms import literals
from games import TicTacToe


def game_source(game: Any) -> str:
    """The code that builds `game` in a cell."""
    return literals.game_literal(game)


def state_source(game: Any, state: Any) -> str:
    """The code of `state` in a cell: tic-tac-toe boards as pictures, so a student can read them."""
    if isinstance(game, TicTacToe):
        rows = "\\n".join(state[row : row + 3] for row in (0, 3, 6))
        return f'TicTacToe.from_picture("{rows}")'
    return literals.state_literal(game, state)


def _dict_source(data: dict) -> str:
    """A dict literal with one sorted item a line, so long hint texts stay readable."""
    inner = "".join(f"    {key!r}: {value!r},\n" for key, value in sorted(data.items()))
    return "{\n" + inner + "}"


@dataclass
class Check:
    """One self-check call: `kind` is "value", "vector", "decision" or "states"."""

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

    def source(self, function: str) -> str:
        """The call of the check, with the answer the grader's case holds for `function` (a
        "states" check: for its own `function`)."""
        built = self.game_code or game_source(self.game)
        head = f"{self.name!r}, {built}, {state_source(self.game, self.state)}"
        case = cases.case(self.function or function, self.instance())
        if self.kind in ("value", "vector"):
            text = f"check_{self.kind}(function, {head}, {case.value!r}{self.args_source()}"
            if case.value_hints:
                text += f", hints={_dict_source(dict(case.value_hints))}"
            if case.suspects:
                text += f", suspects={_dict_source(dict(case.suspects))}"
            return text + ")"
        decision = (case.optimal, list(case.child_values))
        if self.kind == "decision":
            text = f"check_decision(function, {head}, {decision[0]!r}, {decision[1]!r}"
            text += self.args_source()
            if case.decision_hints:
                text += f", hints={_dict_source(dict(case.decision_hints))}"
            if case.suspects:
                text += f", suspects={_dict_source(dict(case.suspects))}"
            return text + ")"
        answer = decision if case.legal else case.value
        causes = cases.pruning_causes(self.instance(), bool(case.legal), case.states)
        text = f"check_states(function, {head}, {answer!r}, {case.states!r}"
        if causes:
            text += f", causes={_dict_source(causes)}"
        if case.suspects:
            text += f", suspects={_dict_source(dict(case.suspects))}"
        return text + ")"


def checks_source(function: str, checks: list[Check], run: bool) -> str:
    """A cell that defines `check_<function>(function)` and, if `run`, calls it on `function`."""
    lines = [
        f"def check_{function}(function):",
        f'    """Self-checks of {function}: small cases, answers from the reference solution."""',
    ]
    lines.append("    with judged_together():  # the failed checks judged together, at the end")
    for check in checks:
        lines.append(textwrap.indent(check.source(function), "        "))
    text = "\n".join(lines)
    if run:
        text += f"\n\n\ncheck_{function}({function})"
    return text
