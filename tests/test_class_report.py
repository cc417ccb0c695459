"""The instructor's view of a class: class.html, summary.csv, the terminal table and regrades."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from autograder.cli import main
from autograder.grading.judge import Verdict
from autograder.grading.records import GradeRecord, GroupResult, RuleResult
from autograder.grading.rules import RULE_IDS
from autograder.reports import class_report, files, terminal

ROOT = Path(__file__).resolve().parents[1]
CLASS = ROOT / "examples" / "class"
STUDENTS = ("alice_correct", "heidi_root_picks_min", "rupert_broken_json", "trent_infinite_loop")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _record(student: str, points: dict[str, float], status: str = "graded", hint: str = "",
            seconds: float = 1.0) -> GradeRecord:  # fmt: skip
    """A grade record as grade.py makes it: one group per rule, one verdict per group."""
    rules = []
    for rule_id in RULE_IDS:
        got = points.get(rule_id, 10)
        verdict = Verdict("an instance", got == 10, "10", "0", "" if got == 10 else hint)
        group = GroupResult("g", rule_id, got, 10, (verdict,))
        rules.append(RuleResult(rule_id, "", got, 10, (group,)))
    total = sum(rule.points for rule in rules)
    return GradeRecord(student, status, total, 70, rules=tuple(rules), seconds=seconds)


WORST = (
    "that action is worth 1, the best is worth 3; it is the worst action for the player to move: "
    "is max/min the right way round?"
)


def test_the_summary_counts_scores_rules_mistakes_and_failures() -> None:
    records = [
        _record("ann", {}),
        _record("ben", {"minimax_decision": 0}, hint=WORST),
        _record("cat", {"minimax_decision": 0, "alphabeta_decision": 0}, hint=WORST),
        _record("dot", dict.fromkeys(RULE_IDS, 0), status="not a valid notebook", seconds=9),
    ]
    summary = class_report.summarise(records)
    assert summary.students == 4 and summary.max_score == 70
    assert summary.mean == pytest.approx((70 + 60 + 50 + 0) / 4)
    assert summary.median == 55
    minimax = next(c for c in summary.counts if c.rule == "minimax_decision" and not c.group)
    assert (minimax.passed, minimax.students) == (1, 4)
    assert summary.mistakes[0] == (
        "max and min the wrong way round (picks the worst move)",
        ("ben", "cat"),
    )
    assert summary.ungraded == (("dot", "not a valid notebook"),)
    assert summary.slowest[0] == ("dot", 9.0)


def test_a_hint_on_a_minority_of_a_rules_lost_instances_is_not_a_diagnosis() -> None:
    record = _record("eve", {"minimax_value": 0}, hint="compare your MAX and MIN cases")
    first, *others = record.rules
    group = first.groups[0]
    more = (
        Verdict("an instance", False, "10", "1", WORST),
        Verdict("an instance", False, "10", "2", "compare your MAX and MIN cases"),
    )
    first = replace(first, groups=(replace(group, verdicts=group.verdicts + more),))
    record = replace(record, rules=(first, *others))
    assert class_report.summarise([record]).mistakes == ()


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_summary_csv_neutralises_cells_a_spreadsheet_would_run(start: str) -> None:
    record = _record(f'{start}HYPERLINK("http://x")', {}, status=f"{start}cmd|' /C calc'!A0")
    rows = list(csv.reader(io.StringIO(class_report.summary_csv(class_report.summarise([record])))))
    texts = [cell for row in rows for cell in row if cell]
    assert texts and not any(cell.startswith(start) for cell in texts)


def test_the_terminal_table_fits_80_columns_and_shows_every_rules_points() -> None:
    records = [
        _record(
            "a_student_with_a_very_long_identifier_from_the_lms_" * 2, {"alphabeta_pruning": 7}
        ),
        _record("eve[bold]x\x1b[31m", {}, status="could not load"),
    ]
    console = Console(width=80, record=True, color_system=None)
    console.print(terminal.terminal_table(records))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    for rule_id in RULE_IDS:  # the rules these records hold
        assert terminal.SHORT_NAMES[rule_id] in text
    assert re.search(r"\b7\b", text) and "67/70" in text
    assert "eve[bold]x" in text and "\x1b" not in text


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small class graded once: correct, one mistake, broken, and a time-out."""
    folder = tmp_path_factory.mktemp("class")
    for student in STUDENTS:
        shutil.copy(CLASS / f"{student}.ipynb", folder)
    out = tmp_path_factory.mktemp("grades")
    argv = ["grade", str(folder), "--out", str(out), "--quiet", "--timeout", "2", "--similarity"]
    assert main(argv) == 0
    return out


