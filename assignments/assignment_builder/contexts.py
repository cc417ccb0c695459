"""What fills each assignment's template: points, tables and the code read from the code base."""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable
from typing import Any

from autograder.grading.rules import PRUNING_SLACK, rules
from autograder.platforms import nbgrader_export
from games import MAX, TicTacToe
from solutions import agent, alphabeta, chance, depth_limited, evaluation, minimax, multiplayer
from solutions.depth_limited import depth_limited_decision
from solutions.facts import reachable_states

from .bug_hunt import BUGS
from .check_cases import fast_win_checks, function_checks, heuristic_checks, open_lines, path_score
from .notebook import CONTENT, render
from .sources import (
    given_source,
    module_constant,
    setup_source,
    solution_source,
    with_solution_regions,
)

TTT = TicTacToe()
TOURNAMENT = "depth_limited/tournament.py.j2"
"""The content file of the tournament's code, which the reference also plays for its table."""


def grading_points(rule_ids: tuple[str, ...]) -> float:
    """The points of the hidden tests of `rule_ids`."""
    return sum(points for _, points in nbgrader_export.grading_summary(rule_ids))


def grading_table(rule_ids: tuple[str, ...]) -> str:
    """A markdown table of the graded groups: function, positions, points."""
    rows = ["| rule | group of positions | points |", "|---|---|---:|"]
    for rule in rules():
        if rule.id in rule_ids:
            for group in rule.groups:
                rows.append(f"| `{rule.id}` | {group.name} | {group.points:g} |")
    rows.append(f"| | **total** | **{grading_points(rule_ids):g}** |")
    return "\n".join(rows)


def common_context(rule_ids: tuple[str, ...]) -> dict[str, Any]:
    """What every template may use: the points and table of its hidden tests, their helpers."""
    return {
        "points": f"{grading_points(rule_ids):g}",
        "table": grading_table(rule_ids),
        "grading_helpers": nbgrader_export.grading_helpers_source(),
    }


def minimax_context() -> dict[str, Any]:
    """Assignment 1: the setup, the two solutions and their self-checks."""
    return {
        "setup": setup_source(),
        "minimax_value": solution_source(minimax.minimax_value),
        "check_minimax_value": function_checks("minimax_value", run=True),
        "require_a_move": given_source(minimax._require_a_move),
        "minimax_decision": solution_source(minimax.minimax_decision),
        "check_minimax_decision": function_checks("minimax_decision", run=True),
    }


def alphabeta_context() -> dict[str, Any]:
    """Assignment 2: as Assignment 1, and the pruning slack the grader allows."""
    return {
        "slack": f"{PRUNING_SLACK:g}",
        "setup": setup_source(games=("ordered_tree", "random_tree")),
        "alphabeta_value": solution_source(alphabeta.alphabeta_value),
        "check_alphabeta_value": function_checks("alphabeta_value", run=True),
        "require_a_move": given_source(minimax._require_a_move),
        "alphabeta_decision": solution_source(alphabeta.alphabeta_decision),
        "check_alphabeta_decision": function_checks("alphabeta_decision", run=True),
    }


def fast_win_position() -> str:
    """A position where plain utilities pick a slow win and PreferFastWins the immediate one."""
    fast = evaluation.PreferFastWins(TTT)
    scaled = evaluation.scaled_tictactoe_heuristic
    for state in sorted(reachable_states(TTT), key=lambda s: (-s.count("."), s)):
        if TTT.is_terminal(state) or TTT.to_move(state) != MAX:
            continue
        children = [TTT.result(state, a) for a in TTT.actions(state)]
        wins = [
            a
            for a, child in zip(TTT.actions(state), children, strict=True)
            if TTT.is_terminal(child) and TTT.utility(child) == 1
        ]
        if not wins:
            continue
        plain = depth_limited_decision(TTT, state, 3, scaled)
        preferred = depth_limited_decision(fast, state, 3, scaled)
        if plain not in wins and preferred in wins:
            return state
    raise ValueError("no position shows the difference")


