"""Generates the root's first child over and over: the states served per call are capped."""


def minimax_value(game, state):
    action = game.actions(state)[0]
    while True:
        game.result(state, action)
