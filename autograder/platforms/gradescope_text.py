"""How Gradescope shows the grader's text: plain text escaped for its html or text format, and
the feedback page as markdown (`gradescope --output-format markdown`)."""

from __future__ import annotations

import html
import re

from autograder.grading.records import GradeRecord
from autograder.reports.diagnoses import cell_failed


def shown(text: str, output_format: str) -> dict[str, str]:
    """An `output` of plain text and the `output_format` that shows it as written: escaped in
    a <pre> as html (a student's `<object at 0x1>` is not a tag, its lines stay lines), or as
    Gradescope's "text" when the bundle was built for markdown."""
    if output_format == "html":
        return {"output": f"<pre>{html.escape(text, quote=False)}</pre>", "output_format": "html"}
    return {"output": text, "output_format": "text"}


def markdown_feedback(record: GradeRecord) -> str:
    """The feedback as markdown: the answers (a student's `got` above all) as code spans, the
    other text with markdown's and HTML's special characters escaped."""
    lines = [f"**Status:** {_md_text(record.status)}", ""]
    causes = [message for message in record.messages if cell_failed(message)]
    if causes:
        lines += ["**First fix this:** a cell of your notebook did not run", ""]
        lines += [f"- {_md_text(message)}" for message in causes] + [""]
    for rule in record.rules:
        lines.append(f"### {rule.id}: {rule.points:g} / {rule.max_points:g}")
        if rule.diagnosis and not rule.full:
            lines += [f"**Diagnosis:** {_md_text(line)}" for line in rule.diagnosis.split("\n")]
        for group in rule.groups:
            failed = [v for v in group.verdicts if not v.passed]
            lines.append(f"- {_md_text(group.name)}: {group.points:g} / {group.max_points:g}")
            for verdict in failed[:2]:
                lines.append(
                    f"  - *{_md_text(verdict.instance)}*: expected {_md_code(verdict.expected)}; "
                    f"got {_md_code(verdict.got)}. {_md_text(verdict.hint)}"
                )
    return "\n".join(lines)


def _md_text(text: str) -> str:
    """`text` shown as written in markdown: on one line, HTML escaped, markdown's punctuation
    backslash-escaped."""
    escaped = html.escape(" ".join(text.split()), quote=False)
    return re.sub(r"([\\`*_\[\]#|~!])", r"\\\1", escaped)


def _md_code(text: str) -> str:
    """`text` as a markdown code span (shown literally, HTML and all), on one line, fenced by
    more backticks than any run inside it."""
    text = re.sub(r"[\r\n]+", " ", text) or " "
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"
