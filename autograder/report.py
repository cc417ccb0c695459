"""Write what grading found: grades.csv, results.json, feedback.html and the terminal table."""

from __future__ import annotations

import csv
import html
import io
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from rich.table import Table

from autograder.rules import RULE_IDS


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader sees the old file or the new one, never half."""
    _make_folder(path.parent)
    if path.is_dir() and not path.is_symlink():
        # Something planted a folder where the file belongs: keep it, but out of the way.
        path.rename(path.with_name(f"{path.name}.moved-aside-{os.getpid()}-{time.time_ns()}"))
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            _hand_over(stream.fileno(), 0o644)  # mkstemp makes it 0600: the grader's only
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _make_folder(folder: Path) -> None:
    """Create `folder` and its missing parents, readable by the instructor (see `_hand_over`)."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for created in reversed(missing):
        created.mkdir(exist_ok=True)
        handle = os.open(created, os.O_RDONLY | os.O_DIRECTORY)
        try:
            _hand_over(handle, 0o755)
        finally:
            os.close(handle)


def _hand_over(handle: int, mode: int) -> None:
    """Make a file or folder the grader wrote readable by the instructor: `mode`, and owned by
    the user who ran the grader through sudo (a root run otherwise leaves root's files behind)."""
    os.fchmod(handle, mode)
    if os.geteuid() == 0 and os.environ.get("SUDO_UID", "").isdigit():
        group = os.environ.get("SUDO_GID", "")
        os.fchown(handle, int(os.environ["SUDO_UID"]), int(group) if group.isdigit() else -1)


def results_json(record: dict, fingerprint: str) -> dict:
    """The Gradescope autograder results format, with our full record under `extra_data`."""
    tests = []
    for rule in record["rules"]:
        lines = []
        for group in rule["groups"]:
            mark = "passed" if group["points"] == group["max_points"] else "lost"
            lines.append(f"[{mark}] {group['name']}: {group['points']:g}/{group['max_points']:g}")
            for verdict in group["verdicts"]:
                if not verdict["passed"]:
                    lines.append(
                        f"    {verdict['instance']}: expected {verdict['expected']}; "
                        f"got {verdict['got']}. {verdict['hint']}"
                    )
                    break
        tests.append(
            {
                "name": f"{rule['id']}: {rule['description']}",
                "score": rule["points"],
                "max_score": rule["max_points"],
                "output": "\n".join(lines),
            }
        )
    return {
        "score": record["score"],
        "max_score": record["max_score"],
        "execution_time": record.get("seconds", 0),
        "output": "\n".join([f"status: {record['status']}", *record["messages"]]),
        "tests": tests,
        "extra_data": {"fingerprint": fingerprint, "record": record},
    }


def save_student(out: Path, record: dict, fingerprint: str, feedback: str) -> None:
    """Write a student's feedback page, then its results (their presence marks it done).

    A previous result for a different submission is kept under `history/` first, so a grade
    once written is never silently lost.
    """
    folder = out / record["student"]
    results = folder / "results.json"
    if results.is_file():
        try:
            old = json.loads(results.read_text(encoding="utf-8"))
            old_digest = old["extra_data"]["record"]["digest"]
        except (ValueError, KeyError, OSError):
            old_digest = None
        if old_digest != record["digest"] or old.get("score") != record["score"]:
            history = folder / "history"
            _make_folder(history)
            stamp = time.strftime("%Y%m%dT%H%M%S")
            kept = history / f"results-{stamp}-{os.getpid()}.json"
            shutil.copy2(results, kept)
            handle = os.open(kept, os.O_RDONLY)
            try:
                _hand_over(handle, 0o644)
            finally:
                os.close(handle)
    write_atomically(folder / "feedback.html", feedback)
    # On one line: with an indent, json falls back from its C encoder to Python, 20 ms a record.
    write_atomically(results, json.dumps(results_json(record, fingerprint)))


