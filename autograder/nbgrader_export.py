"""Write nbgrader's hidden test cells from the grading rules, so both graders give equal points.

One nbgrader test cell per rule group: its grade id is `<rule id>__<group slug>`, its points are
the group's points, and its hidden region holds the group's instances as literal data (trees as
nested lists, tic-tac-toe boards as strings, Connect Four positions as move strings) with the
reference's answers computed here, by `autograder.judge.expected`. In the kernel the cell calls
`grade_group` from `autograder.notebook_checks` (pasted into the notebook by
`helper_cell_source`), which judges as `autograder.judge` does. The hints for known mistakes
are precomputed here with `autograder.diagnosis` and the judge's own hint texts.

`python -m autograder nbgrader-cells` lists the cells (or writes them as JSON);
`assignments/make_assignments.py` puts them into the assignment notebooks.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import textwrap
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from autograder import diagnosis, judge, notebook_checks
from autograder import instances as instance_module
from autograder.instances import Instance
from autograder.rules import PRUNING_SLACK, RULE_IDS, Group, Rule, rules
from games import ConnectFour, GameTree, TicTacToe
from games.connect_four import COLUMN_MASKS, WIDTH, ConnectFourState

GRADING_HELPERS = (
    "GradingTimeout",
    "Opaque",
    "plain",
    "call_function",
    "_start_alarm",
    "_stop_alarm",
    "graded_call",
    "failure_text",
    "sentinel_hint",
    "decision_hint",
    "not_an_action_hint",
    "judge_value",
    "judge_decision",
    "judge_pruning",
    "expected_text",
    "grade_group",
)
"""The functions of `autograder.notebook_checks` the hidden tests need, in definition order."""

SELF_CHECK_HELPERS = (
    "GradingTimeout",
    "Opaque",
    "plain",
    "call_function",
    "_start_alarm",
    "_stop_alarm",
    "failure_text",
    "sentinel_hint",
    "decision_hint",
    "not_an_action_hint",
    "judge_value",
    "judge_decision",
    "judge_pruning",
    "expected_text",
    "self_check",
    "_not_written_yet",
    "check_value",
    "check_decision",
    "check_states",
    "check_call",
    "explore",
)
"""The functions of `autograder.notebook_checks` the public self-checks need."""

EVALUATIONS = {
    instance_module.path_evaluation: "grading_path_evaluation",
    instance_module.tictactoe_evaluation: "grading_tictactoe_evaluation",
}
"""The evaluation functions of the depth-limited instances, and their names in hidden cells."""


@dataclass(frozen=True)
class GradedCell:
    """One nbgrader autograded test cell: a rule group, its points and its source."""

    grade_id: str
    points: float
    rule_id: str
    group: str
    source: str

    def to_dict(self) -> dict:
        return {
            "grade_id": self.grade_id,
            "points": self.points,
            "rule": self.rule_id,
            "group": self.group,
            "source": self.source,
        }


def slug(text: str) -> str:
    """A grade id's part: `"end-games (scores beyond +-1)"` -> `"end_games_scores_beyond_1"`."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def grade_id(rule: Rule, group: Group) -> str:
    """The nbgrader grade id of a rule group's test cell."""
    return f"{rule.id}__{slug(group.name)}"


@cache
def _case_numbers() -> dict[int, int]:
    """A number for each distinct instance object, in the order the autograder first calls it."""
    numbers: dict[int, int] = {}
    for rule in rules():
        for group in rule.groups:
            for instance in group.instances:
                numbers.setdefault(id(instance), len(numbers) + 1)
    return numbers


# -- literal data ------------------------------------------------------------------------------


def connect_four_moves(state: ConnectFourState) -> str:
    """A move string (Pons's notation) that reaches `state`; `ConnectFour.from_moves` reads it.

    Stones are taken back from the top of the columns, last mover first, never through a
    position that was already won (play would have stopped there).
    """
    game = ConnectFour()
    failed: set = set()

    def undo(current: ConnectFourState) -> str | None:
        if current.max_stones | current.min_stones == 0:
            return ""
        if current in failed:
            return None
        occupied = current.max_stones | current.min_stones
        last_was_max = occupied.bit_count() % 2 == 1
        mine = current.max_stones if last_was_max else current.min_stones
        for index in range(WIDTH):
            column = occupied & COLUMN_MASKS[index]
            if not column:
                continue
            top = 1 << (column.bit_length() - 1)
            if not mine & top:
                continue
            if last_was_max:
                before = ConnectFourState(current.max_stones & ~top, current.min_stones)
            else:
                before = ConnectFourState(current.max_stones, current.min_stones & ~top)
            if game.winner(before) is not None:
                continue
            earlier = undo(before)
            if earlier is not None:
                return earlier + str(index + 1)
        failed.add(current)
        return None

    moves = undo(state)
    if moves is None or ConnectFour.from_moves(moves) != state:
        raise ValueError(f"no sequence of moves reaches {state!r}")
    return moves


