"""The student-facing toolkit: the game protocol, the games, node counting and tree drawing."""

from games.chance import ChanceTree, Pig, PigState, chance, max_, min_
from games.connect_four import ConnectFour, ConnectFourState
from games.counting import CountingGame, RecordingGame
from games.drawing import backed_up_values, draw_tree, figure_to_data_uri, figure_to_svg
from games.multiplayer import MultiplayerGame, MultiplayerTree, TakeAway
from games.nim import Nim
from games.protocol import CHANCE, MAX, MIN, Game, IllegalActionError
from games.tictactoe import TicTacToe
from games.tree import GameTree, ordered_tree, random_tree

__all__ = [
    "CHANCE",
    "MAX",
    "MIN",
    "ChanceTree",
    "ConnectFour",
    "ConnectFourState",
    "CountingGame",
    "Game",
    "GameTree",
    "IllegalActionError",
    "MultiplayerGame",
    "MultiplayerTree",
    "Nim",
    "Pig",
    "PigState",
    "RecordingGame",
    "TakeAway",
    "TicTacToe",
    "backed_up_values",
    "chance",
    "draw_tree",
    "figure_to_data_uri",
    "figure_to_svg",
    "max_",
    "min_",
    "ordered_tree",
    "random_tree",
]
