"""The tournament is fair and bounded: hostile agents cost their own games only, and a big
class plays Swiss-system rounds.

Each agent's budget is its own (states, CPU seconds, its own load), every reply of its process
is checked and a malformed one is its crash on its own move, it cannot read back what it
printed, and both agents of a match share the worker's CPU and are held off their turn. No
outcome here depends on the wall clock: the hostile agents loop or sleep forever, and the
limits that stop them are far from any honest agent's use.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.contest import swiss, tournament
from autograder.contest.referee import (
    GAME,
    OPENINGS,
    Allowance,
    Choice,
    PlayedGame,
    Player,
    play_game,
)
from autograder.contest.standings import standings
from autograder.contest.student_agent import StudentAgent
from autograder.sandbox import Limits, SandboxError, build_import_view
from autograder.sandbox.wire import loaded_report
from games.connect_four import ConnectFour

ROOT = Path(__file__).resolve().parents[1]
ALLOWANCE = Allowance(states=200, seconds=0.5)
LIMITS = Limits(load_timeout=20, load_cpu_seconds=5.0, isolation="process")

FIRST_COLUMN = """
def connect_four_agent(game, state, seconds):
    return game.actions(state)[0]
"""

FRAME = """
import json, os, struct, sys

def send_to_the_grader(payload: bytes) -> None:
    '''Write a frame straight into the pipe to the grader, as if the runner had sent it.'''
    os.write(int(sys.argv[2]), struct.pack(">I", len(payload)) + payload)
"""

FORGER = (
    FRAME
    + """
moves = 0
if os.path.exists("restarted"):  # a second life: forge the runner's reply to "load"
    send_to_the_grader(b"j" + json.dumps({"op": "loaded", "cells": 5, "functions": 7}).encode())
open("restarted", "w").close()

def connect_four_agent(game, state, seconds):
    global moves
    moves += 1
    if moves == 2:  # about to lose: overrun, to be started again
        while True:
            pass
    return game.actions(state)[-1]
"""
)

GARBLER = (
    FRAME
    + """
lives = len(os.listdir("lives")) if os.path.isdir("lives") else 0  # earlier starts
os.makedirs("lives", exist_ok=True)
open(f"lives/{lives}", "w").close()
moves = 0
FORGED = [
    b"j{not json",
    b"j" + json.dumps({"op": "loaded", "cells": [], "functions": []}).encode(),
    b"j" + json.dumps([1, 2, 3]).encode(),
    b"x" + bytes(range(256)),
]

def connect_four_agent(game, state, seconds):
    global moves
    moves += 1
    if moves == 2 and lives < len(FORGED):  # each life sends one kind of garbage
        send_to_the_grader(FORGED[lives])
    return game.actions(state)[-1]
"""
)

READER = """
import os
print("PRINTED-AT-LOAD")

def read_back() -> bytes:
    '''All it can get of what it printed: through fd 1, and by opening /proc/self/fd/1.'''
    found = b""
    try:
        os.lseek(1, 0, 0)
        found += os.read(1, 1 << 16)
    except OSError:
        pass
    try:
        fd = os.open("/proc/self/fd/1", os.O_RDONLY | os.O_NONBLOCK)
        try:
            found += os.read(fd, 1 << 16)
        finally:
            os.close(fd)
    except OSError:
        pass
    return found

def connect_four_agent(game, state, seconds):
    found = read_back()  # what it printed at load and in its earlier moves
    print("PRINTED-IN-A-MOVE")
    return 1 if b"PRINTED" in found else game.actions(state)[-1]
"""

SLOW_RESTART = """
import os
if os.path.exists("restarted"):  # every later start computes forever while loading
    while True:
        pass
open("restarted", "w").close()
moves = 0

def connect_four_agent(game, state, seconds):
    global moves
    moves += 1
    if moves == 2:
        while True:
            pass
    return game.actions(state)[-1]
"""

PONDERER = """
import threading