def game_literal(game: Any) -> str:
    """Python source that rebuilds `game` in the kernel."""
    if isinstance(game, GameTree):
        return repr(game)
    if isinstance(game, TicTacToe | ConnectFour):
        return f"{type(game).__name__}()"
    raise TypeError(f"no literal for a game of type {type(game).__name__}")


def state_literal(game: Any, state: Any) -> str:
    """Python source that rebuilds `state` in the kernel."""
    if isinstance(game, ConnectFour):
        return f"ConnectFour.from_moves({connect_four_moves(state)!r})"
    return repr(state)


def _number(value: float) -> str:
    return repr(value)


def _mapping(data: dict) -> str:
    if not data:
        return "{}"
    items = ",\n".join(f"    {key!r}: {text!r}" for key, text in sorted(data.items()))
    return "{\n" + items + ",\n}"


# -- hints: what each known mistake would have answered ---------------------------------------


def value_hints(instance: Instance, correct: float) -> dict[float, str]:
    """Wrong values a known mistake gives on `instance`, with the autograder's hint for each."""
    candidates: set = set()
    game, state = instance.game, instance.state
    if instance.depth is None:
        for variant in diagnosis.VALUE_CAUSES.values():
            candidates.add(diagnosis.variant_value(game, state, variant))
    else:
        from solutions.depth_limited import depth_limited_value

        for depth in (instance.depth - 1, instance.depth + 1):
            if depth >= 0:
                candidates.add(depth_limited_value(game, state, depth, instance.evaluate))
        candidates.add(judge._wrong_side(instance))
    hints = {}
    for value in candidates:
        if isinstance(value, int | float) and math.isfinite(value) and value != correct:
            hint = judge._value_hint(instance, value)
            if hint:
                hints[value] = hint
    return hints


def pruning_causes(instance: Instance, decision: bool, reference: int) -> dict[int, str]:
    """State counts a known mistake generates on `instance`, with the autograder's hint.

    Only counts above the threshold are kept (the others pass). Each count gets the text
    `diagnosis.pruning_cause` gives it, the first matching mistake in its order; each mistake's
    count is computed once here, because the largest are whole minimax searches.
    """
    game, state = instance.game, instance.state
    most = math.floor(reference * PRUNING_SLACK)
    causes: dict[int, str] = {}
    for cause, variant in diagnosis.PRUNING_CAUSES.items():
        count = diagnosis.count_states(game, state, variant, decision)
        if count > most and count not in causes:
            causes[count] = f"your count equals that of a search where {cause}"
    if decision:
        fresh = diagnosis.CountingGame(game)
        diagnosis.decide(fresh, state, diagnosis.Variant(), carry_window=False)
        count = fresh.states_generated
        if count > most and count not in causes:
            causes[count] = diagnosis.pruning_cause(game, state, decision, count)
    return dict(sorted(causes.items()))


# -- the cells ---------------------------------------------------------------------------------


def _args_literal(instance: Instance) -> str:
    if instance.depth is None:
        return "()"
    return f"({instance.depth}, {EVALUATIONS[instance.evaluate]})"


def case_literal(rule: Rule, group: Group, instance: Instance) -> str:
    """One case of a hidden test cell: the instance and the reference's answer, as a dict."""
    want = judge.expected(group.function, instance)
    fields = [
        ("id", repr(_case_numbers()[id(instance)])),
        ("name", repr(instance.name)),
        ("game", game_literal(instance.game)),
        ("state", state_literal(instance.game, instance.state)),
        ("args", _args_literal(instance)),
    ]
    if group.function.endswith("_decision"):
        fields.append(("optimal", repr(tuple(want.optimal))))
        fields.append(("child_values", repr(list(want.child_values))))
        fields.append(("hints", _mapping(dict(want.hints))))
    else:
        fields.append(("value", _number(want.value)))
        hints = value_hints(instance, want.value) if rule.kind != "pruning" else {}
        fields.append(("hints", _mapping(hints)))
    if rule.kind == "pruning":
        fields.append(("states", repr(want.states)))
        if want.fewest != want.states:
            fields.append(("fewest", repr(want.fewest)))
        decision = group.function.endswith("_decision")
        fields.append(("causes", _mapping(pruning_causes(instance, decision, want.states))))
    body = "".join(
        f"    {key!r}: {textwrap.indent(value, '    ').lstrip()},\n" for key, value in fields
    )
    return "{\n" + body + "}"


def _imports(group: Group) -> list[str]:
    kinds = {type(instance.game) for instance in group.instances}
    names = sorted(kind.__name__ for kind in kinds)
    if any(isinstance(i.game, GameTree) and i.game.root_player == "MIN" for i in group.instances):
        names = ["MIN", *names]
    return [f"from games import {', '.join(names)}"]


def _evaluation_sources(group: Group) -> list[str]:
    sources = []
    for function, name in EVALUATIONS.items():
        if any(instance.evaluate is function for instance in group.instances):
            source = inspect.getsource(function)
            sources.append(source.replace(f"def {function.__name__}(", f"def {name}(", 1))
    return sources


