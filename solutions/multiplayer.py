"""Max-n: every player picks the child that maximises its own component of the utility vector."""

from __future__ import annotations

from games.multiplayer import MultiplayerGame, Utilities
from games.protocol import Action, State
from solutions.minimax import _require_a_move


def maxn_value(game: MultiplayerGame, state: State) -> Utilities:
    """Return the max-n value of `state`: a tuple with one utility per player.

    A terminal state is worth `game.utilities(state)`. Elsewhere the player to move, `p`,
    takes the value of the child whose component `p` is largest. Ties are broken by the first
    such child in `game.actions(state)` order (Python's `max` keeps the first maximum), and the
    tie-break matters: the other players' components differ between tied children.
    """
    if game.is_terminal(state):
        return game.utilities(state)
    player = game.to_move(state)
    values = [maxn_value(game, game.result(state, action)) for action in game.actions(state)]
    return max(values, key=lambda utilities: utilities[player])


def maxn_decision(game: MultiplayerGame, state: State) -> Action:
    """Return the action whose child's max-n value is best for the player to move.

    Of several actions giving the player to move the same utility, the first in
    `game.actions(state)` order is returned, the same tie-break as `maxn_value`.

    Raises:
        ValueError: `state` is terminal, so there is no move to choose.
    """
    _require_a_move(game, state)
    player = game.to_move(state)
    best_action, best_score = None, None
    for action in game.actions(state):
        score = maxn_value(game, game.result(state, action))[player]
        if best_score is None or score > best_score:
            best_action, best_score = action, score
    return best_action
