"""One mutant per rule: the reference with a single mistake loses exactly that rule's points.

The reference's decisions call its value functions, so a broken value function would also cost
the decisions. Each mutant therefore keeps a correct copy of the function it breaks, under
another name, for the other functions to use.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.grade import Settings, grade
from autograder.load import Submission, load
from autograder.reference import reference_source
from autograder.rules import RULE_IDS, rule
from autograder.sandbox import Limits, build_import_view

KEEP_CORRECT = """
_correct = {{name: globals()[name] for name in {names!r}}}
"""

# rule id -> (functions whose correct copies the others use, source of the broken function)
MUTANTS = {
    "minimax_value": (
        ["minimax_value"],
        "def minimax_value(game, state):  # a MAX node starts at 0\n"
        "    if game.is_terminal(state):\n        return game.utility(state)\n"
        "    values = [_correct['minimax_value'](game, game.result(state, a))\n"
        "              for a in game.actions(state)]\n"
        "    return max([0, *values]) if game.to_move(state) == MAX else min(values)\n",
    ),
    "minimax_decision": (
        [],
        "def minimax_decision(game, state):  # picks the worst child\n"
        "    pick = min if game.to_move(state) == MAX else max\n"
        "    return pick(game.actions(state),\n"
        "                key=lambda a: minimax_value(game, game.result(state, a)))\n",
    ),
    "alphabeta_value": (
        ["alphabeta_value"],
        "def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):  # off by one\n"
        "    return _correct['alphabeta_value'](game, state, alpha, beta) + 1\n",
    ),
    "alphabeta_decision": (
        [],
        "def alphabeta_decision(game, state):  # the last action examined\n"
        "    for action in game.actions(state):\n"
        "        alphabeta_value(game, game.result(state, action))\n"
        "    return action\n",
    ),
    "alphabeta_pruning": (
        [],
        "def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):  # fresh windows\n"
        "    if game.is_terminal(state):\n        return game.utility(state)\n"
        "    values = []\n"
        "    for action in game.actions(state):\n"
        "        values.append(alphabeta_value(game, game.result(state, action)))\n"
        "        best = max(values) if game.to_move(state) == MAX else min(values)\n"
        "        if (game.to_move(state) == MAX and best >= beta) or (\n"
        "            game.to_move(state) != MAX and best <= alpha):\n"
        "            return best\n"
        "    return max(values) if game.to_move(state) == MAX else min(values)\n",
    ),
    "depth_limited_value": (
        ["depth_limited_value"],
        "def depth_limited_value(game, state, depth, evaluate):  # evaluates terminals too\n"
        "    if depth == 0:\n        return evaluate(state)\n"
        "    if game.is_terminal(state):\n        return game.utility(state)\n"
        "    values = [depth_limited_value(game, game.result(state, a), depth - 1, evaluate)\n"
        "              for a in game.actions(state)]\n"
        "    return max(values) if game.to_move(state) == MAX else min(values)\n",
    ),
    "depth_limited_decision": (
        [],
        "def depth_limited_decision(game, state, depth, evaluate):  # one ply further\n"
        "    sign = 1 if game.to_move(state) == MAX else -1\n"
        "    return max(game.actions(state), key=lambda a: sign * depth_limited_value(\n"
        "        game, game.result(state, a), depth, evaluate))\n",
    ),
}


def mutant_source(rule_id: str) -> str:
    """The reference, then correct copies of what is broken, then the broken function; the
    functions that called the broken one are pointed at the correct copy."""
    keep, broken = MUTANTS[rule_id]
    source = reference_source()
    for name in keep:
        source = re.sub(rf"(?<!def ){name}\(game", f"_correct['{name}'](game", source)
    return source + KEEP_CORRECT.format(names=keep) + "\n" + broken


# Pruning points go only with correct answers, so a wrong alphabeta_value or alphabeta_decision
# also loses the pruning groups that call it (and nothing else).
ALSO_LOSES = {
    "alphabeta_value": {"alphabeta_pruning": ("trees without ties: alphabeta_value", "tic-tac")},
    "alphabeta_decision": {"alphabeta_pruning": ("trees without ties: alphabeta_decision",)},
}


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_a_mutant_loses_exactly_the_points_of_its_rule(rule_id: str, view: Path, tmp_path):
    path = tmp_path / f"{rule_id}.py"
    path.write_text(mutant_source(rule_id), encoding="utf-8")
    submission = Submission(rule_id, (path,))
    record = grade(submission, load(submission), Settings(Limits(), view))
    points = {r["id"]: r["points"] for r in record["rules"]}
    assert points[rule_id] < rule(rule_id).points, record["messages"]
    for other in RULE_IDS:
        if other == rule_id:
            continue
        lost_groups = ALSO_LOSES.get(rule_id, {}).get(other, ())
        expected = rule(other).points - sum(
            g.points for g in rule(other).groups if g.name.startswith(lost_groups)
        )
        assert points[other] == expected, (other, record["messages"])
