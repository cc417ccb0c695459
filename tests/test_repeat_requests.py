"""A child asked for again within a call is answered by the runner, and counted as before.

A deepening search asks for the same (parent, action) at every depth. The runner answers such a
repeat from the call's own record, without a round trip, and reports it to the grader with its
next frame; the grader takes each reported pair exactly as a request (checked, counted,
recorded, nothing written back). Nothing a grade reads may change: the tokens, the count, the
order of the states generated, where the budget's refusal lands. A runner that reports what it
cannot (a state it was not sent, an action out of range, pairs past the limit, a malformed
batch) breaks the protocol; one that leaves repeats out gains what a memo in its own code gains.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from autograder.sandbox import Limits, StudentProcess, build_import_view, process, wire
from games import TicTacToe
from games.connect_four import ConnectFour
from games.counting import RecordingGame

FAST = Limits(timeout=20.0, load_timeout=20.0, memory_mb=512, output_kb=64)
GAME = TicTacToe()


# A deepening minimax: every depth asks again for the children the depth before asked for. With
# `again` false, it first stops the runner answering anything itself (the channel then sees no
# call running), so every request is a round trip, as before repeats were answered locally.
DEEPENING = """
def deepening(game, state, depth, again=True):
    if not again:
        game._channel.calling = None
    def value(s, d):
        if game.is_terminal(s):
            return game.utility(s)
        if d == 0:
            return 0
        values = [value(game.result(s, a), d - 1) for a in game.actions(s)]
        return max(values) if game.to_move(s) == "X" else min(values)
    found = []
    for d in range(1, depth + 1):
        found.append(value(state, d))
        found.append([game.result(state, a) for a in game.actions(state)])  # the tokens
    return found
"""


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


@pytest.fixture
def reported(monkeypatch) -> list[int]:
    """The sizes of the batches of repeats the grader takes (`wire.served_again`), in order."""
    sizes: list[int] = []
    real = wire.served_again

    def counted(*args) -> int:
        taken = real(*args)
        sizes.append(taken)
        return taken

    monkeypatch.setattr(process, "served_again", counted)
    return sizes


def _process(source: str, functions: list[str], view: Path) -> StudentProcess:
    student = StudentProcess([[1, textwrap.dedent(source)]], functions, view, FAST)
    assert student.start().status == "loaded"
    return student


def _midgame():
    """A position five empty squares from the end of the game's tree, and not decided."""
    state = GAME.initial_state()
    for square in (4, 0, 8, 2):
        state = GAME.result(state, square)
    return state


def _on_the_real_game(source: str, function: str, *args) -> tuple[RecordingGame, object]:
    """`function` of `source` run here on a recording wrapper of the real game: the oracle."""
    namespace: dict = {}
    exec(textwrap.dedent(source), namespace)
    recording = RecordingGame(GAME)
    value = namespace[function](recording, _midgame(), *args)
    return recording, value


def test_a_deepening_search_is_counted_and_recorded_as_on_the_real_game(view, reported) -> None:
    recording, value = _on_the_real_game(DEEPENING, "deepening", 4)
    student = _process(DEEPENING, ["deepening"], view)
    try:
        outcome = student.call("deepening", GAME, _midgame(), (4,), record=True)
    finally:
        student.close()
    assert outcome.status == "returned", outcome.error
    assert outcome.states_generated == recording.states_generated
    assert outcome.generated == recording.generated  # the same states in the same order
    assert outcome.value["list"][::2] == value[::2]  # the values at each depth
    # Most requests were answered again by the runner: a search of depth 4 asks for the
    # children of depths 1-3 again, and the root's children after every depth.
    assert sum(reported) > recording.states_generated / 2


def test_answering_again_changes_no_token_count_or_order_of_one_round_trip_a_request(
    view, reported
) -> None:
    student = _process(DEEPENING, ["deepening"], view)
    try:
        alone = student.call("deepening", GAME, _midgame(), (4, False), record=True)
        assert reported == []  # every request was a round trip
        served = student.call("deepening", GAME, _midgame(), (4, True), record=True)
    finally:
        student.close()
    assert alone.status == served.status == "returned"
    assert served.value == alone.value  # the same tokens for the same positions
    assert served.states_generated == alone.states_generated
    assert served.generated == alone.generated
    assert len(reported) > 1 and sum(reported) > alone.states_generated / 2


