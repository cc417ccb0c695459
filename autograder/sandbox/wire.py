"""The grader's side of the wire protocol with runner.py: frames, tokens, served states."""

from __future__ import annotations

import json
import marshal
import os
import re
import struct
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from autograder.sandbox.connect_four_children import child_info
from autograder.sandbox.limits import LoadReport, SandboxError
from games.chance import ChanceTree
from games.connect_four import ConnectFour
from games.multiplayer import MultiplayerGame, MultiplayerTree
from games.protocol import CHANCE, Game
from games.tree import GameTree

MAX_MESSAGE = 1 << 20


_LENGTH = struct.Struct(">I")


_REQUEST = struct.Struct(">cQI")
"""A `result` request: b"r", the parent's token, the index of the action in its legal list."""


_REQUEST_TAG = ord("r")


_CHILD = struct.Struct(">IcQ")
"""The start of a child frame: length, b"c", the child's token; its marshalled info follows."""


_REQUEST_HEAD = _LENGTH.pack(_REQUEST.size) + b"r"


_REQUEST_FRAME = _LENGTH.size + _REQUEST.size


_TOKEN_INDEX = struct.Struct(">QI")


_AGAIN_TAG = ord("a")
"""A batch of repeated requests the runner answered itself: b"a", then (token, index) pairs."""


_TOKEN_BATCH = struct.Struct("=512Q")


_CHILDREN: dict[tuple, tuple[Any, list, bytes, bytes]] = {}
"""(game, evaluate, parent, action number) -> `_child`; emptied when full, which bounds its
memory however many states the searches of a run ask for."""


_CHILDREN_SIZE = 100_000


def _info(game: Game, state: Any, evaluate) -> tuple:
    """Everything a search may read about a state: (to_move, actions, terminal, utility,
    evaluation, probabilities, utilities, board).

    `probabilities` are given at a chance node only, one per action (nature's outcomes, in
    order), exact fractions as (numerator, denominator) pairs since marshal cannot carry a
    `Fraction`; `utilities`, the vector of a game of several players, at its terminal states;
    `board`, the position as plain data, in a game that draws one (`ConnectFour.board`).
    """
    terminal = game.is_terminal(state)
    to_move = game.to_move(state)
    probabilities = utilities = None
    if to_move == CHANCE and not terminal:
        probabilities = [_wired(p) for _, p in game.chance_outcomes(state)]
    if terminal and isinstance(game, MultiplayerGame):
        utilities = tuple(game.utilities(state))
    return (
        to_move,
        [] if terminal else game.actions(state),
        terminal,
        game.utility(state) if terminal else None,
        None if evaluate is None else evaluate(state),
        probabilities,
        utilities,
        game.board(state) if isinstance(game, ConnectFour) else None,
    )


def _wired(probability: Any) -> Any:
    """A probability as marshal can send it: a `Fraction` as its (numerator, denominator)."""
    if isinstance(probability, Fraction):
        return (probability.numerator, probability.denominator)
    return probability


def _child(game: Game, evaluate, parent: Any, legal: list, index: int) -> tuple:
    """The child of `parent` by its action number `index`: (state, legal actions, the start of
    its frame up to the token, its info marshalled for the student). Games are deterministic,
    so `_CHILDREN` may keep it."""
    if from_the_parent(game, evaluate):
        state, info = child_info(parent, legal, index, evaluate is not None)
    else:
        state = game.result(parent, legal[index])
        info = _info(game, state, evaluate)
    encoded = marshal.dumps(info)
    return state, info[1], _LENGTH.pack(_CHILD.size - 4 + len(encoded)) + b"c", encoded


def from_the_parent(game: Game, evaluate) -> bool:
    """Whether a child's info is computed from its parent's (`connect_four_children`): in the
    contest's game, served with its own evaluation or none."""
    return type(game) is ConnectFour and (evaluate is None or evaluate == game.evaluate)


def child_frame(token: int, info: tuple) -> bytes:
    """The whole frame serving a child: its length, b"c", its token, its info marshalled."""
    encoded = marshal.dumps(info)
    return _CHILD.pack(_CHILD.size - 4 + len(encoded), b"c", token) + encoded


def _stored_child(key: tuple, found: tuple, index: int) -> tuple:
    """The child `_CHILDREN` lacked (key: game, evaluate, parent, index), computed and kept;
    `found` is the parent as served: (state, legal actions, ...)."""
    game, evaluate = key[0], key[1]
    child = _child(game, evaluate, found[0], found[1], index)
    if len(_CHILDREN) >= _CHILDREN_SIZE:
        _CHILDREN.clear()
    _CHILDREN[key] = child
    return child


