"""Assignment 5's contest keeps its hidden answers and cannot be slept through (issue 33).

Each attack is played beside an honest agent that keeps its grade: a lookup table of suite
answers, a sleeping agent, an agent that uses most of its seconds on every move of a whole
contest, an own engine outside the served game, a thread that thinks after its move returned, a
thrown game, an agent that overruns once and keeps a module-level table (nbgrader's kernel
against the sandbox). Who a file belongs to, and the permissions of what the grader writes, are
in `test_contest_ownership.py`.
"""

from __future__ import annotations

import dataclasses
import os
import re
import textwrap
import time
from pathlib import Path

import pytest
from busy import spinning
from example_class import make_class

import solutions.agent
from autograder.contest import integrity
from autograder.contest.grade import contest_seconds, instructor_flags
from autograder.contest.levels import LEVELS
from autograder.contest.opponents import Allowance, FunctionPlayer, RandomPlayer
from autograder.contest.positions import (
    COURSE_SEED_VARIABLE,
    PHASES,
    POOL,
    POSITIONS,
    POSITIONS_POINTS,
    course_positions,
    play_positions,
    positions_rule,
)
from autograder.contest.referee import Move, PlayedGame, play_game
from autograder.contest.student_agent import StudentAgent, fitting_limits
from autograder.grading.records import GradeRecord
from autograder.platforms import contest_checks
from autograder.reports.feedback_page import feedback_html
from autograder.reports.files import results_json
from autograder.sandbox import Limits, build_import_view
from games import ConnectFour

GAME = ConnectFour()
LIMITS = Limits(load_timeout=20)


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def first_column(game, state, seconds):
    """The weak agent of the attack: always the first legal column."""
    return game.actions(state)[0]


def _moves_of(state) -> str:
    return MOVES[state]


MOVES = {ConnectFour.from_moves(position.moves): position.moves for position in POOL}


def _kept(rule) -> int:
    return int(re.search(r"keeps the value of (\d+) of", rule.description).group(1))


# -- 1. Hidden answers stay hidden ------------------------------------------------------------


def test_no_page_a_student_sees_names_a_position_or_the_columns_that_keep_it(capsys) -> None:
    """The weak agent's feedback, Gradescope's output and the kernel's hidden test all say how
    many positions were kept in each phase of the game, and nothing a table could be built of."""
    rule = positions_rule(play_positions(FunctionPlayer("weak", first_column)))
    record = GradeRecord("weak", "graded", rule.points, rule.max_points, rules=(rule,))
    gradescope = results_json(record, "stamp")
    shown = [
        feedback_html(record),
        "\n".join(test["output"] + test["name"] for test in gradescope["tests"]),
    ]
    namespace = {"connect_four_agent": first_column}
    contest_checks.PLAYED.clear()
    with pytest.raises(AssertionError) as lost:  # the weak agent earns nothing: the cell fails
        contest_checks.grade_contest_rule("agent_keeps_the_value", POSITIONS_POINTS, namespace)
    shown.append(str(lost.value))
    phases = [f"positions with {low} to {high} stones" for low, high in PHASES]
    for text in [*shown, capsys.readouterr().out]:
        assert not any(position.moves in text for position in POSITIONS)
        assert not re.search(r"columns? \d", text), re.search(r".{80}columns? \d.{40}", text)
        assert "keeps it" not in text and "throws" not in text
    for text in shown:
        assert any(phase in text for phase in phases), text[:400]
    assert [v.instance for v in rule.groups[0].verdicts] == phases[: len(rule.groups[0].verdicts)]


