"""`python -m autograder tournament PATH... --out DIR`: play a class's Connect Four agents against
each other, rate them, and write a leaderboard with a replay of every game.

Every submission that defines `connect_four_agent(game, state, seconds)` plays every other one,
or, with `--rounds N`, N Swiss-system rounds (`swiss.py`: each round pairs the agents by their
points so far, no pair twice where it can be avoided, a bye for an odd count; about nN/2
matches instead of n(n-1)/2, for classes past about 40 agents). Every pair is the default: it
is exact and, up to 40 agents, quick. A *match* is a pair's games, both colours on each
opening, played in a worker process that starts each of the two agents' sandboxed processes
once for the whole match; both share the worker's CPU, and the one whose turn it is not is held
(frozen) before the other's move starts. The results are rated with openskill's Plackett-Luce
model, the games taken in a fixed order (by pair, opening and colour) so that the same results
always give the same ratings, whichever games were played; the leaderboard ranks by the
conservative ordinal mu - 3 sigma.

The moves follow the contest's rules (`referee.py`): each may generate `--move-states` states
through `game.result` (past them `result` raises `OutOfStates`) and use `--seconds` of CPU time
in the agent's own processes; the wall clock decides nothing, so the same agents play the same
games, and the Swiss rounds the same pairs, on any machine, however busy. Each agent pays for
itself only: its load (at every start) has `--load-seconds` of CPU time, every reply of its
process is checked, and whatever is wrong with one (a forged or malformed reply, a crash, a
load past its allowance) loses that agent the game it was moving in, never its opponent's, and
the match goes on. It cannot read back what it printed (`sandbox/output.py`).

How long it takes. With n agents, k openings and w workers there are n(n-1)/2 pairs (N Swiss
rounds: N x floor(n/2) matches) and games = matches x 2 colours x k. A game has at most 42
moves, 21 per agent, and an agent that spends its whole budget of S states on every move takes
about S x 27 microseconds a move through the sandbox (measured with the reference agent), so
at worst

    seconds = games x 42 x S x 27e-6 / w      (plus a process start per agent and match)

For 50 agents, 1 opening, S = 500 states and 2 workers: 2,450 x 42 x 0.0135 / 2 = 695 s,
under 12 minutes; agents that stop searching early (a proven win, a fixed depth) take less.
Measured in one run on 2 cores (AMD EPYC, shared, load average 7 to 16) with cheap agents
(depth-2, greedy and random; `benchmarks/bench_tournament.py`): 50 agents, every pair, 2,450
games in 117 s; 300 agents, 9 Swiss rounds, 2,700 games in 136 s (157 s and 163 s in an
earlier run).
An agent that computes much besides its states can take up to `--seconds` of CPU a move, and
is stopped there (`opponents.MAX_STOPS` times a match at most). Hence the defaults: one
opening per pair (`--openings N` plays the first N of `referee.OPENINGS`, N times the games),
`DEFAULT_STATES` a move, and the grading's CPU time.

A submission that cannot be read, fails to load (within its load allowance: twice as many
wall-clock seconds if it sleeps) or lacks the function is listed as not playing, with the
reason. In a game, a crash or an illegal move loses that game only; a move not
returned within its allowance is replaced by the grader's fallback move and noted (a forfeit).
Written to DIR:
`leaderboard.html`, `games/NNNNN.html` (a replay per game), `leaderboard.csv` and
`tournament.json` (every game and the ratings).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import MofNCompleteColumn, Progress

from autograder import sandbox
from autograder.contest import referee, swiss
from autograder.contest.referee import PlayedGame
from autograder.contest.student_agent import StudentAgent, most_seconds
from autograder.contest.tournament_files import leaderboard_csv, write_results  # noqa: F401
from autograder.contest.workers import in_workers
from autograder.grading.load import discover, load, unpacking
from autograder.grading.outcomes import Terminated, refused, terminated
from autograder.reports import files, terminal
from autograder.sandbox import Limits, become_subreaper, build_import_view, jail_support

DEFAULT_STATES = 500
"""States a move may generate by default: 50 agents that spend all of them on every move finish
in about 12 minutes on 2 cores. (Grading gives a move `referee.DEFAULT_STATES`.)"""

DEFAULT_SECONDS = referee.DEFAULT_SECONDS
"""CPU seconds a move may use by default: the grading's, so an agent graded in time plays here
in time."""

DEFAULT_OPENINGS = 1
"""Openings per pair by default, each played with both colours."""

SWISS_FROM = 40
"""Past this many agents playing every pair, the command suggests Swiss rounds (`--rounds`)."""

DEFAULT_LOAD_SECONDS = 10.0
"""Seconds an agent's process may use to load (`--load-seconds`), at each start: its CPU time,
and its time asleep or blocked as well (`sandbox.cpu`, jailed or not), never its wait for a CPU;
past them, or past twice as many wall-clock seconds (the safety net), it is stopped. At the
check before the games the agent is then listed as not playing, with the reason; in a match (a
restart), it loses that game. Either way only its own games pay for it."""


@dataclass(frozen=True)
class Entrant:
    """A submission in the tournament: its code cells, or why it does not play."""

    name: str
    cells: tuple = ()
    reason: str = ""  # "" if it plays


@dataclass(frozen=True)
class Match:
    """One pair's games: both colours on each opening, `first` moving first in the first."""

    first: Entrant
    second: Entrant
    openings: tuple[str, ...]