def ponder():
    while True:  # thinks all the time, on its opponent's time if it can
        sum(range(10_000))

threading.Thread(target=ponder, daemon=True).start()

def connect_four_agent(game, state, seconds):
    return game.actions(state)[0]
"""


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def _match(view: Path, hostile: str, limits: Limits = LIMITS, openings: int = 2):
    """Play the hostile agent's match against the first-column agent in this process."""
    match = tournament.Match(
        tournament.Entrant("hostile", ((1, hostile),)),
        tournament.Entrant("honest", ((1, FIRST_COLUMN),)),
        OPENINGS[:openings],
    )
    setup = tournament.Setup(ALLOWANCE, limits, view)
    return tournament.play_match(match, setup)


def _lost_by_crash(game: PlayedGame, name: str) -> bool:
    side = game.players.index(name)
    return game.winner == 1 - side and "crashed" in game.ended


def _faults(games: list[PlayedGame], name: str) -> list[str]:
    return [game.ended for game in games if _lost_by_crash(game, name)]


def test_a_forged_load_reply_is_the_senders_crash_and_the_match_goes_on(view: Path) -> None:
    """The issue's attack: about to lose, the agent overruns and, started again, forges the
    runner's `loaded` reply. The forgery is its own crash on its own move; every game of the
    match is still played, and its opponent is never charged."""
    games = _match(view, FORGER)
    assert len(games) == 4
    faults = _faults(games, "hostile")
    assert faults and all("reply that is not the load's" in fault for fault in faults)
    assert not _faults(games, "honest")


@pytest.mark.parametrize(
    "reply",
    [
        {"op": "return", "value": 4},
        {"op": "loaded", "cells": 5, "functions": ["connect_four_agent"]},
        {"op": "loaded", "cells": [], "functions": "connect_four_agent"},
        {"op": "loaded", "cells": [], "functions": [["connect_four_agent"]]},
        {"op": "loaded", "cells": [{"cell": 1}], "functions": []},
        {
            "op": "loaded",
            "cells": [{"cell": "1", "kind": "syntax", "line": 1, "error": ""}],
            "functions": [],
        },  # fmt: skip
        {"op": "loaded", "functions": []},
    ],
)
def test_a_load_reply_of_another_kind_or_shape_is_refused(reply: dict) -> None:
    with pytest.raises(SandboxError, match="not the load's"):
        loaded_report(reply, ["connect_four_agent"])


def test_the_runners_load_reply_is_read() -> None:
    error = {"cell": 2, "kind": "exception", "line": None, "error": "ValueError: x"}
    reply = {"op": "loaded", "cells": [error], "functions": ["connect_four_agent", "helper"]}
    report = loaded_report(reply, ["connect_four_agent"])
    assert (report.status, report.cell_errors, report.functions) == (
        "loaded",
        [error],
        ["connect_four_agent"],
    )


def test_garbage_and_replies_of_another_request_lose_the_senders_game_only(view: Path) -> None:
    """Garbage JSON, a reply to another request (`loaded`, in a move), JSON that is not an
    object, bytes of no kind: each loses the sender's game, and the next game is played."""
    games = _match(view, GARBLER, openings=3)
    assert len(games) == 6
    faults = _faults(games, "hostile")
    assert len(faults) == 4
    assert sum("malformed message" in fault for fault in faults) == 3
    assert sum("out of protocol" in fault for fault in faults) == 1
    assert not _faults(games, "honest")
    assert not _lost_by_crash(games[-1], "hostile")  # its fifth life plays honestly