@cache
def hidden_test_source(rule: Rule, group: Group) -> str:
    """The full source of a rule group's nbgrader test cell, hidden region included."""
    cases = ",\n".join(
        textwrap.indent(case_literal(rule, group, instance), "        ")
        for instance in group.instances
    )
    call = "\n".join(
        [
            "grade_group(",
            f"    {group.function!r},",
            f"    {rule.kind!r},",
            f"    {f'{rule.id}: {group.name}'!r},",
            f"    {group.points!r},",
            "    [",
            cases + ",",
            "    ],",
            f"    slack={PRUNING_SLACK!r},",
            ")",
        ]
    )
    header = (
        f"# Hidden test, {group.points:g} points: {group.function} on {group.name} "
        f"(rule {rule.id}, all or nothing).\n"
        "### BEGIN HIDDEN TESTS\n"
        "# Generated from autograder/rules.py by assignments/make_assignments.py; do not edit.\n"
        + "\n".join(_imports(group))
    )
    parts = [header, *(source.rstrip("\n") for source in _evaluation_sources(group)), call]
    return "\n\n\n".join(parts) + "\n### END HIDDEN TESTS"


def hidden_test_cells(rule_ids: tuple[str, ...] | None = None) -> list[GradedCell]:
    """The test cells of the given rules (all rules by default), in grading order."""
    cells = []
    for rule in rules():
        if rule_ids is not None and rule.id not in rule_ids:
            continue
        for group in rule.groups:
            cells.append(
                GradedCell(
                    grade_id(rule, group),
                    group.points,
                    rule.id,
                    group.name,
                    hidden_test_source(rule, group),
                )
            )
    return cells


HELPER_IMPORTS = "import math\nimport signal\n\nfrom games import MAX, CountingGame"
"""What the helper functions of `autograder.notebook_checks` need in the kernel."""


def helper_cell_source(
    names: tuple[str, ...], heading: str, constants: dict, imports: str = HELPER_IMPORTS
) -> str:
    """Source for a notebook cell that defines `names` from `autograder.notebook_checks`."""
    parts = [
        heading.strip("\n"),
        imports.strip("\n"),
        "\n".join(f"{name} = {value!r}" for name, value in constants.items()),
    ]
    for name in names:
        parts.append(inspect.getsource(getattr(notebook_checks, name)).rstrip("\n"))
    return "\n\n\n".join(part for part in parts if part) + "\n"


def grading_helpers_source() -> str:
    """The notebook cell that defines `grade_group` for the hidden tests."""
    heading = (
        "# How the hidden tests below judge your functions: the same way as the course's\n"
        "# autograder (copied from autograder/notebook_checks.py). Leave this cell as it is."
    )
    constants = {
        "CALL_TIMEOUT": notebook_checks.CALL_TIMEOUT,
        "GRADING_OUTCOMES": {},
        "GRADING_BROKEN": {},
    }
    return helper_cell_source(GRADING_HELPERS, heading, constants)


def self_check_helpers_source(imports: str = HELPER_IMPORTS) -> str:
    """The notebook cell that defines `check_value`, `check_decision` and `check_states`.

    `imports` must provide what the helpers need (`math`, `signal`, `MAX`, `CountingGame`).
    """
    heading = (
        "# Setup: run this cell first. It imports the toolkit and defines the self-check\n"
        "# helpers the checks after each function call (copied from autograder/notebook_checks.py)."
    )
    constants = {
        "SELF_CHECK_TIMEOUT": notebook_checks.SELF_CHECK_TIMEOUT,
        "SELF_CHECK_MISSING": set(),
        "SELF_CHECK_HINTS": True,
    }
    return helper_cell_source(SELF_CHECK_HELPERS, heading, constants, imports=imports)


def grading_summary(rule_ids: tuple[str, ...] | None = None) -> list[tuple[str, float]]:
    """(grade id, points) of each test cell, without computing any data."""
    return [
        (grade_id(rule, group), group.points)
        for rule in rules()
        if rule_ids is None or rule.id in rule_ids
        for group in rule.groups
    ]


def cells_command(rule_ids: list[str], json_path: Path | None) -> int:
    """`python -m autograder nbgrader-cells [RULE...] [--json FILE]`: list or write the cells."""
    unknown = sorted(set(rule_ids) - set(RULE_IDS))
    if unknown:
        print(f"no rule {', '.join(unknown)}; the rules are {', '.join(RULE_IDS)}")
        return 2
    chosen = tuple(rule_ids) or None
    if json_path is not None:
        cells = [cell.to_dict() for cell in hidden_test_cells(chosen)]
        json_path.write_text(json.dumps(cells, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {len(cells)} cells to {json_path}")
        return 0
    summary = grading_summary(chosen)
    for cell_id, points in summary:
        print(f"{points:>4g}  {cell_id}")
    print(f"{sum(points for _, points in summary):>4g}  in {len(summary)} cells")
    return 0