def test_a_new_course_seed_draws_other_positions_as_hard_as_the_first(monkeypatch) -> None:
    first, other = course_positions(), course_positions(7)
    assert first == POSITIONS and other == course_positions(7) and other != course_positions(8)
    assert len(set(first) & set(other)) < len(first) / 2
    for phase in PHASES:
        in_phase = [len(p.moves) in range(phase[0], phase[1] + 1) for p in first]
        assert sum(in_phase) == sum(len(p.moves) in range(phase[0], phase[1] + 1) for p in other)
    monkeypatch.setenv(COURSE_SEED_VARIABLE, "7")
    assert course_positions() == other  # the kernel's road reads the same setting
    monkeypatch.setenv(COURSE_SEED_VARIABLE, "seven")
    with pytest.raises(ValueError, match="AUTOGRADER_COURSE_SEED is a whole number"):
        course_positions()


def test_a_table_of_last_term_s_answers_earns_only_what_it_looked_up() -> None:
    """Even every answer of the first term's suite (more than any feedback gave) helps in the
    next term's only in the positions both suites share: the table earns nothing it did not
    look up, and the weak agent with it stays below the floor."""
    table = {p.moves: int(p.keeping[0]) for p in POSITIONS}

    def with_table(game, state, seconds):
        return table.get(_moves_of(state)) or first_column(game, state, seconds)

    term = course_positions(7)
    weak = positions_rule(
        play_positions(FunctionPlayer("weak", first_column), positions=term), term
    )
    cheat = positions_rule(
        play_positions(FunctionPlayer("cheat", with_table), positions=term), term
    )
    shared = [p for p in term if p.moves in table]
    first = {p.moves: GAME.actions(ConnectFour.from_moves(p.moves))[0] for p in shared}
    gained = sum(str(first[p.moves]) not in p.keeping for p in shared)
    assert _kept(cheat) == _kept(weak) + gained
    assert cheat.points < POSITIONS_POINTS / 2
    assert positions_rule(play_positions(FunctionPlayer("cheat", with_table))).full  # last term


@pytest.mark.slow
def test_the_reference_keeps_its_share_of_another_term_s_suite() -> None:
    agent = FunctionPlayer("reference", solutions.agent.connect_four_agent)
    term = course_positions(7)
    rule = positions_rule(play_positions(agent, positions=term), term)
    assert rule.full, rule.description


# -- 2 and 3. An allowance that cannot be slept through, and a CPU limit that fits it ----------


BUSY = """
import time

def connect_four_agent(game, state, seconds):
    end = time.process_time() + {share} * seconds
    while time.process_time() < end:
        pass
    return game.actions(state)[len(game.actions(state)) // 2]
"""


def test_an_honest_agent_waiting_for_a_cpu_is_not_charged_for_the_wait(view: Path) -> None:
    """Processes spin on the two cores, three for each: the agent's 0.4 s of CPU take longer
    than its 0.5 s on the wall clock, and the move is still in time, charged about its CPU.
    (The grader's cgroup gives a submission about 60% of its core against any number of
    spinners, on a busy machine too: 0.3 s of CPU once ended within 0.48-0.5 s of the wall
    clock, before the test could show the wait.)"""
    agent = StudentAgent("honest", [(1, BUSY.format(share=0.8))], view, LIMITS)
    assert agent.load_error == ""
    try:
        with spinning(6):
            started = time.monotonic()
            choice = agent.choose(GAME.initial_state(), Allowance(100, seconds=0.5))
            took = time.monotonic() - started
    finally:
        agent.close()
    assert choice.status == "moved", choice.error
    assert choice.seconds < 0.5 and (took > 0.5 or os.cpu_count() > 2), (choice.seconds, took)


def test_past_its_whole_contest_an_agent_is_no_longer_asked(view: Path) -> None:
    agent = StudentAgent("busy", [(1, BUSY.format(share=0.5))], view, LIMITS, total_seconds=0.25)
    try:
        choices = [agent.choose(GAME.initial_state(), Allowance(100, 0.2)) for _ in range(5)]
    finally:
        agent.close()
    assert [choice.status for choice in choices[:2]] == ["moved", "moved"]
    assert choices[-1].status == "forfeited"
    assert choices[-1].error.startswith("not asked: the agent used all of its 0.25 s")


