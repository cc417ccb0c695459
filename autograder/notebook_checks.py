"""Checks that run in an assignment notebook's kernel: the public self-checks and the hidden tests.

The assignment notebooks carry copies of these functions (`autograder.nbgrader_export` pastes
their source into the notebooks), so this module imports only the standard library and `games`
and nothing here may refer to `autograder` or `solutions`.

The hidden tests judge exactly as `autograder.judge` does, so that `nbgrader autograde` and
`python -m autograder grade` give a submission the same points:

- a returned value is first made plain as the autograder's sandbox makes it (`plain`);
- a value must be an int or a float (True is not a number) equal to the reference within 1e-9;
- a decision must be one of the legal actions (of the same type) and one of the optimal ones;
- pruning: the answer must be right and the states generated (successful `result` calls,
  counted by `CountingGame`) must lie within [ceil(ref / slack), floor(ref * slack)];
- each (function, instance) pair is called once, even when several groups judge it;
- a call gets `CALL_TIMEOUT` seconds; after a time-out the function's later calls are skipped.

What the kernel cannot copy from the sandbox: student code runs in the same process as the
tests, so nbgrader's grading is not tamper-resistant, and a search that keeps a table of states
between calls finds them again here (the sandbox serves equal positions as equal states within a
call, as here, but draws new tokens for every call).
"""

from __future__ import annotations

import math
import signal

from games import MAX, CountingGame

CALL_TIMEOUT = 10.0
"""Seconds each graded call may take, as the autograder's default `--timeout`."""

SELF_CHECK_TIMEOUT = 5.0
"""Seconds a self-check call may take: its cases are tiny, so only a loop takes this long."""

GRADING_OUTCOMES: dict = {}
"""(function name, case id) -> what the call returned: each pair is called once per kernel."""

GRADING_BROKEN: dict = {}
"""function name -> why its later calls are skipped (it ran out of time once)."""

SELF_CHECK_MISSING: set = set()
"""Functions a self-check found not written yet (reported once each)."""

SELF_CHECK_HINTS = True
"""Whether a failed self-check names the mistake it suspects (`explore` turns this off)."""


# -- calling a student's function ----------------------------------------------------------


class GradingTimeout(BaseException):
    """Raised inside a student's function when its call runs out of time.

    A BaseException, so that an `except Exception` in the student's code does not swallow it.
    """


class Opaque:
    """A returned object that is not plain data: it never equals an action or a number."""

    def __init__(self, value) -> None:
        kind = type(value)
        try:
            text = repr(value)[:200]
        except Exception:  # noqa: BLE001 - a hostile __repr__ must not break the report
            text = "<unprintable>"
        self.text = f"an object of type {kind.__module__}.{kind.__qualname__} ({text})"

    def __repr__(self) -> str:
        return self.text


def plain(value, depth: int = 0):
    """Return `value` as the autograder's sandbox hands it back: plain ints, floats and strings.

    Subclasses of int and float become int and float; tuples and lists (up to 20 items, 3
    levels) are rebuilt; anything else becomes an `Opaque` object that equals nothing.
    """
    kind = type(value)
    if value is None or kind in (bool, str):
        return value
    if isinstance(value, int):
        return int(int.__repr__(value))
    if isinstance(value, float):
        return float(float.__repr__(value))
    if kind in (tuple, list) and depth < 3 and len(value) <= 20:
        return kind(plain(item, depth + 1) for item in value)
    return Opaque(value)


def call_function(function, game, state, args: tuple = (), timeout: float | None = None) -> dict:
    """Call `function(game, state, *args)` with `game` wrapped in a `CountingGame`.

    Returns what happened as a dict: `status` ("returned", "raised" or "timeout"), the plain
    `value`, the `error` text and the `states` generated.
    """
    counted = CountingGame(game)
    outcome = {"status": "raised", "value": None, "error": "", "states": 0}
    alarm = _start_alarm(timeout)
    try:
        outcome["value"] = plain(function(counted, state, *args))
        outcome["status"] = "returned"
    except GradingTimeout:
        outcome["status"] = "timeout"
        outcome["error"] = f"no answer within {timeout:g} seconds"
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - SystemExit in student code is a failure too
        outcome["error"] = f"{type(error).__name__}: {error}"[:2000]
    finally:
        _stop_alarm(alarm)
    outcome["states"] = counted.states_generated
    return outcome


def _start_alarm(timeout: float | None):
    if not timeout:
        return None

    def ring(signum, frame):
        raise GradingTimeout()

    try:
        previous = signal.signal(signal.SIGALRM, ring)
    except (ValueError, AttributeError, OSError):  # not the main thread, or no SIGALRM
        return None
    signal.setitimer(signal.ITIMER_REAL, timeout)
    return (previous,)