def tournament_results() -> dict[str, tuple[int, int, int]]:
    """The tournament table of the reference solution (depth 3, scaled heuristic, fast wins)."""
    # The tournament's code is the notebook's cell itself, run with the names the notebook's
    # earlier cells define, so the table printed in the notebook is what that cell computes.
    namespace: dict[str, Any] = {
        "random": random,
        "MAX": MAX,
        "tictactoe_move_score": evaluation.tictactoe_move_score,
    }
    exec(compile(render(TOURNAMENT), TOURNAMENT, "exec"), namespace)

    def player(game: Any, state: Any) -> Any:
        return depth_limited_decision(game, state, 3, evaluation.scaled_tictactoe_heuristic)

    return namespace["tournament"](player, evaluation.PreferFastWins(TTT))


def depth_limited_context() -> dict[str, Any]:
    """Assignment 3: the two solutions, the evaluation's parts, the quick-win position and the
    reference's tournament table."""
    state = fast_win_position()
    evaluations = given_source(path_score, open_lines)
    heuristic_constants = ("WIN_SCORE", "HEURISTIC_BOUND", "_OPEN_LINE_SCORES", "_RULES")
    return {
        "setup": setup_source(
            modules=("import random",),
            froms=("from collections.abc import Callable", "from typing import Any"),
            after=module_constant(depth_limited, "Evaluation"),
        ),
        "depth_limited_value": solution_source(depth_limited.depth_limited_value),
        "check_depth_limited_value": evaluations
        + "\n\n\n"
        + function_checks("depth_limited_value", run=True),
        "depth_limited_decision": solution_source(depth_limited.depth_limited_decision),
        "check_depth_limited_decision": function_checks("depth_limited_decision", run=True),
        "heuristic_helpers": "\n\n".join(
            module_constant(evaluation, name) for name in heuristic_constants
        )
        + "\n\n\n"
        + given_source(evaluation._check_board),
        "tictactoe_heuristic": solution_source(evaluation.tictactoe_heuristic),
        "check_tictactoe_heuristic": heuristic_checks(),
        "scaled_heuristic": given_source(evaluation.scaled_tictactoe_heuristic),
        "marks_on_board": given_source(evaluation.marks_on_board),
        "prefer_fast_wins": with_solution_regions(
            inspect.getsource(evaluation.PreferFastWins), ("utility",)
        ),
        "check_prefer_fast_wins": fast_win_checks(),
        # a picture on one line, as the code of a string: rows joined by a backslash-n
        "fast_win_picture": "\\n".join(state[row : row + 3] for row in (0, 3, 6)),
        "tictactoe_move_score": given_source(evaluation.tictactoe_move_score),
        "tournament": tournament_results(),
    }


def bug_hunt_context() -> dict[str, Any]:
    """Assignment 4: for each bug its buggy version, self-checks (not run) and solution."""
    return {
        "setup": setup_source(
            froms=("from collections.abc import Callable",),
            games=("random_tree",),
            after=module_constant(depth_limited, "Evaluation"),
        ),
        "bug_hunt_helpers": given_source(minimax._require_a_move, path_score, open_lines),
        "bugs": [
            {
                "name": bug.name,
                "mistakes": bug.mistakes,
                "buggy": inspect.getsource(bug.buggy),
                "checks": function_checks(bug.name, run=False),
                "solution": solution_source(bug.function),
            }
            for bug in BUGS
        ],
    }