@pytest.mark.parametrize("isolation", ["process", "auto"])
def test_an_agent_cannot_read_back_what_it_printed(view: Path, isolation: str) -> None:
    """Its stdout is a write-only pipe the grader drains (a new one at every start): neither
    fd 1 nor /proc/self/fd/1 gives back what it printed before, which the grader keeps."""
    limits = dataclasses.replace(LIMITS, isolation=isolation)
    agent = StudentAgent("reader", [(1, READER)], view, limits)
    try:
        assert agent.load_error == ""
        for moves in ("", "4", "44"):
            assert "PRINTED-AT-LOAD" in agent.process.output()  # drained: the grader has it
            agent.new_game(moves, len(moves) % 2)
            choice = agent.choose(ConnectFour.from_moves(moves), ALLOWANCE)
            assert (choice.status, choice.column) == ("moved", 7)
        assert agent.process.output().count("PRINTED-IN-A-MOVE") == 3
    finally:
        agent.close()


def test_a_slow_loader_costs_its_own_games_only(view: Path) -> None:
    """Started again, it computes forever while loading: stopped at its own load allowance of
    CPU time, it loses that game; its opponent loses nothing. (Half a second of CPU: each of the
    two restarts spends it all; the first-column agent loads in a few hundredths.)"""
    limits = dataclasses.replace(LIMITS, load_cpu_seconds=0.5)
    games = _match(view, SLOW_RESTART, limits, openings=1)
    assert len(games) == 2
    faults = _faults(games, "hostile")
    assert faults and all("CPU time while loading" in fault for fault in faults)
    assert not _faults(games, "honest")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
@pytest.mark.parametrize("isolation", ["process", "auto"])
def test_both_agents_share_the_cpu_and_are_held_before_the_other_moves(
    view: Path, isolation: str
) -> None:
    """Two agents that think on a thread of their own: when either is asked to move, the other
    is already held (not a moment later), and both run on the CPU of the worker's thread."""
    limits = dataclasses.replace(LIMITS, isolation=isolation)
    agents = [StudentAgent(name, [(1, PONDERER)], view, limits) for name in ("a", "b")]
    checked = []

    class Watched(Player):
        def __init__(self, agent: StudentAgent, other: StudentAgent) -> None:
            self.agent, self.other, self.name = agent, other, agent.name

        def new_game(self, opening: str, side: int) -> None:
            self.agent.new_game(opening, side)

        def choose(self, state, allowance):
            if self.other.load_report is not None:
                started = self.agent.load_report is not None
                cpus = (_cpus(self.agent) if started else None, _cpus(self.other))
                checked.append((_held(self.other), *cpus))
            return self.agent.choose(state, allowance)

    try:
        play_game(Watched(agents[0], agents[1]), Watched(agents[1], agents[0]), OPENINGS[0])
    finally:
        for agent in reversed(agents):
            agent.close()
    assert len(checked) > 10
    assert all(held for held, _, _ in checked)
    if agents[0].process._pinned is not None:  # unless other runs on this machine held every CPU
        assert all(mine == theirs and len(mine) == 1 for _, mine, theirs in checked[1:])


class _FirstColumn(Player):
    name = "first column"

    def choose(self, state, allowance):
        return Choice(GAME.actions(state)[0])


def _held(agent: StudentAgent) -> bool:
    """Whether the agent is held right now: its freezer reads FROZEN, or every thread of its
    first process is stopped."""
    freezer = next((Path(c) for c in agent.process.cgroups if "/freezer/" in c), None)
    if freezer is not None:
        return (freezer / "freezer.state").read_text().strip() == "FROZEN"
    tasks = Path(f"/proc/{agent.process.process.pid}/task")
    states = [(task / "stat").read_text().rsplit(")", 1)[1].split()[0] for task in tasks.iterdir()]
    return bool(states) and all(state in "tT" for state in states)


def _cpus(agent: StudentAgent) -> set[int]:
    return os.sched_getaffinity(agent.process.process.pid)


# -- Swiss-system pairing ----------------------------------------------------------------


