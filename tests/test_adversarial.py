"""Hostile submissions graded next to an honest one: a cheat earns only what it earned honestly.

The corpus is `tests/adversarial/*.py`, one attack per file; each file's docstring says what it
tries. It is graded in ONE `python -m autograder grade` run, as an instructor runs it (so the
grading process adopts orphans), beside `honest.py`, the reference solutions. Every test then
reads that run's grades.csv and results.json. The attacks in `tests/adversarial/grader_killers/`
go after the grading process itself; each is graded in a run of its own beside a small honest
submission, started at the same time as the corpus run, so that one of them stopping its run
cannot hide the results of the others.

Every run gets its own session (a submission that kills the grader's process group must not
reach pytest) and its own TMPDIR, so that the processes and files a run leaves behind can be
told apart. Processes that survive a run are killed before anything is asserted.

A hole in the grader is a test marked `xfail(strict=True)` whose reason says what the attacker
does and what it gains: when the hole is fixed, the test passes and the marker must go. Most
holes are closed by the jail (autograder/sandbox/jail.py), which needs root on Linux: where the jail
cannot be used (`sandbox.jail_support()` says why), the grader falls back to a plain process and
those tests are strict xfails again, with the reason the hole is open.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autograder.grading.reference import reference_source
from autograder.grading.rules import FUNCTIONS, RULE_IDS
from autograder.sandbox import Limits, cgroup_roots, jail_support

JAILED = jail_support()[0]
MEMORY_CGROUP = JAILED and "memory" in cgroup_roots()


def hole(reason: str, closed: bool = JAILED) -> pytest.MarkDecorator:
    """A strict xfail where the isolation that closes the hole is missing on this machine."""
    return pytest.mark.xfail(not closed, strict=True, reason=f"without the jail, {reason}")


ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ROOT / "tests" / "adversarial"
KILLERS = ATTACKS / "grader_killers"
TIMEOUT_S = 3
"""A call's wall-clock limit, kept at 3 s for a busy machine (at a load of 16 an honest call can
wait for a core much longer than it computes); the endless loop spins a core for all of it."""
MEMORY_MB = 512
RUN_LIMIT_S = 150  # a run still going after this is killed and the tests fail

HONEST_MINIMAX_VALUE = """\
from games import MAX


