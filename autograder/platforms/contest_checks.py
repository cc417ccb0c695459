"""What runs in the Connect Four notebook's kernel: the contest's hidden tests.

The notebook's first contest cell carries, in its hidden region, the source of
`autograder.grading.records`, the solver (`solutions.connect_four`), `autograder.contest.opponents`,
`autograder.contest.referee`, `.levels`, the suite of positions (`.frozen_positions`,
`.positions`) and this module (pasted by `autograder.platforms.nbgrader_export`), and
runs them in a namespace of their own, seeded with the judge's and `notebook_checks`'s names from
the grading helpers' cell. So this module needs only the standard library, `games` and those
modules, and its names never replace the student's.

The kernel plays the very games the grader plays (`levels.play_contest` against the same
opponents from the same openings), asks for the same moves in the suite's positions
(`positions.play_positions`) and grades them with `contest_rules` and `positions_rule`, under
the same rules: each move searches the real `ConnectFour` wrapped in a `BudgetedGame` of the move's
budget of states (the sandbox's served game refuses the same state), the agent's `random` is
seeded at each game's first move, and no rule reads the wall clock. So an agent plays the same
moves here as in the sandbox, and `nbgrader autograde` and `python -m autograder grade
--assignment connect_four` give it the same points. What differs matters only to an agent that
leans on the process or on more than the served game offers:

- the CPU time is this whole process's (an interval timer, `ITIMER_PROF`), and a move that
  passes it is interrupted rather than killed, so what the agent keeps between calls survives;
- the wrapped game is the real one: its states are `ConnectFourState`s, not tokens, and the
  kernel cannot stop a notebook from reaching around the wrapper (nbgrader's grading is not
  tamper-resistant).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from typing import Any

from autograder.contest.levels import (
    IN_TIME_RULE,
    LEVELS,
    Level,
    contest_rules,
    play_contest,
)
from autograder.contest.opponents import (
    AGENT_FUNCTION,
    Allowance,
    FunctionPlayer,
)
from autograder.contest.positions import (
    POSITIONS_RULE,
    play_positions,
    positions_rule,
)
from autograder.contest.referee import DEFAULT_SECONDS, DEFAULT_STATES
from autograder.grading.judge import Outcome
from autograder.grading.plain import plain
from autograder.grading.records import RuleResult
from autograder.platforms.notebook_checks import GradingTimeout
from games import BudgetedGame
from games.connect_four import ConnectFourState

AGENT_NAME = "your agent"
"""The agent's name in its games, as `autograder.contest.grade.AGENT_NAME` (the grader's)."""

PLAYED: dict = {}
"""(function, level name, allowance) -> the level's games (the suite of positions: its moves),
each played once per kernel."""

KERNEL_AGENTS: dict = {}
"""(function, allowance) -> its `KernelAgent`: one for every level, as the sandbox's one process
plays them all, so that its moves stopped for time count across the levels there as here."""


class KernelAgent(FunctionPlayer):
    """The student's `connect_four_agent`, called in the kernel on a `BudgetedGame` of the real
    `ConnectFour` as `FunctionPlayer` calls it, but interrupted when its CPU time is up; what
    the call gave becomes a `Choice` as the sandbox's does (`opponents.agent_choice`)."""

    def call(self, game: BudgetedGame, state: ConnectFourState, allowance: Allowance) -> Outcome:
        return call_within(self.function, game, state, allowance)


def call_within(function: Callable[..., Any], game: BudgetedGame, state, allowance: Allowance):
    """Call `function(game, state, allowance.seconds)` and return its `Outcome`, stopping it
    (an exception raised inside it) once this process has used `allowance.seconds` of CPU time
    or the wall-clock safety net has passed. Where no timer can be set (not the main thread), a
    move that came back over its CPU time is stopped all the same."""
    why = {
        signal.SIGPROF: f"it used more than {allowance.seconds:g} s of CPU time",
        signal.SIGALRM: f"no answer within {allowance.safety_net:g} s (the call)",
    }
    stopped: list = []

    def ring(signum, frame):
        stopped.append(why[signum])
        raise GradingTimeout()

    try:
        previous = {number: signal.signal(number, ring) for number in why}
    except (ValueError, AttributeError, OSError):  # not the main thread: no timer
        previous = {}
    if previous:
        signal.setitimer(signal.ITIMER_PROF, allowance.seconds)
        signal.setitimer(signal.ITIMER_REAL, allowance.safety_net)
    started = time.process_time()
    status, value, error = "raised", None, ""
    try:
        value, status = plain(function(game, state, allowance.seconds)), "returned"
    except GradingTimeout:
        status, error = "timeout", stopped[0] if stopped else why[signal.SIGPROF]
    except KeyboardInterrupt:
        raise
    except BaseException as exception:  # noqa: BLE001 - SystemExit in student code fails too
        error = f"{type(exception).__name__}: {exception}"[:2000]
    finally:
        if previous:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            for number, handler in previous.items():
                signal.signal(number, handler)
    if status != "timeout" and time.process_time() - started > allowance.seconds:
        status, error = "timeout", why[signal.SIGPROF]
    return Outcome(status, value, error, game.states_generated)


