"""The grader's table of served positions: a child asked for again costs one look-up, and is
served, counted and named exactly as the first time.

`Tokens.served_table` keeps, per game and evaluation, each served position's frame and links to
its children once asked for (`StudentProcess._serve` follows the link). Nothing the student can
observe may change: the same token and the same bytes for the same position, every request
counted and refused past the budget, another evaluation served with its own numbers, and the
table starting again (when full, or with the run's tokens) without serving a stale token.
"""

from __future__ import annotations

import marshal
import os
import random
import textwrap
from pathlib import Path

import pytest

from autograder.sandbox import Limits, StudentProcess, build_import_view, tokens
from autograder.sandbox.connect_four_children import child_info, child_position
from autograder.sandbox.tokens import Tokens
from autograder.sandbox.wire import _child, _info, child_frame
from games import GameTree, TicTacToe
from games.connect_four import ConnectFour

CONNECT_FOUR = ConnectFour()
FAST = Limits(timeout=10.0, load_timeout=10.0, memory_mb=512, output_kb=64)


def _served(game, evaluate, state) -> tuple[Tokens, dict, int, dict]:
    named = Tokens()
    table = named.served_table(game, evaluate)
    root, served = named.start_call(state, _info(game, state, evaluate)[1], table)
    return named, table, root, served


def test_a_child_asked_for_again_is_its_first_entry_with_the_same_token_and_frame() -> None:
    state = ConnectFour.from_moves("4453")
    named, table, root, served = _served(CONNECT_FOUR, CONNECT_FOUR.evaluate, state)
    found = served[root]
    assert found[2] == [None] * 7 and found[3] == b""  # a root has no frame until it is a child
    first = named.child(table, found, 2)
    assert found[2][2] is first  # the link `_serve` follows next time
    child_state, actions, children, frame, token = first
    assert child_state == CONNECT_FOUR.result(state, 3)  # found's third column
    assert named.named[child_state] == token and table[token] is first
    assert children == [None] * len(actions)
    assert frame[4:5] == b"c" and int.from_bytes(frame[5:13], "big") == token
    assert marshal.loads(frame[13:]) == _info(CONNECT_FOUR, child_state, CONNECT_FOUR.evaluate)
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    # A later call from the same root finds the same entry, link included.
    again_root, again = named.start_call(state, found[1], table)
    assert again_root == root and again[root] is found and found[2][2] is first


def test_a_transposition_shares_one_entry_and_a_root_gets_its_frame_when_it_is_a_child(
    monkeypatch,
) -> None:
    computed = []
    monkeypatch.setattr(
        tokens, "child_info", lambda *args: computed.append(args) or child_info(*args)
    )
    named, table, root, served = _served(CONNECT_FOUR, None, ConnectFour.from_moves("4"))
    later = ConnectFour.from_moves("4453")  # a root first, then reached as "4" 4 5 3 and 3 5 4
    later_root, later_served = named.start_call(later, CONNECT_FOUR.actions(later), table)
    assert later_served[later_root][3] == b""
    reached = []
    for path in ((4, 5, 3), (3, 5, 4)):
        entry = served[root]
        for column in path:
            entry = named.child(table, entry, column - 1)
        reached.append(entry)
    assert reached[0] is reached[1] and reached[0][4] == later_root  # one entry, one token
    assert reached[0][3] and int.from_bytes(reached[0][3][5:13], "big") == later_root
    assert table[later_root] is reached[0]
    assert len(computed) == 5  # the position reached twice was computed once


def test_another_evaluation_or_another_game_serves_its_own_frames() -> None:
    named = Tokens()
    state = ConnectFour.from_moves("4453")
    frames = []
    for evaluate in (CONNECT_FOUR.evaluate, lambda s: 0.5, None):
        table = named.served_table(CONNECT_FOUR, evaluate)
        root, served = named.start_call(state, CONNECT_FOUR.actions(state), table)
        child = named.child(table, served[root], 0)
        frames.append(marshal.loads(child[3][13:])[4])
        assert child[4] == named.named[child[0]]  # one token per position, whatever is served
    assert frames[0] == CONNECT_FOUR.evaluate(CONNECT_FOUR.result(state, 1))
    assert frames[1:] == [0.5, None]
    # Two trees have the same paths as states, and different values at them.
    for leaves in ([[3, 12], [2, 4]], [[-7, 1], [5, 0]]):
        tree = GameTree(leaves)
        table = named.served_table(tree, None)
        root, served = named.start_call((), tree.actions(()), table)
        left = named.child(table, served[root], 0)
        leaf = named.child(table, left, 1)
        assert marshal.loads(leaf[3][13:])[3] == leaves[0][1]


def test_the_table_starts_again_when_full_and_its_entries_stay_right(monkeypatch) -> None:
    monkeypatch.setattr(tokens, "SERVED_MOST", 3)
    game = TicTacToe()
    named, table, root, served = _served(game, None, game.initial_state())
    children = [named.child(table, served[root], index) for index in range(9)]
    assert len(table) <= 3
    for index, child in enumerate(children):
        assert served[root][2][index] is child  # the call's links survive the table's restart
        assert named.named[child[0]] == child[4] == int.from_bytes(child[3][5:13], "big")
        assert marshal.loads(child[3][13:]) == _info(game, child[0], None)