def test_the_contest_s_bound_is_every_move_it_can_be_asked_at_its_allowance() -> None:
    allowance = Allowance(2000, 3.0)
    most = sum((42 - len(opening) + 1) // 2 for level in LEVELS for opening, _ in level.games)
    assert contest_seconds(allowance, LEVELS, 60) == (most + 60) * 3.0
    assert most + 60 >= 540  # referee.py's count of the agent's moves, at most
    fitted = fitting_limits(Limits(cpu_seconds=300), contest_seconds(allowance, LEVELS, 60))
    assert fitted.cpu_seconds >= (most + 60) * 3.0


@pytest.mark.slow
def test_an_agent_using_most_of_its_seconds_every_move_plays_a_whole_contest(
    view: Path,
) -> None:
    """60% of its CPU seconds (0.03 s of 0.05 s) on every move, under a process-wide limit
    (1 s) far below what the contest's 209 moves add up to (some 6 s): the limit is raised to
    fit, and no move crashes or is late. (At 0.1 s a move the test took half a minute to show
    the same; at 90% of 0.05 s, half as much CPU again; at two thirds of 0.03 s, a move was
    late now and then at load 8: the meter charges a move somewhat more than the agent's own
    clock sees.)"""
    from autograder.contest.grade import grade_agent
    from autograder.grading.grade import Settings
    from autograder.grading.load import Loaded, Submission
    from autograder.grading.rules import ASSIGNMENT_RULES

    limits = dataclasses.replace(LIMITS, cpu_seconds=1)
    settings = Settings(limits, view, ASSIGNMENT_RULES["connect_four"], move_seconds=0.05)
    loaded = Loaded(cells=[(1, BUSY.format(share=0.6))], digest="busy")
    record = grade_agent(Submission("busy", ()), loaded, settings)
    in_time = next(rule for rule in record.rules if rule.id == "agent_moves_in_time")
    text = repr(record)
    assert record.status == "graded" and "SIGXCPU" not in text and "crashed" not in text
    assert in_time.full, [v.got for v in in_time.groups[0].verdicts if not v.passed]


# -- 4. An own engine is flagged, and keeps its points ------------------------------------------


ENGINE = """
import time

def _drop(rows, column, mark):
    rows = [list(row) for row in rows]
    for row in reversed(rows):
        if row[column] == ".":
            row[column] = mark
            return ["".join(r) for r in rows]

def _search(rows, depth, end):
    if time.process_time() > end:
        raise TimeoutError
    free = [c for c in range(7) if rows[0][c] == "."]
    if depth == 0 or not free:
        return 0
    return max(-_search(_drop(rows, c, "X"), depth - 1, end) for c in free)

def connect_four_agent(game, state, seconds):
    rows, end, best = game.board(state), time.process_time() + 0.6 * seconds, None
    try:
        for depth in range(1, 9):
            _search(rows, depth, end)
            best = game.actions(state)[depth % len(game.actions(state))]
    except TimeoutError:
        pass
    return best or game.actions(state)[0]
"""

CLOCK = """
import time

def connect_four_agent(game, state, seconds):
    end = time.process_time() + 0.3 * seconds
    while time.process_time() < end:
        pass
    return game.actions(state)[time.perf_counter_ns() // 1000 % len(game.actions(state))]
"""


def test_an_own_engine_is_flagged_and_the_reference_is_not(view: Path) -> None:
    allowance, asked = Allowance(2000, 0.2), POSITIONS[:4]
    used = {}
    for name, source in (("engine", ENGINE), ("reference", make_class.AGENTS["alice_correct"])):
        agent = StudentAgent(name, [(1, source)], view, LIMITS)
        try:
            play_positions(agent, allowance, asked)
            used[name] = integrity.usage(agent.charges, name)
        finally:
            agent.close()
    assert used["engine"].searches_outside and used["engine"].states == 0
    assert not used["reference"].searches_outside and used["reference"].states > 0
    assert integrity.usage_flags(used["engine"])[0].startswith("searches outside the served game")


def test_a_stalled_move_does_not_flag_an_honest_agent_and_an_own_search_is_flagged() -> None:
    honest = [(12, 0.0004)] * 4 + [(12, 0.12)]  # one move lengthened by the machine's stall
    assert integrity.usage(honest).seconds_per_move > integrity.OUTSIDE_FLOOR
    assert not integrity.usage(honest).searches_outside
    engine = [(0, 0.15)] * 3 + [(0, 0.0002)] * 2  # its own search on most moves, two forced
    assert integrity.usage(engine).searches_outside and integrity.usage(engine).outside == 3
    served = [(2000, 0.04)] * 5  # its time is what its states explain
    assert not integrity.usage(served).searches_outside
    flag = integrity.usage_flags(integrity.usage(engine, "engine"))[0]
    assert "3 of its 5 moves" in flag


def test_an_agent_whose_moves_follow_its_clock_is_flagged(view: Path) -> None:
    allowance, asked = Allowance(100, 0.1), POSITIONS[:12]
    agent = StudentAgent("clock", [(1, CLOCK)], view, LIMITS)
    try:
        flags = instructor_flags(agent, allowance, asked, play_positions(agent, allowance, asked))
    finally:
        agent.close()
    assert len(flags) == 2 and "depend on its own clock" in flags[1]


# -- 5. Fair play, measured ---------------------------------------------------------------------


PONDER_AFTER = """
import threading, time

def _think():
    end = time.monotonic() + 5
    while time.monotonic() < end:
        pass

def connect_four_agent(game, state, seconds):
    threading.Thread(target=_think, daemon=True).start()
    time.sleep(0.01)  # the thread is running when the move returns
    return game.actions(state)[0]
"""


def test_cpu_used_after_returning_a_move_is_charged_to_the_next(view: Path) -> None:
    thinker = StudentAgent("thinker", [(1, PONDER_AFTER)], view, LIMITS)
    honest = StudentAgent("honest", [(1, BUSY.format(share=0.1))], view, LIMITS)
    try:
        for agent in (thinker, honest):
            assert agent.choose(GAME.initial_state(), Allowance(100, 1.0)).status == "moved"
    finally:
        thinker.close()
        honest.close()
    assert thinker.debt > 0 and thinker.charges[-1][1] >= thinker.debt
    assert honest.debt < 0.005


def _game(players: tuple[str, str], columns: str, opening: str = "") -> PlayedGame:
    moves = tuple(Move(int(column)) for column in columns)
    state = ConnectFour.from_moves(opening + columns)
    winner = {None: None, "MAX": 0, "MIN": 1}[GAME.winner(state)]
    return PlayedGame(opening, players, moves, winner, "four in a row")


def test_a_thrown_game_is_flagged_with_the_odd_first_move_both_agents_share() -> None:
    """strong, rated far above weak, misses its win in one (column 3) and loses; both agents
    opened a game with column 1 (the signal). A game strong wins honestly is not flagged."""
    thrown = _game(("weak", "strong"), "141576121")
    signal = _game(("strong", "other"), "14253")
    honest = _game(("strong", "weak"), "4141414")
    ratings = {"strong": (35.0, 1.0), "weak": (20.0, 1.0), "other": (25.0, 1.0)}
    found = integrity.thrown_games([honest, thrown, signal], ratings)
    assert [(t.number, t.strong, t.weak, t.signal) for t in found] == [
        (2, "strong", "weak", "column 1")
    ]
    assert "win in one at 3" in found[0].what
    assert integrity.thrown_games([thrown], {"strong": (22.0, 1.0), "weak": (20.0, 1.0)}) == []


# -- 6. The two roads play alike ----------------------------------------------------------------


TABLED = """
import time

TABLE = {"calls": 0}

def connect_four_agent(game, state, seconds):
    TABLE["calls"] += 1
    if TABLE["calls"] == 3:  # overruns once: the sandbox restarts it, the kernel puts TABLE back
        end = time.process_time() + 10 * seconds
        while time.process_time() < end:
            pass
    legal = game.actions(state)
    return legal[TABLE["calls"] % len(legal)]
"""


def test_the_kernel_and_the_sandbox_play_alike_after_an_overrun(view: Path) -> None:
    allowance = Allowance(100, 0.1)
    namespace: dict = {}
    exec(textwrap.dedent(TABLED), namespace)  # noqa: S102 - the notebook's cell, in a kernel
    kernel = contest_checks.KernelAgent("your agent", namespace["connect_four_agent"])
    sandboxed = StudentAgent("your agent", [(1, TABLED)], view, LIMITS)
    try:
        games = [
            play_game(agent, RandomPlayer(3), "44", allowance) for agent in (kernel, sandboxed)
        ]
    finally:
        sandboxed.close()
    notes = [[move.note[:40] for move in game.moves[::2]] for game in games]
    assert [m.column for m in games[0].moves] == [m.column for m in games[1].moves], notes
    assert "used more than 0.1 s" in games[0].moves[4].note  # the third move was stopped
    assert namespace["TABLE"]["calls"] == len(games[0].moves[::2]) - 3  # put back at the stop


def test_strings_hash_alike_on_both_roads() -> None:
    from autograder.sandbox.view import _environment

    assert _environment(Path("/v"), Path("/w"), False, "job")["PYTHONHASHSEED"] == "0"
    config = Path(__file__).resolve().parents[1] / "assignments" / "nbgrader_config.py"
    source = config.read_text(encoding="utf-8")
    assert 'os.environ["PYTHONHASHSEED"] = "0"' in source


def test_the_leaderboard_shows_each_agent_s_usage_and_the_thrown_games(tmp_path: Path) -> None:
    """For the instructor: states and seconds a move, the flags, the thrown game with its
    signal, in leaderboard.html and tournament.json; the replays are private like the rest."""
    import json

    from autograder.contest.tournament import Entrant
    from autograder.contest.tournament_files import write_results

    def timed(game: PlayedGame, seconds: float) -> PlayedGame:
        moves = tuple(dataclasses.replace(m, states=0, seconds=seconds) for m in game.moves)
        return dataclasses.replace(game, moves=moves)

    games = [timed(_game(("strong", "weak"), "4141414"), 0.5)] * 6  # strong rated far above
    games += [timed(_game(("weak", "strong"), "141576121"), 0.5), _game(("strong", "w"), "14253")]
    entrants = [Entrant(name, ("cell",)) for name in ("strong", "weak", "w")]
    write_results(tmp_path, entrants, games, "settings")
    page = (tmp_path / "leaderboard.html").read_text(encoding="utf-8")
    summary = json.loads((tmp_path / "tournament.json").read_text(encoding="utf-8"))
    assert "Games that look thrown" in page and "win in one at 3" in page
    assert "searches outside the served game" in page
    assert summary["usage"]["strong"]["flags"] and summary["thrown"][0]["signal"] == "column 1"
    assert (tmp_path / "games" / "00001.html").stat().st_mode & 0o777 == 0o600


EXTRA_REPLY = """
import json, struct, sys

CALLS = []

def connect_four_agent(game, state, seconds):
    CALLS.append(1)
    if len(CALLS) == 1:  # a forged answer first: the real one then waits in the pipe
        payload = b"j" + json.dumps({"op": "return", "value": 7}).encode()
        os_write = __import__("os").write
        os_write(int(sys.argv[2]), struct.pack(">I", len(payload)) + payload)
        return 4
    return 5
"""


def test_an_extra_reply_is_never_read_as_the_next_move_s_answer(view: Path) -> None:
    agent = StudentAgent("extra", [(1, EXTRA_REPLY)], view, LIMITS)
    try:
        first = agent.choose(GAME.initial_state(), Allowance(100, 1.0))
        second = agent.choose(ConnectFour.from_moves("7"), Allowance(100, 1.0))
    finally:
        agent.close()
    assert first.column == 7  # what it sent first is its answer: its own doing
    assert second.column == 5  # its stale 4 was dropped before the move was asked
