"""What the contest tells the instructor alone, what a jailed load is charged, and the course
seed a Gradescope bundle carries (issue 33's leftovers).

An own engine (it reads `game.board` and searches by itself, served no state) is flagged on
class.html and summary.csv, and on no page the student reads: feedback.html, Gradescope's
visible output, the terminal's lines; the reference agent is not flagged. A loader that sleeps
is stopped at its load seconds like one that computes, jailed as without the jail. An agent
that overruns once and keeps a module-level table earns the same points in nbgrader's kernel
as in the grader's sandbox. A bundle built with a course seed grades with that term's suite.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from busy import ringing_as_armed
from example_class import make_class
from test_contest_integrity import LIMITS

from autograder.cli import main
from autograder.contest import grade as contest_grade
from autograder.contest.levels import LEVELS
from autograder.contest.opponents import Allowance
from autograder.contest.positions import COURSE_SEED_VARIABLE, POSITIONS, course_positions
from autograder.contest.student_agent import StudentAgent
from autograder.grading.grade import Settings, feedback
from autograder.grading.load import Loaded, Submission
from autograder.grading.records import GradeRecord
from autograder.grading.rules import ASSIGNMENT_RULES
from autograder.platforms import gradescope, nbgrader_feedback
from autograder.reports import class_report, files, terminal
from autograder.sandbox import build_import_view, cpu, jail_support


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


SHORT_LEVEL = dataclasses.replace(LEVELS[0], games=LEVELS[0].games[:2])
"""Two games against the random player: enough moves to be flagged, played in seconds."""


STEADY_ENGINE = """
def _drop(rows, column, mark):
    rows = [list(row) for row in rows]
    for row in reversed(rows):
        if row[column] == ".":
            row[column] = mark
            return ["".join(r) for r in rows]

def _count(rows, depth):
    free = [c for c in range(7) if rows[0][c] == "."]
    if depth == 0 or not free:
        return 1
    return 1 + sum(_count(_drop(rows, c, "X"), depth - 1) for c in free)

def connect_four_agent(game, state, seconds):
    rows = game.board(state)
    sizes = {column: _count(_drop(rows, column - 1, "O"), 4) for column in game.actions(state)}
    return max(sizes, key=lambda column: (sizes[column], -abs(column - 4)))
"""
"""An own engine that searches `game.board` to a fixed depth (some 20,000 boards, tens of
milliseconds a move, no state served) and so answers a position alike every time: flagged for
its search alone. (test_contest_integrity's ENGINE deepens until its clock runs out, so on a
busy machine it may also be flagged, rightly, for answering differently.)"""


@pytest.fixture(scope="module")
def graded(view: Path) -> dict[str, GradeRecord]:
    """The engine and the reference graded as `grade --assignment connect_four` grades them,
    on a contest cut down to two games and four positions (the flags need only their moves)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(contest_grade, "course_positions", lambda seed: POSITIONS[:4])
        patch.setattr(contest_grade, "LEVELS", (SHORT_LEVEL,))
        settings = Settings(LIMITS, view, ASSIGNMENT_RULES["connect_four"], move_seconds=0.1)
        agents = {"engine": STEADY_ENGINE, "honest": make_class.AGENTS["alice_correct"]}
        return {
            name: contest_grade.grade_agent(
                Submission(name, ()), Loaded(cells=[(1, source)], digest=name), settings
            )
            for name, source in agents.items()
        }


def test_an_own_engine_is_flagged_for_the_instructor_and_the_reference_is_not(graded) -> None:
    engine, reference = graded["engine"], graded["honest"]
    assert engine.status == reference.status == "graded"
    assert len(engine.flags) == 1 and "searches outside the served game" in engine.flags[0]
    assert "no state served" in engine.flags[0] and "points stand as graded" in engine.flags[0]
    assert reference.flags == ()
    assert not any("flag" in message or "outside" in message for message in engine.messages)