def chance_and_maxn_context() -> dict[str, Any]:
    """Assignment 6: expectiminimax and max-n, their self-checks."""
    return {
        "setup": setup_source(
            froms=("from games.multiplayer import Utilities",),
            games=("CHANCE", "ChanceTree", "MultiplayerGame", "MultiplayerTree", "Pig")
            + ("PigState", "TakeAway", "chance", "max_", "min_"),
        ),
        "require_a_move": given_source(minimax._require_a_move),
        "expectiminimax_value": solution_source(chance.expectiminimax_value),
        "check_expectiminimax_value": function_checks("expectiminimax_value", run=True),
        "expectiminimax_decision": solution_source(chance.expectiminimax_decision),
        "check_expectiminimax_decision": function_checks("expectiminimax_decision", run=True),
        "maxn_value": solution_source(multiplayer.maxn_value),
        "check_maxn_value": function_checks("maxn_value", run=True),
        "maxn_decision": solution_source(multiplayer.maxn_decision),
        "check_maxn_decision": function_checks("maxn_decision", run=True),
    }


def contest_table() -> tuple[str, float]:
    """Assignment 5's rules as a markdown table (what is played, the points, and the shares
    that earn none and all of them), and their total points."""
    from autograder.contest import levels, positions

    rows = [
        "| rule | against | played | points | nothing at | all at |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for level in levels.LEVELS:
        rows.append(
            f"| `{level.rule_id}` | {level.name} | {len(level.games)} games | {level.points:g} "
            f"| {level.floor * 100:g}% | {level.target * 100:g}% |"
        )
    rows.append(
        f"| `{positions.POSITIONS_RULE}` | the exact solver's verdict | "
        f"{len(positions.POSITIONS)} positions | {positions.POSITIONS_POINTS:g} "
        f"| {positions.POSITIONS_FLOOR * 100:g}% | {positions.POSITIONS_TARGET * 100:g}% |"
    )
    rows.append(
        f"| `{levels.IN_TIME_RULE}` | every move of every game above: a legal column, in time "
        f"| {sum(len(level.games) for level in levels.LEVELS)} games "
        f"| {levels.IN_TIME_POINTS:g} | 0% | 100% |"
    )
    total = (
        sum(level.points for level in levels.LEVELS)
        + positions.POSITIONS_POINTS
        + levels.IN_TIME_POINTS
    )
    rows.append(f"| | | | **{total:g}** | | |")
    return "\n".join(rows), total


def connect_four_context() -> dict[str, Any]:
    """Assignment 5: the reference agent's parts, its self-check, the contest's levels."""
    from autograder.contest import referee

    table, total = contest_table()
    constants = "\n\n".join(module_constant(agent, name) for name in ("CENTRE_FIRST", "EXACT"))
    check = (CONTENT / "connect_four" / "self_check.py").read_text(encoding="utf-8")
    return {
        "points": f"{total:g}",
        "table": table,
        "states": f"{referee.DEFAULT_STATES:,}",
        "states_literal": f"{referee.DEFAULT_STATES:_}",
        "seconds": f"{referee.DEFAULT_SECONDS:g}",
        "seconds_literal": f"{referee.DEFAULT_SECONDS!r}",
        "setup": setup_source(
            modules=("import random", "import time"),
            froms=("from dataclasses import dataclass, field",),
            games=("BudgetedGame", "OutOfStates"),
        ),
        "constants": constants,
        "search_state": with_solution_regions(
            inspect.getsource(agent._Search), ("look_up", "store")
        ),
        "root_search": given_source(agent._root_search),
        "alphabeta": solution_source(agent._alphabeta),
        "ordered": solution_source(agent._ordered),
        "connect_four_agent": solution_source(agent.connect_four_agent),
        "check_connect_four_agent": check.rstrip("\n")
        + "\n\n\ncheck_connect_four_agent(connect_four_agent)",
    }


CONTEXTS: dict[str, Callable[[], dict[str, Any]]] = {
    "minimax": minimax_context,
    "alphabeta": alphabeta_context,
    "depth_limited": depth_limited_context,
    "bug_hunt": bug_hunt_context,
    "connect_four": connect_four_context,
    "chance_and_maxn": chance_and_maxn_context,
}
"""For each assignment, the function that fills its template (besides `common_context`)."""
