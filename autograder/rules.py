"""The grading rules: which function is called on which instances, for how many points."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from autograder import instances as make
from autograder.instances import Instance

PRUNING_SLACK = 1.25
"""A pruning instance passes when the states generated are at most this many times the
reference alpha-beta's count on it (rounded down), and the answer is right.

Every correct formulation (fail-hard, fail-soft, negamax, any tie-breaking at the root, the
cut-off test written before or after updating alpha) generates exactly the reference's count on
trees whose leaf values are all different, and the root carrying its window is part of correct
alpha-beta. The slack leaves room for harmless extra work, such as testing the cut-off at the top
of the loop after generating the next child. The circulating mistakes generate far more: a fresh
(-inf, +inf) window for each child, all children generated before the loop, a MIN node that never
cuts off, cut-offs not passed up, and plain minimax (see tests/test_grader_rules.py).
A strict cut-off (prune only when alpha > beta) is correct alpha-beta too: it generates the
same states when no two leaves tie and loses only the tic-tac-toe group, where ties are
everywhere.
"""


@dataclass(frozen=True, eq=False)
class Group:
    """Instances judged together: the group's points are earned only if every one passes.

    Grouping is what makes guessing worthless: each group mixes values and puts the best move
    away from the first action, so a constant, the first action or a random move fails it.
    """

    name: str
    function: str
    points: float
    instances: tuple[Instance, ...]


@dataclass(frozen=True, eq=False)
class Rule:
    """One line of the grade: an id, what it judges, and its groups of instances."""

    id: str
    kind: str  # "value", "decision" or "pruning"
    description: str
    groups: tuple[Group, ...]

    @property
    def points(self) -> float:
        return sum(group.points for group in self.groups)

    @property
    def functions(self) -> list[str]:
        return sorted({group.function for group in self.groups})


RULE_IDS = (
    "minimax_value",
    "minimax_decision",
    "alphabeta_value",
    "alphabeta_decision",
    "alphabeta_pruning",
    "depth_limited_value",
    "depth_limited_decision",
)
ASSIGNMENT_RULES: dict[str, tuple[str, ...]] = {
    "minimax": ("minimax_value", "minimax_decision"),
    "alphabeta": ("alphabeta_value", "alphabeta_decision", "alphabeta_pruning"),
    "depth_limited": ("depth_limited_value", "depth_limited_decision"),
    "bug_hunt": RULE_IDS,
}
"""The rules each assignment of the nbgrader course (assignments/) grades."""

FUNCTIONS = (
    "minimax_value",
    "minimax_decision",
    "alphabeta_value",
    "alphabeta_decision",
    "depth_limited_value",
    "depth_limited_decision",
)


@cache
def rules() -> tuple[Rule, ...]:
    """Build every rule and its instances (deterministic; built once per process)."""
    hand = tuple(make.hand_trees())
    trees = tuple(make.seeded_trees(6, seed=1, distinct=False, branching=(2, 4), depth=4,
                                    low=-20, high=20, leaf_probability=0.15))  # fmt: skip
    tie_free = tuple(make.seeded_trees(6, seed=2, distinct=True, branching=(3, 4), depth=5,
                                       low=-500, high=500))  # fmt: skip
    ttt_values = tuple(make.tictactoe_values((3, 5)))
    ttt_values_deep = (*make.tictactoe_values((5, 8)), *make.tictactoe_transpositions((5, 7)))
    c4_values = tuple(make.connect_four_endgames(5, seed=7, empties=(6, 8)))
    c4_values_deep = tuple(make.connect_four_endgames(5, seed=8, empties=(9, 11)))
    tree_moves = tuple(make.tree_decisions(6, seed=3))
    ttt_moves = tuple(make.tictactoe_decisions((3, 5)))
    ttt_moves_deep = tuple(make.tictactoe_decisions((5, 8)))
    depth_trees = tuple(make.depth_limited_trees())
    depth_ttt_values = tuple(make.depth_limited_tictactoe(decisions=False))
    depth_ttt_moves = (*make.depth_limited_tictactoe(decisions=True), *make.depth_limited_ties(2))
    depth_tree_moves = tuple(i for i in depth_trees if i.depth and i.depth >= 1)

    def value_groups(function: str, ttt: tuple, c4: tuple) -> tuple[Group, ...]:
        return (
            Group("hand-made trees", function, 4, hand),
            Group("seeded random trees", function, 4, trees),
            Group("tic-tac-toe positions", function, 4, ttt),
            Group("Connect Four end-games (scores beyond +-1)", function, 3, c4),
        )

    def decision_groups(function: str, ttt: tuple) -> tuple[Group, ...]:
        return (
            Group("random trees with one best move", function, 5, tree_moves),
            Group("tic-tac-toe: one best move", function, 5, ttt),
        )

    return (
        Rule("minimax_value", "value", "minimax values",
             value_groups("minimax_value", ttt_values, c4_values)),
        Rule("minimax_decision", "decision", "minimax best moves",
             decision_groups("minimax_decision", ttt_moves)),
        Rule("alphabeta_value", "value", "alpha-beta values",
             value_groups("alphabeta_value", ttt_values_deep, c4_values_deep)),
        Rule("alphabeta_decision", "decision", "alpha-beta best moves",
             decision_groups("alphabeta_decision", ttt_moves_deep)),
        Rule(
            "alphabeta_pruning",
            "pruning",
            f"states generated by alpha-beta, at most {PRUNING_SLACK} x the reference",
            (
                Group("trees without ties: alphabeta_value", "alphabeta_value", 8,
                      (*hand[:1], *make.hand_pruning_trees(), *tie_free)),
                Group("trees without ties: alphabeta_decision carries the window",
                      "alphabeta_decision", 7, tree_moves),
                Group("tic-tac-toe (ties everywhere)", "alphabeta_value", 5, ttt_values_deep),
            ),
        ),
        Rule(
            "depth_limited_value",
            "value",
            "depth-limited values",
            (
                Group("trees with an asymmetric evaluation", "depth_limited_value", 8,
                      depth_trees),
                Group("tic-tac-toe with a heuristic", "depth_limited_value", 7, depth_ttt_values),
            ),
        ),
        Rule(
            "depth_limited_decision",
            "decision",
            "depth-limited best moves",
            (
                Group("trees with an asymmetric evaluation", "depth_limited_decision", 8,
                      depth_tree_moves),
                Group("tic-tac-toe with a heuristic", "depth_limited_decision", 7,
                      depth_ttt_moves),
            ),
        ),
    )  # fmt: skip


def selected_rules(rule_ids: tuple[str, ...] = RULE_IDS) -> tuple[Rule, ...]:
    """The rules with these ids, in the usual order."""
    unknown = set(rule_ids) - set(RULE_IDS)
    if unknown:
        raise KeyError(f"no rule {sorted(unknown)}; the rules are {', '.join(RULE_IDS)}")
    return tuple(candidate for candidate in rules() if candidate.id in rule_ids)


def rule(rule_id: str) -> Rule:
    """Return the rule with this id."""
    for candidate in rules():
        if candidate.id == rule_id:
            return candidate
    raise KeyError(f"no rule {rule_id!r}; the rules are {', '.join(RULE_IDS)}")


def total_points() -> float:
    return sum(candidate.points for candidate in rules())
