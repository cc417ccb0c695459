"""Write nbgrader's hidden test cells from the grading rules, so both graders give equal points.

One nbgrader test cell per rule group: its grade id is `<rule id>__<group slug>`, its points are the
group's points, and its hidden region holds the group's instances as literal data (trees as nested
lists, tic-tac-toe boards as strings, Connect Four positions as move strings), each with the `Case`
the grader judges it against (`autograder.grading.cases`), hints included. In the kernel the cell
calls `grade_group` from `autograder.platforms.notebook_checks`, which judges with
`autograder.grading.judge`: the source of both modules (and of `autograder.grading.plain`, which
the judge reads answers with) is pasted into the notebook by `helper_cell_source`. The literal
data is written by `autograder.platforms.literals`.

Assignment 5's rules are earned by playing games: a cell per level and one for moving in time
(`contest_test_cells`), the first carrying in its hidden region the grader's own contest code
(`contest_source`), so the kernel plays the grader's games, which released notebooks do not show.

`python -m autograder nbgrader-cells` lists the cells (or writes them as JSON);
`assignments/make_assignments.py` puts them into the assignment notebooks.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import textwrap
from collections.abc import Collection, Set
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from autograder.contest import levels, positions
from autograder.grading import cases
from autograder.grading import instances as instance_module
from autograder.grading.instances import Instance
from autograder.grading.judge import PRUNING_SLACK
from autograder.grading.rules import ALL_RULE_IDS, PLAYED_RULE_IDS, Group, Rule, rules
from autograder.platforms.literals import case_source, game_literal, state_literal
from games import ChanceTree, GameTree, Pig

CONTEST_MODULES = (
    "autograder.grading.records",
    "solutions.connect_four",
    "autograder.contest.opponents",
    "autograder.contest.referee",
    "autograder.contest.levels",
    "autograder.contest.frozen_positions",
    "autograder.contest.positions",
    "autograder.platforms.contest_checks",
)
"""The modules the contest's hidden tests paste, in dependency order."""

HELPER_MODULES = (
    "autograder.grading.plain",
    "autograder.grading.judge",
    "autograder.grading.together",
    "autograder.platforms.kernel_calls",
    "autograder.platforms.notebook_checks",
)
"""The modules the helpers' cell pastes (the judge and the kernel's checks), in dependency order."""

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


# -- the cells -------------------------------------------------------------------------------


def _args_literal(instance: Instance) -> str:
    if instance.depth is None:
        return "()"
    return f"({instance.depth}, {EVALUATIONS[instance.evaluate]})"


def call_literal(group: Group, instance: Instance) -> str:
    """One call of a hidden test cell: (game, state, args, case)."""
    parts = [
        game_literal(instance.game),
        state_literal(instance.game, instance.state),
        _args_literal(instance),
        case_source(cases.case(group.function, instance)),
    ]
    return "(\n" + "".join(f"    {textwrap.indent(p, '    ').lstrip()},\n" for p in parts) + ")"


def _imports(group: Group) -> list[str]:
    kinds = {type(instance.game) for instance in group.instances}
    names = sorted(kind.__name__ for kind in kinds)
    if any(isinstance(i.game, GameTree) and i.game.root_player == "MIN" for i in group.instances):
        names = ["MIN", *names]
    if ChanceTree in kinds:
        names = [*names, "chance", "max_", "min_"]
    if Pig in kinds:
        names = [*names, "PigState"]
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
    calls = ",\n".join(
        textwrap.indent(call_literal(group, instance), "        ") for instance in group.instances
    )
    call = "\n".join(
        [
            "grade_group(",
            f"    {group.function!r},",
            f"    {rule.kind!r},",
            f"    {f'{rule.id}: {group.name}'!r},",
            f"    {group.points!r},",
            "    [",
            calls + ",",
            "    ],",
            f"    slack={PRUNING_SLACK!r},",
            ")",
        ]
    )
    header = (
        f"# Hidden test, {group.points:g} points: {group.function} on {group.name} "
        f"(rule {rule.id}, all or nothing).\n"
        "### BEGIN HIDDEN TESTS\n"
        "# Generated from autograder/grading/rules.py by assignments/make_assignments.py; do not\n"
        "# edit.\n" + "\n".join(_imports(group))
    )
    parts = [header, *(source.rstrip("\n") for source in _evaluation_sources(group)), call]
    return "\n\n\n".join(parts) + "\n### END HIDDEN TESTS"