def test_every_run_writes_a_self_contained_class_page(graded: Path) -> None:
    page = (graded / "class.html").read_text()
    assert "<svg id='histogram'" in page and page.count("class='bin'") == 10
    assert not re.search(r"(src|href)=['\"](https?:)?//", page)  # nothing fetched
    for student in STUDENTS:
        assert f"{student}/feedback.html" in page
        assert (graded / student / "feedback.html").is_file()
    mistakes = page[page.index("id='mistakes'") :]
    assert "max and min the wrong way round" in mistakes and "heidi_root_picks_min" in mistakes
    assert "rupert_broken_json" in page[page.index("id='ungraded'") :]
    assert "trent_infinite_loop" in page[page.index("id='timeouts'") :]
    similar = page[page.index("Similar submissions") : page.index("<h2>Time")]
    assert "href='similarity.html'" in similar and (graded / "similarity.html").is_file()


def test_summary_csv_has_the_class_figures_and_a_row_per_rule(graded: Path) -> None:
    rows = list(csv.DictReader(io.StringIO((graded / "summary.csv").read_text())))
    figures = {row["what"]: row["count"] for row in rows if row["kind"] == "class"}
    assert figures["students"] == "4"
    scores = sorted(float(json.loads((graded / s / "results.json").read_text())["score"])
                    for s in STUDENTS)  # fmt: skip
    assert float(figures["mean score"]) == pytest.approx(sum(scores) / 4, abs=0.01)
    assert [row["rule"] for row in rows if row["kind"] == "rule"] == list(RULE_IDS)


def test_regrading_one_student_keeps_everyone_else(graded: Path, tmp_path: Path) -> None:
    out = tmp_path / "grades"
    shutil.copytree(graded, out)
    (out / "ghost").mkdir()  # a folder the grader never wrote must not become a student
    (out / "ghost" / "results.json").write_text(
        json.dumps({"score": 100, "extra_data": {"record": _record("ghost", {}).to_json()}})
    )
    alice = CLASS / "alice_correct.ipynb"
    assert main(["grade", str(alice), "--out", str(out), "--force", "--quiet"]) == 0
    with open(out / "grades.csv", newline="") as handle:
        students = [row["student"] for row in csv.DictReader(handle)]
    assert students == sorted(STUDENTS)
    assert json.loads((out / files.MANIFEST).read_text()) == sorted(STUDENTS)
    page = (out / "class.html").read_text()
    assert "ghost" not in page and "rupert_broken_json" in page


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed here")
def test_the_class_page_renders_its_histogram_in_chromium(graded: Path, tmp_path: Path) -> None:
    from PIL import Image  # matplotlib's dependency

    shot = tmp_path / "class.png"
    subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1000,900",
         f"--screenshot={shot}", (graded / "class.html").as_uri()],
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    image = Image.open(shot).convert("RGB")
    colours = {colour: count for count, colour in image.getcolors(maxcolors=1 << 24)}
    bars = colours.get((0x4C, 0x7B, 0xD9), 0)
    assert bars > 2000, "the histogram's bars and the rule bars should be drawn"


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--timeout", "0"], "must be a positive number of seconds"),
        (["--timeout", "-3"], "must be a positive number of seconds"),
        (["--timeout", "nan"], "must be a positive number of seconds"),
        (["--memory", "8"], f"at least {64} MiB"),
        (["--workers", "0"], "at least one worker"),
        (["--out-is-a-file"], "is a file"),
        (["--missing-path"], "does not exist"),
    ],
)
def test_bad_settings_are_refused_in_one_line_on_stderr_even_when_quiet(
    tmp_path: Path, options: list[str], says: str
) -> None:
    out, paths = tmp_path / "out", [str(CLASS / "alice_correct.ipynb")]
    if options == ["--out-is-a-file"]:
        out.write_text("not a folder")
        options = []
    elif options == ["--missing-path"]:
        paths.append(str(tmp_path / "no_such_student.ipynb"))
        options = []
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", *paths, "--out", str(out), "--quiet",
         *options],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in done.stderr
    assert not (out / "grades.csv").exists()