def test_new_tokens_for_the_run_start_every_table_again() -> None:
    named = Tokens(most=4)
    game = TicTacToe()
    table = named.served_table(game, None)
    root, served = named.start_call(game.initial_state(), game.actions(game.initial_state()), table)
    old = [named.child(table, served[root], index) for index in range(4)]
    new_root, served = named.start_call(game.initial_state(), old[0][1], table)  # past `most`
    assert list(table) == [new_root] and new_root != root  # nothing of the old tokens left
    assert named.served_table(game, None) is table
    again = named.child(table, served[new_root], 0)
    assert again[4] != old[0][4] and again[4] == named.named[again[0]]
    assert int.from_bytes(again[3][5:13], "big") == again[4]


SEARCH = """
def reach(game, state, depth):
    '''Every state `depth` plies below `state`, generated twice, with what it reads of each.'''
    seen = []
    for _ in range(2):
        frontier = [state]
        for _ in range(depth):
            frontier = [game.result(s, a) for s in frontier for a in game.actions(s)]
        seen.append([(s, game.to_move(s), game.evaluate(s), game.board(s)) for s in frontier])
    assert seen[0] == seen[1]  # the same tokens and the same frames, asked twice
    return repr(seen[0])
"""


ASKED = {"evaluate_argument": False}  # served as game.evaluate, not passed


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def test_a_search_asking_again_is_counted_and_served_as_the_first_time(view: Path) -> None:
    process = StudentProcess([[1, textwrap.dedent(SEARCH)]], ["reach"], view, FAST)
    computed = []
    real_child = process.tokens.child
    process.tokens.child = lambda *args: computed.append(args[-1]) or real_child(*args)
    try:
        assert process.start().status == "loaded"
        state = ConnectFour.from_moves("44")
        calls = [
            process.call("reach", CONNECT_FOUR, state, (2,), CONNECT_FOUR.evaluate, **ASKED)
            for _ in range(2)
        ]
        assert [c.status for c in calls] == ["returned", "returned"], calls[0].error
        assert calls[0].states_generated == calls[1].states_generated == 2 * (7 + 49)
        assert calls[0].value == calls[1].value  # the same tokens in a later call
        assert len(computed) == 7 + 49  # each child computed once, in the first search
        budget = process.call(
            "reach", CONNECT_FOUR, state, (2,), CONNECT_FOUR.evaluate, **ASKED, state_budget=60
        )
        assert budget.states_generated == 60 and budget.status == "raised"
        assert "OutOfStates" in budget.error
        other = process.call("reach", CONNECT_FOUR, state, (1,), lambda s: 0.25, **ASKED)
        assert other.status == "returned" and "0.25" in str(other.value)
    finally:
        process.close()


def test_the_runner_decodes_a_child_once_a_call_and_the_grader_s_frame_decides_the_rest() -> None:
    """`runner.Channel.request_child`: a child whose token the call already holds is not
    decoded again (the grader serves a position with one info within a call); any other is."""
    from autograder.sandbox.runner import Channel

    to_runner, from_grader = os.pipe()
    to_grader, from_runner = os.pipe()
    channel = Channel(to_runner, from_runner)
    info = _info(CONNECT_FOUR, CONNECT_FOUR.initial_state(), CONNECT_FOUR.evaluate)
    encoded = marshal.dumps(info)
    frame = (13 - 4 + len(encoded)).to_bytes(4, "big") + b"c" + (77).to_bytes(8, "big") + encoded
    try:
        os.write(from_grader, frame)
        token, decoded = channel.request_child(5, 3, {})
        assert (token, decoded) == (77, info)
        assert os.read(to_grader, 64) == b"\x00\x00\x00\x0dr" + (5).to_bytes(8, "big") + bytes(
            [0, 0, 0, 3]
        )
        held = ("held",)
        os.write(from_grader, frame)
        assert channel.request_child(5, 3, {77: held}) == (77, held)  # not decoded again
        os.write(from_grader, frame)
        assert channel.request_child(5, 3, {78: held}) == (77, info)  # another token: decoded
    finally:
        for descriptor in (to_runner, from_grader, to_grader, from_runner):
            os.close(descriptor)


def test_the_contest_s_road_looks_a_position_up_and_frames_it_as_the_shared_road_does() -> None:
    """`child_position` is the child's position (equal and hashed alike), and `child_frame`
    the very bytes the shared road (`wire._child`) serves, on every move of random games."""
    rng, checked = random.Random(3), 0
    for _ in range(30):
        state = CONNECT_FOUR.initial_state()
        while not CONNECT_FOUR.is_terminal(state):
            legal = CONNECT_FOUR.actions(state)
            for index, column in enumerate(legal):
                child = CONNECT_FOUR.result(state, column)
                position = child_position(state, column)
                assert position == child and hash(position) == hash(child)
                token = rng.getrandbits(64)
                _, actions, header, encoded = _child(
                    CONNECT_FOUR, CONNECT_FOUR.evaluate, state, legal, index
                )
                info = _info(CONNECT_FOUR, child, CONNECT_FOUR.evaluate)
                assert child_frame(token, info) == header + token.to_bytes(8, "big") + encoded
                checked += 1
            state = CONNECT_FOUR.result(state, rng.choice(legal))
    assert checked > 2000
