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
  passes it is interrupted rather than killed; its sleep is charged as the sandbox charges it
  (wall-clock time less the run-queue delay of `/proc/thread-self/schedstat`, checked by
  `ITIMER_REAL`), and after a move stopped for time the agent's module-level data is put back
  as it was before the first move, and its `random` seeded again, as the sandbox's restarted
  process has them (`KernelAgent`); PYTHONHASHSEED is 0 on both roads (`nbgrader_config.py`
  sets it for the kernels nbgrader starts);
- the wrapped game is the real one: its states are `ConnectFourState`s, not tokens, and the
  kernel cannot stop a notebook from reaching around the wrapper (nbgrader's grading is not
  tamper-resistant).
"""

from __future__ import annotations

import copy
import os
import signal
import time
import types
from collections.abc import Callable
from typing import Any

from autograder.contest.levels import (
    IN_TIME_RULE,
    LEVELS,
    SECOND_COPY,
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
from games.deadline import own_clock

AGENT_NAME = "your agent"
"""The agent's name in its games, as `autograder.contest.grade.AGENT_NAME` (the grader's)."""

PLAYED: dict = {}
"""(function, level name, allowance) -> the level's games (the suite of positions: its moves),
each played once per kernel."""

KERNEL_AGENTS: dict = {}
"""(function, allowance, copy) -> its `KernelAgent`: one for the levels of `SECOND_COPY`, one for
the others and the suite, as the sandbox plays them with two copies of the agent, each loaded
afresh, so that their module-level data and their moves stopped for time are each copy's own."""

PLAYING: dict = {}
"""function -> the `KernelAgent` whose module-level data the function's module holds now."""


class KernelAgent(FunctionPlayer):
    """The student's `connect_four_agent`, called in the kernel on a `BudgetedGame` of the real
    `ConnectFour` as `FunctionPlayer` calls it, but interrupted when its time is up; what
    the call gave becomes a `Choice` as the sandbox's does (`opponents.agent_choice`).

    The sandbox kills a move stopped for time and starts the agent's process again, which runs
    the notebook's cells afresh: here, the module-level data the agent's code reads is put back
    as it was when the agent was first asked (`module_state`), and its `random` is seeded again
    at its next move, so both roads play the same moves after a stop."""

    def __init__(
        self, name: str, function: Callable[..., Any], loaded: tuple[dict, set] | None = None
    ) -> None:
        super().__init__(name, function)
        self.loaded = module_state(function) if loaded is None else loaded
        self.left: tuple[dict, set] | None = None  # its module's data when another copy took over

    def call(self, game: BudgetedGame, state: ConnectFourState, allowance: Allowance) -> Outcome:
        outcome = call_within(self.function, game, state, allowance)
        if outcome.status == "timeout":
            restore_module_state(self.function, self.loaded)
            self.seeded = False  # the restarted process draws the game's numbers afresh
        return outcome


def module_state(function: Callable[..., Any]) -> tuple[dict, set]:
    """Copies of the module-level data `function`'s code (and the functions it calls) reads,
    and the names it reads that do not exist yet: what a fresh run of the cells would give."""
    namespace = getattr(function, "__globals__", {})
    names, seen, todo = set(), set(), [getattr(function, "__code__", None)]
    while todo:
        code = todo.pop()
        if code is None or id(code) in seen:
            continue
        seen.add(id(code))
        names.update(code.co_names)
        todo += [const for const in code.co_consts if isinstance(const, types.CodeType)]
        for name in code.co_names:
            value = namespace.get(name)
            if isinstance(value, types.FunctionType) and value.__globals__ is namespace:
                todo.append(value.__code__)
    kept, absent = {}, set()
    for name in names:
        if name not in namespace:
            absent.add(name)
            continue
        value = namespace[name]
        if isinstance(value, types.ModuleType | types.FunctionType | type):
            continue
        try:
            kept[name] = copy.deepcopy(value)
        except Exception:  # noqa: BLE001 - what cannot be copied is left as it is
            continue
    return kept, absent


