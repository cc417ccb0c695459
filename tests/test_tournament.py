"""The tournament command: a small class of agents, every pair in both colours, the ratings, the
faults recorded, and the leaderboard and replay pages."""

from __future__ import annotations

import csv
import html
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.contest import leaderboard_page, standings, tournament
from autograder.contest.referee import PlayedGame
from games.connect_four import ConnectFour

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = "rand <img src=x onerror=alert(1)>"
"""The random agent's name: a file name is the student's to choose."""

AGENTS = {
    "search": """
from games import MAX

def connect_four_agent(game, state, seconds):
    def value(state, depth):
        if game.is_terminal(state):
            return game.utility(state)
        if depth == 0:
            return game.evaluate(state)
        values = [value(game.result(state, action), depth - 1) for action in game.actions(state)]
        return max(values) if game.to_move(state) == MAX else min(values)

    pick = max if game.to_move(state) == MAX else min
    return pick(game.actions(state), key=lambda action: value(game.result(state, action), 1))
""",
    HOSTILE: """
import random
chooser = random.Random(7)

def connect_four_agent(game, state, seconds):
    return chooser.choice(game.actions(state))
""",
    "crasher": """
moves = 0

def connect_four_agent(game, state, seconds):
    global moves
    moves += 1
    if moves == 3:
        raise RuntimeError("my third move always fails")
    return game.actions(state)[0]
""",
    "spinner": """
import time
moves = 0

def connect_four_agent(game, state, seconds):
    global moves
    moves += 1
    if moves % 4 == 2:  # computes far past its CPU time: stopped, and its process restarted
        started = time.process_time()
        while time.process_time() - started < 20 * seconds:
            pass
    return game.actions(state)[-1]
""",
    "broken": "raise RuntimeError('<script>alert(\"cell\")</script> no agent today')\n",
    "nothing": "def some_other_function(game, state, seconds):\n    return 4\n",
}
PLAYING = ("search", HOSTILE, "crasher", "spinner")


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    """One tournament of the agents above, shared by the tests."""
    folder = tmp_path_factory.mktemp("class")
    for name, source in AGENTS.items():
        (folder / f"{name}.py").write_text(source)
    out = tmp_path_factory.mktemp("out")
    command = [sys.executable, "-m", "autograder", "tournament", str(folder), "--out", str(out)]
    settings = ["--move-states", "200", "--seconds", "0.1", "--openings", "1", "--workers", "2",
                "--isolation", "process"]  # fmt: skip
    ran = subprocess.run(command + settings, cwd=ROOT, capture_output=True, text=True, timeout=120)
    return ran, out


@pytest.fixture(scope="module")
def results(run) -> dict:
    ran, out = run
    assert ran.returncode == 0, ran.stderr
    return json.loads((out / "tournament.json").read_text())


def _games(results: dict) -> list[PlayedGame]:
    return [PlayedGame.from_json(game) for game in results["games"]]


def _rows(out: Path) -> dict[str, dict]:
    with open(out / "leaderboard.csv", newline="") as handle:
        return {row["agent"]: row for row in csv.DictReader(handle)}


def test_the_command_writes_the_leaderboard_its_csv_and_the_games(run, results) -> None:
    _, out = run
    for name in ("leaderboard.html", "leaderboard.csv", "tournament.json"):
        assert (out / name).is_file()
    assert len(list((out / "games").glob("*.html"))) == len(results["games"])


def test_every_pair_plays_once_with_each_colour(results) -> None:
    pairs = [game.players for game in _games(results)]
    expected = [(a, b) for a in PLAYING for b in PLAYING if a != b]
    assert sorted(pairs) == sorted(expected)


def test_the_search_ranks_above_the_random_agent(run, results) -> None:
    order = [row["name"] for row in results["standings"]]
    assert order.index("search") < order.index(HOSTILE)
    rows = _rows(run[1])
    assert int(rows["search"]["rank"]) < int(rows[HOSTILE]["rank"])
    for row in results["standings"]:
        assert row["ordinal"] == pytest.approx(row["mu"] - 3 * row["sigma"])


def test_a_crash_loses_that_game_only_and_is_counted(run, results) -> None:
    crasher = next(row for row in results["standings"] if row["name"] == "crasher")
    assert crasher["crashes"] >= 1
    assert crasher["games"] == 2 * (len(PLAYING) - 1)  # it kept playing after the crash
    assert int(_rows(run[1])["crasher"]["crashes"]) == crasher["crashes"]


