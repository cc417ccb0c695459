"""The grading rules: which function is called on which instances, for how many points."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from autograder.grading import beyond_instances
from autograder.grading import instances as make
from autograder.grading.instances import Instance
from autograder.grading.judge import PRUNING_SLACK


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
    pool: str = ""  # the candidate set its instances are chosen from (`CANDIDATES`)


@dataclass(frozen=True, eq=False)
class Rule:
    """One line of the grade: an id, what it judges, and its groups of instances."""

    id: str
    kind: str  # "value", "vector", "decision" or "pruning"
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
"""The rules of lectures 1-4, graded when no assignment is named."""

CHANCE_AND_MAXN_RULE_IDS = (
    "expectiminimax_value",
    "expectiminimax_decision",
    "maxn_value",
    "maxn_decision",
)
"""Lecture 06's optional assignment: graded only when it is named (`--assignment`)."""

ALL_RULE_IDS = (*RULE_IDS, *CHANCE_AND_MAXN_RULE_IDS)
"""Every rule that calls a function and judges its answer."""

PLAYED_RULE_IDS = (
    "agent_beats_random",
    "agent_beats_depth_2",
    "agent_beats_depth_4",
    "agent_wins_endgames",
    "agent_keeps_the_value",
    "agent_moves_in_time",
)
"""Assignment 5's rules, earned by playing (`autograder.contest.levels`, `.positions`), not by
answers."""