def restore_module_state(function: Callable[..., Any], loaded: tuple[dict, set]) -> None:
    """Put back what `module_state` copied, and remove the names created since."""
    namespace = getattr(function, "__globals__", None)
    if namespace is None:
        return
    kept, absent = loaded
    for name, value in kept.items():
        try:
            namespace[name] = copy.deepcopy(value)
        except Exception:  # noqa: BLE001 - copied once, it copies again; if not, leave it
            continue
    for name in absent:
        namespace.pop(name, None)


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
    finished: list = []
    own = own_clock()  # this thread's own time: wall-clock time less its waits for a CPU
    started_wall, started_own = time.monotonic(), own() if own is not None else None
    used = why[signal.SIGPROF]

    def ring(signum, frame):
        if stopped or finished:  # the other timer, before both are cleared: the call is over
            return
        if signum == signal.SIGALRM:
            elapsed = time.monotonic() - started_wall
            if elapsed < allowance.safety_net:
                presence = own() - started_own if own is not None else 0.0
                if presence < allowance.seconds:  # not yet: look again when it could be
                    left = min(allowance.seconds - presence, allowance.safety_net - elapsed)
                    signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))
                    return
                stopped.append(used)  # asleep or blocked as long as its seconds: its time
                raise GradingTimeout()
        stopped.append(why[signum])
        raise GradingTimeout()

    try:
        previous = {number: signal.signal(number, ring) for number in why}
    except (ValueError, AttributeError, OSError):  # not the main thread: no timer
        previous = {}
    started = time.process_time()
    status, value, error = "raised", None, ""
    try:  # the timers are armed inside it: one may ring before the function is called
        if previous:
            signal.setitimer(signal.ITIMER_PROF, allowance.seconds)
            # The sleep check first rings at the move's seconds (its presence cannot pass them
            # sooner), then as often as it could have; the safety net stays the bound.
            first = allowance.seconds if own is not None else allowance.safety_net
            signal.setitimer(signal.ITIMER_REAL, min(first, allowance.safety_net))
        value, status = plain(function(game, state, allowance.seconds)), "returned"
    except GradingTimeout:
        status, error = "timeout", stopped[0] if stopped else why[signal.SIGPROF]
    except KeyboardInterrupt:
        raise
    except BaseException as exception:  # noqa: BLE001 - SystemExit in student code fails too
        error = f"{type(exception).__name__}: {exception}"[:2000]
    finally:
        finished.append(True)
        if previous:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            for number, handler in previous.items():
                signal.signal(number, handler)
    if status != "timeout" and time.process_time() - started > allowance.seconds:
        status, error = "timeout", why[signal.SIGPROF]
    return Outcome(status, value, error, game.states_generated)


def kernel_agent(function: Callable[..., Any], allowance: Allowance, second: bool) -> KernelAgent:
    """The kernel's copy of the agent (the second, or the first), its module-level data in the
    function's module: as the first use left it, else as it was when the agent was first
    asked, as a copy loaded afresh has it. The other copy's data is kept for its next turn."""
    key = (function, allowance, second)
    agent = KERNEL_AGENTS.get(key)
    if agent is None:
        first = next((a for k, a in KERNEL_AGENTS.items() if k[0] is function), None)
        loaded = first.loaded if first is not None else None
        agent = KERNEL_AGENTS[key] = KernelAgent(AGENT_NAME, function, loaded)
    playing = PLAYING.get(function)
    if playing is not agent:
        if playing is not None:
            playing.left = module_state(function)
        restore_module_state(function, agent.left or agent.loaded)
        PLAYING[function] = agent
    return agent


def played_games(function: Callable[..., Any], level: Level, allowance: Allowance) -> tuple:
    """The games of one level played by `function`, played at the first call in this kernel."""
    key = (function, level.name, allowance)
    if key not in PLAYED:
        agent = kernel_agent(function, allowance, level.name in SECOND_COPY)
        PLAYED[key] = play_contest(agent, allowance, levels=(level,))[level.name]
    return PLAYED[key]


def answered_positions(function: Callable[..., Any], allowance: Allowance) -> tuple:
    """The moves `function` plays in the suite's positions, asked at the first call here."""
    key = (function, POSITIONS_RULE, allowance)
    if key not in PLAYED:
        PLAYED[key] = play_positions(kernel_agent(function, allowance, False), allowance)
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
    _hash_seed_note()
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


NOTED: set = set()


def _hash_seed_note() -> None:
    """Say once if this kernel hashes strings otherwise than the grader's sandbox (seed 0)."""
    if os.environ.get("PYTHONHASHSEED") != "0" and not NOTED:
        NOTED.add("hash seed")
        print(
            "note: this kernel's PYTHONHASHSEED is not 0, the grader's: an agent that walks a "
            "set of strings may play otherwise here (the course's nbgrader_config.py sets it)"
        )


def _tally(verdicts: tuple, rule_id: str) -> str:
    if rule_id == IN_TIME_RULE:
        return f"every move of {len(verdicts)} games legal and within its allowance"
    if rule_id == POSITIONS_RULE:  # counts by phase: never which positions, nor their answers
        return "; ".join(f"{verdict.instance}: {verdict.got}" for verdict in verdicts)
    kept = sum(verdict.passed for verdict in verdicts)
    return f"{kept} of {len(verdicts)} games won"