def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)
"""

FULL = {"minimax_value": 15, "minimax_decision": 10, "alphabeta_value": 15,
        "alphabeta_decision": 10, "alphabeta_pruning": 20, "depth_limited_value": 15,
        "depth_limited_decision": 15}  # fmt: skip

# What each submission earns honestly, rule by rule (rules not named: 0).
EXPECTED: dict[str, dict[str, int]] = {
    "honest": FULL,
    "answers_import_hidden": {},
    "answers_read_by_path": {},
    "answers_snoop_process": {},
    "results_equal_everything": {},
    "results_print_fake_report": {},
    "results_write_grader_terminal": {},
    "results_files_near_workdir": {},
    "results_forge_out_folder": {},
    "results_monkeypatch_at_import": {},
    "pruning_minimax_as_alphabeta": {"alphabeta_value": 15, "alphabeta_decision": 10},
    "pruning_counter_tampering": {"alphabeta_value": 15},
    "escape_sys_exit_at_import": {"minimax_value": 15},
    "escape_os_exit_at_import": {},
    "escape_exit_inside_calls": {"minimax_value": 15, "depth_limited_value": 15},
    "escape_kill_own_group": {"minimax_value": 15, "depth_limited_value": 15},
    "exhaust_infinite_loop": {},
    "exhaust_memory": {},
    "exhaust_memory_in_children": {},
    "exhaust_recursion": {},
    "exhaust_fork_bomb": {},
    "exhaust_background_processes": {},
    "exhaust_flood_output": {},
    "exhaust_fill_disk": {},
}
# Submissions whose honest share depends on luck (a cache that may hit the wrong position):
# they may earn less than this, never more.
AT_MOST = {"pruning_cache_across_cases": {"minimax_value": 15, "alphabeta_value": 15}}

HOLES = {
    "answers_read_by_path": (
        "the student process runs as the grader's user with the whole file system visible: it "
        "finds the repository through sys.executable (or /proc/<grader>/cwd, or the import "
        "view's symlinks into site-packages), execs solutions/*.py and earns 100 with no code "
        "of its own (README 'Security model' lists this as not promised)"
    ),
}


@dataclass
class Run:
    """One grading command, in its own session and with its own TMPDIR."""

    folder: Path
    process: subprocess.Popen
    started: float
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    survivors: list[str] = field(default_factory=list)

    @property
    def out(self) -> Path:
        return self.folder / "out"

    @property
    def scratch(self) -> Path:
        return self.folder / "scratch"

    def finish(self) -> Run:
        remaining = max(1.0, RUN_LIMIT_S - (time.monotonic() - self.started))
        try:
            self.stdout, self.stderr = self.process.communicate(timeout=remaining)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.stdout, self.stderr = self.process.communicate()
        self.returncode = self.process.returncode
        self.seconds = time.monotonic() - self.started
        self.survivors = kill_survivors(self.scratch)
        return self

    def rows(self) -> dict[str, dict[str, str]]:
        with open(self.out / "grades.csv", newline="", encoding="utf-8") as handle:
            return {row["student"]: row for row in csv.DictReader(handle)}

    def record(self, student: str) -> dict:
        results = json.loads((self.out / student / "results.json").read_text())
        return results["extra_data"]["record"]


def start_grading(
    paths: list[Path], folder: Path, workers: int = 1, isolation: str = "auto"
) -> Run:
    """Start `python -m autograder grade` on `paths` in `folder`, in a session of its own.

    Its output goes to pipes, not files: a submission that opens the grader's stdout through
    /proc would truncate a file.
    """
    (folder / "scratch").mkdir(parents=True)
    command = [
        sys.executable, "-m", "autograder", "grade", *map(str, paths), "--out",
        str(folder / "out"), "--workers", str(workers), "--timeout", str(TIMEOUT_S),
        "--memory", str(MEMORY_MB), "--isolation", isolation,
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=folder,
        env={**os.environ, "TMPDIR": str(folder / "scratch")},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    return Run(folder, process, time.monotonic())


def kill_survivors(scratch: Path) -> list[str]:
    """Kill, and describe, the processes a run left: those with a working directory in the
    run's TMPDIR (where every sandbox lives), and those the attacks mark `sleep 9876NN.<tag>`,
    the tag being derived from that TMPDIR (see tests/adversarial/exhaust_fork_bomb.py)."""
    found: dict[int, str] = {}
    tag = zlib.crc32(os.path.realpath(scratch).encode()) % 10**6
    marker = rf"sleep 9876[0-9][0-9]\.{tag}( |$)"
    listed = subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True)
    for line in listed.stdout.splitlines():
        pid, _, command = line.partition(" ")
        found[int(pid)] = command
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cwd.startswith(str(scratch)):
            found[int(entry.name)] = f"{command} (in {cwd})"
    for pid in found:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return sorted(found.values())


def points(row: dict[str, str]) -> dict[str, int]:
    return {rule_id: int(float(row[rule_id])) for rule_id in RULE_IDS}


def expected_points(student: str) -> dict[str, int]:
    earned = EXPECTED.get(student, AT_MOST.get(student, {}))
    return {rule_id: earned.get(rule_id, 0) for rule_id in RULE_IDS}


def attacks() -> list[str]:
    return sorted(path.stem for path in ATTACKS.glob("*.py"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """The corpus run and one run per grader killer, all started at once."""
    honest = tmp_path_factory.mktemp("honest")
    (honest / "honest.py").write_text(reference_source(), encoding="utf-8")
    (honest / "small").mkdir()
    (honest / "small" / "honest.py").write_text(HONEST_MINIMAX_VALUE, encoding="utf-8")
    started = {
        "corpus": start_grading(
            # the attacks one by one: the grader killers' folder would be a student of its own
            [*sorted(ATTACKS.glob("*.py")), honest / "honest.py"],
            tmp_path_factory.mktemp("corpus"),
            workers=2,
        )
    }
    for killer in sorted(path.stem for path in KILLERS.glob("*.py")):
        started[killer] = start_grading(
            [KILLERS / f"{killer}.py", honest / "small" / "honest.py"],
            tmp_path_factory.mktemp(killer),
        )
    started["signal_worker"] = start_grading(
        [KILLERS / "signal_grader.py", honest / "small" / "honest.py"],
        tmp_path_factory.mktemp("signal_worker"),
        workers=2,
        isolation="process",
    )
    return {name: run.finish() for name, run in started.items()}


@pytest.fixture(scope="module")
def corpus(runs: dict[str, Run]) -> Run:
    return runs["corpus"]


# -- the corpus -------------------------------------------------------------------------------


def test_every_attack_says_what_it_tries_and_has_an_expected_grade() -> None:
    for path in [*ATTACKS.glob("*.py"), *KILLERS.glob("*.py")]:
        assert path.read_text().startswith('"""Attack: '), path.name
    assert set(attacks()) == (set(EXPECTED) | set(AT_MOST)) - {"honest"}


