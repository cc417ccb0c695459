def one_move(agent, game, state, states=STATES):
    """Call `agent` for one move in `state` on a BudgetedGame of `states` states, as the grader
    does; stop it (AssertionError) once it has used SECONDS of CPU time."""
    try:
        with time_limit(SECONDS, GradingTimeout, cpu=True):
            return agent(BudgetedGame(game, states), state, SECONDS)
    except GradingTimeout:
        raise AssertionError(
            f"your agent computed for more than {SECONDS:g} s of CPU time on one move, and the "
            "grader would forfeit it: an endless loop, or a loop that never asks game.result?"
        ) from None


def check_connect_four_agent(agent):
    """Self-checks of connect_four_agent under the contest's rules: each move on a
    BudgetedGame of STATES states, within SECONDS of CPU time, a legal column, the obvious
    moves, the same move again for the same position, and two games against a random player
    (one with each colour), your random numbers seeded as the grader seeds them."""
    game = ConnectFour()
    positions = [
        ("the empty board", "", None),
        ("X wins at once in column 4", "112233", 4),
        ("O must block column 4", "11223", 4),
    ]
    for name, moves, wanted in positions:
        state = ConnectFour.from_moves(moves)
        columns = []
        for _ in range(2):
            random.seed(name)
            started = time.process_time()
            try:
                columns.append(one_move(agent, game, state))
            except NotImplementedError:
                print("connect_four_agent is not written yet: its self-checks will run once it is.")
                return
            except OutOfStates:
                raise AssertionError(
                    f"{name}: OutOfStates escaped from your agent, which forfeits the move: "
                    "catch it around your search and return the best move found so far"
                ) from None
            cpu = time.process_time() - started
        column = columns[0]
        assert type(column) is int and column in game.actions(state), (
            f"{name}: your agent returned {column!r}, not one of the legal columns "
            f"{game.actions(state)} (an int)"
        )
        assert cpu <= SECONDS, (
            f"{name}: your agent used {cpu:.2f} s of CPU time, more than the {SECONDS:g} s a "
            "move may use"
        )
        assert wanted is None or column == wanted, (
            f"{name}: your agent played column {column}, not {wanted}"
        )
        assert columns[1] == column, (
            f"{name}: your agent played column {column}, then {columns[1]} in the same position "
            "with the same budget: a move must depend only on the position (not on the clock)"
        )
        print(f"ok  {name}: column {column}, {cpu:.3f} s of CPU time")
    for side in (0, 1):
        rng = random.Random(side)
        random.seed(f"--{'XO'[side]}")  # as the grader seeds a game from the empty board
        state = game.initial_state()
        while not game.is_terminal(state):
            mine = game.moves_played(state) % 2 == side
            column = one_move(agent, game, state) if mine else rng.choice(game.actions(state))
            state = game.result(state, column)
        mark = "XO"[side]
        winner = game.winner(state)
        assert winner == (MAX if side == 0 else MIN), (
            f"playing {mark} against a random player, your agent did not win:\n"
            + game.display(state)
        )
        print(f"ok  as {mark}, it beats a random player in {game.moves_played(state)} stones")
