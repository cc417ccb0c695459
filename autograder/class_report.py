"""The instructor's view of a whole class: class.html, summary.csv and the terminal's last lines."""

from __future__ import annotations

import csv
import html
import io
import json
import multiprocessing
import re
import statistics
import unicodedata
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from rich import box
from rich.markup import escape
from rich.table import Table

from autograder.report import spreadsheet_text, write_atomically
from autograder.rules import RULE_IDS

MANIFEST = ".students.json"
"""The students whose results this grader saved in an output folder, read before any
submission runs: grades.csv is rebuilt from them, never from whatever folders exist."""

SHORT_NAMES = {
    "minimax_value": "mmV",
    "minimax_decision": "mmD",
    "alphabeta_value": "abV",
    "alphabeta_decision": "abD",
    "alphabeta_pruning": "abP",
    "depth_limited_value": "dlV",
    "depth_limited_decision": "dlD",
}

# A diagnosed mistake is recognised by the words its hint uses (autograder/judge.py and
# autograder/diagnosis.py write them); the label is what the class report calls it.
_PRUNING_WORDS = "your count equals that of a search where "
_VALUE_WORDS = "your value equals what a search gives when "
_MISTAKES = (
    ("is max/min the right way round", "max and min the wrong way round (picks the worst move)"),
    ("it is the last action", "the best move is replaced on ties or by the last action examined"),
    ("each root child with a fresh window", "the root searches each child with a fresh window"),
    ("fewer states than a correct alpha-beta", "prunes before a branch is proven irrelevant"),
    ("looks one ply further than asked", "depth convention: searches one ply too deep"),
    ("looks one ply less than asked", "depth convention: searches one ply too shallow"),
    ("scored from the wrong side", "the evaluation is scored from the wrong side at odd depths"),
    ("check that terminal states use utility", "terminal states or a utility of 0 mishandled"),
    ("a decision must be one of the legal actions", "a decision that is not a legal action"),
    ("a value must be a plain int or float", "a value that is not a number"),
    ("an infinite value", "an infinite value: a running value never updated"),
    ("write the function body", "a function not written yet"),
    ("is not defined", "a function not defined"),
    ("an infinite loop, or a search far larger", "no answer in time"),
    ("the error happened inside your function", "an exception inside the function"),
)


def mistake_label(hint: str) -> str | None:
    """The mistake a verdict's hint names, in a few words; None if it names none."""
    hint = hint.removeprefix("pruning points go only with correct answers: ")
    for words in (_PRUNING_WORDS, _VALUE_WORDS):
        if hint.startswith(words):
            return hint[len(words) :]
    for words, label in _MISTAKES:
        if words in hint:
            return label
    return None


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