def hidden_test_cells(
    rule_ids: tuple[str, ...] | None = None,
    move_seconds: float | None = None,
    move_states: int | None = None,
) -> list[GradedCell]:
    """The test cells of the given rules (all rules that judge answers by default), in grading
    order; the contest's rules play each move with `move_states` states and `move_seconds` of
    CPU time (None: the grader's defaults)."""
    cells = []
    for rule in answer_rules(rule_ids):
        for group in rule.groups:
            source = hidden_test_source(rule, group)
            cells.append(
                GradedCell(grade_id(rule, group), group.points, rule.id, group.name, source)
            )
    return cells + contest_test_cells(rule_ids or (), move_seconds, move_states)


def answer_rules(rule_ids: tuple[str, ...] | None) -> list[Rule]:
    """The rules of `rule_ids` that judge answers (all if None); none built if there are none:
    the rules' instances take seconds to build and much memory to keep."""
    if rule_ids is not None and not set(rule_ids) & set(ALL_RULE_IDS):
        return []
    return [rule for rule in rules() if rule_ids is None or rule.id in rule_ids]


# -- the contest (assignment 5) --------------------------------------------------------------


def contest_groups(rule_ids: Collection[str]) -> list[tuple[str, str, float]]:
    """(rule id, group name, points) of each contest rule in `rule_ids`, in grading order."""
    groups = [(level.rule_id, level.name, float(level.points)) for level in levels.LEVELS]
    groups.append((positions.POSITIONS_RULE, positions.POSITIONS_GROUP, positions.POSITIONS_POINTS))
    groups.append((levels.IN_TIME_RULE, levels.IN_TIME_GROUP, levels.IN_TIME_POINTS))
    return [group for group in groups if group[0] in rule_ids]


def contest_test_cells(
    rule_ids: Collection[str], seconds: float | None = None, states: int | None = None
) -> list:
    """The contest's test cells: each calls `grade_contest_rule`, which the first defines."""
    cells = []
    for rule_id, name, points in contest_groups(rule_ids):
        argument = "" if states is None else f", states={states!r}"
        argument += "" if seconds is None else f", seconds={seconds!r}"
        header = (
            f"# Hidden test, {points:g} points: connect_four_agent's play, {name} (rule "
            f"{rule_id}, points by share).\n### BEGIN HIDDEN TESTS\n# Generated from "
            "autograder/contest/levels.py by assignments/make_assignments.py; do not edit.\n"
        )
        definitions = "" if cells else _contest_definitions() + "\n\n"
        call = f"grade_contest_rule({rule_id!r}, {points!r}, globals(){argument})"
        source = f"{header}{definitions}{call}\n### END HIDDEN TESTS"
        cells.append(GradedCell(f"{rule_id}__{slug(name)}", points, rule_id, name, source))
    return cells


def _contest_definitions() -> str:
    """The first contest cell's code: the contest's source, run in a namespace of its own."""
    source, helpers = contest_source()
    return (
        "# The grader's contest code, copied from the modules of CONTEST_MODULES in\n"
        "# autograder/platforms/nbgrader_export.py. It runs as a module of its own (its\n"
        "# dataclasses need one), given the grading helpers' names it uses, so none of its names\n"
        "# replaces yours.\n"
        f"CONTEST_SOURCE = r'''\n{source}'''\n"
        'CONTEST_KERNEL = __import__("types").ModuleType("contest_kernel")\n'
        '__import__("sys").modules["contest_kernel"] = CONTEST_KERNEL\n'
        f"vars(CONTEST_KERNEL).update((name, globals()[name]) for name in {helpers!r})\n"
        'exec(compile(CONTEST_SOURCE, "<the contest>", "exec"), vars(CONTEST_KERNEL))\n'
        "grade_contest_rule = CONTEST_KERNEL.grade_contest_rule"
    )