def test_the_class_page_and_summary_show_the_flag_beside_the_student(
    graded, tmp_path: Path
) -> None:
    """Saved and read back as a run rebuilds the class files, the flag is on class.html (a
    section of its own, the student linked) and in summary.csv, for the engine alone."""
    for record in graded.values():
        files.save_student(tmp_path, record, "stamp", feedback(record))
    records = [files.load_saved(tmp_path, name).record for name in sorted(graded)]
    assert records[0].flags == graded["engine"].flags  # through results.json and back
    summary = class_report.write_class_files(tmp_path, records)
    page = (tmp_path / "class.html").read_text(encoding="utf-8")
    flagged = page[page.index("Flagged for the instructor") :]
    flagged = flagged[: flagged.index("</ul>")]
    assert "engine/feedback.html" in flagged and "searches outside the served game" in flagged
    assert "honest" not in flagged
    rows = (tmp_path / "summary.csv").read_text(encoding="utf-8").splitlines()
    assert [row.split(",")[0] for row in rows].count("flagged") == 1
    assert summary.flagged == (("engine", graded["engine"].flags),)


def test_no_page_the_student_reads_mentions_the_flag(graded) -> None:
    """feedback.html, Gradescope's visible tests and output, the grade run's results.json
    output, the terminal's lines of a self-check and nbgrader's feedback after the import say
    nothing of it; Gradescope keeps it in
    a hidden test (the instructor's alone) and not in the record under extra_data."""
    record = graded["engine"]
    page = feedback(record)
    results = gradescope.gradescope_results(record, page, "visible", "html")
    visible = [test for test in results["tests"] if test["visibility"] != "hidden"]
    hidden = [test for test in results["tests"] if test["visibility"] == "hidden"]
    shown = [
        page,
        results["output"],
        json.dumps(visible),
        json.dumps(results["extra_data"]),
        files.results_json(record, "stamp")["output"],
        "\n".join(terminal.lone_lines(record, 0, Path("out"))),
        *(  # the hidden cells' outputs after `nbgrader-import`: nbgrader's feedback
            nbgrader_feedback.cell_output("agent", (rule.id, group.name), record, "", 1)
            for rule in record.rules
            for group in rule.groups
        ),
    ]
    for text in shown:
        assert "outside the served game" not in text and "lagged" not in text, text[:300]
    assert [test["name"] for test in hidden] == ["Flagged for the instructor"]
    assert "searches outside the served game" in hidden[0]["output"]
    plain = gradescope.gradescope_results(graded["honest"], page, "visible", "html")
    assert all(test["visibility"] != "hidden" for test in plain["tests"])


# -- a jailed load is charged its sleep ----------------------------------------------------------

SLEEPY_LOAD = """
import time
time.sleep(4)  # asleep while loading: as much of its load's time as computing

def connect_four_agent(game, state, seconds):
    return game.actions(state)[0]
"""

BUSY_LOAD = SLEEPY_LOAD.replace(
    "time.sleep(4)", "end = time.process_time() + 4\nwhile time.process_time() < end:\n    pass"
)

HONEST_LOAD = SLEEPY_LOAD.replace("time.sleep(4)", "time.sleep(0.05)")


@pytest.mark.parametrize("isolation", ["process", "jail"])
def test_a_loader_that_sleeps_is_stopped_at_its_load_seconds_like_one_that_computes(
    view: Path, isolation: str
) -> None:
    """`--load-seconds` of 0.5 and a wall-clock safety net of 20 s: the sleeper and the busy
    loader are both stopped for their load's time; an honest loader that sleeps a little
    loads."""
    if isolation == "jail" and not jail_support()[0]:
        pytest.skip(f"the jail cannot be used here: {jail_support()[1]}")
    limits = dataclasses.replace(LIMITS, load_cpu_seconds=0.5, isolation=isolation)
    errors = {}
    for name, source in (("sleepy", SLEEPY_LOAD), ("busy", BUSY_LOAD), ("honest", HONEST_LOAD)):
        agent = StudentAgent(name, [(1, source)], view, limits)
        try:
            errors[name] = agent.load_error
        finally:
            agent.close()
    assert errors["honest"] == ""
    for name in ("sleepy", "busy"):
        assert "used more than 0.5 s of CPU time while loading" in errors[name], errors


# -- nbgrader's kernel and the sandbox, after an overrun -----------------------------------------

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
    for column in legal:  # a win in one, if there is one
        if game.is_terminal(game.result(state, column)):
            return column
    central = sorted(legal, key=lambda column: abs(column - 4))
    return central[TABLE["calls"] % min(2, len(central))]  # the table decides the rest