# Requests in a fixed order with repeats, each either answered (its token) or refused
# (OutOfStates: the search goes on), so where the refusal lands is visible.
ASKING = """
from games import OutOfStates

def asking(game, state, again, order):
    if not again:
        game._channel.calling = None
    legal, got = game.actions(state), []
    for index in order:
        try:
            got.append(game.result(state, legal[index]))
        except OutOfStates:
            got.append("refused")
    return got
"""

ORDER = (0, 1, 0, 0, 2, 1, 3, 0, 2, 2, 4, 0)  # repeats on both sides of every budget below


@pytest.mark.parametrize("budget", [1, 2, 3, 4, 5, 7, 9, 11, 12, 20])
def test_the_budget_s_refusal_lands_on_the_same_request(view, budget: int) -> None:
    game = ConnectFour()
    state = ConnectFour.from_moves("44")
    student = _process(ASKING, ["asking"], view)
    try:
        outcomes = [
            student.call(
                "asking", game, state, (again, list(ORDER)), state_budget=budget, record=True
            )
            for again in (True, False)
        ]
    finally:
        student.close()
    served, alone = outcomes
    assert served.status == alone.status == "returned"
    got = served.value["list"]
    answered = min(budget, len(ORDER))
    assert [item == "refused" for item in got] == [False] * answered + [True] * (
        len(ORDER) - answered
    )
    assert got == alone.value["list"]
    assert served.states_generated == alone.states_generated == answered
    assert served.generated == alone.generated


def test_the_cap_on_states_stops_the_call_at_the_same_request(view) -> None:
    student = _process(ASKING, ["asking"], view)
    try:
        stopped = student.call("asking", GAME, _midgame(), (True, list(ORDER)), max_states=6)
    finally:
        student.close()
    assert stopped.status == "overrun" and stopped.states_generated == 6


# A runner that reports what it was never given: written straight onto the pipe, as a student
# who edits the runner's code could.
HOSTILE = """
import os, struct

def report(game, state, depth, kind):
    if kind == "unknown":
        pairs = struct.pack(">QI", state ^ 1, 0)
    elif kind == "index":
        pairs = struct.pack(">QI", state, len(game.actions(state)))
    elif kind == "past":
        pairs = struct.pack(">QI", state, 0) * 11
    elif kind == "malformed":
        pairs = b"12345"
    else:  # pairs never asked for: as if asked
        pairs = b"".join(struct.pack(">QI", state, i) for i in range(3))
    os.write(game._channel.write_fd, struct.pack(">I", 1 + len(pairs)) + b"a" + pairs)
    return game.result(state, game.actions(state)[0])
"""


@pytest.mark.parametrize("kind", ["unknown", "index", "past", "malformed"])
def test_a_batch_the_grader_cannot_check_is_a_broken_protocol(view, kind: str) -> None:
    student = _process(HOSTILE, ["report"], view)
    try:
        broken = student.call("report", GAME, _midgame(), (1, kind), state_budget=10)
        assert not student.alive  # stopped, as for any message out of protocol
    finally:
        student.close()
    assert broken.status == "crashed"
    expected = "malformed" if kind == "malformed" else "cannot answer"
    assert expected in broken.error
    assert broken.states_generated == (10 if kind == "past" else 0)  # what it took stays counted


def test_pairs_never_asked_for_are_counted_as_requests(view) -> None:
    student = _process(HOSTILE, ["report"], view)
    try:
        outcome = student.call("report", GAME, _midgame(), (1, "never asked"), record=True)
    finally:
        student.close()
    assert outcome.status == "returned"
    state = _midgame()
    legal = GAME.actions(state)
    assert outcome.states_generated == 4
    assert outcome.generated == [GAME.result(state, legal[i]) for i in (0, 1, 2, 0)]


