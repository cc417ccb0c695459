"""What the grading command prints: an 80-column table, the class's few numbers, and text that
a student id cannot turn into terminal control."""

from __future__ import annotations

from pathlib import Path

from rich import box
from rich.markup import escape
from rich.table import Table

from autograder.grading.records import GradeRecord
from autograder.reports.class_report import ClassSummary, _number
from autograder.reports.diagnoses import diagnosed
from autograder.reports.files import graded_rule_ids
from autograder.reports.roster import labelled
from autograder.reports.text import printable

SHORT_NAMES = {
    "minimax_value": "mmV",
    "minimax_decision": "mmD",
    "alphabeta_value": "abV",
    "alphabeta_decision": "abD",
    "alphabeta_pruning": "abP",
    "depth_limited_value": "dlV",
    "depth_limited_decision": "dlD",
    "expectiminimax_value": "emV",
    "expectiminimax_decision": "emD",
    "maxn_value": "mnV",
    "maxn_decision": "mnD",
    "agent_beats_random": "rnd",
    "agent_beats_depth_2": "ab2",
    "agent_beats_depth_4": "ab4",
    "agent_wins_endgames": "end",
    "agent_keeps_the_value": "pos",
    "agent_moves_in_time": "clk",
}


def plain_text(text: str) -> str:
    """`printable(text)` with rich markup escaped, for the rich console (`eve[bold]x` stays)."""
    return escape(printable(text))


def terminal_table(
    records: list[GradeRecord], width: int = 80, names: dict[str, str] | None = None
) -> Table:
    """The class at a glance in at most `width` columns: a short header per rule (the legend
    below the table names them), every rule's points shown, the roster's `names` beside the
    ids, long ones cut with an ellipsis."""
    rule_ids = graded_rule_ids(records)
    table = Table(
        title="Grades", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), collapse_padding=True
    )
    numbers = 9 + 4 * len(rule_ids)  # the score, and three digits and a space per rule
    table.add_column("student", no_wrap=True, overflow="ellipsis", max_width=width - numbers - 6)
    table.add_column("score", justify="right", no_wrap=True, min_width=7)
    for rule_id in rule_ids:
        table.add_column(
            SHORT_NAMES.get(rule_id, rule_id[:3]), justify="right", no_wrap=True, min_width=3
        )
    for record in sorted(records, key=lambda r: r.student):
        rules = {rule.id: rule for rule in record.rules}
        cells = []
        for rule_id in rule_ids:
            rule = rules.get(rule_id)
            if rule is None:
                cells.append("-")
                continue
            style = "green" if rule.full else ("red" if rule.points == 0 else "yellow")
            cells.append(f"[{style}]{rule.points:g}[/{style}]")
        mark = "" if record.status == "graded" else " [red]![/red]"
        table.add_row(
            plain_text(labelled(record.student, names or {})) + mark,
            f"{record.score:g}/{record.max_score:g}",
            *cells,
        )
    legend = "  ".join(f"{SHORT_NAMES.get(r, r[:3])}={r}" for r in rule_ids)
    flagged = any(record.status != "graded" for record in records)
    table.caption = legend + ("; ! = not graded normally (see below)" if flagged else "")
    return table


def lone_lines(record: GradeRecord, others: int, out: Path) -> list[str]:
    """What the terminal ends with when one submission was graded into a folder: its score and
    where its feedback is, not a class mean (the folder's other students are only counted)."""
    lines = [
        f"{plain_text(record.student)}: {_number(record.score)} of {_number(record.max_score)}"
    ]
    if record.status != "graded":
        lines.append(f"[red]![/red] {plain_text(record.status)}")
    found = sorted(diagnosed(record))
    if found:
        lines.append("diagnosed: " + "; ".join(map(plain_text, found)))
    if others:
        lines.append(
            f"{out} also holds {others} other student(s) graded earlier: grades.csv and "
            f"class.html list them all ({plain_text(str(out / 'class.html'))})"
        )
    return lines


def where_lines(records: list[GradeRecord], out: Path) -> str:
    """Where the grades and the feedback are: the very page when one submission was graded."""
    grades = plain_text(str(out / "grades.csv"))
    if len(records) == 1:
        page = plain_text(str(out / records[0].student / "feedback.html"))
        return f"grades: {grades}; feedback: {page}"
    return f"grades: {grades}; feedback: {plain_text(str(out))}/<student>/feedback.html"


def closing_lines(summary: ClassSummary, out: Path) -> list[str]:
    """The few numbers the terminal ends with (as rich markup, every student text escaped)."""
    lines = [
        f"{summary.students} submission(s): mean {_number(summary.mean)}, median "
        f"{_number(summary.median)} of {_number(summary.max_score)}",
    ]
    for student, status in summary.ungraded:
        lines.append(f"[red]![/red] {plain_text(summary.label(student))}: {plain_text(status)}")
    if summary.mistakes:
        ranked = "; ".join(
            f"{plain_text(label)} ({len(students)})" for label, students in summary.mistakes[:3]
        )
        lines.append(f"most common mistakes: {ranked}")
    if summary.timeouts:
        lines.append(
            "time-outs: "
            + ", ".join(f"{plain_text(summary.label(s))}: {n}" for s, n in summary.timeouts[:5])
        )
    lines.append(f"class report: {plain_text(str(out / 'class.html'))}")
    return lines