"""


def test_an_agent_that_overruns_once_with_a_table_earns_alike_in_the_kernel_and_the_sandbox(
    view: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two games against the random player at 0.1 s a move: the hidden cells' grading
    (`contest_checks.grade_contest_rule`, run in the kernel) and the grader's give each rule
    the same points, and both stopped the same moves. Without the kernel's restore, its table
    would go on counting and it would overrun once only."""
    import textwrap

    from autograder.platforms import contest_checks

    allowance = dict(states=200, seconds=0.1)
    monkeypatch.setattr(contest_checks, "LEVELS", (SHORT_LEVEL,))
    monkeypatch.setattr(contest_checks, "PLAYED", {})
    monkeypatch.setattr(contest_checks, "KERNEL_AGENTS", {})
    namespace: dict = {}
    exec(textwrap.dedent(TABLED), namespace)  # noqa: S102 - the notebook's cell, in a kernel
    kernel, said = {}, {}
    for rule_id, points in (("agent_beats_random", 10.0), ("agent_moves_in_time", 20.0)):
        try:
            kernel[rule_id] = contest_checks.grade_contest_rule(
                rule_id, points, namespace, allowance["states"], allowance["seconds"]
            )
        except AssertionError as failed:  # the cell fails: nbgrader gives it no point
            kernel[rule_id], said[rule_id] = 0.0, str(failed)
    monkeypatch.setattr(contest_grade, "course_positions", lambda seed: POSITIONS[:2])
    monkeypatch.setattr(contest_grade, "LEVELS", (SHORT_LEVEL,))
    settings = Settings(
        LIMITS,
        view,
        ASSIGNMENT_RULES["connect_four"],
        move_seconds=allowance["seconds"],
        move_states=allowance["states"],
    )
    record = contest_grade.grade_agent(
        Submission("tabled", ()), Loaded(cells=[(1, TABLED)], digest="tabled"), settings
    )
    sandbox = {rule.id: rule.points for rule in record.rules if rule.id in kernel}
    assert sandbox == kernel and kernel["agent_beats_random"] > 0
    in_time = next(rule for rule in record.rules if rule.id == "agent_moves_in_time")
    # The table starts again with the process (the kernel puts it back): every third move of
    # a life overruns, in each game, on both roads, and the same moves are forfeited.
    got = [f"got {verdict.got}." for verdict in in_time.groups[0].verdicts]
    assert got == ["got 1 moves forfeited.", "got 3 moves forfeited."]
    assert all(text in said["agent_moves_in_time"] for text in got)
    assert "2 of 2 fall short" in said["agent_moves_in_time"]


# -- a wait for a CPU the kernel has not counted yet -------------------------------------------


class Scripted:
    """The clocks a `PresenceMeter` reads, set by the test: the agent's CPU time, the wall
    clock, the agent thread's counted run-queue delay and whether it is runnable (state R)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.cpu, self.wall, self.delay, self.runnable = 0.0, 0.0, 0.0, True
        monkeypatch.setattr(cpu, "schedstat", self.schedstat)
        monkeypatch.setattr(cpu, "_runnable", lambda path: self.runnable)
        monkeypatch.setattr(cpu, "time", SimpleNamespace(monotonic=lambda: self.wall))

    def schedstat(self, path: str) -> tuple[float, float]:
        return (self.cpu, self.delay) if path == "agent" else (0.0, 0.0)

    def meter(self) -> cpu.PresenceMeter:
        return cpu.PresenceMeter(lambda: self.cpu, "agent", "grader")


def test_an_honest_agent_queued_at_a_reading_is_not_charged_its_uncounted_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Computing, then queued behind other work for 120 ms: the kernel counts the wait only
    when the agent runs again, and the meter never charged it meanwhile."""
    clocks = Scripted(monkeypatch)
    meter = clocks.meter()
    clocks.cpu = clocks.wall = 0.05  # computing
    assert meter() == pytest.approx(0.05)
    for _ in range(3):  # queued: no CPU, no counted delay yet, the wall clock goes on
        clocks.wall += 0.04
        assert meter() == pytest.approx(0.05)
    clocks.wall, clocks.cpu, clocks.delay = 0.2, 0.08, 0.12  # it ran: the wait is counted
    assert meter() == pytest.approx(0.08)


