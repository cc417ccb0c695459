"""Assignment 5's contest: seconds per agent graded, at the grading's allowance, for the examples.

First grades the reference agent (alice) alone, alternately on two CPUs (the contest's two copies
of the agent at once, `autograder/contest/copies.py`) and on one (`taskset`: one copy after the
other), twice each; the goal is at most 5 s on 2 cores. Then grades the example class's agents
(`examples/make_class.py`'s `AGENTS`) with `python -m autograder grade --assignment connect_four`
and prints, for each, its grade, the moves it played (in games and in the suite's positions) and
the seconds its grading took (the record's wall time), then the whole run's wall time and CPU
time (the grader and every agent process it waited for; a jailed agent's processes are not among
them); on a shared machine the wall time grows with the load, the CPU time hardly, and the
grades not at all. Then where a served state's time goes: the reference's moves in 40 mid-game
positions through the sandbox, against the same search with the grader's serving done in this
process (no pipe), and the cost of a child's frame. Prints measurements only: it asserts nothing
about time.

    python benchmarks/bench_contest.py [--workers N] [--move-states N] [--agents a,b]
        [--isolation process]
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import marshal
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, best_of, console, machine, ratio, table

from autograder.contest.opponents import GAME, Allowance
from autograder.contest.student_agent import StudentAgent
from autograder.sandbox import Limits, build_import_view, connect_four_children, start_run
from autograder.sandbox.runner import ProxyGame
from autograder.sandbox.tokens import Tokens
from autograder.sandbox.wire import _CHILDREN, _info
from solutions import agent as reference

CLASS = REPO / "examples" / "class"


def example_agents() -> list[str]:
    """The example students who wrote a `connect_four_agent`."""
    path = REPO / "examples" / "make_class.py"
    spec = importlib.util.spec_from_file_location("make_class", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return sorted(module.AGENTS)


def moves_played(record: dict) -> tuple[int, int]:
    """(moves in games, moves in positions) of the agent, from its saved record."""
    games = positions = 0
    for rule in record["rules"]:
        for verdict in rule["groups"][0]["verdicts"] if rule["groups"] else ():
            if rule["id"] == "agent_moves_in_time":
                found = re.search(r"all (\d+) moves", verdict["got"])
                games += int(found.group(1)) if found else 0
            elif rule["id"] == "agent_keeps_the_value":  # a verdict per phase: "... of N"
                found = re.search(r"kept the value of \d+ of (\d+)", verdict["got"])
                positions += int(found.group(1)) if found else 0
    return games, positions


def frame_cost(games: int = 100) -> tuple[float, float]:
    """Microseconds to compute a served Connect Four child's frame, from scratch (`wire._info`)
    and from its parent's stone (`connect_four_children`, what the grader serves), best of 3
    over every move of `games` random games: a ratio that the load hardly moves."""
    from autograder.sandbox import connect_four_children
    from autograder.sandbox.wire import _info
    from games.connect_four import ConnectFour

    game, rng, moves = ConnectFour(), random.Random(1), []
    for _ in range(games):
        state = game.initial_state()
        while not game.is_terminal(state):
            legal = game.actions(state)
            moves += [(state, legal, index) for index in range(len(legal))]
            state = game.result(state, rng.choice(legal))

    def whole() -> None:
        for state, legal, index in moves:
            _info(game, game.result(state, legal[index]), game.evaluate)

    def from_parent() -> None:
        connect_four_children._RAW.clear()
        for state, legal, index in moves:
            connect_four_children.child_info(state, legal, index, True)

    return tuple(1e6 * best_of(3, run)[0] / len(moves) for run in (whole, from_parent))


def mid_game_positions(count: int = 40) -> list:
    """`count` positions 2 to 13 random moves into a game, none over: where the reference's
    search deepens as it does in the contest."""
    from games.connect_four import ConnectFour

    game, rng, positions = ConnectFour(), random.Random(5), []
    while len(positions) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(2, 14)):
            if game.is_terminal(state):
                break
            state = game.result(state, rng.choice(game.actions(state)))
        if not game.is_terminal(state):
            positions.append(state)
    return positions


class _ServedInProcess:
    """The grader's work for a served state (`StudentProcess._serve`: the child's entry in the
    run's table, computed the first time it is asked for) and the runner's (unmarshalling a
    child the call does not hold yet), in one process: no pipe. A request the call made already
    is answered by the runner and taken by the grader from the report (`answered_again`)."""

    def __init__(self, tokens: Tokens, budget: int) -> None:
        self.tokens, self.budget, self.count, self.served = tokens, budget, 0, {}
        self.table = tokens.served_table(GAME, GAME.evaluate)
        self.again = 0  # the requests answered again

    def answered_again(self, game, token: int, index: int) -> bool:
        if self.count >= self.budget:
            return False
        found = self.served[token]
        if index >= len(found[1]):
            raise RuntimeError("a repeat the grader cannot check")
        self.count += 1
        self.again += 1
        child = found[2][index]
        self.served[child[4]] = child
        return True

    def request_child(self, token: int, index: int, known: dict | None = None):
        found = self.served[token]
        if self.count >= self.budget:
            return {"out_of_states": self.budget}
        child = found[2][index]
        if child is None:
            child = self.tokens.child(self.table, found, index)
        self.count += 1
        self.served[child[4]] = child
        info = None if known is None else known.get(child[4])
        return child[4], marshal.loads(child[3][13:]) if info is None else info


def round_trip_split(positions: list, states: int = 2000) -> tuple[float, float, int, int]:
    """Microseconds per served state of the reference agent's moves in `positions` at `states`
    a move: (through the sandbox, as graded; with both sides' Python in this process, no pipe),
    the states served, and how many of them were asked again within their move (the runner
    answers those without a round trip). What the second leaves of the first is mostly the
    round trips."""
    again = [0]

    def in_process() -> int:
        _CHILDREN.clear()  # both start with no child computed
        connect_four_children._RAW.clear()
        tokens, served = Tokens(), 0
        again[0] = 0
        for state in positions:
            info = _info(GAME, state, GAME.evaluate)
            channel = _ServedInProcess(tokens, states)
            root, channel.served = tokens.start_call(state, info[1], channel.table)
            reference.connect_four_agent(ProxyGame(channel, root, info), root, 3.0)
            served += channel.count
            again[0] += channel.again
        return served

    def sandboxed(view: Path) -> int:
        _CHILDREN.clear()
        connect_four_children._RAW.clear()
        cells = [[1, inspect.getsource(reference)]]
        agent = StudentAgent("reference", cells, view, Limits(timeout=60, load_timeout=60))
        try:
            if agent.load_error:
                raise RuntimeError(agent.load_error)
            return sum(agent.play(state, Allowance(states, 3.0)).states for state in positions)
        finally:
            agent.close()

    start_run()
    with tempfile.TemporaryDirectory() as scratch:
        view = build_import_view(Path(scratch))
        piped, served = best_of(2, lambda: sandboxed(view))
    alone, served_here = best_of(2, in_process)
    if served_here != served:  # the same search on the same positions: never
        raise RuntimeError(f"the reference served {served:,} states, and {served_here:,} here")
    return 1e6 * piped / served, 1e6 * alone / served, served, again[0]


def claimed_cpus() -> list[str]:
    """The CPU claims other gradings on this machine hold (`sandbox/pinning.py`): a run that
    finds every CPU claimed shares one, and its round trips wait for the other grading's."""
    try:
        lines = Path("/proc/net/unix").read_text().splitlines()
    except OSError:
        return []
    return sorted({line.split()[-1].lstrip("@") for line in lines if "@autograder-cpu-" in line})


def grade_alone(agent: str, cpus: str = "") -> dict:
    """`agent` graded alone by the grade command (one worker), on the CPUs `cpus` (taskset's
    list; every CPU if empty): its record."""
    with tempfile.TemporaryDirectory() as folder:
        submissions, out = Path(folder) / "agents", Path(folder) / "out"
        submissions.mkdir()
        shutil.copy(CLASS / f"{agent}.ipynb", submissions)
        command = ["taskset", "-c", cpus] if cpus else []
        command += [sys.executable, "-m", "autograder", "grade", str(submissions), "--out"]
        command += [str(out), "--assignment", "connect_four", "--quiet", "--workers", "1"]
        subprocess.run(command, cwd=REPO, check=True)
        return json.loads((out / agent / "results.json").read_text())["extra_data"]["record"]


def reference_alone() -> None:
    """The reference graded alone, alternately on two CPUs (its two copies at once) and on one
    (one copy after the other), twice each: the issue's goal is at most 5 s on 2 cores."""
    if shutil.which("taskset") is None or len(os.sched_getaffinity(0)) < 2:
        console.print("The reference alone: needs two CPUs and taskset, not measured")
        return
    seconds: dict[str, list[float]] = {"two": [], "one": []}
    grades = set()
    for _ in range(2):
        for cpus, key in (("", "two"), ("0", "one")):
            record = grade_alone(REFERENCE, cpus)
            seconds[key].append(record["seconds"])
            grades.add(record["score"])
    two, one = min(seconds["two"]), min(seconds["one"])
    console.print(
        f"The reference ({REFERENCE}) graded alone, its two copies at once on 2 CPUs: "
        + ", ".join(f"{value:.1f}" for value in seconds["two"])
        + " s; on one CPU, one copy after the other: "
        + ", ".join(f"{value:.1f}" for value in seconds["one"])
        + f" s ({ratio(one, two)} faster at once, best of each); the goal is at most 5 s; "
        + f"its grade {'the same in every run: ' if len(grades) == 1 else 'DIFFERS: '}"
        + ", ".join(f"{grade:g}" for grade in sorted(grades))
    )


REFERENCE = "alice_correct"
"""The example student whose agent is the reference solution's."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--move-states", type=int, default=None, help="default: the grading's")
    parser.add_argument("--agents", default="", help="comma-separated; default: every example")
    parser.add_argument(
        "--isolation",
        choices=("auto", "jail", "process"),
        default="auto",
        help="the grade command's; with process, the agents' CPU time is in the run's CPU time",
    )
    args = parser.parse_args(argv)
    agents = args.agents.split(",") if args.agents else example_agents()
    others = claimed_cpus()
    reference_alone()
    with tempfile.TemporaryDirectory() as folder:
        submissions, out = Path(folder) / "agents", Path(folder) / "out"
        submissions.mkdir()
        for agent in agents:
            shutil.copy(CLASS / f"{agent}.ipynb", submissions)
        command = [sys.executable, "-m", "autograder", "grade", str(submissions), "--out"]
        command += [str(out), "--assignment", "connect_four", "--quiet"]
        command += ["--workers", str(args.workers), "--isolation", args.isolation]
        if args.move_states:
            command += ["--move-states", str(args.move_states)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, cwd=REPO, check=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        records = {
            agent: json.loads((out / agent / "results.json").read_text())["extra_data"]["record"]
            for agent in agents
        }
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    grid = table(
        "Assignment 5 graded at the grading's allowance, one agent at a time per worker",
        "agent",
        "grade",
        "moves in games",
        "positions",
        "seconds",
    )
    for agent, record in records.items():
        games, positions = moves_played(record)
        grid.add_row(
            agent, f"{record['score']:g}", str(games), str(positions), f"{record['seconds']:.1f}"
        )
    console.print(grid)
    console.print(
        f"{len(agents)} agents, {args.workers} workers: {wall:.1f} s wall, {cpu:.1f} s CPU "
        f"(grader and agents), {wall * args.workers / len(agents):.1f} s of a worker per agent"
    )
    scratch, incremental = frame_cost()
    console.print(
        f"A served Connect Four child's frame: {scratch:.1f} us computed from scratch, "
        f"{incremental:.1f} us from its parent's stone, as served ({ratio(scratch, incremental)})"
    )
    piped, alone, served, again = round_trip_split(mid_game_positions())
    trips = served - again
    console.print(
        f"A served state, the reference's moves in 40 positions ({served:,} states, best of 2): "
        f"{piped:.1f} us through the sandbox, {alone:.1f} us with the agent's search and the "
        f"grader's serving in one process ({100 * alone / piped:.0f}%). {again:,} of the states "
        f"({100 * again / served:.1f}%) were asked again within their move and answered by the "
        f"runner; the other {trips:,} were round trips, about "
        f"{(piped - alone) * served / trips:.1f} us each (a write and a read on each side and "
        "two context switches on the shared CPU)"
    )
    console.print(
        "CPUs claimed by other gradings on this machine at the start: "
        + (", ".join(others) if others else "none")
    )
    console.print(f"Machine: {machine()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