@dataclass(frozen=True)
class Setup:
    """What every game of a run shares."""

    allowance: referee.Allowance
    limits: Limits
    view: Path


def schedule(entrants: Sequence[Entrant], openings: Sequence[str]) -> list[Match]:
    """Every pair of playing entrants once, in name order."""
    playing = sorted((e for e in entrants if not e.reason), key=lambda entrant: entrant.name)
    return [
        Match(first, second, tuple(openings))
        for index, first in enumerate(playing)
        for second in playing[index + 1 :]
    ]


def swiss_round(
    entrants: Sequence[Entrant],
    openings: Sequence[str],
    matches: Sequence[Match],
    games: Sequence[PlayedGame],
    byes: Sequence[str],
) -> tuple[list[Match], str | None]:
    """The next Swiss round's matches (see `swiss.py`) after `matches` were played, with
    `games` and `byes`, and the playing entrant that sits it out (None for an even number)."""
    playing = {entrant.name: entrant for entrant in entrants if not entrant.reason}
    met = [frozenset((match.first.name, match.second.name)) for match in matches]
    scores = swiss.points(games, byes, bye_points=2.0 * len(openings))
    pairs, bye = swiss.pair_round(sorted(playing), scores, met, byes)
    return [Match(playing[a], playing[b], tuple(openings)) for a, b in pairs], bye


# -- running: in forked workers ----------------------------------------------------------


def check_entrant(entrant: Entrant, setup: Setup) -> Entrant:
    """`entrant`, with the reason it cannot play if its agent fails to load (in a worker)."""
    agent = StudentAgent(entrant.name, list(entrant.cells), setup.view, setup.limits)
    try:
        reason = agent.load_error
        cell_errors = agent.load_report.cell_errors if agent.load_report else []
        if reason and cell_errors:  # the cell that kept the function from being defined
            error = cell_errors[0]
            reason += f" (code cell {error.get('cell')} failed: {error.get('error')})"
    except Exception as error:  # noqa: BLE001 - one agent must not stop the tournament
        reason = f"the grader could not start it ({type(error).__name__}: {error})"
    finally:
        agent.close()
    return Entrant(entrant.name, entrant.cells, reason)


def play_match(match: Match, setup: Setup) -> list[PlayedGame]:
    """Play a pair's games with each agent's process started once (in a worker), each agent's
    time bounded by its moves' allowances added up over the match."""
    bound = most_seconds(list(match.openings) * 2, setup.allowance.seconds)
    agents = [
        StudentAgent(entrant.name, list(entrant.cells), setup.view, setup.limits, bound)
        for entrant in (match.first, match.second)
    ]
    try:
        return [
            referee.play_game(first, second, opening, setup.allowance)
            for opening in match.openings
            for first, second in (agents, agents[::-1])
        ]
    finally:
        for agent in reversed(agents):  # the first one's CPU claim, which both share, last
            agent.close()


# -- the command -------------------------------------------------------------------------


