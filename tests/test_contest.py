"""Assignment 5's contest: the referee's rules, the openings and end-games, and the grading."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import textwrap
import time
from pathlib import Path

import pytest

import solutions.agent
from autograder.contest.levels import LEVELS, Level, contest_rules, play_contest, share_points
from autograder.contest.opponents import MAX_STOPS, alphabeta_move
from autograder.contest.referee import (
    ENDGAMES,
    OPENINGS,
    Allowance,
    AlphaBetaPlayer,
    FunctionPlayer,
    Move,
    PlayedGame,
    RandomPlayer,
    SolverPlayer,
    play_game,
)
from autograder.contest.student_agent import MAX_RESTARTS, StudentAgent
from autograder.sandbox import Limits, build_import_view
from games import ConnectFour
from solutions import ConnectFourSolver

GAME = ConnectFour()
LIMITS = Limits(load_timeout=20)
QUICK = Allowance(states=500, seconds=0.5)
"""A small allowance for the tests' games: 500 states and half a second of CPU a move."""


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def centre_player(name: str = "centre") -> FunctionPlayer:
    """Plays the legal column nearest the centre: deterministic and instant."""
    return FunctionPlayer(name, lambda game, state, seconds: alphabeta_move(state, 1)[0])


def student(source: str, view: Path, name: str = "student") -> StudentAgent:
    return StudentAgent(name, [[1, textwrap.dedent(source)]], view, LIMITS)


# --- The referee -----------------------------------------------------------------------------


def test_a_game_between_opponents_ends_with_four_in_a_row_or_a_full_board() -> None:
    played = play_game(AlphaBetaPlayer(2), RandomPlayer(seed=1), "4453", QUICK)
    assert played.players == ("alpha-beta depth 2", "random")
    assert played.winner == 0 and played.ended == "X has four in a row"
    state = played.final_state()
    assert GAME.is_terminal(state) and GAME.winner(state) == "MAX"


def test_a_crashing_player_loses_that_game_only() -> None:
    calls = []

    def crashes_once(game, state, seconds):
        calls.append(state)
        if len(calls) == 1:
            raise ValueError("boom")
        return alphabeta_move(state, 2)[0]

    agent = FunctionPlayer("agent", crashes_once)
    level = Level("depth 1", lambda seed: AlphaBetaPlayer(1), 10, (("44", 0), ("44", 1)), 0, 0.5)
    games = play_contest(agent, QUICK, (level,))["depth 1"]
    assert games[0].winner == 1 and games[0].moves == ()
    assert games[0].ended == "X crashed: ValueError: boom (the game is lost)"
    assert len(games[1].moves) > 1 and "crashed" not in games[1].ended


@pytest.mark.parametrize(
    ("returned", "shown"), [(9, "returned 9"), (True, "returned True"), (4.0, "returned 4.0")]
)
def test_an_answer_that_is_not_a_legal_column_loses(returned, shown: str) -> None:
    agent = FunctionPlayer("agent", lambda game, state, seconds: returned)
    played = play_game(RandomPlayer(seed=3), agent, "", QUICK)
    assert played.winner == 0 and len(played.moves) == 1
    assert played.ended.startswith(f"O {shown}, not a legal column")
    assert played.ended.endswith("(the game is lost)")


def test_a_full_column_is_not_a_legal_answer() -> None:
    agent = FunctionPlayer("agent", lambda game, state, seconds: 4)
    played = play_game(agent, centre_player(), "444444", QUICK)
    assert played.winner == 1 and played.moves == ()
    assert "X returned 4, not a legal column of [1, 2, 3, 5, 6, 7]" in played.ended


def test_the_referee_refuses_a_finished_opening() -> None:
    with pytest.raises(ValueError, match="already ended"):
        play_game(centre_player(), centre_player(), "1212121")


def test_a_move_past_its_cpu_time_is_forfeited_to_the_centre_and_play_goes_on(
    view: Path,
) -> None:
    agent = student(
        """
        def connect_four_agent(game, state, seconds):
            probe, free = state, 0  # count the empty cells of column 4 by playing there
            while 4 in game.actions(probe):
                probe, free = game.result(probe, 4), free + 1
            while free == 6:  # on the empty board: computes forever, and is stopped
                pass
            return game.actions(state)[-1]
        """,
        view,
    )
    try:
        played = play_game(agent, RandomPlayer(seed=5), "", Allowance(500, seconds=0.2))
    finally:
        agent.close()
    first = played.moves[0]
    assert first.column == 4
    assert first.note == (
        "forfeited: it used more than 0.2 s of CPU time; the grader played column 4"
    )
    own = [move for index, move in enumerate(played.moves) if played.mover(index) == 0]
    assert len(own) > 1 and not any(move.note for move in own[1:])
    assert agent.restarts == 1  # the stopped process was killed, and started again


