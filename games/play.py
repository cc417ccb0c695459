"""Play a game in the terminal against a search agent, with the agent's advice on every turn."""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import io
import json
import re
import time
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.protocol import MAX, MIN, Action, Game, State

Agent = Callable[[Game, State], Action]
"""An agent is any callable `agent(game, state) -> action`, e.g. `alphabeta_decision`."""

DEFAULT_AGENT = "solutions:alphabeta_decision"
QUIT_WORDS = frozenset({"q", "quit", "exit"})

__all__ = [
    "DEFAULT_AGENT",
    "Agent",
    "AgentError",
    "PlayRecord",
    "load_agent",
    "parse_action",
    "play",
    "with_depth",
    "with_seconds",
]


class AgentError(ValueError):
    """The agent raised, or gave something that is not a legal move: one line that says what
    and where (the agent's own line of code when it raised)."""


@dataclass(frozen=True)
class PlayRecord:
    """How a game played with `play` went.

    `finished` is False when the human left before the end (end of input, Ctrl-C or "quit");
    `final_state` is then the position they left.
    """

    final_state: State
    moves: tuple[Action, ...]
    human: str
    finished: bool


def play(
    game: Game,
    agent: Agent,
    first: str = "human",
    input_fn: Callable[[str], str] = input,
    output: Callable[[str], Any] = print,
    parse: Callable[[str], Action] | None = None,
) -> PlayRecord:
    """Play `game` from its initial state, a human (through `input_fn`) against `agent`.

    Each turn prints the board, whose turn it is and the legal actions. On the human's turn the
    agent also recommends a move for the human and says how long it took; an empty line plays
    that recommendation. Input that cannot be parsed or is not legal is refused with the legal
    actions listed, and the human is asked again; end of input, Ctrl-C or "quit" ends the game
    politely. The agent's own moves are printed with their thinking time.

    Args:
        game: any game of the course (`TicTacToe()`, `Nim()`, ...).
        agent: `agent(game, state) -> action`, e.g. `solutions.alphabeta_decision`.
        first: "human" or "agent": who makes the first move of the game.
        input_fn, output: how lines are read and written (`input` and `print` by default;
            tests pass scripted ones).
        parse: turns the human's text into an action; `parse_action` by default.

    Raises:
        ValueError: `first` is neither "human" nor "agent", or the agent returns an action that
            is not legal (a bug in the agent, reported with the legal actions).
    """
    if first not in ("human", "agent"):
        raise ValueError(f'first must be "human" or "agent", not {first!r}')
    parse = parse_action if parse is None else parse
    state = game.initial_state()
    starter = game.to_move(state)
    human = starter if first == "human" else _other(starter)
    output(f"You play {human}; the agent plays {_other(human)}. {starter} moves first.")
    moves: list[Action] = []
    while not game.is_terminal(state):
        legal = game.actions(state)
        output("")
        output(game.display(state))
        if game.to_move(state) == human:
            output(f"Your turn ({human}). Legal moves: {_listing(legal)}")
            advice, seconds = _timed(agent, game, state)
            _check_legal(advice, legal, "recommended")
            output(f"agent recommends {advice!r} ({seconds:.3f} s); press Enter to play it")
            action = _ask_human(legal, advice, input_fn, output, parse)
            if action is None:
                output("Game ended before the finish. Thanks for playing!")
                return PlayRecord(state, tuple(moves), human, finished=False)
        else:
            output(f"Agent's turn ({_other(human)}). Legal moves: {_listing(legal)}")
            action, seconds = _timed(agent, game, state)
            _check_legal(action, legal, "chose")
            output(f"agent plays {action!r} ({seconds:.3f} s)")
        state = game.result(state, action)
        moves.append(action)
    output("")
    output(game.display(state))
    output(_verdict(game.utility(state), human))
    return PlayRecord(state, tuple(moves), human, finished=True)


def parse_action(text: str) -> Action:
    """Read an action typed by a human: "4" -> 4, "1 2", "1,2" or "(1, 2)" -> (1, 2).

    Raises:
        ValueError: the text is not a number or a group of numbers.
    """
    text = text.strip()
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        value = None
    if isinstance(value, list | tuple):
        value = tuple(value)
    if isinstance(value, int | tuple) and not isinstance(value, bool):
        return value
    numbers = re.split(r"[\s,;]+", text.strip("()[] "))
    if len(numbers) >= 2 and all(re.fullmatch(r"-?\d+", number) for number in numbers):
        return tuple(int(number) for number in numbers)
    raise ValueError(f"cannot read {text!r} as a move")


def with_depth(
    decision: Callable[..., Action], depth: int, evaluate: Callable[[State], float]
) -> Agent:
    """Turn `decision(game, state, depth, evaluate)` into an agent `agent(game, state)`.

    For games too large to search to the end, e.g.
    `with_depth(depth_limited_decision, 4, evaluate)`.
    """

    def agent(game: Game, state: State) -> Action:
        return decision(game, state, depth, evaluate)

    return agent


def with_seconds(agent: Callable[..., Action], seconds: float) -> Agent:
    """Turn a contest agent `agent(game, state, seconds)` into `agent(game, state)`."""

    def timed_agent(game: Game, state: State) -> Action:
        return agent(game, state, seconds)

    return timed_agent