# Leaving repeats out of the report saves what a memo in the student's own code saves.
UNREPORTED = """
def memo(game, state, rounds, leave_out):
    table = {}
    for _ in range(rounds):
        for a in game.actions(state):
            if leave_out:
                game.result(state, a)
                game._channel._repeats = bytearray()  # a repeat never reported
            elif a not in table:
                table[a] = game.result(state, a)
    return None
"""


def test_leaving_repeats_out_of_the_report_gains_what_a_memo_gains(view) -> None:
    student = _process(UNREPORTED, ["memo"], view)
    try:
        counts = [
            student.call("memo", GAME, _midgame(), (3, leave_out)).states_generated
            for leave_out in (False, True)
        ]
    finally:
        student.close()
    assert counts == [5, 5]  # each of the five children once


# A state kept from the first call, and the game of the first call kept too.
KEPT = """
KEPT = []

def kept(game, state):
    if not KEPT:
        child = game.result(state, 4)
        KEPT.extend([game, child, game.result(child, 0)])
        return "kept"
    old_game, child, grandchild = KEPT
    said = []
    try:
        game.result(child, 0)  # not reached in this call yet: not a state here
    except ValueError as error:
        said.append("not a state")
    try:
        old_game.result(child, 0)  # the old game asks the grader, which does not know it
    except RuntimeError as error:
        said.append(str(error))
    again = game.result(state, 4)
    said.append(again == child)
    said.append(game.result(child, 0) == grandchild)  # asked: the grader answers
    said.append(game.result(child, 0) == grandchild)  # asked again: the runner answers
    return said
"""


def test_a_token_of_an_earlier_call_is_answered_only_once_this_call_reaches_it(
    view, reported
) -> None:
    start = GAME.initial_state()
    student = _process(KEPT, ["kept"], view)
    try:
        first = student.call("kept", GAME, start)
        second = student.call("kept", GAME, start, record=True)
    finally:
        student.close()
    assert first.value == "kept" and first.states_generated == 2
    assert second.status == "returned", second.error
    assert second.value["list"] == [
        "not a state",
        "the grader refused a request for an unknown state",
        True,
        True,
        True,
    ]
    assert second.states_generated == 3
    assert reported == [1]  # the one repeat, reported with the return


STALE = """
from games import OutOfStates

GAMES = []

def stale(game, state):
    if not GAMES:
        GAMES.append(game)
        game.result(state, 4)
        return "kept"
    old = GAMES[0]
    child = game.result(state, 4)
    old.result(state, 4)  # counted by the grader: the old game's request, in this call
    try:
        game.result(state, 4)  # a repeat past the budget: the grader must see it, and refuse
    except OutOfStates:
        return ["refused", child]
    return ["answered", child]
"""


def test_a_request_of_an_earlier_call_s_game_counts_against_this_call_s_budget(view) -> None:
    start = GAME.initial_state()
    student = _process(STALE, ["stale"], view)
    try:
        student.call("stale", GAME, start)
        second = student.call("stale", GAME, start, state_budget=2)
    finally:
        student.close()
    assert second.status == "returned", second.error
    assert second.value["list"][0] == "refused"
    assert second.states_generated == 2


ONLY_AGAIN = """
def only_again(game, state, times):
    first = game.result(state, game.actions(state)[0])
    return all(game.result(state, game.actions(state)[0]) == first for _ in range(times))
"""


def test_a_search_that_only_asks_again_reports_in_batches_as_it_goes(view, reported) -> None:
    student = _process(ONLY_AGAIN, ["only_again"], view)
    try:
        outcome = student.call("only_again", GAME, _midgame(), (5000,), record=True)
    finally:
        student.close()
    assert outcome.status == "returned" and outcome.value is True
    assert outcome.states_generated == 5001 and len(outcome.generated) == 5001
    assert reported == [2048, 2048, 904]  # two full batches on their own, the rest with the return


def test_the_runner_and_the_grader_agree_on_the_batch_s_frame() -> None:
    from autograder.sandbox import runner

    assert runner._PAIR.format == wire._TOKEN_INDEX.format  # (token, index), big-endian
    assert bytes([wire._AGAIN_TAG]) == b"a"  # what `Channel._write` puts before the pairs
    assert runner._BATCH_MOST + 5 < wire.MAX_MESSAGE  # a full batch is one frame the grader takes