def test_the_budget_is_counted_by_the_grader_out_of_the_agent_s_reach(view: Path) -> None:
    """Past its budget the agent's search sees OutOfStates with the grader's message; asking
    the grader directly, around the proxy game, is refused all the same, and the board is
    served without costing a state."""
    agent = student(
        """
        from games import OutOfStates

        def connect_four_agent(game, state, seconds):
            child = state
            try:
                while True:
                    child = game.result(state, game.board(state)[0].index(".") + 1)
            except OutOfStates as spent:
                message = str(spent)
            game._info.clear()  # what the proxy keeps is the student's to spoil
            reply = game._channel.request_child(state, 0)  # around the proxy, to the grader
            refused = type(reply) is dict and reply == {"out_of_states": 50}
            return 4 if refused and "budget of 50 states is spent" in message else 1
        """,
        view,
    )
    try:
        first = agent.choose(GAME.initial_state(), Allowance(50, seconds=1.0))
        second = agent.choose(ConnectFour.from_moves("4"), Allowance(50, seconds=1.0))
    finally:
        agent.close()
    assert (first.status, first.column, first.states) == ("moved", 4, 50)
    assert (second.column, second.states) == (4, 50)  # every move has a budget of its own


def test_an_agent_that_sleeps_past_its_seconds_is_stopped_as_if_it_computed(
    view: Path,
) -> None:
    """Sleeping is charged as CPU time is (issue 33): a move that sleeps ten times its seconds
    is stopped at its seconds, long before the wall-clock safety net, and holds no worker."""
    agent = student(
        """
        import time

        def connect_four_agent(game, state, seconds):
            time.sleep(10 * seconds)
            return game.actions(state)[0]
        """,
        view,
    )
    started = time.monotonic()
    try:
        choice = agent.choose(GAME.initial_state(), Allowance(500, seconds=0.5))
    finally:
        agent.close()
    assert choice.status == "stopped" and "0.5 s" in choice.error
    assert time.monotonic() - started < Allowance(500, seconds=0.5).safety_net


def test_a_move_asleep_past_the_safety_net_is_forfeited(view: Path) -> None:
    agent = student(
        """
        import time

        def connect_four_agent(game, state, seconds):
            time.sleep(3600)
        """,
        view,
    )
    try:
        choice = agent.choose(GAME.initial_state(), Allowance(500, seconds=5.0, wall=0.5))
    finally:
        agent.close()
    assert choice.status == "stopped" and choice.error == "no answer within 0.5 s (the call)"


@pytest.mark.parametrize("isolation", ["auto", "process"])  # the jail's cgroup, or /proc
def test_the_cpu_time_of_a_process_the_agent_starts_counts_too(view: Path, isolation: str) -> None:
    """The CPU time is that of the agent's own processes, all of them: a child that computes
    while the agent waits for it uses the move's seconds."""
    agent = StudentAgent(
        "forker",
        [
            (
                1,
                textwrap.dedent(
                    """
                    import os

                    def connect_four_agent(game, state, seconds):
                        child = os.fork()
                        if child == 0:
                            while True:
                                pass
                        os.waitpid(child, 0)
                    """
                ),
            )
        ],
        view,
        dataclasses.replace(LIMITS, isolation=isolation),
    )
    try:
        choice = agent.choose(GAME.initial_state(), Allowance(500, seconds=0.2, wall=60))
    finally:
        agent.close()
    assert (choice.status, choice.error) == ("stopped", "it used more than 0.2 s of CPU time")


def test_sandboxed_agents_that_crash_or_return_a_state_lose(view: Path) -> None:
    crashing = student("def connect_four_agent(game, state, seconds): return 1 / 0", view)
    giving_a_state = student(
        "def connect_four_agent(game, state, seconds): return game.result(state, 4)", view
    )
    try:
        crashed = play_game(crashing, centre_player(), "", QUICK)
        returned = play_game(centre_player(), giving_a_state, "", QUICK)
    finally:
        crashing.close()
        giving_a_state.close()
    assert crashed.ended == "X crashed: ZeroDivisionError: division by zero (the game is lost)"
    assert returned.winner == 0
    assert returned.ended.startswith("O returned a state of the game")


