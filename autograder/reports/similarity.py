"""Copies found: pairs of submissions, and submissions close to the public reference solutions.

Each submission's functions and classes are normalised first (comments, docstrings and
formatting go: `ast.unparse` rewrites the code in one canonical layout), then fingerprinted by
copydetect (winnowing, as MOSS does), which also replaces every name by a placeholder, so that
renamed variables and reordered helpers still match. A high score is a reason to look at the
two submissions side by side, never a verdict: short functions that follow the lecture's
pseudo-code closely look alike even when they were written independently.

What one submission holds cannot stop the others being compared: each is read and normalised in
a child process with caps on its time and memory (`autograder.sandbox.bounded`), within caps on
its size (`CompareLimits`), and one that cannot be is listed as not compared, with the reason; a
definition that cannot be normalised (nested too deeply) is left out and named. The pairs are
then compared in a capped child process of their own.
"""

from __future__ import annotations

import csv
import functools
import html
import io
import sys
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from autograder.grading.assignment_of import AGENT_FUNCTION
from autograder.grading.load import Submission, discover, unpacking
from autograder.grading.outcomes import out_refused
from autograder.grading.rules import ASSIGNMENT_RULES, PLAYED_RULE_IDS, selected_rules
from autograder.reports.files import spreadsheet_text, whole_class
from autograder.reports.normalising import (  # noqa: F401 - re-exported: what is compared
    GUARANTEE_TOKENS,
    NOISE_TOKENS,
    REFERENCE,
    Code,
    CompareLimits,
    fingerprint,
    normalise,
    normalised,
    reference_code,
    submission_code,
)
from autograder.reports.text import printable
from autograder.sandbox.bounded import BoundedChild, Caps, bounded_map

THRESHOLD = 0.6
"""Pairs whose score reaches this are listed first and printed; the page shows every pair."""


@dataclass(frozen=True)
class Match:
    """How much of two codes the same fingerprints cover, and where."""

    left: str
    right: str
    left_share: float  # the part of the left code found in the right one
    right_share: float
    left_regions: tuple[tuple[int, int], ...]  # character ranges of `Code.text`
    right_regions: tuple[tuple[int, int], ...]

    @property
    def score(self) -> float:
        """The larger share: a copy padded with code of one's own still scores high."""
        return max(self.left_share, self.right_share)


COMMON_SHARE = 0.5
"""Passages found in more than this share of the submissions (at least 4 of them) are common
ground, like template code or the one obvious way to write a loop: they are ignored when two
submissions are compared (MOSS's -m option), though not when one is compared with the
reference, which is a known source."""


def compare(codes: list[Code], reference: str = REFERENCE) -> list[Match]:
    """Every pair of `codes` that share uncommon fingerprints, highest score first."""
    from copydetect import compare_files

    present = [code for code in codes if code.text.strip()]
    by_name = {code.name: code for code in present}
    plain = {code.name: fingerprint(code) for code in present}
    students = [name for name in plain if name != reference]
    counts: dict[int, int] = {}
    for name in students:
        for value in set(plain[name].hashes):
            counts[value] = counts.get(value, 0) + 1
    common = [value for value, n in counts.items() if n > COMMON_SHARE * len(students)]
    if len(students) < 4 or not common:
        filtered = plain
    else:
        filtered = {code.name: fingerprint(code, common) for code in present}
    matches = []
    for left, right in combinations(sorted(plain), 2):
        prints = plain if reference in (left, right) else filtered
        _, _, regions = compare_files(prints[left], prints[right])
        left_regions, right_regions = _ranges(regions[0]), _ranges(regions[1])
        if left_regions:
            # Shares of the whole code, common passages included: a small uncommon remainder
            # matched in full is not a copy of the whole.
            matches.append(
                Match(left, right, _share(left_regions, by_name[left]),
                      _share(right_regions, by_name[right]), left_regions, right_regions)
            )  # fmt: skip
    return sorted(matches, key=lambda m: (-m.score, m.left, m.right))


