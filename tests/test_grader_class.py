"""Grading the bundled example class: every mutant loses exactly the rules its mistake breaks."""

from __future__ import annotations

import csv
import html
import json
import re
import shutil
from pathlib import Path

import graded_class
import pytest
from example_class import make_class

from autograder.cli import main
from autograder.grading.mistakes import MISTAKES
from autograder.grading.rules import CHANCE_AND_MAXN_RULE_IDS, RULE_IDS
from autograder.reports.class_report import summarise
from autograder.reports.files import read_saved

ROOT = Path(__file__).resolve().parents[1]
CLASS = ROOT / "examples" / "class"


MAKE_CLASS = make_class  # the one place that says what each student should lose
LOSES = {student: set(rules) & set(RULE_IDS) for student, rules in MAKE_CLASS.SHOULD_LOSE.items()}
"""What each student loses when the class is graded on the rules of lectures 1-4 (the default)."""
LOSES_IN_ASSIGNMENT_6 = {
    student: set(MAKE_CLASS.SHOULD_LOSE[student]) & set(CHANCE_AND_MAXN_RULE_IDS)
    for student in MAKE_CLASS.DID_ASSIGNMENT_6
}
TIMEOUT = list(graded_class.TIMEOUT)
"""The call limit of every run here (see tests/graded_class.py)."""
SCORES_NOTHING = {"judy_no_alternation", "rupert_broken_json", "xavier_random_moves",
                  "yves_empty", "zack_first_action"}  # fmt: skip