def test_the_corpus_run_finishes_within_its_limits_and_grades_everyone(corpus: Run) -> None:
    assert corpus.returncode == 0, corpus.stderr[-3000:]
    assert corpus.seconds < 120
    assert set(corpus.rows()) == {*attacks(), "honest"}
    for student in corpus.rows():
        # One time-out per function at most (a function that times out is not called again),
        # plus loading and restarts.
        assert corpus.record(student)["seconds"] < len(FUNCTIONS) * TIMEOUT_S + 10, student


def test_the_honest_submission_is_graded_correctly_next_to_the_attacks(corpus: Run) -> None:
    row = corpus.rows()["honest"]
    assert points(row) == FULL and row["score"] == "100" and row["status"] == "graded"


@pytest.mark.parametrize(
    "student",
    [
        pytest.param(name, marks=hole(HOLES[name])) if name in HOLES else name
        for name in sorted(EXPECTED.keys() - {"honest"})
    ],
)
def test_an_attack_earns_exactly_what_it_earned_honestly(corpus: Run, student: str) -> None:
    assert points(corpus.rows()[student]) == expected_points(student)


@pytest.mark.parametrize("student", sorted(AT_MOST))
def test_an_attack_that_relies_on_luck_earns_no_more_than_honestly(corpus: Run, student: str):
    earned, ceiling = points(corpus.rows()[student]), expected_points(student)
    assert all(earned[rule_id] <= ceiling[rule_id] for rule_id in RULE_IDS), earned
    assert earned["alphabeta_pruning"] == 0
    pruning = next(r for r in corpus.record(student)["rules"] if r["id"] == "alphabeta_pruning")
    hints = [v["hint"] for g in pruning["groups"] for v in g["verdicts"] if not v["passed"]]
    assert any("carries positions over from an earlier call" in hint for hint in hints), hints


def test_no_process_a_submission_started_survives_grading(corpus: Run) -> None:
    def first_answer(student: str) -> str:
        return corpus.record(student)["rules"][0]["groups"][0]["verdicts"][0]["got"]

    assert int(first_answer("exhaust_fork_bomb")) > 10  # the attacks did start their processes
    assert first_answer("exhaust_background_processes") == "4"
    assert corpus.survivors == []


@hole("nothing limits the number of processes a submission starts: the fork bomb starts all 200")
def test_a_fork_bomb_stops_at_the_process_limit(corpus: Run) -> None:
    started = corpus.record("exhaust_fork_bomb")["rules"][0]["groups"][0]["verdicts"][0]["got"]
    assert int(started) < Limits().processes