def test_files_of_a_run_are_readable_by_the_instructor(tmp_path: Path, monkeypatch) -> None:
    from autograder.reports.files import write_atomically

    target = tmp_path / "out" / "alice" / "results.json"
    write_atomically(target, "{}")
    assert target.stat().st_mode & 0o777 == 0o600  # the instructor's alone (issue 33)
    assert target.parent.stat().st_mode & 0o777 == 0o700
    if os.geteuid() != 0:
        return  # the ownership half needs root, as a run through sudo has
    monkeypatch.setenv("SUDO_UID", "4242")
    monkeypatch.setenv("SUDO_GID", "4343")
    write_atomically(tmp_path / "sudo" / "bob" / "results.json", "{}")
    for path in (tmp_path / "sudo", tmp_path / "sudo" / "bob", tmp_path / "sudo/bob/results.json"):
        assert (path.stat().st_uid, path.stat().st_gid) == (4242, 4343)


HOSTILE_NAMES = ("\x1b[2Jwiped", "back\rover", "=1+1", "tab\tin", "\u202eevil", "line\nbreak")


def _every_csv(names: tuple[str, ...]) -> dict[str, str]:
    """Every CSV the grader writes, about students with `names` (which need not be valid)."""
    from autograder.contest.standings import Standing
    from autograder.contest.tournament import leaderboard_csv
    from autograder.platforms import lms
    from autograder.reports.similarity import Match, similarity_csv

    records = [
        _record(name, {"minimax_value": 0}, status=f"could not load {name}", hint="1 loop")
        for name in names
    ]
    summary = class_report.summarise(records)
    standings = [Standing(name, 25, 8, 1) for name in names]
    roster = {name: lms.Student(name, name, name) for name in names}
    return {
        "grades.csv": files.grades_csv(records),
        "summary.csv": class_report.summary_csv(summary),
        "leaderboard.csv": leaderboard_csv(standings, [(name, name) for name in names]),
        "canvas.csv": lms.canvas_csv(records, roster, "Minimax"),
        "moodle.csv": lms.moodle_csv(records, roster),
        "similarity.csv": similarity_csv([Match(n, n, 1, 1, (), ()) for n in names]),
    }


@pytest.mark.parametrize("written", ["grades.csv", "summary.csv", "leaderboard.csv", "canvas.csv",
                                     "moodle.csv", "similarity.csv"])  # fmt: skip
def test_every_csv_shows_a_hostile_name_as_text_a_spreadsheet_never_runs(written: str) -> None:
    text = _every_csv(HOSTILE_NAMES)[written]
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    assert "\\x1b[2Jwiped" in cells or any("\\x1b[2Jwiped" in cell for cell in cells)
    for cell in cells:
        assert not re.search(r"[\x00-\x1f\x7f-\x9f\u202e]", cell), (written, cell)
        assert cell[:1] not in ("=", "+", "-", "@"), (written, cell)


def test_a_rosters_names_stand_beside_the_ids_in_the_terminal_page_and_files() -> None:
    late = Verdict("an instance", False, "10", "no answer in time", "an infinite loop, or a "
                   "search far larger than needed")  # fmt: skip
    records = [
        _record("12513", {"minimax_value": 0}, hint="an infinite loop, or a search far larger"),
        _record("12514", {}, status="could not load the submission"),
        _record("99999", {}),
    ]
    first = records[0].rules[0]
    group = replace(first.groups[0], verdicts=(late,))
    records[0] = replace(records[0], rules=(replace(first, groups=(group,)), *records[0].rules[1:]))
    names = {"12513": "Jane Smith", "12514": "Li \x1b[2JWei"}
    console = Console(width=80, record=True, color_system=None)
    console.print(terminal.terminal_table(records, names=names))
    summary = class_report.summarise(records, names)
    for line in terminal.closing_lines(summary, Path("out")):
        console.print(line)
    text = console.export_text()
    assert "12513 (Jane Smith)" in text and "99999 " in text and "99999 (" not in text
    assert "time-outs: 12513 (Jane Smith): 1" in text
    assert "12514 (Li \\x1b[2JWei): could not load" in text and "\x1b" not in text
    page = class_report.class_html(summary, class_report.NOT_ASKED)
    assert "<a href='12513/feedback.html'>12513 (Jane Smith)</a>" in page
    assert "12514 (Li \x1b[2JWei)" not in files.grades_csv(records, names)
    rows = list(csv.DictReader(io.StringIO(files.grades_csv(records, names))))
    assert [row["name"] for row in rows] == ["Jane Smith", "Li \\x1b[2JWei", ""]
    assert "12513 (Jane Smith)" in class_report.summary_csv(summary)
    assert "name" not in files.grades_csv(records).splitlines()[0].split(",")