def _stop_alarm(alarm) -> None:
    if alarm is not None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, alarm[0])


# -- the hidden tests --------------------------------------------------------------------------


def graded_call(function_name: str, case: dict, namespace: dict, timeout: float | None) -> dict:
    """Call the student's function on one case, once per kernel (later groups reuse it)."""
    key = (function_name, case["id"])
    if key in GRADING_OUTCOMES:
        return GRADING_OUTCOMES[key]
    function = namespace.get(function_name)
    if function_name in GRADING_BROKEN:
        outcome = {"status": "skipped", "error": GRADING_BROKEN[function_name], "states": 0}
    elif not callable(function):
        outcome = {
            "status": "skipped",
            "error": f"{function_name} is not defined (or not a function) in your notebook",
            "states": 0,
        }
    else:
        outcome = call_function(function, case["game"], case["state"], case["args"], timeout)
        if outcome["status"] == "timeout":
            GRADING_BROKEN[function_name] = (
                f"not run: {function_name} already failed on '{case['name']}' ({outcome['error']})"
            )
    GRADING_OUTCOMES[key] = outcome
    return outcome


def failure_text(outcome: dict) -> tuple[str, str]:
    """What came back and a hint, for a call that did not return."""
    if outcome["status"] == "raised":
        if outcome["error"].startswith("NotImplementedError"):
            return "not implemented (raises NotImplementedError)", "write the function body"
        return f"raised {outcome['error']}", "the error happened inside your function"
    if outcome["status"] == "timeout":
        return "no answer in time", "an infinite loop, or a search far larger than needed"
    return "not run", outcome["error"]


def sentinel_hint(value: float) -> str:
    """A hint if `value` looks like a running value's finite starting sentinel, else "".

    A whole number of at least 999 whose digits are all 9s, or a 1 and 0s, or a largest
    machine integer, looks like a start chosen to be beaten (-9999, 1000, 10**9, 2**31 - 1):
    no instance's utilities or evaluations come near it.
    """
    if not math.isfinite(value) or abs(value) < 999 or abs(value) != int(abs(value)):
        return ""
    digits = str(int(abs(value)))
    looks = set(digits) == {"9"} or (digits[0] == "1" and set(digits[1:]) == {"0"})
    if not looks and abs(value) not in (2**31 - 1, 2**63 - 1):
        return ""
    return (
        f"{value!r} looks like a starting sentinel: a running value that no child replaced. A "
        "state without actions is a finished game: test is_terminal(state) first and return "
        "utility(state), at every node and inside the horizon too"
    )


def decision_hint(
    legal: list, to_move: str, child_values: list, chosen, hints: dict | None = None
) -> str:
    """Why the legal action `chosen` is not optimal: its value, and the likely mistake.

    `hints` maps actions a known mistake picks (precomputed by the grader) to the hint that
    names the mistake; otherwise picking the worst or the last action is named.
    """
    values = dict(zip(legal, child_values, strict=True))
    pick, worst_of = (max, min) if to_move == MAX else (min, max)
    hint = f"that action is worth {values[chosen]!r}, the best is worth {pick(child_values)!r}"
    known = (hints or {}).get(chosen)
    if known:
        return f"{hint}; {known}"
    if values[chosen] == worst_of(child_values) and len(set(child_values)) > 1:
        hint += "; it is the worst action for the player to move: is max/min the right way round?"
    elif chosen == legal[-1]:
        hint += "; it is the last action: is the best action updated only on an improvement?"
    return hint


def not_an_action_hint(legal: list, child_values: list, optimal: tuple, returned) -> str:
    """Why `returned` is not a decision: what it looks like instead."""
    hint = f"a decision must be one of the legal actions {legal}"
    if returned is None:
        return hint + "; None usually means no action ever beat the starting best value"
    if type(returned) in (int, float):
        valued = [a for a, v in zip(legal, child_values, strict=True) if v == returned]
        if valued:
            action = next((a for a in valued if a in optimal), valued[0])
            return (
                f"{returned!r} is the value of action {action!r}: a decision returns the action "
                f"itself, one of {legal}"
            )
    if isinstance(returned, tuple | list):
        hint += "; it looks like a state or a pair, not an action"
    return hint