def remove_temporary_files(out: Path) -> int:
    """Delete the half-written files a killed run left behind (only ours: `.<name>.*.tmp`)."""
    removed = 0
    for path in out.rglob(".*.tmp"):
        if path.is_file():
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def load_student(out: Path, student: str) -> dict | None:
    """The saved results of a student, or None if there are none (or they are unreadable)."""
    try:
        return json.loads((out / student / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def graded_rule_ids(records: list[dict]) -> tuple[str, ...]:
    """The rule ids the records were graded on, in the usual order."""
    present = {rule["id"] for record in records for rule in record["rules"]}
    return tuple(rule_id for rule_id in RULE_IDS if rule_id in present) or RULE_IDS


def grades_csv(records: list[dict]) -> str:
    """One row per student: student, score, max_score, one column per rule id, status."""
    rule_ids = graded_rule_ids(records)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "score", "max_score", *rule_ids, "status"])
    for record in sorted(records, key=lambda r: r["student"]):
        points = {rule["id"]: rule["points"] for rule in record["rules"]}
        writer.writerow(
            [
                record["student"],
                _number(record["score"]),
                _number(record["max_score"]),
                *(_number(points.get(rule_id, 0)) for rule_id in rule_ids),
                record["status"],
            ]
        )
    return buffer.getvalue()


def _number(value: float) -> str:
    return f"{value:g}"


def summary_table(records: list[dict]) -> Table:
    """The class at a glance, for the terminal."""
    table = Table(title="Grades", show_lines=False, pad_edge=False)
    table.add_column("student", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True, min_width=7)
    short = {
        "minimax_value": "mm val",
        "minimax_decision": "mm move",
        "alphabeta_value": "ab val",
        "alphabeta_decision": "ab move",
        "alphabeta_pruning": "pruning",
        "depth_limited_value": "dl val",
        "depth_limited_decision": "dl move",
    }
    rule_ids = graded_rule_ids(records)
    for rule_id in rule_ids:
        table.add_column(short.get(rule_id, rule_id), justify="right")
    table.add_column("status", no_wrap=True, overflow="ellipsis", max_width=40)
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
            cells.append(f"[{style}]{_number(rule['points'])}[/{style}]")
        score = f"{_number(record['score'])}/{_number(record['max_score'])}"
        status = record["status"]
        table.add_row(
            record["student"],
            score,
            *cells,
            status if status == "graded" else f"[red]{html.escape(status)[:120]}[/red]",
        )
    return table


# -- the feedback page ------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 2rem auto;
       max-width: 60rem; color: #1d2430; line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
.score { font-size: 2.2rem; font-weight: 700; }
table.rules { border-collapse: collapse; width: 100%; margin: 1rem 0; }
table.rules td, table.rules th { border-bottom: 1px solid #dde2ea; padding: .35rem .5rem;
       text-align: left; }
