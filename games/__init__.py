"""The student-facing toolkit: the game protocol, the games, node counting and tree drawing.

Names are imported from their modules on first use (PEP 562), so `from games import TicTacToe`
does not pay for the drawing code and its dependencies: every graded submission starts a fresh
interpreter that imports `games`, and those milliseconds add up over a class.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what editors and type checkers see; at run time see __getattr__
    # ruff: noqa: F401 - file-wide: the names imported here are exported by _HOMES and __all__
    from games.chance import ChanceTree, Pig, PigState, chance, max_, min_
    from games.connect_four import ConnectFour, ConnectFourState
    from games.counting import BudgetedGame, CountingGame, RecordingGame
    from games.drawing import (
        draw_tree,
        figure_to_data_uri,
        figure_to_svg,
        tree_svg,
    )
    from games.multiplayer import MultiplayerGame, MultiplayerTree, TakeAway
    from games.nim import Nim
    from games.protocol import CHANCE, MAX, MIN, Game, IllegalActionError, OutOfStates
    from games.tictactoe import TicTacToe
    from games.tree import GameTree, ordered_tree, random_tree

_HOMES = {
    "games.chance": ("ChanceTree", "Pig", "PigState", "chance", "max_", "min_"),
    "games.connect_four": ("ConnectFour", "ConnectFourState"),
    "games.counting": ("BudgetedGame", "CountingGame", "RecordingGame"),
    "games.drawing": (
        "draw_tree",
        "figure_to_data_uri",
        "figure_to_svg",
        "tree_svg",
    ),
    "games.multiplayer": ("MultiplayerGame", "MultiplayerTree", "TakeAway"),
    "games.nim": ("Nim",),
    "games.protocol": ("CHANCE", "MAX", "MIN", "Game", "IllegalActionError", "OutOfStates"),
    "games.tictactoe": ("TicTacToe",),
    "games.tree": ("GameTree", "ordered_tree", "random_tree"),
}
"""Where each exported name lives; the TYPE_CHECKING imports above must say the same (a test
compares them)."""
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}
__all__ = sorted(_HOME_OF)


def __getattr__(name: str):
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'games' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Toolkit(types.ModuleType):
    """`games.chance` names both a module and the function it exports. Importing the module
    would make the package attribute the module; the function is kept, as `from games import
    chance` has always given it."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _HOME_OF and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Toolkit