def add_parser(
    commands, seconds: Callable, workers: Callable, memory: Callable, states: Callable
) -> None:
    """The command's arguments; `seconds`, `workers`, `memory` and `states` are cli.py's
    argparse types."""
    play = commands.add_parser(
        "tournament",
        help="play the Connect Four agents, rank them",
        description=__doc__.split("\n\n")[1],
        epilog="n agents play n(n-1) x OPENINGS games of at most 42 moves (N Swiss rounds: about "
        f"nN x OPENINGS): 50 agents that spend all of {DEFAULT_STATES} states on every move take "
        "about 12 minutes on 2 cores; 300 cheap agents played 9 Swiss rounds in under 3.",
    )
    play.add_argument("paths", nargs="+", type=Path, help="notebooks, .py files or folders")
    play.add_argument("--out", type=Path, required=True, help="folder for the leaderboard")
    play.add_argument(
        "--move-states",
        type=states,
        default=DEFAULT_STATES,
        help="states a move may generate through game.result (%(default)s)",
    )
    play.add_argument(
        "--seconds",
        type=seconds,
        default=DEFAULT_SECONDS,
        help="CPU seconds a move may use (%(default)s)",
    )
    play.add_argument(
        "--openings",
        type=int,
        choices=range(1, len(referee.OPENINGS) + 1),
        default=DEFAULT_OPENINGS,
        metavar=f"1..{len(referee.OPENINGS)}",
        help="openings each pair plays, with both colours (%(default)s)",
    )
    play.add_argument(
        "--rounds",
        type=_rounds,
        default=None,
        metavar="N",
        help="play N Swiss-system rounds, each agent against one of about its score, instead "
        "of every pair (for classes past about 40 agents: ceil(log2 n) + 3 rounds, say)",
    )
    play.add_argument(
        "--load-seconds",
        type=seconds,
        default=DEFAULT_LOAD_SECONDS,
        help="CPU seconds an agent may take to load, sleep included, each time it starts "
        "(%(default)s)",
    )
    play.add_argument("--workers", type=workers, default=os.cpu_count() or 1, help="processes")
    play.add_argument("--memory", type=memory, default=2048, help="%(default)s MiB per agent")
    play.add_argument("--isolation", choices=("auto", "jail", "process"), default="auto")
    play.add_argument("--quiet", action="store_true", help="no progress bar")


def _rounds(text: str) -> int:
    """argparse's type for --rounds: a whole number of rounds, 1 or more."""
    try:
        rounds = int(text)
    except ValueError:
        rounds = 0
    if rounds < 1:
        raise argparse.ArgumentTypeError(f"a number of rounds, 1 or more, not {text!r}")
    return rounds


def command(args, adopt_orphans: bool = False) -> int:
    """Run `python -m autograder tournament` with the parsed `args`; the exit code."""
    error = "python -m autograder tournament: error:"
    if refused(args):
        print(f"{error} {refused(args)}", file=sys.stderr)
        return 2
    console = Console(stderr=True, quiet=args.quiet)
    with unpacking(args.paths) as unpack:
        found = discover(args.paths, None, unpack)
        for path, reason in found.skipped:
            console.print(f"[yellow]skipped[/yellow] {terminal.plain_text(f'{path}: {reason}')}")
        entrants = []
        for submission in found.submissions:
            loaded = load(submission, functions=(referee.AGENT_FUNCTION,))
            entrants.append(Entrant(submission.student, tuple(loaded.cells), loaded.error))
    if len(entrants) < 2:
        print(f"{error} a tournament needs two agents or more: give .py files, notebooks or "
              "folders of them", file=sys.stderr)  # fmt: skip
        return 2
    jailed, how = jail_support() if args.isolation != "process" else (False, "--isolation process")
    if args.isolation == "jail" and not jailed:
        console.print(f"[red]--isolation jail[/red]: the jail cannot be used here: {how}")
        return 2
    console.print(f"isolation: {'jail' if jailed else 'process only'} ({how})", highlight=False)
    if adopt_orphans:
        become_subreaper()
    try:
        lock = files.OutputLock(args.out)
    except OSError as problem:  # what `refused` cannot see coming: a full disk, a long name
        print(f"{error} --out {args.out} cannot be used: {problem.strerror or problem}",
              file=sys.stderr)  # fmt: skip
        return 2
    sandbox.start_run()
    sandbox.sweep()
    previous_term = signal.signal(signal.SIGTERM, terminated)
    scratch_prefix = f"autograder-run-{sandbox.RUN_ID[0]}-"
    try:
        with lock, tempfile.TemporaryDirectory(prefix=scratch_prefix) as tmp:
            limits = Limits(
                memory_mb=args.memory,
                isolation=args.isolation,
                load_timeout=2 * args.load_seconds,  # the safety net: the meter stops sooner
                load_cpu_seconds=args.load_seconds,
            )
            allowance = referee.Allowance(args.move_states, args.seconds)
            setup = Setup(allowance, limits, build_import_view(Path(tmp)))
            return _run(args, entrants, setup, console)
    except (KeyboardInterrupt, Terminated) as stop:
        console.print("interrupted: the games finished so far are in the files written")
        return 143 if isinstance(stop, Terminated) else 130
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        sandbox.sweep(only_this_run=True)
        sandbox.reap_orphans()