@cache
def contest_source() -> tuple[str, tuple[str, ...]]:
    """The contest's code for the kernel (the modules of `CONTEST_MODULES`, pasted in order)
    and the names it takes from the grading helpers' cell. Raises ValueError if a module imports
    from `autograder` or `solutions` what neither an earlier module nor the helpers define."""
    parts, provided, helpers = ["from __future__ import annotations"], set(), set()
    for name in CONTEST_MODULES:
        module = importlib.import_module(name)
        for node in ast.parse(inspect.getsource(module)).body:
            imported = node.module if isinstance(node, ast.ImportFrom) else ""
            names = {alias.name for alias in getattr(node, "names", ())}
            if imported in HELPER_MODULES:
                helpers |= names
            elif imported.startswith(("autograder", "solutions")) and not names <= provided:
                raise ValueError(f"{name} imports {imported}, which the notebook's kernel lacks")
        parts.append(f"# -- {name.replace('.', '/')}.py\n\n{module_source(module, provided)}")
        provided.update(vars(module))
    source = "\n\n\n".join(parts) + "\n"
    if "'''" in source or "HIDDEN TESTS" in source:  # would end the raw string or the region
        raise ValueError("the contest's source holds ''' or HIDDEN TESTS: no cell can paste it")
    return source, tuple(sorted(helpers))


def module_source(module, provided: Set[str] = frozenset()) -> str:
    """A module's code without its docstring, `__future__` import and imports of `autograder`
    (and of `solutions`, if every name imported is in `provided`), to paste into a notebook cell
    after the modules it imports from."""
    source = inspect.getsource(module)
    lines = source.splitlines()
    body = ast.parse(source).body
    start = body[1].lineno - 1 if ast.get_docstring(ast.Module(body, [])) else 0
    dropped = [range(node.lineno - 1, node.end_lineno) for node in body if _pasted(node, provided)]
    kept = [line for i, line in enumerate(lines[start:], start) if not any(i in r for r in dropped)]
    return "\n".join(kept).strip("\n")


def _pasted(node: ast.stmt, provided: Set[str]) -> bool:
    """Whether `node` imports what the cell's earlier code (or `provided`) defines instead."""
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == "autograder" for alias in node.names)
    package = (getattr(node, "module", None) or "").split(".")[0]
    names = {alias.name for alias in getattr(node, "names", ())}
    return package in ("__future__", "autograder") or package == "solutions" and names <= provided


def helper_cell_source(heading: str, imports: str = "") -> str:
    """Source for a notebook cell that defines the judge and the kernel's checks."""
    future = "from __future__ import annotations  # the judge's annotations name its own classes"
    parts = [heading.strip("\n"), future, imports.strip("\n")]
    parts += [module_source(importlib.import_module(name)) for name in HELPER_MODULES]
    return "\n\n\n".join(part for part in parts if part) + "\n"


def grading_helpers_source() -> str:
    """The notebook cell that defines `grade_group` for the hidden tests."""
    heading = (
        "# How the hidden tests below judge your functions: the same way as the course's\n"
        "# autograder (copied from autograder/grading/plain.py, autograder/grading/judge.py\n"
        "# and autograder/platforms/notebook_checks.py).\n"
        "# Leave this cell as it is."
    )
    return helper_cell_source(heading)


def self_check_helpers_source(imports: str = "") -> str:
    """The notebook cell that defines `check_value`, `check_decision` and `check_states`.

    `imports` are what the rest of the notebook needs besides (the toolkit's names).
    """
    heading = (
        "# Setup: run this cell first. It imports the toolkit and defines the self-check\n"
        "# helpers the checks after each function call (copied from autograder/grading/plain.py,\n"
        "# autograder/grading/judge.py and autograder/platforms/notebook_checks.py)."
    )
    return helper_cell_source(heading, imports)


def grading_summary(rule_ids: tuple[str, ...] | None = None) -> list[tuple[str, float]]:
    """(grade id, points) of each test cell, without computing any data."""
    answers = [(grade_id(r, g), g.points) for r in answer_rules(rule_ids) for g in r.groups]
    played = [(f"{rule}__{slug(name)}", pts) for rule, name, pts in contest_groups(rule_ids or ())]
    return answers + played


def cells_command(rule_ids: list[str], json_path: Path | None) -> int:
    """`python -m autograder nbgrader-cells [RULE...] [--json FILE]`: list or write the cells."""
    known = (*ALL_RULE_IDS, *PLAYED_RULE_IDS)
    unknown = sorted(set(rule_ids) - set(known))
    if unknown:
        print(f"no rule {', '.join(unknown)}; the rules are {', '.join(known)}")
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
