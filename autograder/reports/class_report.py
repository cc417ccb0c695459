"""The instructor's view of a whole class: class.html, summary.csv and the terminal's last lines."""

from __future__ import annotations

import csv
import html
import io
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from autograder.grading.records import GradeRecord, GroupResult, RuleResult
from autograder.grading.rules import ALL_RULE_IDS, PLAYED_RULE_IDS
from autograder.reports import files
from autograder.reports.diagnoses import diagnosed
from autograder.reports.files import spreadsheet_text, write_atomically
from autograder.reports.histogram import score_histogram
from autograder.reports.roster import labelled

if TYPE_CHECKING:
    from autograder.reports import similarity


@dataclass(frozen=True)
class RuleCount:
    """How many students earned all of a rule's (or one group's) points."""

    rule: str
    group: str
    max_points: float
    passed: int
    students: int
    mean_points: float


@dataclass(frozen=True)
class ClassSummary:
    """What class.html, summary.csv and the terminal's closing lines say, as plain data."""

    students: int
    max_score: float
    scores: tuple[float, ...]
    mean: float
    median: float
    counts: tuple[RuleCount, ...]
    mistakes: tuple[tuple[str, tuple[str, ...]], ...]  # (label, students), most common first
    ungraded: tuple[tuple[str, str], ...]  # (student, status)
    slowest: tuple[tuple[str, float], ...]
    timeouts: tuple[tuple[str, int], ...]  # (student, calls that ran out of time)
    names: dict[str, str] = field(default_factory=dict)  # the roster's, by LMS id
    roll: tuple[tuple[str, float, str, tuple[str, ...]], ...] = ()  # student, score, status,
    # the mistakes diagnosed: every student, in name order
    flagged: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (student, the record's flags)

    def label(self, student: str) -> str:
        """The student id with the roster's name beside it: "12513 (Jane Smith)"."""
        return labelled(student, self.names)


def summarise(records: list[GradeRecord], names: dict[str, str] | None = None) -> ClassSummary:
    """Count what the class did: scores, rules and groups passed, mistakes, failures, time
    (with the roster's `names` of the students, by LMS id, to show beside the ids)."""
    records = sorted(records, key=lambda r: r.student)
    scores = tuple(float(r.score) for r in records)
    mistakes: dict[str, set[str]] = {}
    timeouts, roll = [], []
    for record in records:
        found = sorted(diagnosed(record))
        roll.append((record.student, float(record.score), record.status, tuple(found)))
        for label in found:
            mistakes.setdefault(label, set()).add(record.student)
        late = sum(verdict.got == "no answer in time" for verdict in record.verdicts())
        if late:
            timeouts.append((record.student, late))
    return ClassSummary(
        students=len(records),
        max_score=max((float(r.max_score) for r in records), default=0.0),
        scores=scores,
        mean=statistics.fmean(scores) if scores else 0.0,
        median=statistics.median(scores) if scores else 0.0,
        counts=tuple(_rule_counts(records)),
        mistakes=tuple(
            (label, tuple(sorted(students)))
            for label, students in sorted(mistakes.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        ),
        ungraded=tuple((r.student, r.status) for r in records if r.status != "graded"),
        slowest=tuple(
            (r.student, float(r.seconds))
            for r in sorted(records, key=lambda r: -float(r.seconds))[:5]
        ),
        timeouts=tuple(sorted(timeouts, key=lambda item: (-item[1], item[0]))),
        names=dict(names or {}),
        roll=tuple(roll),
        flagged=tuple((r.student, tuple(r.flags)) for r in records if r.flags),
    )


def _rule_counts(records: list[GradeRecord]) -> list[RuleCount]:
    """A count for every rule, followed by one for each of its groups."""
    items: dict[tuple[str, str], list[RuleResult | GroupResult]] = {}
    for record in records:
        for rule in record.rules:
            items.setdefault((rule.id, ""), []).append(rule)
            for group in rule.groups:
                items.setdefault((rule.id, group.name), []).append(group)
    order = {rule_id: index for index, rule_id in enumerate((*ALL_RULE_IDS, *PLAYED_RULE_IDS))}
    keys = sorted(items, key=lambda key: (order.get(key[0], len(order)), key[0], key[1] != ""))
    return [
        RuleCount(
            rule=rule_id,
            group=group,
            max_points=float(items[rule_id, group][0].max_points),
            passed=sum(item.full for item in items[rule_id, group]),
            students=len(items[rule_id, group]),
            mean_points=statistics.fmean(float(item.points) for item in items[rule_id, group]),
        )
        for rule_id, group in keys
    ]


# -- summary.csv ------------------------------------------------------------------------------


def summary_csv(summary: ClassSummary) -> str:
    """One row per figure: kind, rule, group, what, count, of (the number it is a share of)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["kind", "rule", "group", "what", "count", "of"])
    n = summary.students
    writer.writerow(["class", "", "", "students", n, ""])
    writer.writerow(
        ["class", "", "", "mean score", _number(summary.mean), _number(summary.max_score)]
    )
    writer.writerow(["class", "", "", "median score", _number(summary.median),
                     _number(summary.max_score)])  # fmt: skip
    for count in summary.counts:
        kind = "group" if count.group else "rule"
        what = "students with full points"
        writer.writerow(
            [kind, count.rule, spreadsheet_text(count.group), what, count.passed, count.students]
        )
    for label, students in summary.mistakes:
        writer.writerow(["mistake", "", "", spreadsheet_text(label), len(students), n])
    for student, status in summary.ungraded:
        what = f"{summary.label(student)}: {status}"
        writer.writerow(["not graded", "", "", spreadsheet_text(what), 1, n])
    for student, late in summary.timeouts:
        writer.writerow(["time-outs", "", "", spreadsheet_text(summary.label(student)), late, ""])
    for student, flags in summary.flagged:
        what = f"{summary.label(student)}: {'; '.join(flags)}"
        writer.writerow(["flagged", "", "", spreadsheet_text(what), len(flags), ""])
    return buffer.getvalue()


def _number(value: float) -> str:
    return f"{value:.4g}"


# -- class.html -------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 2rem auto;
       max-width: 64rem; color: #1d2430; line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0; }
td, th { border-bottom: 1px solid #dde2ea; padding: .3rem .5rem; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.bar { background: #4c7bd9; height: .8rem; display: inline-block; border-radius: 2px; }
.sub td:first-child { padding-left: 1.6rem; color: #4a5568; }
.figures { display: flex; gap: 2rem; flex-wrap: wrap; }
.big { font-size: 1.8rem; font-weight: 700; }
.muted { color: #5f6b7a; } a { color: #2a5bb8; }
"""


def class_html(
    summary: ClassSummary,
    similar: similarity.Findings | list[tuple[str, str, float]] | None = None,
) -> str:
    """A self-contained page (inline SVG, nothing fetched) for the instructor. `similar` is
    what comparing the submissions found (the pairs alone will do; None: it could not be
    done; `NOT_ASKED`)."""
    n = summary.students
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Class report</title><style>{STYLE}</style></head><body>",
        "<h1>Class report</h1>",
        "<div class='figures'>",
        f"<div><div class='big'>{n}</div><div class='muted'>submissions</div></div>",
        f"<div><div class='big' id='mean'>{_number(summary.mean)}</div>"
        f"<div class='muted'>mean of {_number(summary.max_score)}</div></div>",
        f"<div><div class='big' id='median'>{_number(summary.median)}</div>"
        "<div class='muted'>median</div></div>",
        f"<div><div class='big'>{len(summary.ungraded)}</div>"
        "<div class='muted'>not graded normally</div></div>",
        "</div>",
        "<h2>Scores</h2>",
        histogram_svg(summary),
        "<h2>Rules and groups: students with full points</h2>",
        "<table id='rules'><tr><th>rule / group</th><th>points</th><th>full points</th>"
        "<th></th></tr>",
    ]
    parts += [_count_row(count) for count in summary.counts]
    parts.append("</table>")
    parts += _mistakes_html(summary)
    parts += _roll_html(summary)
    parts += _flagged_html(summary)
    parts += _ungraded_html(summary)
    parts += _similar_html(similar, summary.names)
    parts += _time_html(summary)
    parts.append("</body></html>")
    return "\n".join(parts)


def _count_row(count: RuleCount) -> str:
    share = count.passed / count.students if count.students else 0.0
    row_class = " class='sub'" if count.group else ""
    name = html.escape(count.group) if count.group else f"<b>{html.escape(count.rule)}</b>"
    return (
        f"<tr{row_class}><td>{name}</td><td class='num'>{_number(count.max_points)}</td>"
        f"<td class='num'>{count.passed} of {count.students}</td><td>"
        f"<span class='bar' style='width:{share * 12:.2f}rem'></span></td></tr>"
    )


def _mistakes_html(summary: ClassSummary) -> list[str]:
    esc = html.escape
    parts = ["<h2>Mistakes diagnosed, most common first</h2>"]
    if summary.mistakes:
        parts.append("<table id='mistakes'><tr><th>mistake</th><th>students</th><th></th></tr>")
        for label, students in summary.mistakes:
            links = ", ".join(_student_link(student, summary.names) for student in students)
            parts.append(
                f"<tr><td>{esc(label)}</td><td class='num'>{len(students)}</td>"
                f"<td>{links}</td></tr>"
            )
        parts.append("</table>")
    else:
        parts.append("<p>No mistake was diagnosed.</p>")
    return parts


def _roll_html(summary: ClassSummary) -> list[str]:
    """Every student, a row each: the score, the mistakes diagnosed (or the status)."""
    esc = html.escape
    parts = [
        "<h2>Students</h2>",
        "<table id='students'><tr><th>student</th><th>score</th><th>diagnosis</th></tr>",
    ]
    for student, score, status, found in summary.roll:
        said = "; ".join(found) if found else ("" if status == "graded" else status)
        if not said and score < summary.max_score:  # say why no mistake is named
            said = "no catalogued mistake explains the lost answers: see the student's page"
        parts.append(
            f"<tr><td>{_student_link(student, summary.names)}</td><td class='num'>"
            f"{_number(score)} / {_number(summary.max_score)}</td><td>{esc(said)}</td></tr>"
        )
    parts.append("</table>")
    return parts


def _flagged_html(summary: ClassSummary) -> list[str]:
    """What the contest flagged about how an agent used its allowance: on this page only, never
    on the student's (a flag moves no point; it tells the instructor where to look)."""
    if not summary.flagged:
        return []
    items = "".join(
        f"<li>{_student_link(student, summary.names)}: {html.escape('; '.join(flags))}</li>"
        for student, flags in summary.flagged
    )
    return ["<h2>Flagged for the instructor</h2>", f"<ul id='flagged'>{items}</ul>"]


def _ungraded_html(summary: ClassSummary) -> list[str]:
    esc = html.escape
    parts = ["<h2>Submissions that could not be graded normally</h2>"]
    if summary.ungraded:
        items = "".join(
            f"<li>{_student_link(student, summary.names)}: {esc(status)}</li>"
            for student, status in summary.ungraded
        )
        parts.append(f"<ul id='ungraded'>{items}</ul>")
    else:
        parts.append("<p>Every submission was graded.</p>")
    return parts


def _time_html(summary: ClassSummary) -> list[str]:
    parts = ["<h2>Time</h2><table id='slowest'><tr><th>slowest</th><th>seconds</th></tr>"]
    for student, seconds in summary.slowest:
        parts.append(
            f"<tr><td>{_student_link(student, summary.names)}</td>"
            f"<td class='num'>{seconds:.2f}</td></tr>"
        )
    parts.append("</table>")
    if summary.timeouts:
        items = "".join(
            f"<li>{_student_link(student, summary.names)}: {late} call(s)</li>"
            for student, late in summary.timeouts
        )
        parts.append(f"<p>Calls that ran out of time:</p><ul id='timeouts'>{items}</ul>")
    else:
        parts.append("<p>No call ran out of time.</p>")
    return parts


NOT_ASKED: list = []
"""`class_html`'s `similar` when the run was not asked to compare submissions (--similarity)."""


def _similar_html(similar: similarity.Findings | list | None, names: dict[str, str]) -> list[str]:
    parts = ["<h2>Similar submissions</h2>"]
    if similar is NOT_ASKED:
        return parts + [
            "<p>Not compared in this run: grade with <code>--similarity</code>, or run "
            "<code>python -m autograder similarity PATH... --out DIR</code>.</p>"
        ]
    if similar is None:
        return parts + ["<p>The submissions could not be compared.</p>"]
    if isinstance(similar, list):
        similar, not_compared = similar, ()
    else:
        if similar.failure:
            return parts + [f"<p>The submissions could not be compared: "
                            f"{html.escape(similar.failure)}.</p>"]  # fmt: skip
        similar, not_compared = list(similar.pairs), similar.not_compared
    parts += _not_compared_html(not_compared, names)
    parts.append(
        f"<p>{len(similar)} pair(s) look alike, or like the public reference solutions (a reason "
        "to look, not a verdict): <a href='similarity.html'>the matching code side by side</a>."
        "</p>"
    )
    if similar:
        rows = "".join(
            f"<tr><td class='num'>{score:.0%}</td><td>{_pair_name(left, names)}</td>"
            f"<td>{_pair_name(right, names)}</td></tr>"
            for left, right, score in similar[:10]
        )
        parts.append(f"<table id='similar'>{rows}</table>")
    return parts


def _not_compared_html(not_compared, names: dict[str, str]) -> list[str]:
    """The submissions left out of the comparison, or compared only in part: what was not
    compared cannot be flagged, so the instructor looks at them."""
    if not not_compared:
        return []
    items = "".join(
        f"<li>{_pair_name(student, names)}: {html.escape(why)}</li>"
        for student, why in not_compared
    )
    return [f"<p>Not compared, or only in part (look at these yourself):</p>"
            f"<ul id='not-compared'>{items}</ul>"]  # fmt: skip


def _pair_name(name: str, names: dict[str, str]) -> str:
    from autograder.reports.similarity import REFERENCE

    return html.escape(name) if name == REFERENCE else _student_link(name, names)


def _student_link(student: str, names: dict[str, str]) -> str:
    """The student's feedback page, linked by the id and the roster's name beside it."""
    shown = html.escape(labelled(student, names))
    return f"<a href='{html.escape(quote(student))}/feedback.html'>{shown}</a>"


def histogram_svg(summary: ClassSummary, bins: int = 10) -> str:
    """The score distribution: `bins` bars of equal width, with the mean and median marked."""
    return score_histogram(summary.scores, summary.max_score, summary.mean, summary.median, bins)


# -- the output folder ------------------------------------------------------------------------


def write_class_files(
    out: Path,
    records: list[GradeRecord],
    similar: similarity.SimilarPairs | None = None,
    names: dict[str, str] | None = None,
) -> ClassSummary:
    """Write the manifest, class.html and summary.csv for these records (with the similar
    pairs, once their comparison has finished, and the roster's `names` beside the ids);
    return the summary."""
    summary = summarise(records, names)
    write_atomically(out / files.MANIFEST, json.dumps(sorted(r.student for r in records)))
    found = similar.findings() if similar is not None else NOT_ASKED
    write_atomically(out / "class.html", class_html(summary, found))
    write_atomically(out / "summary.csv", summary_csv(summary))
    return summary
