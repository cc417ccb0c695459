"""The student-facing toolkit: the game protocol, the games, node counting and tree drawing."""

from games.counting import CountingGame, RecordingGame
from games.nim import Nim
from games.protocol import CHANCE, MAX, MIN, Game, IllegalActionError
from games.tictactoe import TicTacToe
from games.tree import GameTree, ordered_tree, random_tree

__all__ = [
    "CHANCE",
    "MAX",
    "MIN",
    "CountingGame",
    "Game",
    "GameTree",
    "IllegalActionError",
    "Nim",
    "RecordingGame",
    "TicTacToe",
    "ordered_tree",
    "random_tree",
]