def load_agent(spec: str, what: str = "agent") -> Callable[..., Any]:
    """Return the agent (or any function) named by "module:function", imported at run time.

    The module may be a dotted import path ("solutions:alphabeta_decision",
    "mymodule:my_decision", found from the current folder), a file
    ("path/to/mycode.py:my_decision") or a notebook ("mycourse/minimax.ipynb:minimax_decision",
    whose code cells run in order, quietly, as the grader runs them).

    Raises:
        ValueError: `spec` is not of the form "module:function", or the module cannot be
            imported, or it has no such callable.
    """
    module_name, _, function_name = spec.partition(":")
    if not module_name or not function_name:
        raise ValueError(
            f'name the {what} as "module:function", e.g. "{DEFAULT_AGENT}", not {spec!r}'
        )
    try:
        if module_name.endswith(".py"):
            module = _import_file(Path(module_name))
        elif module_name.lower().endswith(".ipynb"):
            module = _import_notebook(Path(module_name))
        else:
            module = importlib.import_module(module_name)
    except Exception as error:  # a student's module may fail in any way while importing
        problem = f"{type(error).__name__}: {error}"
        if isinstance(error, ModuleNotFoundError) and error.name == "solutions":
            problem += (
                "; the reference agents come with the full course (pip install -e . in the "
                "repository), not with the student toolkit: play against your own with "
                "--agent mymodule:my_decision"
            )
        raise ValueError(
            f"cannot import {module_name!r} for the {what} {spec!r}: {problem}"
        ) from error
    agent = module
    for name in function_name.split("."):
        agent = getattr(agent, name, None)
    if not callable(agent):
        failed = getattr(module, "__notebook_failures__", [])
        why = f" ({'; '.join(failed)})" if failed else ""
        raise ValueError(
            f"{module_name!r} has no function {function_name!r} to use as the {what}{why}"
        )
    if what == "agent" and function_name.endswith("_value"):
        raise ValueError(
            f"{function_name} returns a value, not an action: play against a decision "
            f"function, e.g. {module_name}:{function_name.removesuffix('_value')}_decision"
        )
    return agent


def _ask_human(
    legal: list[Action],
    advice: Action,
    input_fn: Callable[[str], str],
    output: Callable[[str], Any],
    parse: Callable[[str], Action],
) -> Action | None:
    """Ask until the human types a legal action; None when they leave."""
    while True:
        try:
            text = input_fn("your move: ").strip()
        except (EOFError, KeyboardInterrupt):
            output("")
            return None
        if text.lower() in QUIT_WORDS:
            return None
        if not text:
            return advice
        try:
            action = parse(text)
        except ValueError:
            output(f"Could not read {text!r} as a move. Legal moves: {_listing(legal)}")
            continue
        if action not in legal:
            output(f"{action!r} is not a legal move here. Legal moves: {_listing(legal)}")
            continue
        return action


def _timed(agent: Agent, game: Game, state: State) -> tuple[Action, float]:
    start = time.perf_counter()
    try:
        action = agent(game, state)
    except Exception as error:  # the agent is the student's code: say what and where, once
        raise AgentError(
            f"the agent raised {type(error).__name__}: {error}{_place(error)}"
        ) from None
    return action, time.perf_counter() - start


def _place(error: BaseException) -> str:
    """Where `error` happened in code outside this toolkit: " in f (file, line L): the line"."""
    toolkit = str(Path(__file__).parent)
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if frame.filename.startswith(toolkit) or not frame.lineno:
            continue
        line = f": {frame.line.strip()}" if frame.line else ""
        return f" in {frame.name} ({Path(frame.filename).name}, line {frame.lineno}){line}"
    return ""


def _check_legal(action: Action, legal: list[Action], verb: str) -> None:
    if not any(type(move) is type(action) and move == action for move in legal):
        message = (
            f"the agent {verb} {action!r}, which is not a legal move here; "
            f"the legal moves are {_listing(legal)}"
        )
        if type(action) in (int, float, bool):
            message += (
                "; a number that is not a move looks like a value, not an action: give a "
                "decision function, which returns the action itself"
            )
        raise AgentError(message)


def _verdict(utility: float, human: str) -> str:
    if utility == 0:
        return "Draw."
    winner = MAX if utility > 0 else MIN
    who = "You win" if winner == human else "The agent wins"
    return f"{who} ({winner}, utility {utility:g} for MAX)."


def _other(player: str) -> str:
    return MIN if player == MAX else MAX


def _listing(actions: list[Action]) -> str:
    return ", ".join(repr(action) for action in actions)


def _import_file(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _import_notebook(path: Path) -> Any:
    """A notebook's code cells run in order as one module, their printing silenced (the
    self-checks print); magics and shell lines (% and !) are left out. A cell that fails is
    skipped, as the grader skips it, and named if the function asked for is then missing."""
    data = json.loads(path.read_text(encoding="utf-8"))
    module = types.ModuleType(path.stem)
    module.__file__ = str(path)
    failures = []
    code_cells = [cell for cell in data.get("cells", []) if cell.get("cell_type") == "code"]
    for number, cell in enumerate(code_cells, 1):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        lines = [
            "" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n")
        ]
        try:
            code = compile("\n".join(lines), f"{path.name}, code cell {number}", "exec")
            with contextlib.redirect_stdout(io.StringIO()):
                exec(code, module.__dict__)
        except Exception as error:  # a student's cell may fail in any way: the rest still run
            failures.append(f"code cell {number} failed: {type(error).__name__}: {error}")
    module.__notebook_failures__ = failures
    return module