def _simulate(names: list[str], rounds: int, seed: int):
    """Pair `rounds` rounds with random results; the rounds' (pairs, bye)."""
    scores: dict[str, float] = {}
    met: list[frozenset[str]] = []
    byes: list[str] = []
    chance = random.Random(seed)
    played = []
    for _ in range(rounds):
        pairs, bye = swiss.pair_round(names, scores, met, byes)
        played.append((pairs, bye))
        for a, b in pairs:
            result = chance.choice((0.0, 1.0, 2.0))
            scores[a] = scores.get(a, 0.0) + result
            scores[b] = scores.get(b, 0.0) + 2.0 - result
            met.append(frozenset((a, b)))
        if bye:
            byes.append(bye)
            scores[bye] = scores.get(bye, 0.0) + 2.0
    return played


@pytest.mark.parametrize("count", [2, 3, 4, 5, 8, 9, 16, 17, 40, 301, 2001])
def test_every_agent_plays_each_round_once_or_has_the_bye(count: int) -> None:
    names = [f"agent-{index:04d}" for index in range(count)]
    rounds = min(swiss.rounds_for(count), count - 1)
    byes = []
    for pairs, bye in _simulate(names, rounds, seed=count):
        seated = [name for pair in pairs for name in pair] + ([bye] if bye else [])
        assert sorted(seated) == names
        assert (bye is not None) == (count % 2 == 1)
        byes += [bye] if bye else []
    assert len(byes) == len(set(byes))  # no agent sits out twice while others have not


