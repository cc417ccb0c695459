"""A student's feedback page: the first lost point first, each mistake explained once."""

from __future__ import annotations

import html
from collections.abc import Iterator

from autograder.grading.judge import Verdict
from autograder.grading.records import GradeRecord, GroupResult, RuleResult
from autograder.reports.diagnoses import cell_failed, mistake_label

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
details.passed, details.own-checks { margin: 1rem 0; }
details summary { cursor: pointer; font-weight: 600; }
dt { font-weight: 600; } dd { margin: 0 0 .4rem 0; }
"""


def feedback_html(
    record: GradeRecord, figures: dict[tuple[str, str], tuple[Verdict, str]] | None = None
) -> str:
    """A self-contained page whose first lost point comes first: after the score, the lost
    groups, each failed instance with what was expected, what the function returned and a hint;
    then the grader's messages, the notebook's own failed checks folded, the points by rule,
    and the passed groups folded under a summary."""
    figures = figures or {}
    esc = html.escape
    graded = any(group.verdicts for rule in record.rules for group in rule.groups)
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Feedback for {esc(record.student)}</title><style>{STYLE}</style></head><body>",
        f"<h1>Feedback for {esc(record.student)}</h1>",
        f"<div class='score'>{_number(record.score)} / {_number(record.max_score)}</div>",
        f"<p id='status'>Status: <b>{esc(record.status)}</b></p>",
    ]
    messages = [m for m in record.messages if not m.startswith(record.status)]
    own_checks = [m for m in messages if _own_check(m)]
    messages = [m for m in messages if not _own_check(m)]
    causes = [m for m in messages if cell_failed(m)]
    messages = [m for m in messages if m not in causes]
    if causes:  # the cause before its effects: a cell that did not run explains "not defined"
        items = "".join(f"<li>{esc(m)}</li>" for m in causes)
        parts.append(
            "<div class='messages cause' id='cause'><b>First fix this: a cell of your notebook "
            f"did not run</b><ul>{items}</ul>What it defines is missing below: fix it first."
            "</div>"
        )
    if not graded:
        parts.append(
            "<p class='lost'>Nothing could be graded: every rule scores 0 until the status above "
            "is fixed.</p>"
        )
    else:
        parts += list(_lost_groups(record, figures, bool(causes)))
    if messages:
        items = "".join(f"<li>{esc(m)}</li>" for m in messages)
        parts.append(f"<div class='messages'><b>Messages</b><ul>{items}</ul></div>")
    if own_checks:
        items = "".join(f"<li>{esc(m)}</li>" for m in own_checks)
        parts.append(
            f"<details class='own-checks'><summary>{len(own_checks)} of your notebook's own "
            f"checks failed when it ran (the grader's findings are above): show them</summary>"
            f"<ul>{items}</ul></details>"
        )
    parts.append(_rules_table(record, linked=graded))
    if graded:
        parts += list(_passed_groups(record))
    if record.output:
        parts.append("<h2>What your notebook printed (first lines)</h2>")
        parts.append(f"<pre>{esc(record.output[:3000])}</pre>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _own_check(message: str) -> bool:
    """Whether `message` is a check of the notebook's own that failed when its cells ran (an
    assert in a self-check cell): the grader's findings explain the same points better."""
    return "raised an exception: AssertionError" in message


def _rules_table(record: GradeRecord, linked: bool) -> str:
    rows = ["<table class='rules'><tr><th>rule</th><th>what it checks</th><th>points</th></tr>"]
    for rule in record.rules:
        lost = rule.points < rule.max_points
        name = f"<a href='#{rule.id}'>{rule.id}</a>" if lost and linked else rule.id
        rows.append(
            f"<tr><td>{name}</td><td>{html.escape(rule.description)}</td>"
            f"<td class='num {_class(rule.points, rule.max_points)}'>"
            f"{_number(rule.points)} / {_number(rule.max_points)}</td></tr>"
        )
    rows.append("</table>")
    return "\n".join(rows)


def _lost_groups(record: GradeRecord, figures: dict, cause: bool = False) -> Iterator[str]:
    """The groups that lost points, in rule order, so the first lost point comes first."""
    explained: dict[str, str] = {}  # a mistake (or a hint's text) -> the anchor that explains it
    lost_rules = [r for r in record.rules if r.points < r.max_points]
    if not lost_rules:
        yield "<p class='ok' id='all-passed'>Every rule earned its full points.</p>"
        return
    yield "<h2>Where points were lost</h2>"
    for rule in lost_rules:
        yield (
            f"<h3 id='{rule.id}'>{rule.id}: {_number(rule.points)} / "
            f"{_number(rule.max_points)}</h3>"
        )
        for said in filter(None, rule.diagnosis.split("\n")):
            yield f"<p class='hint diagnosis'><b>Diagnosis:</b> {html.escape(said)}</p>"
        for group in rule.groups:
            if group.full:
                continue
            yield from _lost_group(rule, group, explained, figures, cause)


PLAYED = "connect_four_agent"
"""The function of Assignment 5, whose groups are games rather than calls."""