def test_the_sandboxes_are_deleted_with_the_50_mib_written_into_them(corpus: Run) -> None:
    left = [path.name for path in corpus.scratch.rglob("*")]
    assert not [name for name in left if name.startswith(("student-", "autograder-"))], left
    assert not [name for name in left if name.startswith("filler-") or name == "big.bin"], left


def test_the_file_size_limit_caps_one_file_at_the_output_limit(corpus: Run) -> None:
    record = corpus.record("exhaust_fill_disk")
    assert record["rules"][0]["groups"][0]["verdicts"][0]["got"] == str(256 * 1024)


def test_liars_arrive_as_plain_data_and_lose(corpus: Run) -> None:
    verdicts = [
        verdict
        for rule in corpus.record("results_equal_everything")["rules"]
        for group in rule["groups"]
        for verdict in group["verdicts"]
    ]
    assert verdicts and not any(verdict["passed"] for verdict in verdicts)
    assert "an object of type" in verdicts[0]["got"]


def test_printed_reports_stay_out_of_the_grader_output_and_are_escaped(corpus: Run) -> None:
    assert "FAKE-REPORT-7F3A" not in corpus.stdout + corpus.stderr
    assert "FAKE-REPORT-7F3A" in corpus.record("results_print_fake_report")["output"]
    page = (corpus.out / "results_print_fake_report" / "feedback.html").read_text()
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    assert len(corpus.record("exhaust_flood_output")["output"]) <= 4000


def test_forged_files_in_the_output_folder_do_not_reach_grades_csv(corpus: Run) -> None:
    rows = corpus.rows()
    assert rows["results_forge_out_folder"]["score"] == "0"
    assert rows["honest"]["score"] == "100"
    assert "ghost_student" not in rows


def test_exits_crashes_and_time_outs_are_named_in_the_feedback(corpus: Run) -> None:
    def messages(student: str) -> str:
        return " ".join(corpus.record(student)["messages"])

    assert "exited with code 0" in corpus.record("escape_os_exit_at_import")["status"]
    assert "SystemExit" in messages("escape_sys_exit_at_import")
    assert "SIGABRT" in messages("escape_exit_inside_calls")
    assert "SIGKILL" in messages("escape_kill_own_group")
    assert "SIGSEGV" in messages("escape_kill_own_group")
    assert "SIGSEGV" in messages("exhaust_recursion")
    assert f"no answer within {TIMEOUT_S:g} s" in messages("exhaust_infinite_loop")
    assert "over-long message" in messages("exhaust_flood_output")


@hole(
    "the student process can write anywhere the grader's user can: it reads --out from "
    "/proc/<grader>/cmdline, rewrites honest/results.json to 0 after the grader saved it (keeping "
    "the fingerprint and digest, so a re-run without --force copies the forged 0 into "
    "grades.csv) and creates out/ghost_student/results.json claiming 100",
)
def test_a_submission_cannot_write_into_the_output_folder(corpus: Run) -> None:
    results = json.loads((corpus.out / "honest" / "results.json").read_text())
    assert results["score"] == 100 and results["extra_data"]["record"]["score"] == 100
    assert not (corpus.out / "ghost_student").exists()


@hole(
    "the student process opens /proc/<grader>/fd/1 and fd/2 and writes a fake "
    "'100/100 all tests passed' line into the grading command's own stdout and stderr; when "
    "they are files (a log) the open truncates them",
)
def test_a_submission_cannot_write_into_the_grading_commands_output(corpus: Run) -> None:
    assert "TERMINAL-FORGERY-5C1E" not in corpus.stdout + corpus.stderr


@hole(
    "files a submission writes outside its sandbox directory stay: "
    "results_files_near_workdir leaves grades.csv, results.json and results/results.json in "
    "the sandbox's parent (the grader's TMPDIR); nothing confines writes to the sandbox",
)
def test_nothing_a_submission_writes_outside_its_sandbox_remains(corpus: Run) -> None:
    assert sorted(path.name for path in corpus.scratch.iterdir()) == []


