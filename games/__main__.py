"""`python -m games play tictactoe|nim|connect4`: play in the terminal against a search agent.
`python -m games notebooks DIR`: copy the course's assignment notebooks into DIR to work in."""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from games.nim import Nim
from games.play import DEFAULT_AGENT, AgentError, load_agent, play, with_depth, with_seconds
from games.protocol import Game, State
from games.tictactoe import TicTacToe

DEPTH_LIMITED_AGENT = "solutions:depth_limited_decision"
CONTEST_AGENT = "solutions:connect_four_agent"


@dataclass(frozen=True)
class GameChoice:
    """A game the command line offers: how to make it, how to enter moves, how deep to search."""

    make: Callable[[], Game]
    how_to_move: str
    depth: int | None = None  # search depth when the default agent cannot search to the end


def _connect_four() -> Game:
    # Imported only when asked for, so the other games work without it.
    try:
        module = importlib.import_module("games.connect_four")
        return module.ConnectFour()
    except (ImportError, AttributeError) as error:
        raise ValueError(f"Connect Four is not available yet ({error})") from error


GAMES = {
    "tictactoe": GameChoice(
        TicTacToe, "Enter a square 0-8, numbered row by row:\n012\n345\n678\nX is MAX."
    ),
    "nim": GameChoice(
        Nim,
        'Enter a move as "heap count": "2 3" takes 3 objects from heap 2. '
        "Whoever takes the last object wins.",
    ),
    "connect4": GameChoice(_connect_four, "Enter a column 1-7. X is MAX.", depth=4),
}

EPILOG = f"""\
An agent is any function agent(game, state) -> action, named "module:function" and imported
when the game starts (default {DEFAULT_AGENT}). Try your own with
  python -m games play tictactoe --agent mymodule:my_decision
  python -m games play nim --agent path/to/mycode.py:my_decision
  python -m games play tictactoe --agent mycourse/minimax.ipynb:minimax_decision
With --depth N the agent is called as agent(game, state, N, evaluate) instead (default agent
{DEPTH_LIMITED_AGENT}); evaluate is --evaluate module:function, else the game's own
evaluation (Connect Four's game.evaluate), else a function scoring every unfinished position
0, so that the agent sees only wins and losses within N plies. With --seconds S it is called as
agent(game, state, S), as the contest calls connect_four_agent (default agent
{CONTEST_AGENT}).
Connect Four is too large to search to the end: your agent too is called with --depth 4
unless you give --depth or --seconds."""


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m games", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    player = commands.add_parser(
        "play",
        help="play against a search agent",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    player.add_argument("game", choices=sorted(GAMES))
    player.add_argument(
        "--agent",
        help=f'"module:function", "file.py:function" or "notebook.ipynb:function" '
        f"(default {DEFAULT_AGENT})",
    )
    player.add_argument("--first", choices=("human", "agent"), default="human")
    player.add_argument("--depth", type=int, help="search this many plies, then evaluate")
    player.add_argument(
        "--seconds",
        type=float,
        help="call the agent as agent(game, state, SECONDS): a contest agent",
    )
    player.add_argument("--evaluate", help='"module:function" scoring a state for MAX')
    notebooks = commands.add_parser(
        "notebooks", help="copy the assignment notebooks into a folder, to work in them"
    )
    notebooks.add_argument("folder", type=Path, help="where to put them (created if missing)")
    args = parser.parse_args(argv)
    if args.command == "notebooks":
        return copy_notebooks(args.folder)

    choice = GAMES[args.game]
    seconds = args.seconds
    depth = args.depth if args.depth is not None or seconds is not None else choice.depth
    try:
        game = choice.make()
        if seconds is not None:
            agent = with_seconds(load_agent(args.agent or CONTEST_AGENT), seconds)
        elif depth is None:
            agent = load_agent(args.agent or DEFAULT_AGENT)
        else:
            if depth < 1:
                raise ValueError(f"--depth must be at least 1, not {depth}")
            decision = load_agent(args.agent or DEPTH_LIMITED_AGENT)
            evaluate = load_agent(args.evaluate, "evaluation") if args.evaluate else None
            agent = with_depth(decision, depth, evaluate or getattr(game, "evaluate", _zero))
    except ValueError as error:
        print(f"python -m games play: {error}", file=sys.stderr)
        return 2
    print(choice.how_to_move)
    if seconds is not None:
        print(f"The agent has {seconds:g} s a move.")
    elif depth is not None:
        print(f"The agent looks {depth} plies ahead.")
    try:
        play(game, agent, first=args.first)
    except AgentError as error:
        print(f"python -m games play: {error}", file=sys.stderr)
        return 1
    return 0


def copy_notebooks(folder: Path) -> int:
    """Copy each released assignment notebook the toolkit ships into `folder`, never over a
    file already there (that may be a student's work): those are named and left as they are."""
    if folder.exists() and not folder.is_dir():
        print(f"python -m games notebooks: {folder} is a file: give a folder", file=sys.stderr)
        return 2
    folder.mkdir(parents=True, exist_ok=True)
    shipped = sorted(
        entry for entry in resources.files("games").joinpath("notebooks").iterdir()
        if entry.name.endswith(".ipynb")
    )  # fmt: skip
    for entry in shipped:
        target = folder / entry.name
        try:
            # One call that creates the file or fails: no check-then-write gap in which a link
            # (or a student's file) swapped in could be written through or over.
            handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        except FileExistsError:
            print(f"kept {target}: it is already there (your work is never overwritten)")
            continue
        except OSError as error:
            print(f"python -m games notebooks: cannot write {target}: {error}", file=sys.stderr)
            return 1
        with os.fdopen(handle, "wb") as stream:
            stream.write(entry.read_bytes())
        print(f"wrote {target}")
    print(_next_step(folder))
    return 0


def _next_step(folder: Path) -> str:
    """How to open the copied notebooks: with this environment's Jupyter if it has one."""
    beside = Path(sys.executable).parent / "jupyter"  # the venv's, even when not activated
    jupyter = str(beside) if beside.exists() else shutil.which("jupyter")
    where = shlex.quote(str(folder))
    if jupyter:
        return (
            f"Next: open them in JupyterLab and start with minimax.ipynb:\n"
            f"  {shlex.quote(jupyter)} lab {where}"
        )
    return (
        "Next: open them in Jupyter. It is not installed here: install it with\n"
        "  pip install jupyterlab\n"
        "(or install the toolkit as './games[jupyter]'), then run\n"
        f"  jupyter lab {where}\n"
        "On Colab or a JupyterHub, open them from the file browser instead."
    )


def _zero(state: State) -> float:
    """Score every unfinished position as a draw."""
    return 0


if __name__ == "__main__":
    sys.exit(main())
