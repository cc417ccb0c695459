def check_connect_four_agent(agent):
    """Self-checks of connect_four_agent: a legal column in time, the obvious moves, and two
    games against a random player (one with each colour)."""
    game = ConnectFour()
    positions = [
        ("the empty board", "", None),
        ("X wins at once in column 4", "112233", 4),
        ("O must block column 4", "11223", 4),
    ]
    for name, moves, wanted in positions:
        state = ConnectFour.from_moves(moves)
        started = time.monotonic()
        try:
            column = agent(game, state, 0.2)
        except NotImplementedError:
            print("connect_four_agent is not written yet: its self-checks will run once it is.")
            return
        took = time.monotonic() - started
        assert type(column) is int and column in game.actions(state), (
            f"{name}: your agent returned {column!r}, not one of the legal columns "
            f"{game.actions(state)} (an int)"
        )
        assert took <= 0.25, f"{name}: your agent took {took:.2f} s with 0.2 s to think"
        assert wanted is None or column == wanted, (
            f"{name}: your agent played column {column}, not {wanted}"
        )
        print(f"ok  {name}: column {column} in {took:.3f} s")
    for side in (0, 1):
        rng = random.Random(side)
        state = game.initial_state()
        while not game.is_terminal(state):
            mine = game.moves_played(state) % 2 == side
            column = agent(game, state, 0.05) if mine else rng.choice(game.actions(state))
            state = game.result(state, column)
        mark = "XO"[side]
        winner = game.winner(state)
        assert winner == (MAX if side == 0 else MIN), (
            f"playing {mark} against a random player, your agent did not win:\n"
            + game.display(state)
        )
        print(f"ok  as {mark}, it beats a random player in {game.moves_played(state)} stones")