def test_an_agent_that_is_not_defined_cannot_play(view: Path) -> None:
    agent = student("def connect_four_bot(game, state, seconds): return 4", view)
    try:
        assert "connect_four_agent is not defined" in agent.load_error
        played = play_game(agent, centre_player(), "", QUICK)
    finally:
        agent.close()
    assert played.winner == 1 and "X crashed: connect_four_agent is not defined" in played.ended


def test_a_random_player_with_the_same_seed_plays_the_same_moves() -> None:
    state = GAME.initial_state()
    first, second = RandomPlayer(seed=7), RandomPlayer(seed=7)
    moves = [first.choose(state, QUICK).column for _ in range(20)]
    assert moves == [second.choose(state, QUICK).column for _ in range(20)]
    assert len(set(moves)) > 1


# --- The positions ---------------------------------------------------------------------------


def test_the_openings_are_balanced_by_the_evaluation_and_a_depth_6_search() -> None:
    mirrors = {"".join(str(8 - int(c)) for c in opening) for opening in OPENINGS}
    assert len(set(OPENINGS)) == len(OPENINGS) == 8 and not mirrors & set(OPENINGS)
    for opening in OPENINGS:
        state = ConnectFour.from_moves(opening)
        assert len(opening) == 4 and set(opening) <= set("23456")
        assert abs(GAME.evaluate(state)) <= 0.1
        assert abs(alphabeta_move(state, 6)[1]) <= 0.02


@pytest.mark.parametrize("position", ENDGAMES)
def test_each_endgame_is_a_forced_win_that_needs_search(position: str) -> None:
    solver = ConnectFourSolver()
    state = ConnectFour.from_moves(position)
    assert solver.solve(state) > 0
    scores = {column: -solver.solve(GAME.result(state, column)) for column in GAME.actions(state)}
    winning = {column for column, score in scores.items() if score > 0}
    assert winning and len(winning) < len(scores)
    assert not any(GAME.is_terminal(GAME.result(state, column)) for column in winning)
    assert alphabeta_move(state, 2)[0] not in winning


def test_the_solver_defends_as_long_as_it_can() -> None:
    state = ConnectFour.from_moves(ENDGAMES[0])
    reply = GAME.result(state, 3)  # the only winning move: the solver is now lost
    column = SolverPlayer().choose(reply, QUICK).column
    solver = ConnectFourSolver()
    best = max(-solver.solve(GAME.result(reply, c)) for c in GAME.actions(reply))
    assert -solver.solve(GAME.result(reply, column)) == best < 0


# --- The records -----------------------------------------------------------------------------


def test_a_played_game_survives_a_trip_through_json() -> None:
    played = PlayedGame(
        "44",
        ("alice", "random"),
        (Move(3, 4000), Move(4, 120, "forfeited: it used more than 3 s of CPU time; ...")),
        None,
        "the board is full",
    )
    assert PlayedGame.from_json(json.loads(json.dumps(played.to_json()))) == played
    assert played.score(0) == played.score(1) == 0.5


# --- The grading -----------------------------------------------------------------------------


def test_a_random_agent_loses_the_depth_levels() -> None:
    rng = random.Random(0)
    agent = FunctionPlayer("chaos", lambda game, state, seconds: rng.choice(game.actions(state)))
    rules = {rule.id: rule for rule in contest_rules(play_contest(agent, QUICK), "chaos")}
    assert rules["agent_beats_depth_2"].points == rules["agent_beats_depth_4"].points == 0
    assert rules["agent_moves_in_time"].full
    verdict = rules["agent_beats_depth_4"].groups[0].verdicts[0]
    assert verdict.instance == "opening 3526, agent plays O" and not verdict.passed
    assert verdict.expected == "a win" and verdict.got.startswith("a loss in ")