def judge_value(case: dict, outcome: dict) -> tuple[bool, str, str]:
    """(passed, what came back, hint) for a value, as `autograder.judge.judge_value`."""
    if outcome["status"] != "returned":
        return (False, *failure_text(outcome))
    value = outcome["value"]
    if type(value) not in (int, float):
        kind = "True/False" if isinstance(value, bool) else "that"
        hint = f"a value must be a plain int or float; {kind} is not a number here"
        return False, repr(value), hint
    if math.isclose(value, case["value"], rel_tol=1e-9, abs_tol=1e-9):
        return True, repr(value), ""
    if math.isinf(value):
        hint = "an infinite value: a running value that was never updated (no child examined?)"
    elif sentinel_hint(value):
        hint = sentinel_hint(value)
    elif value in case.get("hints", {}):
        hint = case["hints"][value]
    elif len(case["args"]) == 2:  # depth-limited: (depth, evaluate)
        hint = (
            "check that terminal states use utility (even at the horizon), that a utility of 0 "
            "is not treated as missing, and that evaluate scores from MAX's point of view"
        )
    else:
        hint = "compare your MAX and MIN cases with the lecture's pseudo-code"
    return False, repr(value), hint


def judge_decision(case: dict, outcome: dict) -> tuple[bool, str, str]:
    """(passed, what came back, hint) for a decision, as `autograder.judge.judge_decision`."""
    if outcome["status"] != "returned":
        return (False, *failure_text(outcome))
    game, state, action = case["game"], case["state"], outcome["value"]
    legal = game.actions(state)
    matches = [a for a in legal if type(a) is type(action) and a == action]
    if not matches:
        hint = not_an_action_hint(legal, case["child_values"], case["optimal"], action)
        return False, repr(action), hint
    if matches[0] in case["optimal"]:
        return True, repr(action), ""
    hint = decision_hint(
        legal, game.to_move(state), case["child_values"], matches[0], case.get("hints")
    )
    return False, repr(action), hint


def judge_pruning(case: dict, outcome: dict, decision: bool, slack: float):
    """(passed, what came back, hint) for pruning, as `autograder.judge.judge_pruning`."""
    passed, got, hint = (judge_decision if decision else judge_value)(case, outcome)
    got = f"{outcome['states']:,} states generated; {got}"
    if not passed:
        return False, got, "pruning points go only with correct answers: " + (hint or "see above")
    fewest = math.ceil(case.get("fewest", case["states"]) / slack)
    most = math.floor(case["states"] * slack)
    if outcome["states"] < fewest:
        hint = (
            f"fewer states than a correct alpha-beta generates here, even with a transposition "
            f"table (at least {fewest:,}): some "
            "branch is cut off before it is proven irrelevant (for example beta = min(alpha, "
            "value) in the MIN case), so right answers here are luck"
        )
        return False, got, hint
    if outcome["states"] > most:
        hint = case.get("causes", {}).get(
            outcome["states"],
            "look for children generated twice, a window not passed down, or a cut-off that "
            "does not stop the loop",
        )
        return False, got, hint
    return True, got, ""


def expected_text(case: dict, kind: str, slack: float) -> str:
    """What the reference expects, in words, for the report of a failed case."""
    if "optimal" in case:
        legal = case["game"].actions(case["state"])
        values = dict(zip(legal, case["child_values"], strict=True))
        answer = (
            " or ".join(repr(a) for a in case["optimal"]) + f" (values of the actions: {values})"
        )
    else:
        answer = repr(case["value"])
    if kind != "pruning":
        return answer
    most = math.floor(case["states"] * slack)
    return f"at most {most:,} states generated (the reference: {case['states']:,}) and {answer}"


def grade_group(
    function_name: str,
    kind: str,
    title: str,
    points: float,
    cases: list,
    slack: float = 1.25,
    namespace: dict | None = None,
    timeout: float | None = CALL_TIMEOUT,
) -> None:
    """The hidden test of one rule group: its points need every case to pass.

    `kind` is "value", "decision" or "pruning" (a pruning group of a `*_decision` function
    judges moves). Raises AssertionError listing each failed case, what was expected, what came
    back and a hint; prints a one-line summary when every case passes.
    """
    namespace = globals() if namespace is None else namespace
    decision = function_name.endswith("_decision")
    failures = []
    for case in cases:
        outcome = graded_call(function_name, case, namespace, timeout)
        if kind == "pruning":
            passed, got, hint = judge_pruning(case, outcome, decision, slack)
        elif kind == "decision":
            passed, got, hint = judge_decision(case, outcome)
        else:
            passed, got, hint = judge_value(case, outcome)
        if not passed:
            expected = expected_text(case, kind, slack)
            line = f"- {case['name']}: expected {expected}, got {got}."
            failures.append(line + (f" Hint: {hint}." if hint else ""))
    if failures:
        raise AssertionError(
            f"{title} ({points:g} points, all or nothing): {len(failures)} of {len(cases)} "
            "instances failed.\n" + "\n".join(failures)
        )
    print(f"{title}: all {len(cases)} instances pass ({points:g} points)")