def summarise(records: list[dict]) -> ClassSummary:
    """Count what the class did: scores, rules and groups passed, mistakes, failures, time."""
    records = sorted(records, key=lambda r: r["student"])
    scores = tuple(float(r["score"]) for r in records)
    mistakes: dict[str, set[str]] = {}
    timeouts = []
    for record in records:
        for label in _diagnosed(record):
            mistakes.setdefault(label, set()).add(record["student"])
        late = sum(verdict.get("got") == "no answer in time" for verdict in _verdicts(record))
        if late:
            timeouts.append((record["student"], late))
    return ClassSummary(
        students=len(records),
        max_score=max((float(r["max_score"]) for r in records), default=0.0),
        scores=scores,
        mean=statistics.fmean(scores) if scores else 0.0,
        median=statistics.median(scores) if scores else 0.0,
        counts=tuple(_rule_counts(records)),
        mistakes=tuple(
            (label, tuple(sorted(students)))
            for label, students in sorted(mistakes.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        ),
        ungraded=tuple((r["student"], r["status"]) for r in records if r["status"] != "graded"),
        slowest=tuple(
            (r["student"], float(r.get("seconds", 0)))
            for r in sorted(records, key=lambda r: -float(r.get("seconds", 0)))[:5]
        ),
        timeouts=tuple(sorted(timeouts, key=lambda item: (-item[1], item[0]))),
    )


def _verdicts(record: dict):
    for rule in record["rules"]:
        for group in rule["groups"]:
            yield from group["verdicts"]


def _diagnosed(record: dict) -> set[str]:
    """The mistakes a student makes: a hint counts when it names the mistake on at least half
    of a rule's lost instances (a hint on a single instance can be a coincidence)."""
    found = set()
    for rule in record["rules"]:
        labels = [
            mistake_label(verdict.get("hint", ""))
            for group in rule["groups"]
            for verdict in group["verdicts"]
            if not verdict["passed"]
        ]
        found |= {label for label in labels if label and 2 * labels.count(label) >= len(labels)}
    return found


def _rule_counts(records: list[dict]) -> list[RuleCount]:
    """A count for every rule, followed by one for each of its groups."""
    items: dict[tuple[str, str], list[dict]] = {}
    for record in records:
        for rule in record["rules"]:
            items.setdefault((rule["id"], ""), []).append(rule)
            for group in rule["groups"]:
                items.setdefault((rule["id"], group["name"]), []).append(group)
    order = {rule_id: index for index, rule_id in enumerate(RULE_IDS)}
    keys = sorted(items, key=lambda key: (order.get(key[0], len(order)), key[0], key[1] != ""))
    return [
        RuleCount(
            rule=rule_id,
            group=group,
            max_points=float(items[rule_id, group][0]["max_points"]),
            passed=sum(item["points"] == item["max_points"] for item in items[rule_id, group]),
            students=len(items[rule_id, group]),
            mean_points=statistics.fmean(float(item["points"]) for item in items[rule_id, group]),
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
        writer.writerow(["not graded", "", "", spreadsheet_text(f"{student}: {status}"), 1, n])
    for student, late in summary.timeouts:
        writer.writerow(["time-outs", "", "", spreadsheet_text(student), late, ""])
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


class SimilarPairs:
    """The class's submissions compared (`similarity.py`) in a process of its own, started
    before grading so that it runs beside the graders (about 0.7 s more for a class of 50 on
    two cores, hence `--similarity` asks for it), with memory of its own."""

    def __init__(self, out: Path, submissions: list) -> None:
        from autograder.similarity import similarity_report

        context = multiprocessing.get_context("fork")
        self._pool = ProcessPoolExecutor(1, mp_context=context)
        self._future = self._pool.submit(similarity_report, submissions, out)

    def pairs(self, timeout: float = 600) -> list[tuple[str, str, float]] | None:
        """The pairs at or above the threshold; None if the comparison could not be made."""
        from autograder.similarity import THRESHOLD

        try:
            matches = self._future.result(timeout=timeout)
        except Exception:  # noqa: BLE001 - a report section must never cost the grades
            return None
        finally:
            self._pool.shutdown(wait=False, cancel_futures=True)
        return [(m.left, m.right, m.score) for m in matches if m.score >= THRESHOLD]


def class_submissions(out: Path, known: set[str], submissions: list) -> list:
    """This run's submissions and the files of every other student saved in `out`."""
    from autograder.load import Submission

    graded = {submission.student for submission in submissions}
    others = [
        Submission(record["student"], tuple(Path(name) for name in record.get("files", [])))
        for record in whole_class(out, known - graded, [])
        if record.get("files")
    ]
    return [*submissions, *others]


def class_html(summary: ClassSummary, similar: list[tuple[str, str, float]] | None = None) -> str:
    """A self-contained page (inline SVG, nothing fetched) for the instructor."""
    esc = html.escape
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
    for count in summary.counts:
        share = count.passed / count.students if count.students else 0.0
        row_class = " class='sub'" if count.group else ""
        name = esc(count.group) if count.group else f"<b>{esc(count.rule)}</b>"
        parts.append(
            f"<tr{row_class}><td>{name}</td><td class='num'>{_number(count.max_points)}</td>"
            f"<td class='num'>{count.passed} of {count.students}</td><td>"
            f"<span class='bar' style='width:{share * 12:.2f}rem'></span></td></tr>"
        )
    parts.append("</table>")
    parts.append("<h2>Mistakes diagnosed, most common first</h2>")
    if summary.mistakes:
        parts.append("<table id='mistakes'><tr><th>mistake</th><th>students</th><th></th></tr>")
        for label, students in summary.mistakes:
            links = ", ".join(_student_link(student) for student in students)
            parts.append(
                f"<tr><td>{esc(label)}</td><td class='num'>{len(students)}</td>"
                f"<td>{links}</td></tr>"
            )
        parts.append("</table>")
    else:
        parts.append("<p>No mistake was diagnosed.</p>")
    parts.append("<h2>Submissions that could not be graded normally</h2>")
    if summary.ungraded:
        items = "".join(
            f"<li>{_student_link(student)}: {esc(status)}</li>"
            for student, status in summary.ungraded
        )
        parts.append(f"<ul id='ungraded'>{items}</ul>")
    else:
        parts.append("<p>Every submission was graded.</p>")
    parts += _similar_html(similar)
    parts.append("<h2>Time</h2><table id='slowest'><tr><th>slowest</th><th>seconds</th></tr>")
    for student, seconds in summary.slowest:
        parts.append(
            f"<tr><td>{_student_link(student)}</td><td class='num'>{seconds:.2f}</td></tr>"
        )
    parts.append("</table>")
    if summary.timeouts:
        items = "".join(
            f"<li>{_student_link(student)}: {late} call(s)</li>"
            for student, late in summary.timeouts
        )
        parts.append(f"<p>Calls that ran out of time:</p><ul id='timeouts'>{items}</ul>")
    else:
        parts.append("<p>No call ran out of time.</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


NOT_ASKED: list = []
"""`class_html`'s `similar` when the run was not asked to compare submissions (--similarity)."""


def _similar_html(similar: list[tuple[str, str, float]] | None) -> list[str]:
    parts = ["<h2>Similar submissions</h2>"]
    if similar is NOT_ASKED:
        return parts + [
            "<p>Not compared in this run: grade with <code>--similarity</code>, or run "
            "<code>python -m autograder similarity PATH... --out DIR</code>.</p>"
        ]
    if similar is None:
        return parts + ["<p>The submissions could not be compared.</p>"]
    parts.append(
        f"<p>{len(similar)} pair(s) look alike, or like the public reference solutions (a reason "
        "to look, not a verdict): <a href='similarity.html'>the matching code side by side</a>."
        "</p>"
    )
    if similar:
        rows = "".join(
            f"<tr><td class='num'>{score:.0%}</td><td>{_pair_name(left)}</td>"
            f"<td>{_pair_name(right)}</td></tr>"
            for left, right, score in similar[:10]
        )
        parts.append(f"<table id='similar'>{rows}</table>")
    return parts


def _pair_name(name: str) -> str:
    from autograder.similarity import REFERENCE

    return html.escape(name) if name == REFERENCE else _student_link(name)


def _student_link(student: str) -> str:
    return f"<a href='{html.escape(quote(student))}/feedback.html'>{html.escape(student)}</a>"


def histogram_svg(summary: ClassSummary, bins: int = 10) -> str:
    """The score distribution: `bins` bars of equal width, with the mean and median marked."""
    width, height, left, bottom, top = 560, 236, 36, 34, 30
    plot_w, plot_h = width - left - 12, height - bottom - top
    top_score = summary.max_score or 1.0
    counts = [0] * bins
    for score in summary.scores:
        counts[min(int(score / top_score * bins), bins - 1)] += 1
    tallest = max(counts, default=0) or 1
    parts = [
        f"<svg id='histogram' xmlns='http://www.w3.org/2000/svg' width='{width}' "
        f"height='{height}' role='img' aria-label='histogram of the scores'>",
        f"<line x1='{left}' y1='{top + plot_h}' x2='{left + plot_w}' y2='{top + plot_h}' "
        "stroke='#1d2430'/>",
    ]
    bar_w = plot_w / bins
    for index, count in enumerate(counts):
        bar_h = plot_h * count / tallest
        x, y = left + index * bar_w, top + plot_h - bar_h
        low = top_score * index / bins
        parts.append(
            f"<rect class='bin' x='{x + 1:.1f}' y='{y:.1f}' width='{bar_w - 2:.1f}' "
            f"height='{bar_h:.1f}' fill='#4c7bd9'><title>{_number(low)}-"
            f"{_number(low + top_score / bins)}: {count}</title></rect>"
        )
        if count:
            parts.append(
                f"<text x='{x + bar_w / 2:.1f}' y='{y - 3:.1f}' font-size='11' "
                f"text-anchor='middle'>{count}</text>"
            )
    for tick in range(0, bins + 1, 2):
        x = left + tick * bar_w
        parts.append(
            f"<text x='{x:.1f}' y='{top + plot_h + 16}' font-size='11' "
            f"text-anchor='middle'>{_number(top_score * tick / bins)}</text>"
        )
    for name, value, colour, dash in (
        ("mean", summary.mean, "#b42318", ""),
        ("median", summary.median, "#17803d", " stroke-dasharray='5 3'"),
    ):
        x = left + plot_w * value / top_score
        parts.append(
            f"<line x1='{x:.1f}' y1='{top - 26}' x2='{x:.1f}' y2='{top + plot_h}' "
            f"stroke='{colour}' stroke-width='2'{dash}/>"
        )
        anchor = "end" if name == "mean" else "start"
        shift = -4 if name == "mean" else 4
        parts.append(
            f"<text x='{x + shift:.1f}' y='{top - 16}' font-size='11' fill='{colour}' "
            f"text-anchor='{anchor}'>{name} {_number(value)}</text>"
        )
    parts.append(
        f"<text x='{left + plot_w / 2:.1f}' y='{height - 4}' font-size='11' "
        "text-anchor='middle'>score</text></svg>"
    )
    return "".join(parts)


# -- the terminal -----------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with control and bidirectional characters shown as escapes, so a student id
    cannot move the cursor, recolour the terminal or hide its own name."""
    shown = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return "".join(
        f"\\u{ord(c):04x}" if unicodedata.bidirectional(c) in _BIDI_CONTROLS else c for c in shown
    )


def plain_text(text: str) -> str:
    """`printable(text)` with rich markup escaped, for the rich console (`eve[bold]x` stays)."""
    return escape(printable(text))


_BIDI_CONTROLS = {"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"}


def terminal_table(records: list[dict], width: int = 80) -> Table:
    """The class at a glance in at most `width` columns: a short header per rule (the legend
    below the table names them), every rule's points shown, long ids cut with an ellipsis."""
    rule_ids = _graded_rule_ids(records)
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
    for record in sorted(records, key=lambda r: r["student"]):
        rules = {rule["id"]: rule for rule in record["rules"]}
        cells = []
        for rule_id in rule_ids:
            rule = rules.get(rule_id)
            if rule is None:
                cells.append("-")
                continue
            full = rule["points"] == rule["max_points"]
            style = "green" if full else ("red" if rule["points"] == 0 else "yellow")
            cells.append(f"[{style}]{rule['points']:g}[/{style}]")
        mark = "" if record["status"] == "graded" else " [red]![/red]"
        table.add_row(
            plain_text(record["student"]) + mark,
            f"{record['score']:g}/{record['max_score']:g}",
            *cells,
        )
    legend = "  ".join(f"{SHORT_NAMES.get(r, r[:3])}={r}" for r in rule_ids)
    table.caption = f"{legend}; ! = not graded normally (see below)"
    return table


def _graded_rule_ids(records: list[dict]) -> tuple[str, ...]:
    present = {rule["id"] for record in records for rule in record["rules"]}
    return tuple(rule_id for rule_id in RULE_IDS if rule_id in present) or RULE_IDS


def closing_lines(summary: ClassSummary, out: Path) -> list[str]:
    """The few numbers the terminal ends with (as rich markup, every student text escaped)."""
    lines = [
        f"{summary.students} submission(s): mean {_number(summary.mean)}, median "
        f"{_number(summary.median)} of {_number(summary.max_score)}",
    ]
    for student, status in summary.ungraded:
        lines.append(f"[red]![/red] {plain_text(student)}: {plain_text(status)}")
    if summary.mistakes:
        ranked = "; ".join(
            f"{plain_text(label)} ({len(students)})" for label, students in summary.mistakes[:3]
        )
        lines.append(f"most common mistakes: {ranked}")
    if summary.timeouts:
        lines.append(
            "time-outs: " + ", ".join(f"{plain_text(s)} ({n})" for s, n in summary.timeouts[:5])
        )
    lines.append(f"class report: {plain_text(str(out / 'class.html'))}")
    return lines


# -- the output folder ------------------------------------------------------------------------


def saved_students(out: Path) -> set[str]:
    """The students this grader has saved in `out` (read before any submission runs)."""
    try:
        names = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {name for name in names if isinstance(name, str)} if isinstance(names, list) else set()


def whole_class(out: Path, known: set[str], records: list[dict]) -> list[dict]:
    """This run's records plus the saved results of every other student the grader knew
    before the run: regrading one student keeps everyone else in grades.csv."""
    graded = {record["student"] for record in records}
    whole = list(records)
    for student in sorted(known - graded):
        try:
            saved = json.loads((out / student / "results.json").read_text(encoding="utf-8"))
            whole.append(saved["extra_data"]["record"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # its folder was removed by hand: the student has left the class
    return whole


def write_class_files(
    out: Path, records: list[dict], similar: SimilarPairs | None = None
) -> ClassSummary:
    """Write the manifest, class.html and summary.csv for these records (with the similar
    pairs, once their comparison has finished); return the summary."""
    summary = summarise(records)
    write_atomically(out / MANIFEST, json.dumps(sorted(r["student"] for r in records)))
    pairs = similar.pairs() if similar is not None else NOT_ASKED
    write_atomically(out / "class.html", class_html(summary, pairs))
    write_atomically(out / "summary.csv", summary_csv(summary))
    return summary