def _share(regions: tuple[tuple[int, int], ...], code: Code) -> float:
    """The part of a code's text (normalised: no comments, one layout) that `regions` cover."""
    return min(1.0, sum(end - start for start, end in regions) / max(1, len(code.text.strip())))


def _ranges(slices) -> tuple[tuple[int, int], ...]:
    if len(slices) == 0 or len(slices[0]) == 0:
        return ()
    return tuple((int(start), int(end)) for start, end in zip(slices[0], slices[1], strict=True))


def similarity_csv(matches: list[Match]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["left", "right", "score", "left_share", "right_share"])
    for match in matches:
        shares = (match.score, match.left_share, match.right_share)
        names = (spreadsheet_text(match.left), spreadsheet_text(match.right))
        writer.writerow([*names, *(f"{share:.3f}" for share in shares)])
    return buffer.getvalue()


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 80rem; padding: 0 1rem;
       color: #1d2430; } table { border-collapse: collapse; } td, th { padding: .25rem .6rem;
       border-bottom: 1px solid #dde2ea; text-align: left; } td.num { text-align: right; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; margin: 1rem 0 2.5rem; }
pre { background: #f4f6f9; padding: .6rem; border-radius: 6px; font-size: .8rem;
      overflow-x: auto; white-space: pre-wrap; } mark { background: #ffd866; }
.note { background: #fff8e6; border-left: 4px solid #f2b84b; padding: .6rem 1rem; }
"""


def similarity_html(
    codes: dict[str, Code],
    matches: list[Match],
    threshold: float,
    failure: str = "",
    not_compared: list[tuple[str, str]] | None = None,
) -> str:
    """A self-contained page: the pairs by score, the matched regions side by side, and the
    submissions `not_compared` (or only in part; by default the codes with a note), with the
    reason."""
    esc = html.escape
    flagged = [m for m in matches if m.score >= threshold]
    compared = sum(1 for code in codes.values() if code.text.strip())
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Similar submissions</title><style>{STYLE}</style></head><body>",
        "<h1>Similar submissions</h1>",
        "<p class='note'>A high score is a reason to look at the two submissions, not a verdict: "
        "short functions that follow the lecture's pseudo-code look alike even when written "
        "independently, and mistakes made from the reference resemble it. Comments, "
        "docstrings, names and layout were normalised away before comparing.</p>",
    ]
    if failure:
        parts.append(f"<p class='note' id='failure'>No pair was compared: {esc(failure)}.</p>")
    else:
        parts.append(f"<p>{compared} codes compared (the reference solutions included); "
                     f"{len(flagged)} pair(s) at or above {threshold:.0%}.</p>")  # fmt: skip
    noted = [(code.name, code.note) for code in codes.values() if code.note]
    parts += _not_compared_html(noted if not_compared is None else not_compared)
    parts.append("<table id='pairs'><tr><th>score</th><th>submission</th><th>submission</th></tr>")
    for number, match in enumerate(matches):
        parts.append(
            f"<tr><td class='num'>{match.score:.0%}</td><td>{_link(match.left, number, flagged)}"
            f"</td><td>{esc(match.right)}</td></tr>"
        )
    parts.append("</table>")
    for number, match in enumerate(flagged):
        parts.append(
            f"<h2 id='pair-{number}'>{esc(match.left)} and {esc(match.right)}: "
            f"{match.score:.0%}</h2><div class='pair'>"
            f"<div><b>{esc(match.left)}</b> ({match.left_share:.0%} matched)<pre>"
            f"{_marked(codes[match.left].text, match.left_regions)}</pre></div>"
            f"<div><b>{esc(match.right)}</b> ({match.right_share:.0%} matched)<pre>"
            f"{_marked(codes[match.right].text, match.right_regions)}</pre></div></div>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)


def _not_compared_html(not_compared: list[tuple[str, str]]) -> list[str]:
    if not not_compared:
        return []
    esc = html.escape
    items = "".join(f"<li>{esc(name)}: {esc(why)}</li>" for name, why in not_compared)
    return ["<h2>Not compared, or only in part</h2><p>Look at these yourself: what was not "
            f"compared cannot be flagged.</p><ul id='not-compared'>{items}</ul>"]  # fmt: skip


def _link(name: str, number: int, flagged: list[Match]) -> str:
    """The name, linked to its side-by-side view when the pair has one."""
    if number < len(flagged):
        return f"<a href='#pair-{number}'>{html.escape(name)}</a>"
    return html.escape(name)


def _marked(text: str, regions: tuple[tuple[int, int], ...]) -> str:
    pieces, at = [], 0
    for start, end in sorted(regions):
        start = max(start, at)
        if end <= start:
            continue
        pieces += [html.escape(text[at:start]), f"<mark>{html.escape(text[start:end])}</mark>"]
        at = end
    pieces.append(html.escape(text[at:]))
    return "".join(pieces)


@dataclass(frozen=True)
class Comparison:
    """A class compared: every code (with its note), the pairs found, highest first, why no
    pair could be compared ("" if they were), and the submissions left out unread."""

    codes: dict[str, Code]
    matches: list[Match]
    failure: str = ""
    unread: tuple[tuple[str, str], ...] = ()  # (name, why)

    def not_compared(self) -> list[tuple[str, str]]:
        """The submissions not compared, or only in part: (name, why)."""
        noted = [(code.name, code.note) for code in self.codes.values() if code.note]
        return [*self.unread, *noted]


def compare_submissions(
    submissions: list[Submission], limits: CompareLimits | None = None
) -> Comparison:
    """Read each submission in a capped child process (`submission_code`), then compare every
    pair, and each with the reference, in another (`compare`)."""
    import copydetect  # noqa: F401 - imported once, here, for every child forked below

    limits = limits or CompareLimits()
    codes = {REFERENCE: reference_code()}
    named_so = "not compared: a submission's name cannot be the one the reference solutions go by"
    unread = ((REFERENCE, named_so),) if any(s.student == REFERENCE for s in submissions) else ()
    submissions = [submission for submission in submissions if submission.student != REFERENCE]
    read = functools.partial(submission_code, limits=limits)
    for submission, done in zip(
        submissions, bounded_map(read, submissions, limits.submission), strict=True
    ):
        why = f"not compared: reading it {done.failure}"
        codes[submission.student] = done.value or Code(submission.student, "", why)
    with BoundedChild(compare, [list(codes.values())], limits.pairs) as child:
        done = child.next()
    if done.failure:
        return Comparison(codes, [], f"comparing the pairs {done.failure}", unread)
    return Comparison(codes, done.value, "", unread)


def similarity_report(
    submissions: list[Submission],
    out: Path,
    threshold: float = THRESHOLD,
    limits: CompareLimits | None = None,
) -> Comparison:
    """Compare the submissions with each other and with the reference; write
    `out/similarity.html` and `out/similarity.csv`; return the comparison."""
    from autograder.reports.files import write_atomically

    comparison = compare_submissions(submissions, limits)
    matches = comparison.matches
    write_atomically(out / "similarity.csv", similarity_csv(matches))
    page = similarity_html(comparison.codes, matches, threshold, comparison.failure,
                           comparison.not_compared())  # fmt: skip
    write_atomically(out / "similarity.html", page)
    return comparison


@dataclass(frozen=True)
class Findings:
    """What the class page says of a comparison: the pairs at or above the threshold, the
    submissions not compared (or only in part) with the reason, and why no pair was compared
    ("" if they were)."""

    pairs: tuple[tuple[str, str, float], ...] = ()
    not_compared: tuple[tuple[str, str], ...] = ()
    failure: str = ""


def _findings(job: tuple[list[Submission], Path, CompareLimits]) -> Findings:
    submissions, out, limits = job
    comparison = similarity_report(submissions, out, THRESHOLD, limits)
    pairs = tuple((m.left, m.right, m.score) for m in comparison.matches if m.score >= THRESHOLD)
    return Findings(pairs, tuple(comparison.not_compared()), comparison.failure)


class SimilarPairs:
    """The class's submissions compared (`similarity.py`) in a process of its own, started
    before grading so that it runs beside the graders (about a second more for a class of 50 on
    two cores, hence `--similarity` asks for it), with caps of its own on time and memory
    (`seconds` for the whole class; each submission and the pairs have `limits`)."""

    def __init__(
        self,
        out: Path,
        submissions: list,
        limits: CompareLimits | None = None,
        seconds: float = 600,
    ) -> None:
        limits = limits or CompareLimits()
        caps = Caps(seconds, limits.pairs.memory_mb + 512)
        self._child = BoundedChild(_findings, [(submissions, out, limits)], caps)
        self._findings: Findings | None = None

    def findings(self, timeout: float | None = None) -> Findings:
        """What was found, once the comparison has finished (waiting at most `timeout` more
        seconds); its `failure` says why if it could not be made."""
        if self._findings is None:
            done = self._child.next(timeout)
            self._findings = done.value or Findings(failure=f"the comparison {done.failure}")
            self.close()
        return self._findings

    def pairs(self, timeout: float = 600) -> list[tuple[str, str, float]] | None:
        """The pairs at or above the threshold; None if the comparison could not be made."""
        found = self.findings(timeout)
        return None if found.failure else list(found.pairs)

    def close(self) -> None:
        """Stop the comparison if it is still running (a run interrupted while grading)."""
        self._child.close()


def assignment_limits(assignment: str | None) -> CompareLimits:
    """The caps of a comparison that picks a student's file by `assignment`'s functions (the
    one defining most of them), as grading that assignment does; lectures 1-4's if None."""
    if not assignment:
        return CompareLimits()
    rule_ids = ASSIGNMENT_RULES[assignment]
    if set(rule_ids) <= set(PLAYED_RULE_IDS):
        return CompareLimits(functions=(AGENT_FUNCTION,))
    functions = sorted(
        {group.function for rule in selected_rules(rule_ids) for group in rule.groups}
    )
    return CompareLimits(functions=tuple(functions))


def class_submissions(out: Path, known: set[str], submissions: list) -> list:
    """This run's submissions and the files of every other student saved in `out`."""
    graded = {submission.student for submission in submissions}
    others = [
        Submission(record.student, tuple(Path(name) for name in record.files))
        for record in whole_class(out, known - graded, [])
        if record.files
    ]
    return [*submissions, *others]


def command(args) -> int:
    """Write DIR/similarity.html and .csv and print the pairs at or above the threshold."""
    fail = "python -m autograder similarity: error:"
    why = out_refused(args.out)
    if why:
        print(f"{fail} {why}", file=sys.stderr)
        return 2
    with unpacking(args.paths) as unpack:
        found = discover(args.paths, args.assignment, unpack)
        if not found.submissions:
            print(f"{fail} no submissions found: give notebooks, .py files or folders of them",
                  file=sys.stderr)  # fmt: skip
            return 2
        try:
            limits = assignment_limits(args.assignment)
            comparison = similarity_report(found.submissions, args.out, args.threshold, limits)
        except OSError as error:  # what `out_refused` cannot see coming: a full disk
            print(f"{fail} --out {args.out} cannot be written: {error.strerror or error}",
                  file=sys.stderr)  # fmt: skip
            return 2
    flagged = [m for m in comparison.matches if m.score >= args.threshold]
    for match in flagged[:15]:
        print(f"{match.score:4.0%}  {printable(match.left)}  ~  {printable(match.right)}")
    if len(flagged) > 15:
        print(f"... and {len(flagged) - 15} more")
    for name, note in comparison.not_compared():
        print(f"{printable(name)}: {printable(note)}")
    if comparison.failure:
        print(f"{fail} {comparison.failure}", file=sys.stderr)
        return 1
    print(
        f"{len(flagged)} pair(s) at or above {args.threshold:.0%}: "
        f"{printable(str(args.out / 'similarity.html'))} (a reason to look, not a verdict)"
    )
    return 0
