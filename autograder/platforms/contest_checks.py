"""What runs in the Connect Four notebook's kernel: the contest's hidden tests.

The notebook's first contest cell carries, in its hidden region, the source of
`autograder.grading.records`, the solver (`solutions.connect_four`), `autograder.contest.opponents`,
`autograder.contest.referee` and this module (pasted by `autograder.platforms.nbgrader_export`), and
runs them in a namespace of their own, seeded with the judge's and `notebook_checks`'s names from
the grading helpers' cell. So this module needs only the standard library, `games` and those
modules, and its names never replace the student's.

The kernel plays the very games the grader plays (`contest.play_contest` against the same
opponents from the same openings) and grades them with `contest.contest_rules`, so
`nbgrader autograde` and `python -m autograder grade --assignment connect_four` give an agent
the same points, with these differences, which matter only to an agent that plays against the
clock or leans on the process:

- the agent searches the real `ConnectFour` (wrapped in a `CountingGame`), not the served game,
  so each state costs less time, and a search bounded by the clock may reach deeper;
- a move that runs out of time is interrupted (SIGALRM) rather than killed, so what the agent
  keeps between calls survives it, where the sandbox starts a fresh process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from autograder.contest.opponents import AGENT_FUNCTION, GAME, GRACE, Choice, Player, agent_choice
from autograder.contest.referee import (
    DEFAULT_SECONDS,
    IN_TIME_RULE,
    LEVELS,
    Level,
    contest_rules,
    play_contest,
)
from autograder.grading.records import RuleResult
from autograder.platforms.notebook_checks import call_function
from games.connect_four import ConnectFourState

AGENT_NAME = "your agent"
"""The agent's name in its games, as `autograder.contest.grade.AGENT_NAME` (the grader's)."""

PLAYED: dict = {}
"""(function, level name, seconds) -> the level's games: each level is played once per kernel."""


class KernelAgent(Player):
    """The student's `connect_four_agent`, called in the kernel on the real `ConnectFour`.

    Each move is one call with a deadline of `seconds + GRACE` (an alarm interrupts it, or a
    move that comes back later is still forfeited); what the call gave becomes a `Choice` as
    the sandbox's does (`opponents.agent_choice`).
    """

    def __init__(self, name: str, function: Callable[..., Any]) -> None:
        self.name = name
        self.function = function

    def choose(self, state: ConnectFourState, seconds: float) -> Choice:
        deadline = seconds + GRACE
        started = time.monotonic()
        outcome = call_function(self.function, GAME, state, (seconds,), timeout=deadline)
        took = time.monotonic() - started
        if outcome.status == "returned" and took > deadline:  # no alarm in this thread
            return Choice(None, took, "timeout", f"no answer within {deadline:g} seconds")
        return agent_choice(outcome, GAME.actions(state), took)


def played_games(function: Callable[..., Any], level: Level, seconds: float) -> tuple:
    """The games of one level played by `function`, played at the first call in this kernel."""
    key = (function, level.name, seconds)
    if key not in PLAYED:
        agent = KernelAgent(AGENT_NAME, function)
        PLAYED[key] = play_contest(agent, seconds, levels=(level,))[level.name]
    return PLAYED[key]


def contest_rule(function: Callable[..., Any], rule_id: str, seconds: float) -> RuleResult:
    """The rule `rule_id` of the contest for `function`, its levels' games played if need be.

    The in-time rule needs the games of every level; each level's rule only its own.
    """
    if rule_id == IN_TIME_RULE:
        levels = LEVELS
    else:
        levels = tuple(level for level in LEVELS if level.rule_id == rule_id)
    if not levels:
        known = [level.rule_id for level in LEVELS] + [IN_TIME_RULE]
        raise ValueError(f"no contest rule is called {rule_id!r}; the rules are {known}")
    games = {level.name: played_games(function, level, seconds) for level in levels}
    return next(rule for rule in contest_rules(games, AGENT_NAME) if rule.id == rule_id)


def grade_contest_rule(
    rule_id: str,
    points: float,
    namespace: dict | None = None,
    seconds: float = DEFAULT_SECONDS,
) -> None:
    """The hidden test of one contest rule: `connect_four_agent` in `namespace` must earn it.

    Raises AssertionError listing each game the agent did not win (or, for the in-time rule,
    did not play legally and in time), with a hint, unless the rule earned all its `points`;
    prints a one-line summary when it did.
    """
    namespace = globals() if namespace is None else namespace
    function = namespace.get(AGENT_FUNCTION)
    if not callable(function):
        raise AssertionError(
            f"{AGENT_FUNCTION} is not defined (or not a function) in your notebook: no game "
            f"could be played ({points:g} points lost)"
        )
    rule = contest_rule(function, rule_id, seconds)
    group = rule.groups[0]
    title = f"{rule_id} ({points:g} points, all or nothing): {rule.description}"
    if not rule.full:
        failures = []
        for verdict in group.verdicts:
            if not verdict.passed:
                line = f"- {verdict.instance}: expected {verdict.expected}, got {verdict.got}."
                failures.append(line + (f" Hint: {verdict.hint}." if verdict.hint else ""))
        missing = [] if group.verdicts else ["- no game was played"]
        if any("NotImplementedError" in verdict.got for verdict in group.verdicts):
            missing.append(f"- {AGENT_FUNCTION} is not implemented yet: write its body")
        raise AssertionError(
            f"{title}: not earned, {len(failures)} of {len(group.verdicts)} games fall short.\n"
            + "\n".join(failures + missing)
        )
    print(f"{title}: earned, {_tally(group.verdicts, rule_id)}")


def _tally(verdicts: tuple, rule_id: str) -> str:
    if rule_id == IN_TIME_RULE:
        return f"every move of {len(verdicts)} games legal and in time"
    wins = sum(verdict.passed for verdict in verdicts)
    return f"{wins} of {len(verdicts)} games won"
