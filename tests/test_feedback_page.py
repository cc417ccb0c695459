"""A student's feedback page: lost points first, one hint per mistake, a status said once."""

from __future__ import annotations

import re

from autograder.grading.judge import Verdict
from autograder.grading.records import GradeRecord, GroupResult, RuleResult
from autograder.reports.feedback_page import feedback_html

WORST = (
    "that action is worth {}, the best is worth 9; it is the worst action for the player to "
    "move: is max/min the right way round?"
)


def _verdict(passed: bool, hint: str = "", got: str = "3", states: int | None = None) -> Verdict:
    return Verdict("a tree", passed, "9", got, hint, states, picture="GameTree([[1, 2]])")


def _record(groups: dict[str, list[Verdict]], status: str = "graded", messages=()) -> GradeRecord:
    rules = []
    for rule_id, verdicts in groups.items():
        points = 5 if verdicts and all(v.passed for v in verdicts) else 0
        group = GroupResult(f"{rule_id} group", rule_id, points, 5, tuple(verdicts))
        rules.append(RuleResult(rule_id, "", points, 5, (group,)))
    score = sum(rule.points for rule in rules)
    return GradeRecord("ann", status, score, 5 * len(rules), messages=tuple(messages),
                       rules=tuple(rules))  # fmt: skip


def test_the_first_lost_point_comes_before_the_passed_groups_which_are_folded() -> None:
    page = feedback_html(
        _record({"minimax_value": [_verdict(True)], "minimax_decision": [_verdict(False)]})
    )
    lost = page.index("minimax_decision group")
    assert page.index("Where points were lost") < lost < page.index("<details class='passed'>")
    folded = page[page.index("<details") : page.index("</details>")]
    assert "minimax_value group" in folded and "minimax_decision group" not in folded


def test_one_mistake_gets_one_hint_across_its_instances() -> None:
    verdicts = [_verdict(False, WORST.format(value)) for value in (1, 2, 3)]
    page = feedback_html(_record({"minimax_decision": verdicts}))
    assert page.count("is max/min the right way round") == 1
    assert page.count("the same mistake as") == 2
    first = re.search(r"id='(minimax_decision-[^']+)'", page).group(1)
    assert f"href='#{first}'" in page


def test_a_pruning_verdict_labels_the_returned_value_beside_the_state_count() -> None:
    verdict = _verdict(False, "too many", got="1,234 states generated; 7", states=1234)
    page = feedback_html(_record({"alphabeta_pruning": [verdict]}))
    assert "<dt>States your search generated</dt><dd>1,234</dd>" in page
    assert "<dt>Your function returned</dt><dd>7</dd>" in page


def test_a_broken_notebooks_status_appears_once() -> None:
    status = "ann.ipynb is not a valid notebook (not JSON)"
    record = _record({"minimax_value": [], "minimax_decision": []}, status=status,
                     messages=[f"{status}: no function could be graded"])  # fmt: skip
    page = feedback_html(record)
    assert page.count("is not a valid notebook") == 1
    assert "Nothing could be graded" in page and "Not graded" not in page
    assert "href='#minimax_value'" not in page  # no link to a section that does not exist


def test_a_student_who_passed_everything_is_told_so() -> None:
    page = feedback_html(_record({"minimax_value": [_verdict(True)]}))
    assert "id='all-passed'" in page and "Where points were lost" not in page


def test_the_first_lost_point_comes_before_everything_and_the_notebooks_own_checks_fold_below():
    own = (
        "code cell 9, line 2 of ann.ipynb raised an exception: AssertionError: players do not "
        "alternate: every level maximises; the other cells were still run"
    )
    other = "a second file for ann was skipped: ann_Untitled.ipynb"
    record = _record(
        {"alphabeta_value": [_verdict(True)], "alphabeta_decision": [_verdict(False, "why")]},
        messages=[own, other],
    )
    page = feedback_html(record)
    body = page[page.index("<p id='status'>") :]
    first_lost = body.index("alphabeta_decision group")
    for later in ("class='messages'", "<table class='rules'>", "own-checks", "players do not"):
        assert first_lost < body.index(later), later
    folded = page[page.index("<details class='own-checks'>") :]
    folded = folded[: folded.index("</details>")]
    assert "players do not alternate" in folded and "1 of your notebook's own checks" in folded
    messages = page[page.index("class='messages'") :]
    assert other in messages[: messages.index("</div>")]
    assert "players do not" not in messages[: messages.index("</div>")]


def test_a_page_that_lost_points_in_the_contest_says_how_a_move_is_limited_once() -> None:
    verdicts = [_verdict(False, "forfeited: it used more than 3 s of CPU time")] * 2
    groups = [
        GroupResult(name, "connect_four_agent", 0, 10, tuple(verdicts)) for name in ("a", "b")
    ]
    rules = tuple(RuleResult(f"rule_{g.name}", "games", 0, 10, (g,)) for g in groups)
    page = feedback_html(GradeRecord("ann", "graded", 0, 20, rules=rules))
    assert page.count("How a move is limited") == 1
    assert "raises OutOfStates" in page and "the wall clock is never counted" in page
    assert "How a move is limited" not in feedback_html(_record({"minimax_value": verdicts}))