PLAYED_RULES = (
    "How a move is limited: it may generate a budget of states through game.result (past it, "
    "game.result raises OutOfStates: catch it around your search and return the best move "
    "found so far) and use the CPU time it is given (seconds); the wall clock is never counted, "
    "so the same agent plays the same moves on any machine. A move not returned within that is "
    "forfeited: the grader plays the legal column nearest the centre, the game goes on, and "
    "that game no longer counts as played in time (a forfeited move in a position of the suite "
    "keeps nothing). Each rule pays by a share of its games (a win 1, a draw 1/2) or positions, "
    "in proportion between the share that earns nothing and the share that earns every point: "
    "each game or position more moves the grade by a step."
)
"""Said once on a page that lost points in Assignment 5's games or positions."""


def _lost_group(
    rule: RuleResult, group: GroupResult, explained: dict[str, str], figures: dict, cause: bool
) -> Iterator[str]:
    esc = html.escape
    verdicts = group.verdicts
    failed = [v for v in verdicts if not v.passed]
    played = group.function == PLAYED  # Assignment 5: games or positions, paid by a share
    needs = "moves of" if played else "calls"
    share = rule.description if played else "all instances must pass"
    yield (
        f"<div class='group lost-group'><b class='lost'>{esc(group.name)}</b> "
        f"({_number(group.points)} / {_number(group.max_points)} points, {needs} "
        f"<code>{esc(group.function)}</code>; {esc(share)}). "
        f"{len(verdicts) - len(failed)} of {len(verdicts)} passed."
    )
    if played and PLAYED_RULES not in explained:
        explained[PLAYED_RULES] = rule.id
        yield f"<p class='hint'>{esc(PLAYED_RULES)}</p>"
    if failed and all(v.got.endswith("not run") for v in failed):
        why = failed[0].hint
        if cause and "is not defined" in why:
            why += " (a cell did not run: see above)"
        yield f"<p class='hint'>Not run: {esc(why)}.</p>"
        failed = []
    for number, verdict in enumerate(failed[:3]):
        anchor = f"{rule.id}-{_slug(group.name)}-{number}"
        yield _verdict_html(verdict, anchor, explained)
    if len(failed) > 3:
        yield f"<p>... and {len(failed) - 3} more instances failed.</p>"
    if (rule.id, group.name) in figures:
        yield _figure_html(*figures[(rule.id, group.name)])
    yield "</div>"


def _passed_groups(record: GradeRecord) -> Iterator[str]:
    """Every group that earned its points, folded under one line."""
    passed = [
        (rule.id, group)
        for rule in record.rules
        for group in rule.groups
        if group.verdicts and group.full
    ]
    if not passed:
        return
    points = sum(group.points for _, group in passed)
    yield (
        f"<details class='passed'><summary>{len(passed)} group(s) passed "
        f"({_number(points)} points): show them</summary><ul>"
    )
    for rule_id, group in passed:
        yield (
            f"<li class='ok'>{rule_id}: {html.escape(group.name)}: all "
            f"{len(group.verdicts)} instances passed ({_number(group.points)} points)</li>"
        )
    yield "</ul></details>"


def _verdict_html(verdict: Verdict, anchor: str, explained: dict[str, str]) -> str:
    esc = html.escape
    returned = "Your function returned" if _returned(verdict) else "What happened"
    rows = [
        f"<div class='verdict' id='{anchor}'>",
        f"<dl><dt>Instance</dt><dd>{esc(verdict.instance)}</dd></dl>",
        f"<pre>{esc(verdict.picture[:1500])}</pre>",
        f"<dl><dt>Expected</dt><dd>{esc(verdict.expected)}</dd>",
    ]
    if verdict.states is not None:
        rows.append(f"<dt>States your search generated</dt><dd>{verdict.states:,}</dd>")
        rows.append(f"<dt>{returned}</dt><dd>{esc(_answer(verdict.got))}</dd></dl>")
    else:
        rows.append(f"<dt>{returned}</dt><dd>{esc(verdict.got)}</dd></dl>")
    hint = verdict.hint
    if hint:
        mistake = mistake_label(hint) or hint
        if mistake in explained:
            rows.append(
                f"<p class='hint'><b>Hint:</b> the same mistake as "
                f"<a href='#{explained[mistake]}'>above</a> ({esc(mistake)}).</p>"
            )
        else:
            explained[mistake] = anchor
            rows.append(f"<p class='hint'><b>Hint:</b> {esc(hint)}</p>")
    rows.append("</div>")
    return "\n".join(rows)


def _returned(verdict: Verdict) -> bool:
    got = _answer(verdict.got)
    return not got.startswith(
        ("raised ", "no answer in time", "not run", "the process failed", "a loss", "a draw")
    )


def _answer(got: str) -> str:
    """The answer part of a pruning verdict's "N states generated; answer" text."""
    head, _, answer = got.partition(" states generated; ")
    return answer if answer and head.replace(",", "").isdigit() else got


def _figure_html(verdict: Verdict, figure: str) -> str:
    if not figure:
        return ""
    return (
        f"<div class='verdict'><p><b>Where your search differs, on a small tree</b> "
        f"({html.escape(verdict.instance)}): you generated {verdict.states:,} states, "
        f"the reference {len(verdict.reference_visited):,}. Nodes only your search generated "
        f"and nodes only the reference generated are coloured; grey dashed branches were pruned."
        f"</p><img alt='the game tree with the states each search generated' src='{figure}'>"
        f"</div>"
    )


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def _class(points: float, maximum: float) -> str:
    return "ok" if points == maximum else ("lost" if points == 0 else "part")


def _number(value: float) -> str:
    return f"{value:g}"