@hole(
    "the address-space limit is per process, not per submission: 3 forked children each "
    "held 256 MiB at once, 768 MiB under a 512 MiB limit (a memory cgroup is needed)",
    closed=MEMORY_CGROUP,
)
def test_the_memory_limit_covers_the_processes_a_submission_forks(corpus: Run) -> None:
    got = corpus.record("exhaust_memory_in_children")["rules"][0]["groups"][0]["verdicts"][0]
    assert int(got["got"]) <= MEMORY_MB


# -- attacks on the grading process, one run each ---------------------------------------------


def _assert_the_run_survived_and_graded_both(run: Run, killer: str) -> None:
    survivors = run.survivors
    assert run.returncode == 0, run.stderr[-2000:]
    rows = run.rows()
    assert points(rows["honest"]) == {**dict.fromkeys(RULE_IDS, 0), "minimax_value": 15}
    assert rows[killer]["score"] == "0"
    assert survivors == []


@hole(
    "os.kill(os.getppid(), SIGTERM) at import kills the grading command (it does not "
    "handle SIGTERM, and the submission runs as the same user): no grades.csv, the honest "
    "student is never graded, and the submission's `sleep 987607.<tag>` outlives the run",
)
def test_signalling_the_grader_does_not_stop_the_run(runs: dict[str, Run]) -> None:
    _assert_the_run_survived_and_graded_both(runs["signal_grader"], "signal_grader")


@hole(
    "os.killpg(os.getpgid(os.getppid()), SIGKILL) at import kills the grading command "
    "(SIGKILL): no grades.csv, the honest student is never graded, and the submission's "
    "`sleep 987608.<tag>` outlives the run; only another user or a PID namespace prevents it",
)
def test_killing_the_graders_process_group_does_not_stop_the_run(runs: dict[str, Run]) -> None:
    _assert_the_run_survived_and_graded_both(runs["kill_grader_group"], "kill_grader_group")


def test_a_worker_killed_by_its_submission_costs_only_that_submission(runs: dict[str, Run]):
    """Without the jail, with --workers 2: the submission kills the worker process grading it
    (its parent); the pool is rebuilt, the honest submission graded, the culprit marked."""
    run = runs["signal_worker"]
    _assert_the_run_survived_and_graded_both(run, "signal_grader")
    assert "the process grading it died" in run.rows()["signal_grader"]["status"]


def test_directories_planted_in_the_output_folder_do_not_stop_the_run(runs: dict[str, Run]):
    _assert_the_run_survived_and_graded_both(runs["sabotage_out_folder"], "sabotage_out_folder")


def test_a_reply_tagged_as_a_float_that_is_not_one_does_not_stop_the_run(runs: dict[str, Run]):
    _assert_the_run_survived_and_graded_both(runs["reply_not_a_number"], "reply_not_a_number")


def test_a_reply_nested_too_deep_does_not_stop_the_run(runs: dict[str, Run]) -> None:
    _assert_the_run_survived_and_graded_both(runs["reply_nested_too_deep"], "reply_nested_too_deep")


def test_an_int_beyond_float_range_is_a_wrong_answer_not_a_grader_failure(runs: dict[str, Run]):
    run = runs["reply_huge_int"]
    _assert_the_run_survived_and_graded_both(run, "reply_huge_int")
    record = run.record("reply_huge_int")
    assert record["status"] == "graded"
    verdict = record["rules"][0]["groups"][0]["verdicts"][0]
    assert "too large" in verdict["hint"] and len(verdict["got"]) < 300


def test_replies_with_malformed_shapes_are_wrong_answers(runs: dict[str, Run]) -> None:
    run = runs["reply_malformed_shapes"]
    _assert_the_run_survived_and_graded_both(run, "reply_malformed_shapes")
    assert run.record("reply_malformed_shapes")["status"] == "graded"