def _run(args, entrants: list[Entrant], setup: Setup, console: Console) -> int:
    checked: dict[str, Entrant] = {e.name: e for e in entrants if e.reason}
    games: list[PlayedGame] = []
    played: list[Match] = []
    unplayed: list[str] = []
    byes: list[str] = []
    columns = (*Progress.get_default_columns(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("loading agents", total=len(entrants) - len(checked))

        def loaded(entrant: Entrant, result: Entrant | None) -> None:
            reason = "the grader failed loading it (did it kill its parent process?)"
            checked[entrant.name] = result or Entrant(entrant.name, entrant.cells, reason)
            progress.advance(task)

        pending = [entrant for entrant in entrants if not entrant.reason]
        in_workers(check_entrant, pending, setup, args.workers, loaded)
        openings = referee.OPENINGS[: args.openings]
        everyone = list(checked.values())
        count = sum(not entrant.reason for entrant in everyone)
        if args.rounds is None:
            _suggest_rounds(count, console)
        per_round = count // 2 if args.rounds else count * (count - 1) // 2  # matches
        total = per_round * (args.rounds or 1) * 2 * len(openings)
        progress.update(task, description="playing games", completed=0, total=total)

        def finished(match: Match, result: list[PlayedGame] | None) -> None:
            if result is None:  # the grader failed on the match: its games are not counted
                unplayed.append(f"{match.first.name} – {match.second.name}")
            games.extend(result or ())
            progress.advance(task, 2 * len(openings))

        try:
            for _ in range(args.rounds or 1):
                if args.rounds is None:
                    matches = schedule(everyone, openings)
                else:
                    matches, bye = swiss_round(everyone, openings, played, games, byes)
                    byes += [bye] if bye else []
                in_workers(play_match, matches, setup, args.workers, finished)
                played += matches
        finally:
            settings = _settings_text(args, games, unplayed, byes)
            table = write_results(args.out, everyone, games, settings)
    if unplayed:
        console.print(f"[yellow]not played[/yellow]: {terminal.plain_text(', '.join(unplayed))}")
    leader = f"; first: {terminal.plain_text(table[0].name)}" if table else ""
    print(f"leaderboard: {args.out / 'leaderboard.html'}{leader}")
    return 0


def _suggest_rounds(agents: int, console: Console) -> None:
    """Say, for a class past `SWISS_FROM` agents playing every pair, what --rounds would do."""
    if agents > SWISS_FROM:
        rounds = swiss.rounds_for(agents)
        console.print(
            f"{agents} agents play every pair, {agents * (agents - 1) // 2:,} matches: "
            f"--rounds {rounds} would play {rounds * (agents // 2):,} (Swiss-system)"
        )


def _settings_text(
    args, games: Sequence[PlayedGame], unplayed: Sequence[str], byes: Sequence[str]
) -> str:
    pairing = "every pair"
    if args.rounds is not None:
        pairing = f"{args.rounds} Swiss-system round(s), each agent against one of about its score"
        if byes:
            pairing += f" (byes: {', '.join(byes)})"
    text = (
        f"{len(games)} games, {pairing}, {args.move_states:,} states and {args.seconds:g} s of "
        f"CPU time per move, {args.openings} opening(s) per match, "
        "each with both colours. Ratings: openskill's Plackett-Luce model, the games taken in a "
        "fixed order; ranked by rating = mu − 3 sigma."
    )
    if unplayed:
        text += f" Not played (the grader failed on these pairs): {', '.join(unplayed)}."
    return text