def test_a_sleeper_is_charged_its_sleep_at_the_latest_one_reading_late(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Asleep at a reading: charged at once. Asleep between readings and runnable at them (it
    woke just before): charged as soon as it has run, however it times its naps."""
    clocks = Scripted(monkeypatch)
    meter = clocks.meter()
    clocks.runnable, clocks.wall = False, 0.1  # asleep
    assert meter() == pytest.approx(0.1)
    clocks = Scripted(monkeypatch)
    meter = clocks.meter()
    charged = []
    for _ in range(4):  # naps 45 ms, runs 5 ms, and is runnable whenever it is read
        clocks.wall += 0.05
        clocks.cpu += 0.005
        charged.append(meter())
    assert charged[0] == pytest.approx(0.005)  # held back: it may have been a wait
    assert charged[-1] == pytest.approx(0.155)  # all but the last interval's nap


# -- the kernel's two timers ---------------------------------------------------------------------


def test_the_kernel_s_second_timer_never_escapes_a_stopped_move() -> None:
    """A move past its CPU time rings the CPU timer, and the sleep check's timer can ring
    before both are cleared: the call ends as stopped, never with the exception escaping into
    the hidden cell (it did, about once in a hundred calls, under load)."""
    from autograder.platforms import contest_checks
    from games import BudgetedGame, ConnectFour

    def spin(game, state, seconds):
        end = time.process_time() + 1
        while time.process_time() < end:
            pass

    start = ConnectFour().initial_state()
    for _ in range(300):
        game = BudgetedGame(ConnectFour(), 100)
        outcome = contest_checks.call_within(spin, game, start, Allowance(100, 0.002))
        assert outcome.status == "timeout"


def test_a_timer_that_rings_as_it_is_armed_stops_the_move_without_escaping(monkeypatch) -> None:
    """On a busy machine the CPU timer of a move with little time can ring before the move is
    called, while the other timer is being armed: the move is stopped all the same."""
    from autograder.platforms import contest_checks
    from games import BudgetedGame, ConnectFour

    ringing_as_armed(monkeypatch, signal.ITIMER_PROF, signal.SIGPROF)
    game = BudgetedGame(ConnectFour(), 100)
    outcome = contest_checks.call_within(
        lambda game, state, seconds: 4, game, game.initial_state(), Allowance(100, 5.0)
    )
    monkeypatch.undo()
    assert (outcome.status, outcome.error) == ("timeout", "it used more than 5 s of CPU time")
    assert signal.getitimer(signal.ITIMER_PROF) == signal.getitimer(signal.ITIMER_REAL) == (0, 0)


# -- the course seed in the Gradescope bundle ----------------------------------------------------


def _options(bundle: Path) -> list[str]:
    """The options run_autograder gives gradescope-run."""
    script = zipfile.ZipFile(bundle).read("run_autograder").decode()
    line = next(line for line in script.splitlines() if "gradescope-run" in line)
    return line.split('--root "$ROOT"', 1)[1].split()


def test_a_bundle_built_with_a_course_seed_grades_that_term_s_positions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built with --course-seed 7 (or with AUTOGRADER_COURSE_SEED=9 where it is built), the
    bundle's run_autograder grades with that seed, whatever Gradescope's environment says;
    built with neither, it grades the default suite."""
    monkeypatch.delenv(COURSE_SEED_VARIABLE, raising=False)
    bundle = tmp_path / "seeded.zip"
    command = ["gradescope", "--assignment", "connect_four", "--out", str(bundle)]
    assert main([*command, "--course-seed", "7"]) == 0
    seeded = _options(bundle)
    monkeypatch.setenv(COURSE_SEED_VARIABLE, "9")
    assert main(command) == 0
    from_variable = _options(bundle)
    monkeypatch.setenv(COURSE_SEED_VARIABLE, "nine")
    assert main(command) == 2  # refused, with why, rather than a bundle of the default suite
    monkeypatch.delenv(COURSE_SEED_VARIABLE)
    assert main(command) == 0
    unseeded = _options(bundle)
    assert "--course-seed" not in unseeded

    drawn = []

    def grade(submission, loaded, settings):  # what the contest would draw its suite from
        drawn.append(course_positions(settings.course_seed))
        return GradeRecord(submission.student, "graded", 0, 100)

    monkeypatch.setattr(gradescope, "grade", grade)
    for number, options in enumerate((seeded, from_variable, unseeded)):
        root = tmp_path / f"root-{number}"
        (root / "submission").mkdir(parents=True)
        (root / "results").mkdir()
        (root / "submission" / "agent.py").write_text("def connect_four_agent(g, s, t):\n  0\n")
        assert main(["gradescope-run", "--root", str(root), *options]) == 0
    assert drawn == [course_positions(7), course_positions(9), POSITIONS]
    assert course_positions(7) != POSITIONS