ASSIGNMENT_RULES: dict[str, tuple[str, ...]] = {
    "minimax": ("minimax_value", "minimax_decision"),
    "alphabeta": ("alphabeta_value", "alphabeta_decision", "alphabeta_pruning"),
    "depth_limited": ("depth_limited_value", "depth_limited_decision"),
    "bug_hunt": RULE_IDS,
    "connect_four": PLAYED_RULE_IDS,
    "chance_and_maxn": CHANCE_AND_MAXN_RULE_IDS,
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


EVERY_CANDIDATE = False
"""Whether groups take every candidate of their pool instead of the frozen choice: set only by
`autograder.grading.coverage`, which grades the catalogued mistakes on every candidate."""


@cache
def _instance_sets() -> dict[str, tuple[Instance, ...]]:
    """The candidate instances the groups are chosen from, by pool name (built once per
    process)."""
    depth_trees = tuple(make.depth_limited_trees())
    hand = tuple(make.hand_trees())
    tie_free = tuple(
        make.seeded_trees(6, seed=2, distinct=True, branching=(3, 4), depth=5, low=-500, high=500)
    )
    return {
        "hand": hand,
        "trees": tuple(make.seeded_trees(6, seed=1, distinct=False, branching=(2, 4), depth=4,
                                         low=-20, high=20, leaf_probability=0.15)),
        "pruned_trees": (*hand[:1], *make.hand_pruning_trees(), *tie_free),
        "ttt_values": tuple(make.tictactoe_values((3, 5))),
        "ttt_values_deep": (*make.tictactoe_values((5, 8)),
                            *make.tictactoe_transpositions((5, 7))),
        "c4_values": tuple(make.connect_four_endgames(5, seed=7, empties=(6, 8))),
        "c4_values_deep": tuple(make.connect_four_endgames(5, seed=8, empties=(9, 11))),
        "tree_moves": tuple(make.tree_decisions(6, seed=3)),
        "ttt_moves": (*make.tictactoe_decisions((3, 5)),
                      *make.cheap_decisions((3, 5), "minimax_decision", 8)),
        "ttt_moves_deep": (*make.tictactoe_decisions((5, 8)), *make.table_bound_decisions(),
                           *make.cheap_decisions((5, 8), "alphabeta_decision", 6)),
        "depth_trees": depth_trees,
        "depth_tree_moves": tuple(i for i in depth_trees if i.depth and i.depth >= 1),
        "depth_ttt_values": tuple(make.depth_limited_tictactoe(decisions=False)),
        "depth_ttt_moves": (*make.depth_limited_tictactoe(decisions=True),
                            *make.depth_limited_ties(2)),
    }  # fmt: skip


def candidates(pool: str) -> tuple[Instance, ...]:
    """Every candidate of `pool`, chosen or not (`autograder.grading.coverage` grades them)."""
    return _instance_sets()[pool]


def slot(function: str, pool: str) -> str:
    """The key of a function's choice among a pool's candidates in the frozen data."""
    return f"{function} on {pool}"


def chosen(function: str, pool: str) -> tuple[Instance, ...]:
    """The candidates of `pool` that `function` is called on: the frozen choice of
    `autograder.grading.coverage` (every candidate if it made none, or under `EVERY_CANDIDATE`)."""
    pooled = candidates(pool)
    picks = None if EVERY_CANDIDATE else make.chosen_data().get(slot(function, pool))
    if picks is None:
        return pooled
    stale = [(p, name) for p, name in picks if p >= len(pooled) or pooled[p].name != name]
    if stale:  # the pool changed since the coverage chose: its places mean other instances
        raise RuntimeError(
            f"the frozen choice of {slot(function, pool)!r} names candidates the pool no longer "
            f"holds at those places {stale[:3]}: run `python -m autograder.grading.coverage "
            "--write` to choose again"
        )
    return tuple(pooled[place] for place, _ in picks)


def _group(name: str, function: str, points: float, pool: str) -> Group:
    return Group(name, function, points, chosen(function, pool), pool)


def _value_groups(function: str, ttt: str, c4: str) -> tuple[Group, ...]:
    return (
        _group("hand-made trees", function, 4, "hand"),
        _group("seeded random trees", function, 4, "trees"),
        _group("tic-tac-toe positions", function, 4, ttt),
        _group("Connect Four end-games (scores beyond +-1)", function, 3, c4),
    )


def _decision_groups(function: str, ttt: str) -> tuple[Group, ...]:
    return (
        _group("random trees with one best move", function, 5, "tree_moves"),
        _group("tic-tac-toe: one best move", function, 5, ttt),
    )


@cache
def rules() -> tuple[Rule, ...]:
    """Build every rule and its instances (deterministic; built once per process)."""
    return (
        Rule("minimax_value", "value", "minimax values",
             _value_groups("minimax_value", "ttt_values", "c4_values")),
        Rule("minimax_decision", "decision", "minimax best moves",
             _decision_groups("minimax_decision", "ttt_moves")),
        Rule("alphabeta_value", "value", "alpha-beta values",
             _value_groups("alphabeta_value", "ttt_values_deep", "c4_values_deep")),
        Rule("alphabeta_decision", "decision", "alpha-beta best moves",
             _decision_groups("alphabeta_decision", "ttt_moves_deep")),
        Rule("alphabeta_pruning", "pruning",
             f"states generated by alpha-beta, at most {PRUNING_SLACK} x the reference", (
                _group("trees without ties: alphabeta_value", "alphabeta_value", 8,
                       "pruned_trees"),
                _group("trees without ties: alphabeta_decision carries the window",
                       "alphabeta_decision", 7, "tree_moves"),
                _group("tic-tac-toe (ties everywhere)", "alphabeta_value", 5, "ttt_values_deep"),
             )),
        Rule("depth_limited_value", "value", "depth-limited values", (
            _group("trees with an asymmetric evaluation", "depth_limited_value", 8,
                   "depth_trees"),
            _group("tic-tac-toe with a heuristic", "depth_limited_value", 7, "depth_ttt_values"),
        )),
        Rule("depth_limited_decision", "decision", "depth-limited best moves", (
            _group("trees with an asymmetric evaluation", "depth_limited_decision", 8,
                   "depth_tree_moves"),
            _group("tic-tac-toe with a heuristic", "depth_limited_decision", 7,
                   "depth_ttt_moves"),
        )),
        *_chance_and_maxn_rules(),
    )  # fmt: skip


def _chance_and_maxn_rules() -> tuple[Rule, ...]:
    """Lecture 06's rules: chance nodes and several players (instances:
    `autograder.grading.beyond_instances`)."""
    sets = beyond_instances.instance_sets()
    return (
        Rule("expectiminimax_value", "value", "expectiminimax values", (
            Group("hand-made chance trees", "expectiminimax_value", 5, sets["chance_hand"]),
            Group("seeded chance trees with uneven probabilities", "expectiminimax_value", 5,
                  sets["chance_random"]),
            Group("Pig positions (a fair die)", "expectiminimax_value", 5, sets["pig"]),
        )),
        Rule("expectiminimax_decision", "decision", "expectiminimax best moves", (
            Group("chance trees with one best move", "expectiminimax_decision", 5,
                  sets["chance_moves"]),
            Group("Pig: roll or hold", "expectiminimax_decision", 5, sets["pig_moves"]),
        )),
        Rule("maxn_value", "vector", "max-n utility vectors", (
            Group("hand-made three-player trees", "maxn_value", 5, sets["maxn_hand"]),
            Group("seeded three-player trees", "maxn_value", 5, sets["maxn_random"]),
            Group("take-away for three (ties: the first best child)", "maxn_value", 5,
                  sets["takeaway"]),
        )),
        Rule("maxn_decision", "decision", "max-n best moves", (
            Group("three-player trees", "maxn_decision", 5,
                  sets["maxn_moves"]),
            Group("take-away for three", "maxn_decision", 5, sets["takeaway"]),
        )),
    )  # fmt: skip


def selected_rules(rule_ids: tuple[str, ...] = RULE_IDS) -> tuple[Rule, ...]:
    """The rules with these ids, in the usual order."""
    unknown = set(rule_ids) - set(ALL_RULE_IDS)
    if unknown:
        raise KeyError(f"no rule {sorted(unknown)}; the rules are {', '.join(ALL_RULE_IDS)}")
    return tuple(candidate for candidate in rules() if candidate.id in rule_ids)


def rule(rule_id: str) -> Rule:
    """Return the rule with this id."""
    for candidate in rules():
        if candidate.id == rule_id:
            return candidate
    raise KeyError(f"no rule {rule_id!r}; the rules are {', '.join(ALL_RULE_IDS)}")


def total_points(rule_ids: tuple[str, ...] = RULE_IDS) -> float:
    return sum(candidate.points for candidate in selected_rules(rule_ids))