pytestmark = pytest.mark.xdist_group(graded_class.GROUP)  # the class run is shared


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole class graded with two workers (once per test process: tests/graded_class.py)."""
    return graded_class.example_class_graded(tmp_path_factory)


def _rows(out: Path) -> dict[str, dict]:
    with open(out / "grades.csv", newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def _record(out: Path, student: str) -> dict:
    return json.loads((out / student / "results.json").read_text())["extra_data"]["record"]


def test_grades_csv_has_one_row_per_student_and_the_documented_columns(graded: Path) -> None:
    with open(graded / "grades.csv", newline="") as handle:
        header = next(csv.reader(handle))
    assert header == ["student", "score", "max_score", *RULE_IDS, "status"]
    assert set(_rows(graded)) == set(LOSES)


@pytest.mark.parametrize("student", sorted(LOSES))
def test_each_student_loses_exactly_the_rules_its_mistake_breaks(graded: Path, student: str):
    record = _record(graded, student)
    lost = {rule["id"] for rule in record["rules"] if rule["points"] < rule["max_points"]}
    assert lost == LOSES[student], record["messages"]
    if student in SCORES_NOTHING:
        assert record["score"] == 0


def test_correct_submissions_with_any_tie_breaking_score_full_marks(graded: Path) -> None:
    rows = _rows(graded)
    for student in ("alice_correct", "bob_last_ties", "carol_negamax", "wendy_noisy_but_correct"):
        assert rows[student]["score"] == "100" and rows[student]["status"] == "graded"


def test_strict_cutoff_keeps_pruning_points_without_ties_and_loses_only_the_tie_group(
    graded: Path,
) -> None:
    pruning = next(r for r in _record(graded, "dan_strict_cutoff")["rules"]
                   if r["id"] == "alphabeta_pruning")  # fmt: skip
    lost = [g for g in pruning["groups"] if g["points"] < g["max_points"]]
    assert [g["name"] for g in lost] == ["tic-tac-toe (ties everywhere)"]
    assert pruning["points"] == 15
    hint = next(v for v in lost[0]["verdicts"] if not v["passed"])["hint"]
    assert "cut-offs are strict" in hint and "ties would prune" in hint


@pytest.mark.parametrize(
    "student, words",
    [(m.student, m.hint) for m in MISTAKES if m.student and set(m.loses) <= set(RULE_IDS)]
    + [("yolanda_beta_min_alpha", "fewer states than a correct alpha-beta")],
)
def test_feedback_names_the_likely_mistake(graded: Path, student: str, words: str) -> None:
    """The catalogue's every mistake is named, in its own words, on its student's page."""
    assert html.escape(words, quote=True) in (graded / student / "feedback.html").read_text()


def test_the_example_class_grades_as_the_stored_fixture(graded: Path) -> None:
    """A regression fixture: tests/fixtures/example_class_grades.csv is grades.csv as it was
    when the judge became one (the two students of the transposition-table and cut-off-tie
    mistakes added after); any change to a grade must be meant, and the fixture updated."""
    fixture = ROOT / "tests" / "fixtures" / "example_class_grades.csv"
    with open(fixture, newline="") as handle:
        stored = {row["student"]: row for row in csv.DictReader(handle)}
    assert _rows(graded) == stored


def test_a_broken_notebook_gets_a_clear_status_and_the_class_is_still_graded(graded: Path):
    rows = _rows(graded)
    assert "is not a valid notebook" in rows["rupert_broken_json"]["status"]
    assert rows["rupert_broken_json"]["score"] == "0"
    assert rows["alice_correct"]["score"] == "100"


def test_a_syntax_error_names_the_cell_and_the_other_functions_are_graded(graded: Path):
    record = _record(graded, "sybil_syntax_error")
    assert any("syntax error" in m and "code cell" in m for m in record["messages"])
    assert record["score"] == 55


def test_an_infinite_loop_costs_only_that_function(graded: Path) -> None:
    record = _record(graded, "trent_infinite_loop")
    assert any("no answer within" in m for m in record["messages"])
    assert record["score"] == 55


def test_missing_and_unimplemented_functions_are_reported_by_name(graded: Path) -> None:
    empty = _record(graded, "yves_empty")
    assert any(m.startswith("minimax_value is not defined") for m in empty["messages"])
    partial = (graded / "quentin_partial" / "feedback.html").read_text()
    assert "not implemented" in partial


def test_results_json_follows_the_gradescope_format(graded: Path) -> None:
    results = json.loads((graded / "erin_max_starts_at_zero" / "results.json").read_text())
    assert results["score"] == sum(test["score"] for test in results["tests"])
    for test in results["tests"]:
        assert set(test) >= {"name", "score", "max_score", "output"}
    assert [t["name"].split(":")[0] for t in results["tests"]] == list(RULE_IDS)


def test_feedback_is_self_contained_and_draws_small_trees_on_lost_pruning(graded: Path):
    page = (graded / "mallory_fresh_window" / "feedback.html").read_text()
    assert "data:image/svg+xml;base64," in page
    assert "http://" not in page and "https://" not in page and "<link" not in page


def test_rerunning_skips_unchanged_students_and_force_regrades(graded: Path, capsys) -> None:
    before = (graded / "grades.csv").read_text()
    stamp = (graded / "alice_correct" / "results.json").stat().st_mtime_ns
    assert main(["grade", str(CLASS / "alice_correct.ipynb"), "--out", str(graded), *TIMEOUT]) == 0
    assert "already graded" in capsys.readouterr().out
    assert (graded / "alice_correct" / "results.json").stat().st_mtime_ns == stamp
    assert main(["grade", str(CLASS / "alice_correct.ipynb"), "--out", str(graded), *TIMEOUT,
                 "--force", "--quiet"]) == 0  # fmt: skip
    assert (graded / "alice_correct" / "results.json").stat().st_mtime_ns != stamp
    assert _record(graded, "alice_correct")["score"] == 100
    assert before.count("\n") == len(LOSES) + 1


# -- Assignment 6, graded on its own (--assignment chance_and_maxn) ----------------------------

ASSIGNMENT_6_CLASS = (
    *sorted(MAKE_CLASS.DID_ASSIGNMENT_6),
    "bob_last_ties",  # lectures 1-4 only, correct
    "heidi_root_picks_min",  # lectures 1-4 only, a mistake
    "rupert_broken_json",  # not a notebook
    "sybil_syntax_error",  # a cell that does not compile
    "trent_infinite_loop",  # a function that never answers, never called here
)
"""Who the Assignment 6 run grades: everyone who did it, and one of each kind of the class's
other notebooks (whose status is all this run can check of them; the other 28 cost a third of
the run's CPU for the same checks)."""
ASSIGNMENT_6_TIMEOUT = ("--timeout", "30")


@pytest.fixture(scope="module")
def graded_assignment_6(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The class graded on Assignment 6: the students who did it, and some who did not."""
    folder = tmp_path_factory.mktemp("assignment-6-class")
    for student in ASSIGNMENT_6_CLASS:
        shutil.copy(CLASS / f"{student}.ipynb", folder)
    out = tmp_path_factory.mktemp("assignment-6")
    command = ["grade", str(folder), "--assignment", "chance_and_maxn", "--out", str(out)]
    # No function here runs forever (trent's are not Assignment 6's), so the call limit is only a
    # safety net: at 3 s an honest expectiminimax on Pig ran out at a load of 16.
    assert main([*command, *ASSIGNMENT_6_TIMEOUT, "--workers", "2", "--quiet"]) == 0
    return out


@pytest.mark.parametrize("student", sorted(LOSES_IN_ASSIGNMENT_6))
def test_each_assignment_6_student_loses_exactly_the_rules_of_its_mistake(
    graded_assignment_6: Path, student: str
) -> None:
    record = _record(graded_assignment_6, student)
    assert [rule["id"] for rule in record["rules"]] == list(CHANCE_AND_MAXN_RULE_IDS)
    lost = {rule["id"] for rule in record["rules"] if rule["points"] < rule["max_points"]}
    assert lost == LOSES_IN_ASSIGNMENT_6[student], record["messages"]


@pytest.mark.parametrize(
    "student, words",
    [
        (m.student, m.hint)
        for m in MISTAKES
        if m.student and set(m.loses) <= set(CHANCE_AND_MAXN_RULE_IDS)
    ],
)
def test_assignment_6_feedback_names_the_mistake(
    graded_assignment_6: Path, student: str, words: str
) -> None:
    page = (graded_assignment_6 / student / "feedback.html").read_text()
    assert html.escape(words, quote=True) in page


def test_assignment_6_columns_and_the_students_who_did_not_hand_it_in(
    graded_assignment_6: Path,
) -> None:
    with open(graded_assignment_6 / "grades.csv", newline="") as handle:
        header = next(csv.reader(handle))
    assert header == ["student", "score", "max_score", *CHANCE_AND_MAXN_RULE_IDS, "status"]
    rows = _rows(graded_assignment_6)
    assert rows["alice_correct"]["score"] == rows["alice_correct"]["max_score"] == "50"
    assert rows["bob_last_ties"]["score"] == "0"
    assert "none of the graded functions is defined" in rows["bob_last_ties"]["status"]


def test_the_class_page_files_each_student_once_under_the_mistake_their_answers_show(
    graded: Path,
) -> None:
    """A decision's guess ("is max/min the right way round?") is no diagnosis for a student
    whose value functions fail or whose lost moves have another explanation."""
    records = [read_saved(path).record for path in sorted(graded.glob("*/results.json"))]
    summary = summarise(records)
    filed = dict(summary.mistakes)
    assert filed["max and min the wrong way round (picks the worst move)"] == (
        "heidi_root_picks_min",
    )
    by_student = {student: found for student, _, _, found in summary.roll}
    assert by_student["judy_no_alternation"] == ("players do not alternate",)
    for student in ("abel_table_bound_as_exact", "peggy_last_child", "zack_first_action"):
        assert "max and min the wrong way round (picks the worst move)" not in by_student[student]
    page = (graded / "class.html").read_text(encoding="utf-8")
    table = page[page.index("<table id='students'>") :]
    table = table[: table.index("</table>")]
    assert all(table.count(f"{student}/feedback.html") == 1 for student in by_student)
    assert "players do not alternate" in table


def test_a_decision_is_pointed_at_its_failing_value_function_not_told_to_swap_max_and_min(
    graded: Path,
) -> None:
    record = read_saved(graded / "judy_no_alternation" / "results.json").record
    hints = [
        verdict.hint
        for rule in record.rules
        if rule.id == "minimax_decision"
        for group in rule.groups
        for verdict in group.verdicts
        if not verdict.passed
    ]
    own = "your decision is right for the values minimax_value returns; fix minimax_value"
    assert hints and all(own in h for h in hints)
    assert not any("is max/min the right way round" in h for h in hints)
    heidi = read_saved(graded / "heidi_root_picks_min" / "results.json").record
    assert any("is max/min the right way round" in v.hint for v in heidi.verdicts())


def test_no_example_student_is_told_of_a_table_kept_between_calls(graded: Path) -> None:
    """None of them keeps one: xavier and zack answer without searching (a repeated position
    is not a table's), and the others search every position they generate (a tree's path that
    was an inner node in another tree is a leaf here)."""
    told = [
        student
        for student in _rows(graded)
        if "carries positions over" in json.dumps(_record(graded, student))
    ]
    assert told == []


def test_the_class_page_names_a_mistake_or_says_why_for_every_student_who_lost_points(
    graded: Path,
) -> None:
    """No blank diagnosis beside a student whose page names a hint: the mistake their page
    names (a timeout, a child returned for an action, a guess that fits most instances), or why
    no mistake is named."""
    page = (graded / "class.html").read_text(encoding="utf-8")
    table = page[page.index("<table id='students'>") :]
    table = table[: table.index("</table>")]
    rows = re.findall(r"<tr><td>.*?([a-z]+_[a-z_]+)/feedback\.html.*?</td><td class='num'>"
                      r"([\d.]+) / ([\d.]+)</td><td>(.*?)</td></tr>", table)  # fmt: skip
    assert len(rows) == len(LOSES)
    said = {student: text for student, score, most, text in rows if score != most}
    assert all(said.values()), [student for student, text in said.items() if not text]
    for student in ("grace_min_never_cuts", "ivan_returns_child", "peggy_last_child",
                    "trent_infinite_loop", "victor_no_terminal_test"):  # fmt: skip
        assert "no catalogued mistake" not in said[student], (student, said[student])