@pytest.mark.parametrize("count", [4, 6, 7, 10, 13, 64, 300])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_pair_meets_twice_in_fewer_rounds_than_half_the_class(count: int, seed: int) -> None:
    names = [f"agent-{index:04d}" for index in range(count)]
    rounds = max(1, min(count // 2, swiss.rounds_for(count)))
    pairs = [frozenset(p) for round_pairs, _ in _simulate(names, rounds, seed) for p in round_pairs]
    assert len(pairs) == len(set(pairs))


def test_a_rematch_only_when_none_can_be_avoided() -> None:
    """Against brute force on small classes: a pairing without rematches is found whenever
    one exists."""
    chance = random.Random(5)
    for _ in range(300):
        names = [f"n{index}" for index in range(chance.choice((4, 6, 8)))]
        every = [frozenset(pair) for pair in itertools.combinations(names, 2)]
        met = set(chance.sample(every, chance.randrange(len(every))))
        scores = {name: float(chance.randrange(5)) for name in names}
        pairs, bye = swiss.pair_round(names, scores, met)
        assert bye is None
        rematches = sum(frozenset(pair) in met for pair in pairs)
        assert rematches == 0 or not _rematch_free_exists(names, met)


def _rematch_free_exists(names: list[str], met: set) -> bool:
    if not names:
        return True
    first, rest = names[0], names[1:]
    return any(
        frozenset((first, other)) not in met
        and _rematch_free_exists([n for n in rest if n != other], met)
        for other in rest
    )


def test_the_pairing_depends_on_scores_and_history_only() -> None:
    names = [f"agent-{index:02d}" for index in range(23)]
    first = _simulate(names, 6, seed=9)
    assert _simulate(list(reversed(names)), 6, seed=9) == first
    pairs, _ = first[0]
    assert pairs[0] == ("agent-00", "agent-01")  # equal scores: name order


def test_the_leaders_meet_each_other() -> None:
    scores = {"a": 4.0, "b": 4.0, "c": 2.0, "d": 2.0, "e": 0.0, "f": 0.0}
    pairs, _ = swiss.pair_round(sorted(scores), scores, [frozenset("ab")])
    assert pairs == [("a", "c"), ("b", "d"), ("e", "f")]


def test_rounds_for_grows_as_log2() -> None:
    assert [swiss.rounds_for(n) for n in (2, 40, 50, 300)] == [4, 9, 9, 12]
    assert swiss.rounds_for(300) == math.ceil(math.log2(300)) + 3


SWISS_CLASS = {
    "first": FIRST_COLUMN,
    "last": "def connect_four_agent(game, state, seconds):\n    return game.actions(state)[-1]\n",
    "middle": "def connect_four_agent(game, state, seconds):\n"
    "    actions = game.actions(state)\n    return actions[len(actions) // 2]\n",
    "greedy": """
from games import MAX

def connect_four_agent(game, state, seconds):
    pick = max if game.to_move(state) == MAX else min
    return pick(game.actions(state), key=lambda a: game.evaluate(game.result(state, a)))
""",
    "seeded": "import random\n\ndef connect_four_agent(game, state, seconds):\n"
    "    return random.choice(game.actions(state))\n",
    "sleeper": "import time\ntime.sleep(10**6)\n" + FIRST_COLUMN,
    "spinner": "while True:\n    pass\n" + FIRST_COLUMN,
}


@pytest.fixture(scope="module")
def swiss_runs(tmp_path_factory) -> list[dict]:
    """The same class's Swiss tournament, twice, both runs at once (the sleeper and the spinner
    each spend their 2 s of loading in both runs side by side, not one run after the other)."""
    folder = tmp_path_factory.mktemp("swiss-class")
    for name, source in SWISS_CLASS.items():
        (folder / f"{name}.py").write_text(source)
    outs = [tmp_path_factory.mktemp("swiss-out") for _ in range(2)]
    errors = [tmp_path_factory.mktemp("swiss-stderr") / "stderr.txt" for _ in outs]
    runs: list[subprocess.Popen] = []
    try:
        for out, error in zip(outs, errors, strict=True):
            command = [sys.executable, "-m", "autograder", "tournament", str(folder), "--out",
                       str(out), "--rounds", "3", "--move-states", "200", "--seconds", "0.5",
                       "--load-seconds", "2", "--workers", "2", "--quiet"]  # fmt: skip
            with error.open("w") as stderr:  # a file: a run never waits for us to read it
                runs.append(
                    subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr)
                )
        for run, error in zip(runs, errors, strict=True):
            assert run.wait(timeout=300) == 0, error.read_text()
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
                run.wait()
    return [json.loads((out / "tournament.json").read_text()) for out in outs]


@pytest.mark.slow
def test_a_swiss_tournament_is_the_same_every_run(swiss_runs: list[dict]) -> None:
    first, second = swiss_runs
    assert first["games"] == second["games"]
    assert first["standings"] == second["standings"]


@pytest.mark.slow
def test_a_swiss_tournament_plays_its_rounds_without_rematches(swiss_runs: list[dict]) -> None:
    results = swiss_runs[0]
    games = [PlayedGame.from_json(game) for game in results["games"]]
    assert len(games) == 3 * 2 * 2  # 3 rounds of 2 matches (5 agents: one bye), both colours
    pairs = [frozenset(game.players) for game in games]
    assert all(pairs.count(pair) == 2 for pair in pairs)
    assert "Swiss-system" in results["settings"] and "byes:" in results["settings"]
    names = {row["name"] for row in results["standings"]}
    assert names == {"first", "last", "middle", "greedy", "seeded"}
    assert [row.name for row in standings(games, sorted(names))] == [
        row["name"] for row in results["standings"]
    ]


@pytest.mark.slow
def test_slow_loaders_do_not_play_and_say_why(swiss_runs: list[dict]) -> None:
    absent = {entry["name"]: entry["reason"] for entry in swiss_runs[0]["not_playing"]}
    # Asleep, it is charged its sleep as the load's time, jailed or not: stopped at its 2 s,
    # not at the wall clock's 4 s.
    assert "more than 2 s of CPU time while loading" in absent["sleeper"], absent["sleeper"]
    # Its CPU time, or on a machine so busy that it got less than half a CPU, the wall clock.
    spun = ("more than 2 s of CPU time while loading", "no answer within 4 s (loading)")
    assert any(reason in absent["spinner"] for reason in spun), absent["spinner"]
    crashed = [game["ended"] for game in swiss_runs[0]["games"] if "crashed" in game["ended"]]
    assert not crashed