# -- the public self-checks --------------------------------------------------------------------


def self_check(function, case: dict, kind: str, slack: float = 1.25) -> None:
    """Judge one call of `function` as the hidden tests would, and say what went wrong.

    Prints `ok` when the case passes, or a note if the function is not written yet (it raises
    NotImplementedError); otherwise raises AssertionError with what was expected, what came back
    and a hint.
    """
    label = getattr(function, "__name__", "your function")
    outcome = call_function(function, case["game"], case["state"], case["args"], SELF_CHECK_TIMEOUT)
    if outcome["status"] == "raised" and outcome["error"].startswith("NotImplementedError"):
        _not_written_yet(label)
        return
    decision = "optimal" in case
    judge_answer = judge_decision if decision else judge_value
    answer_right, got, hint = judge_answer(case, outcome)
    if answer_right and kind == "pruning":
        passed, _, hint = judge_pruning(case, outcome, decision, slack)
        if not passed:
            raise AssertionError(
                f"{case['name']}: your {label} generated {outcome['states']:,} states here, "
                f"the reference {case['states']:,}" + (f": {hint}" if SELF_CHECK_HINTS else "")
            )
    hint = hint if SELF_CHECK_HINTS else ""
    if not answer_right:
        expected = expected_text(case, "value", slack)
        raise AssertionError(
            f"{case['name']}: {label} should give {expected}, but got {got}"
            + (f". Hint: {hint}" if hint else "")
        )
    answer = " or ".join(map(repr, case["optimal"])) if decision else repr(case["value"])
    extra = f" with {outcome['states']:,} states" if kind == "pruning" else ""
    print(f"ok  {case['name']}: {answer}{extra}")


def _not_written_yet(label: str) -> None:
    if label not in SELF_CHECK_MISSING:
        SELF_CHECK_MISSING.add(label)
        print(
            f"{label} raises NotImplementedError: its self-checks will run once it (and what "
            "it calls) is written."
        )


def check_value(function, name: str, game, state, value, args: tuple = (), hints=None) -> None:
    """Self-check: `function(game, state, *args)` must return the number `value`."""
    case = {"name": name, "game": game, "state": state, "args": args, "value": value}
    self_check(function, {**case, "hints": hints or {}}, "value")


def check_decision(
    function, name: str, game, state, optimal: tuple, child_values: list, args: tuple = ()
) -> None:
    """Self-check: `function(game, state, *args)` must return one of the `optimal` actions.

    `child_values` lists the value of each legal action, in `game.actions(state)` order.
    """
    case = {"name": name, "game": game, "state": state, "args": args}
    self_check(function, {**case, "optimal": optimal, "child_values": child_values}, "decision")


def check_states(function, name: str, game, state, answer, states: int, causes=None) -> None:
    """Self-check: the right answer, generating about as many states as the reference.

    `answer` is the value, or for a decision a pair (optimal actions, child values). The states
    generated must lie within [ceil(states / 1.25), floor(states * 1.25)].
    """
    case = {"name": name, "game": game, "state": state, "args": (), "states": states}
    if isinstance(answer, tuple):
        case["optimal"], case["child_values"] = answer
    else:
        case["value"] = answer
    self_check(function, {**case, "causes": causes or {}}, "pruning")


def check_call(function, name: str, args: tuple, expected) -> None:
    """Self-check of a plain function: `function(*args)` must equal `expected` (not a bool)."""
    label = getattr(function, "__name__", "your function")
    try:
        answer = function(*args)
    except NotImplementedError:
        _not_written_yet(label)
        return
    if type(answer) is bool or answer != expected:
        shown = ", ".join(repr(arg) for arg in args)
        raise AssertionError(f"{name}: {label}({shown}) returned {answer!r}, expected {expected!r}")
    print(f"ok  {name}: {answer!r}")


def explore(checks, function, hints: bool = False) -> None:
    """Run the self-checks `checks` on `function`, printing the first failure instead of stopping.

    For looking at a function that is known to be wrong: `explore(check_minimax_value,
    buggy_minimax_value)` shows which small case it gets wrong and what came back, without
    naming the suspected mistake unless `hints` is true (finding it is the exercise).
    """
    global SELF_CHECK_HINTS
    previous, SELF_CHECK_HINTS = SELF_CHECK_HINTS, hints
    try:
        checks(function)
    except AssertionError as failure:
        print(f"FAIL  {failure}")
    else:
        print("every self-check passes")
    finally:
        SELF_CHECK_HINTS = previous
