"""What the grading command prints: an 80-column table, the class's few numbers, and text that
a student id cannot turn into terminal control."""

from __future__ import annotations

from pathlib import Path

from rich import box
from rich.markup import escape
from rich.table import Table

from autograder.grading.records import GradeRecord
from autograder.reports.class_report import ClassSummary, _number
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
    table.caption = f"{legend}; ! = not graded normally (see below)"
    return table


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