def test_a_move_past_its_cpu_time_is_forfeited_and_noted(run, results) -> None:
    spinner = next(row for row in results["standings"] if row["name"] == "spinner")
    assert spinner["forfeits"] >= 1
    noted = [g for g in _games(results) if "spinner" in g.players and any(m.note for m in g.moves)]
    assert noted
    number = _games(results).index(noted[0]) + 1
    page = (run[1] / leaderboard_page.game_file(number)).read_text()
    note = next(move.note for move in noted[0].moves if move.note)
    assert "it used more than 0.1 s of CPU time" in note and html.escape(note) in page


def test_agents_that_cannot_play_are_listed_with_the_reason(run, results) -> None:
    absent = {entry["name"]: entry["reason"] for entry in results["not_playing"]}
    assert set(absent) == {"broken", "nothing"}
    assert "no agent today" in absent["broken"]
    assert "connect_four_agent" in absent["nothing"]
    assert all("broken" not in game.players for game in _games(results))
    assert _rows(run[1])["broken"]["status"].startswith("not playing")


def test_the_pages_escape_what_students_wrote(run, results) -> None:
    _, out = run
    pages = [out / "leaderboard.html", *sorted((out / "games").glob("*.html"))]
    for page in pages:
        text = page.read_text()
        assert "<img src=x" not in text and "<script>alert" not in text, page
    leaderboard = (out / "leaderboard.html").read_text()
    assert html.escape(HOSTILE) in leaderboard
    assert "&lt;script&gt;alert" in leaderboard  # the broken agent's error, escaped


def test_each_replay_shows_the_opening_and_a_board_after_every_move(run, results) -> None:
    for number, game in enumerate(_games(results), start=1):
        page = (run[1] / leaderboard_page.game_file(number)).read_text()
        assert page.count("<svg class='board'") == len(game.moves) + 1
        assert page.count("class='x last'") + page.count("class='o last'") == len(game.moves) + (
            1 if game.opening else 0
        )
        assert "http" not in page  # nothing loaded from elsewhere


def test_a_board_has_a_disc_per_stone_and_rings_the_last_one() -> None:
    state = ConnectFour.from_moves("4453")
    svg = leaderboard_page.board_svg(state, 3)
    assert svg.count("<circle") == 4
    assert re.findall(r"class='(\w) last'", svg) == ["o"]


def test_the_same_results_give_the_same_ratings_in_any_order(results) -> None:
    games = _games(results)
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)
    names = list(PLAYING)
    assert standings.standings(shuffled, names) == standings.standings(games, names)
    saved = [(row["name"], row["mu"], row["sigma"]) for row in results["standings"]]
    rated = [(row.name, row.mu, row.sigma) for row in standings.standings(games, names)]
    assert rated == saved  # JSON keeps a float exactly


def test_the_schedule_pairs_every_playing_agent_once() -> None:
    entrants = [tournament.Entrant(name) for name in "abcde"] + [
        tournament.Entrant("z", reason="fails to load")
    ]
    matches = tournament.schedule(entrants, ("", "4"))
    assert len(matches) == 10
    assert {frozenset((m.first.name, m.second.name)) for m in matches} == {
        frozenset((a, b)) for a in "abcde" for b in "abcde" if a < b
    }


def test_the_example_class_plays_its_tournament(tmp_path: Path) -> None:
    """The bundled class: seven students wrote an agent (see examples/README.md), the others
    are listed as not playing. The four that search within 200 states rank above the random
    agent and the one that never answers, every one of whose moves is forfeited to the
    fallback column; dan's fixed four plies run out of 200 states, so his moves are forfeited
    too (he is not ranked here)."""
    out = tmp_path / "out"
    command = [sys.executable, "-m", "autograder", "tournament", "examples/class", "--out"]
    settings = ["--move-states", "200", "--seconds", "0.1", "--openings", "1", "--workers", "2",
                "--quiet"]  # fmt: skip
    ran = subprocess.run(
        [*command, str(out), *settings], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert ran.returncode == 0, ran.stderr
    results = json.loads((out / "tournament.json").read_text())
    standings = {row["name"]: row for row in results["standings"]}
    order = list(standings)
    searching = {"alice_correct", "bob_last_ties", "carol_negamax", "wendy_noisy_but_correct"}
    assert set(order) == {
        *searching,
        "xavier_random_moves",
        "trent_infinite_loop",
        "dan_strict_cutoff",
    }
    assert set(order[:4]) == searching
    games = _games(results)
    assert len(games) == 7 * 6
    trent_moves = sum(
        game.mover(index) == game.players.index("trent_infinite_loop")
        for game in games
        if "trent_infinite_loop" in game.players
        for index in range(len(game.moves))
    )
    assert standings["trent_infinite_loop"]["forfeits"] == trent_moves > 0
    page = (out / "leaderboard.html").read_text()
    assert "yves_empty" in page and "connect_four_agent is not defined" in page