def played_games(function: Callable[..., Any], level: Level, allowance: Allowance) -> tuple:
    """The games of one level played by `function`, played at the first call in this kernel."""
    key = (function, level.name, allowance)
    if key not in PLAYED:
        agent = KERNEL_AGENTS.setdefault((function, allowance), KernelAgent(AGENT_NAME, function))
        PLAYED[key] = play_contest(agent, allowance, levels=(level,))[level.name]
    return PLAYED[key]


def answered_positions(function: Callable[..., Any], allowance: Allowance) -> tuple:
    """The moves `function` plays in the suite's positions, asked at the first call here."""
    key = (function, POSITIONS_RULE, allowance)
    if key not in PLAYED:
        agent = KERNEL_AGENTS.setdefault((function, allowance), KernelAgent(AGENT_NAME, function))
        PLAYED[key] = play_positions(agent, allowance)
    return PLAYED[key]


def contest_rule(function: Callable[..., Any], rule_id: str, allowance: Allowance) -> RuleResult:
    """The rule `rule_id` of the contest for `function`, its levels' games played if need be.

    The in-time rule needs the games of every level; each level's rule only its own; the
    suite's rule its moves in the positions.
    """
    if rule_id == POSITIONS_RULE:
        return positions_rule(answered_positions(function, allowance))
    if rule_id == IN_TIME_RULE:
        levels = LEVELS
    else:
        levels = tuple(level for level in LEVELS if level.rule_id == rule_id)
    if not levels:
        known = [level.rule_id for level in LEVELS] + [POSITIONS_RULE, IN_TIME_RULE]
        raise ValueError(f"no contest rule is called {rule_id!r}; the rules are {known}")
    games = {level.name: played_games(function, level, allowance) for level in levels}
    return next(rule for rule in contest_rules(games, AGENT_NAME) if rule.id == rule_id)


def grade_contest_rule(
    rule_id: str,
    points: float,
    namespace: dict | None = None,
    states: int = DEFAULT_STATES,
    seconds: float = DEFAULT_SECONDS,
) -> float:
    """The hidden test of one contest rule: the points `connect_four_agent` in `namespace`
    earns by it, each move within `states` and `seconds` of CPU time.

    Returns the points earned, which nbgrader reads as the cell's partial credit, and prints
    what fell short (each game not won, each position whose value was lost, each game with a
    move late or illegal), with a hint. Raises AssertionError, with the same list, when the
    rule earned nothing of its `points`.
    """
    namespace = globals() if namespace is None else namespace
    function = namespace.get(AGENT_FUNCTION)
    if not callable(function):
        raise AssertionError(
            f"{AGENT_FUNCTION} is not defined (or not a function) in your notebook: no game "
            f"could be played ({points:g} points lost)"
        )
    rule = contest_rule(function, rule_id, Allowance(states, seconds))
    group = rule.groups[0]
    title = f"{rule_id} ({rule.points:g} of {points:g} points): {rule.description}"
    if rule.full:
        print(f"{title}: earned, {_tally(group.verdicts, rule_id)}")
        return rule.points
    failures = []
    for verdict in group.verdicts:
        if not verdict.passed:
            line = f"- {verdict.instance}: expected {verdict.expected}, got {verdict.got}."
            failures.append(line + (f" Hint: {verdict.hint}." if verdict.hint else ""))
    missing = [] if group.verdicts else ["- nothing was played"]
    if any("NotImplementedError" in verdict.got + verdict.hint for verdict in group.verdicts):
        missing.append(f"- {AGENT_FUNCTION} is not implemented yet: write its body")
    report = f"{title}: {len(failures)} of {len(group.verdicts)} fall short.\n" + "\n".join(
        failures + missing
    )
    if not rule.points:
        raise AssertionError(report)
    print(report)
    return rule.points


def _tally(verdicts: tuple, rule_id: str) -> str:
    if rule_id == IN_TIME_RULE:
        return f"every move of {len(verdicts)} games legal and within its allowance"
    if rule_id == POSITIONS_RULE:  # counts by phase: never which positions, nor their answers
        return "; ".join(f"{verdict.instance}: {verdict.got}" for verdict in verdicts)
    kept = sum(verdict.passed for verdict in verdicts)
    return f"{kept} of {len(verdicts)} games won"