@pytest.mark.parametrize(
    "agent",
    [
        lambda game, state, seconds: alphabeta_move(state, 3)[0],
        lambda game, state, seconds: random.choice(game.actions(state)),  # seeded per game
        solutions.agent.connect_four_agent,  # deepens until its budget is spent
    ],
    ids=["fixed_depth", "random_columns", "reference"],
)
def test_a_deterministic_agent_gets_the_same_games_and_grade_every_run(agent) -> None:
    levels = (LEVELS[0], LEVELS[3])  # the rules are the same for every level; these are quick

    def play():
        games = play_contest(FunctionPlayer("steady", agent), Allowance(1000, 3.0), levels)
        moves = {
            name: [[m.column for m in g.moves] for g in played] for name, played in games.items()
        }
        return moves, [rule.points for rule in contest_rules(games, "steady", levels)]

    first = play()
    random.seed()  # whatever state the process's random numbers are in between the runs
    assert play() == first


def test_an_agent_s_random_numbers_are_seeded_by_the_opening_and_its_colour() -> None:
    drawn = []
    agent = FunctionPlayer("dice", lambda game, state, seconds: drawn.append(random.random()) or 4)
    for opening, side in (("3526", 0), ("3526", 1), ("3625", 0), ("3526", 0)):
        agent.new_game(opening, side)
        agent.choose(ConnectFour.from_moves(opening + "4" * side), QUICK)
    assert drawn[0] == drawn[3] and len(set(drawn)) == 3
    random.seed("3526-X")
    assert drawn[0] == random.random()


@pytest.mark.parametrize(
    ("share", "points"), [(0.0, 0), (0.25, 0), (0.5, 10), (0.625, 15), (0.75, 20), (1.0, 20)]
)
def test_a_level_pays_in_proportion_between_its_floor_and_its_target(share, points) -> None:
    assert share_points(20, share, 0.25, 0.75) == points


def test_a_share_needs_a_floor_below_its_target() -> None:
    with pytest.raises(ValueError, match="floor < target"):
        share_points(20, 0.5, 0.75, 0.75)


def _won(opening: str, first: str = "", second: str = "") -> PlayedGame:
    """A game the agent (X) won in two moves, each forfeited with its note if one is given."""
    moves = (Move(4, 4000, first), Move(3), Move(4, 4000, second))
    return PlayedGame(opening, ("agent", "random"), moves, 0, "X won")


def test_a_forfeited_move_costs_its_game_s_share_of_the_in_time_rule_only() -> None:
    note = "forfeited: no move returned within its budget of 4,000 states; the grader played..."
    games = (_won("3526", note), _won("3625"), _won("3665"), _won("4265"))
    rules = {rule.id: rule for rule in contest_rules({"random": games}, "agent")}
    assert rules["agent_moves_in_time"].points == 15  # 3 of the 4 games, of 20 points
    verdict = rules["agent_moves_in_time"].groups[0].verdicts[0]
    assert verdict.got == "1 moves forfeited" and verdict.hint == note
    assert note in rules["agent_beats_random"].groups[0].verdicts[0].hint


def test_a_game_the_grader_played_for_the_agent_counts_as_lost() -> None:
    note = "forfeited: not asked: 2 of its moves were already stopped for time; ..."
    games = (_won("3526", note, note), _won("3625", note))
    rules = {rule.id: rule for rule in contest_rules({"random": games}, "agent")}
    verdicts = rules["agent_beats_random"].groups[0].verdicts
    assert [verdict.passed for verdict in verdicts] == [False, True]  # one move of its own
    assert verdicts[0].got.startswith("a loss") and "played every one" in verdicts[0].hint
    assert rules["agent_beats_random"].points == 0  # a share of 1/2: the level's floor


def test_the_levels_use_only_the_openings_and_endgames() -> None:
    positions = {opening for level in LEVELS for opening, _ in level.games}
    assert positions <= set(OPENINGS) | set(ENDGAMES)
    endgame_level = LEVELS[-1]
    assert all(side == len(position) % 2 for position, side in endgame_level.games)
    depth_2, depth_4 = LEVELS[1].games, LEVELS[2].games  # every opening from both sides
    assert sorted(depth_2 + depth_4) == sorted((o, side) for o in OPENINGS for side in (0, 1))


PONDERER = """
import threading

def ponder():
    while True:  # thinks all the time, on the opponent's time too
        sum(range(10_000))

threading.Thread(target=ponder, daemon=True).start()

def connect_four_agent(game, state, seconds):
    return game.actions(state)[0]
"""