table.rules td.num { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #17803d; } .lost { color: #b42318; } .part { color: #b54708; }
.messages { background: #fff8e6; border-left: 4px solid #f2b84b; padding: .6rem 1rem; }
.group { border: 1px solid #dde2ea; border-radius: 8px; padding: .6rem 1rem; margin: .8rem 0; }
.verdict { border-top: 1px dashed #dde2ea; padding-top: .5rem; margin-top: .5rem; }
pre { background: #f4f6f9; padding: .5rem .7rem; border-radius: 6px; overflow-x: auto;
      font-size: .85rem; } .hint { background: #eef4ff; border-left: 4px solid #4c7bd9;
      padding: .4rem .8rem; } img { max-width: 100%; }
dt { font-weight: 600; } dd { margin: 0 0 .4rem 0; }
"""


def feedback_html(record: dict, figures: dict[tuple[str, str], tuple] | None = None) -> str:
    """A self-contained page: every lost point with the instance, expected, got and a hint."""
    figures = figures or {}
    esc = html.escape
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Feedback for {esc(record['student'])}</title><style>{STYLE}</style></head><body>",
        f"<h1>Feedback for {esc(record['student'])}</h1>",
        f"<div class='score'>{_number(record['score'])} / {_number(record['max_score'])}</div>",
        f"<p>Status: <b>{esc(record['status'])}</b></p>",
    ]
    if record["messages"]:
        items = "".join(f"<li>{esc(m)}</li>" for m in record["messages"])
        parts.append(f"<div class='messages'><b>Messages</b><ul>{items}</ul></div>")
    parts.append(
        "<table class='rules'><tr><th>rule</th><th>what it checks</th><th>points</th></tr>"
    )
    for rule in record["rules"]:
        cls = _class(rule["points"], rule["max_points"])
        parts.append(
            f"<tr><td><a href='#{rule['id']}'>{rule['id']}</a></td><td>{esc(rule['description'])}"
            f"</td><td class='num {cls}'>{_number(rule['points'])} / "
            f"{_number(rule['max_points'])}</td></tr>"
        )
    parts.append("</table>")
    for rule in record["rules"]:
        parts.append(f"<h2 id='{rule['id']}'>{rule['id']}: {_number(rule['points'])} / "
                     f"{_number(rule['max_points'])}</h2>")  # fmt: skip
        for group in rule["groups"]:
            cls = _class(group["points"], group["max_points"])
            parts.append(
                f"<div class='group'><b class='{cls}'>{esc(group['name'])}</b> "
                f"({_number(group['points'])} / {_number(group['max_points'])} points, "
                f"calls <code>{esc(group['function'])}</code>; all instances must pass)"
            )
            verdicts = group["verdicts"]
            failed = [v for v in verdicts if not v["passed"]]
            if not verdicts:
                parts.append("<p>Not graded: the submission could not be run.</p>")
            elif not failed:
                parts.append(f"<p class='ok'>All {len(verdicts)} instances passed.</p>")
            else:
                parts.append(f"<p>{len(verdicts) - len(failed)} of {len(verdicts)} passed.</p>")
            if failed and all(v["got"].endswith("not run") for v in failed):
                parts.append(f"<p class='hint'>Not run: {esc(failed[0]['hint'])}.</p>")
                failed = []
            for verdict in failed[:3]:
                parts.append(_verdict_html(verdict))
            if len(failed) > 3:
                parts.append(f"<p>... and {len(failed) - 3} more instances failed.</p>")
            if (rule["id"], group["name"]) in figures:
                parts.append(_figure_html(*figures[(rule["id"], group["name"])]))
            parts.append("</div>")
    if record.get("output"):
        parts.append("<h2>What your notebook printed (first lines)</h2>")
        parts.append(f"<pre>{esc(record['output'][:3000])}</pre>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _verdict_html(verdict: dict) -> str:
    esc = html.escape
    rows = [
        "<div class='verdict'>",
        f"<dl><dt>Instance</dt><dd>{esc(verdict['instance'])}</dd></dl>",
        f"<pre>{esc(verdict['picture'][:1500])}</pre>",
        f"<dl><dt>Expected</dt><dd>{esc(verdict['expected'])}</dd>",
        f"<dt>Your function gave</dt><dd>{esc(verdict['got'])}</dd></dl>",
    ]
    if verdict.get("hint"):
        rows.append(f"<p class='hint'><b>Hint:</b> {esc(verdict['hint'])}</p>")
    rows.append("</div>")
    return "\n".join(rows)


def _figure_html(verdict: dict, figure: str) -> str:
    if not figure:
        return ""
    return (
        f"<div class='verdict'><p><b>Where your search differs, on a small tree</b> "
        f"({html.escape(verdict['instance'])}): you generated {verdict['states']:,} states, "
        f"the reference {len(verdict['reference_visited']):,}. Nodes only your search generated "
        f"and nodes only the reference generated are coloured; grey dashed branches were pruned."
        f"</p><img alt='the game tree with the states each search generated' src='{figure}'>"
        f"</div>"
    )


def _class(points: float, maximum: float) -> str:
    return "ok" if points == maximum else ("lost" if points == 0 else "part")
