"""The tournament's files: the leaderboard page, a replay page per game, leaderboard.csv and
tournament.json (every game and the ratings)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from autograder.contest import integrity, leaderboard_page
from autograder.contest.referee import PlayedGame
from autograder.contest.standings import Standing, game_order, standings
from autograder.reports import files


def write_results(
    out: Path, entrants: Sequence, games: Sequence[PlayedGame], settings: str
) -> list[Standing]:
    """Write the leaderboard page, a replay page per game, leaderboard.csv and tournament.json;
    return the standings."""
    games = sorted(games, key=game_order)
    playing = sorted(entrant.name for entrant in entrants if not entrant.reason)
    absent = sorted((entrant.name, entrant.reason) for entrant in entrants if entrant.reason)
    table = standings(games, playing)
    ratings = {row.name: (row.mu, row.sigma) for row in table}
    usage, thrown = integrity.game_usage(games), integrity.thrown_games(games, ratings)
    folder = out / "games"
    shutil.rmtree(folder, ignore_errors=True)  # a previous run's games
    folder.mkdir(mode=files.FOLDER_MODE, parents=True, exist_ok=True)
    for number, game in enumerate(games, start=1):
        page = leaderboard_page.game_html(number, game)
        _write_private(out / leaderboard_page.game_file(number), page)
    files.write_atomically(out / "leaderboard.csv", leaderboard_csv(table, absent))
    summary = {
        "settings": settings,
        "standings": [asdict(row) for row in table],
        "not_playing": [{"name": name, "reason": reason} for name, reason in absent],
        "usage": {
            name: {**asdict(used), "flags": integrity.usage_flags(used)}
            for name, used in sorted(usage.items())
        },
        "thrown": [asdict(game) for game in thrown],
        "games": [game.to_json() for game in games],
    }
    files.write_atomically(out / "tournament.json", json.dumps(summary, indent=1))
    page = leaderboard_page.leaderboard_html(table, absent, games, settings, usage, thrown)
    files.write_atomically(out / "leaderboard.html", page)
    return table


def _write_private(path: Path, text: str) -> None:
    """A replay page, the instructor's alone (as every file of --out: `files.FILE_MODE`)."""
    path.unlink(missing_ok=True)
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, files.FILE_MODE)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)


def leaderboard_csv(table: Sequence[Standing], absent: Sequence[tuple[str, str]]) -> str:
    """One row per agent, by rank; those not playing last, with the reason."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    buffer.write("rank,agent,rating,mu,sigma,games,wins,draws,losses,forfeits,crashes,status\n")
    for rank, row in enumerate(table, start=1):
        rating = [f"{value:.3f}" for value in (row.ordinal, row.mu, row.sigma)]
        counts = [row.games, row.wins, row.draws, row.losses, row.forfeits, row.crashes]
        writer.writerow([rank, files.spreadsheet_text(row.name), *rating, *counts, "played"])
    for name, reason in absent:
        status = files.spreadsheet_text(f"not playing: {reason}")
        writer.writerow(["", files.spreadsheet_text(name), *[""] * 9, status])
    return buffer.getvalue()