def _random_tokens() -> Iterator[int]:
    """Endless 64-bit tokens from the operating system's cryptographic generator.

    Seeing any number of tokens tells nothing about the others, so a student can name only
    the states it was sent. Drawn 512 at a time: one system call serves many states.
    """
    while True:
        yield from _TOKEN_BATCH.unpack(os.urandom(_TOKEN_BATCH.size))


_TOKEN_TEXT = re.compile(r"(?:\bstate )?\b(\d{6,20})\b")


def positions_named(text: str, states: dict[int, Any], game: Game) -> str:
    """`text` (what the student's code raised) with each token served in the run (`states`:
    token -> state) replaced by the position it stands for: a student reads positions, never
    the grader's tokens."""

    def position(match: re.Match) -> str:
        token = int(match.group(1))
        return position_text(game, states[token]) if token in states else match.group(0)

    return _TOKEN_TEXT.sub(position, text)


def position_text(game: Game, state: Any) -> str:
    """A position in one line: a tree's node by its path, a board's rows joined by "/"."""
    if isinstance(game, GameTree | ChanceTree | MultiplayerTree):
        return f"the node {state!r} (child indices from the root)"
    try:
        rows = [row for row in game.display(state).splitlines() if row.strip()]
    except Exception:  # noqa: BLE001 - a picture, not a reason to fail the report
        rows = [repr(state)]
    return f"the position {'/'.join(rows)}"


def served_again(names: tuple, table: dict, generated, outcome, payload: bytes, room: int) -> int:
    """Take `payload`, a batch of requests the runner answered again itself (see runner.py),
    each as `StudentProcess._serve` takes a request, in order, but writing nothing back:
    checked (the parent served in this call, the action in range), counted, recorded in
    `generated` (a list, or None), its parent added to the call's parents and its child to what
    the call was served. `names` is `_serve`'s (served, parents, tokens), `table` its served
    table; `room`, the requests left before the limit. Returns how many it took;
    `outcome.states_generated` has them already.

    A batch that is malformed, names a pair the grader cannot check, or goes past the limit is a
    broken protocol, never a count lowered: SandboxError("crashed"), the pairs taken before it
    counted."""
    served, parents, tokens = names
    pairs = memoryview(payload)[1:]
    if not pairs or len(pairs) % _TOKEN_INDEX.size:
        raise SandboxError("crashed", "the submission sent a malformed message")
    taken, new_child = 0, tokens.child
    try:
        for token, index in _TOKEN_INDEX.iter_unpack(pairs):
            found = served.get(token)
            if found is None or index >= len(found[1]) or taken >= room:
                raise SandboxError(
                    "crashed", "the submission reported a request the grader cannot answer"
                )
            parents.add(token)
            child = found[2][index]
            if child is None:
                child = new_child(table, found, index)
            taken += 1
            if generated is not None:
                generated.append(child[0])
            served[child[4]] = child
    finally:
        outcome.states_generated += taken
    return taken


def _json_message(payload: bytes) -> dict:
    """A JSON frame from the student (b"j" + a JSON object), or SandboxError."""
    if payload[:1] != b"j":
        raise SandboxError("crashed", "the submission sent a malformed message")
    try:
        message = json.loads(payload[1:])
    except (ValueError, RecursionError) as error:
        raise SandboxError("crashed", "the submission sent a malformed message") from error
    if not isinstance(message, dict):
        raise SandboxError("crashed", "the submission sent a malformed message")
    return message


def loaded_report(reply: dict, wanted: list[str]) -> LoadReport:
    """The LoadReport of the student's reply to "load", checked as every reply is: a reply
    of another kind, or of the wrong shape (a forged one), raises SandboxError("crashed")."""
    cells, functions = reply.get("cells"), reply.get("functions")
    shaped = (
        reply.get("op") == "loaded"
        and type(cells) is list
        and all(_cell_error(cell) for cell in cells)
        and type(functions) is list
        and all(type(name) is str for name in functions)
    )
    if not shaped:
        raise SandboxError("crashed", "the submission sent a reply that is not the load's")
    return LoadReport("loaded", cells[:50], [name for name in functions if name in wanted])


def _cell_error(error: object) -> bool:
    """Whether `error` has the shape of runner.py's report of a failing cell."""
    return (
        type(error) is dict
        and set(error) == {"cell", "kind", "line", "error"}
        and type(error["cell"]) is int
        and error["kind"] in ("syntax", "exception")
        and (error["line"] is None or type(error["line"]) is int)
        and type(error["error"]) is str
    )