def _cpu_seconds(agent: StudentAgent) -> float:
    """The CPU time of every process of the agent: its cgroup's (jailed), or its group's."""
    if agent.process.cgroups:
        pids = Path(agent.process.cgroups[0], "cgroup.procs").read_text().split()
    else:
        pids = [p.name for p in Path("/proc").iterdir() if p.name.isdigit()]
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if agent.process.cgroups or int(fields[2]) == agent.process.process.pid:  # its group
            total += int(fields[11]) + int(fields[12])  # utime + stime
    return total / os.sysconf("SC_CLK_TCK")


def _stopped(agent: StudentAgent) -> bool:
    """Whether the agent is held now: its freezer cgroup reads FROZEN (jailed), or every
    process of its group is stopped (state T)."""
    freezer = next((Path(c) for c in agent.process.cgroups if "/freezer/" in c), None)
    if freezer is not None:
        return (freezer / "freezer.state").read_text().strip() == "FROZEN"
    states = []
    for pid in (p.name for p in Path("/proc").iterdir() if p.name.isdigit()):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == agent.process.process.pid:
            states.append(fields[0])
    return bool(states) and all(state in "tT" for state in states)


def _within(condition, seconds: float = 30.0) -> bool:
    """Whether `condition()` holds before `seconds` pass: a generous bound that only a broken
    agent or grader reaches, however busy the machine is."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("isolation", ["auto", "process"])  # the jail's freezer, or signals
def test_an_agent_cannot_think_on_its_opponents_time(view: Path, isolation: str) -> None:
    """Between moves every process of the agent is stopped, a thread it started too; it runs
    again for its next move. Held, it takes not one tick of CPU, whatever the machine's load."""
    limits = dataclasses.replace(LIMITS, isolation=isolation)
    agent = StudentAgent("ponderer", [(1, PONDERER)], view, limits)
    try:
        assert agent.choose(ConnectFour().initial_state(), Allowance(100, 5.0)).status == "moved"
        assert _within(lambda: _stopped(agent))
        before = _cpu_seconds(agent)
        time.sleep(0.5)  # the opponent's move
        assert _cpu_seconds(agent) == before
        agent.process.resume()
        # as a check: unpaused, the thread does take the CPU
        assert _within(lambda: _cpu_seconds(agent) - before > 0.2)
        agent.process.pause()
        assert agent.choose(ConnectFour.from_moves("4"), Allowance(100, 5.0)).status == "moved"
    finally:
        agent.close()


def test_an_agent_stuck_in_a_loop_is_stopped_twice_then_no_longer_asked(
    view: Path,
) -> None:
    """Loading takes a third of a second and every move computes forever: two moves are
    stopped at their CPU time (each restarting the process), and the later ones are forfeited at
    once, so the game is over in about a second, not after a restart for each of its twenty-odd
    moves, and it is the same game on every run."""
    cells = [
        (1, "import time\ntime.sleep(0.3)\n"),
        (2, "def connect_four_agent(g, s, t):\n    while True:\n        pass\n"),
    ]
    agent = StudentAgent("slow", cells, view, LIMITS)
    try:
        game = play_game(agent, RandomPlayer(1), OPENINGS[0], Allowance(500, seconds=0.05))
    finally:
        agent.close()
    notes = [move.note for index, move in enumerate(game.moves) if game.mover(index) == 0]
    assert len(notes) > MAX_STOPS and agent.restarts == MAX_STOPS - 1
    assert all("it used more than 0.05 s of CPU time" in note for note in notes[:MAX_STOPS])
    assert all(f"not asked: {MAX_STOPS} of its moves" in note for note in notes[MAX_STOPS:])
    assert game.winner is not None or game.ended == "the board is full"


def test_an_agent_whose_process_keeps_dying_is_no_longer_started(view: Path) -> None:
    agent = student("import os\ndef connect_four_agent(g, s, t):\n    os._exit(3)\n", view)
    try:
        choices = [agent.choose(GAME.initial_state(), QUICK) for _ in range(MAX_RESTARTS + 2)]
    finally:
        agent.close()
    assert [choice.status for choice in choices] == ["crashed"] * (MAX_RESTARTS + 2)
    assert "exited with code 3" in choices[MAX_RESTARTS].error
    assert choices[-1].error.startswith(f"not played: its process was started again {MAX_RESTARTS}")
