"""Copies found: pairs of submissions, and submissions close to the public reference solutions.

Each submission's functions and classes are normalised first (comments, docstrings and
formatting go: `ast.unparse` rewrites the code in one canonical layout), then fingerprinted by
copydetect (winnowing, as MOSS does), which also replaces every name by a placeholder, so that
renamed variables and reordered helpers still match. A high score is a reason to look at the
two submissions side by side, never a verdict: short functions that follow the lecture's
pseudo-code closely look alike even when they were written independently.
"""

from __future__ import annotations

import ast
import csv
import html
import io
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from autograder.grading.load import Submission, discover, load, unpacking
from autograder.reports.files import spreadsheet_text, whole_class

REFERENCE = "(reference solutions)"
NOISE_TOKENS = 25  # matches shorter than this many tokens are ignored (copydetect's default)
GUARANTEE_TOKENS = 30  # matches at least this long are always found
THRESHOLD = 0.6
"""Pairs whose score reaches this are listed first and printed; the page shows every pair."""


@dataclass(frozen=True)
class Code:
    """What is compared of one submission: its definitions, normalised."""

    name: str
    text: str


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


def normalise(cells: list[str]) -> str:
    """The top-level functions and classes of `cells`, without docstrings or comments, in one
    layout. Cells that do not parse are left out (they are graded as syntax errors anyway)."""
    parts = []
    for source in cells:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                _drop_docstrings(node)
                parts.append(ast.unparse(node))
    return "\n\n".join(parts) + "\n" if parts else ""


def _drop_docstrings(node: ast.AST) -> None:
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            inner.body = body[1:] or [ast.Pass()]


def submission_code(submission: Submission) -> Code:
    loaded = load(submission)
    return Code(submission.student, normalise([source for _, source in loaded.cells]))


def reference_code() -> Code:
    from autograder.grading.reference import reference_source

    return Code(REFERENCE, normalise([reference_source()]))


COMMON_SHARE = 0.5
"""Passages found in more than this share of the submissions (at least 4 of them) are common
ground, like template code or the one obvious way to write a loop: they are ignored when two
submissions are compared (MOSS's -m option), though not when one is compared with the
reference, which is a known source."""


def compare(codes: list[Code], reference: str = REFERENCE) -> list[Match]:
    """Every pair of `codes` that share uncommon fingerprints, highest score first."""
    from copydetect import CodeFingerprint, compare_files

    window = GUARANTEE_TOKENS - NOISE_TOKENS + 1

    def fingerprint(code: Code, common=None) -> CodeFingerprint:
        return CodeFingerprint(f"{code.name}.py", NOISE_TOKENS, window, boilerplate=common,
                               fp=io.StringIO(code.text), language="python")  # fmt: skip

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


def similarity_html(codes: dict[str, Code], matches: list[Match], threshold: float) -> str:
    """A self-contained page: the pairs by score, and the matched regions side by side."""
    esc = html.escape
    flagged = [m for m in matches if m.score >= threshold]
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Similar submissions</title><style>{STYLE}</style></head><body>",
        "<h1>Similar submissions</h1>",
        "<p class='note'>A high score is a reason to look at the two submissions, not a verdict: "
        "short functions that follow the lecture's pseudo-code look alike even when written "
        "independently, and mistakes made from the reference resemble it. Comments, "
        "docstrings, names and layout were normalised away before comparing.</p>",
        f"<p>{len(codes)} codes compared (the reference solutions included); {len(flagged)} "
        f"pair(s) at or above {threshold:.0%}.</p>",
        "<table id='pairs'><tr><th>score</th><th>submission</th><th>submission</th></tr>",
    ]
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


def similarity_report(
    submissions: list[Submission], out: Path, threshold: float = THRESHOLD
) -> list[Match]:
    """Compare the submissions with each other and with the reference; write
    `out/similarity.html` and `out/similarity.csv`; return the matches, highest first."""
    from autograder.reports.files import write_atomically

    codes = {code.name: code for code in [reference_code(), *map(submission_code, submissions)]}
    matches = compare(list(codes.values()))
    write_atomically(out / "similarity.csv", similarity_csv(matches))
    write_atomically(out / "similarity.html", similarity_html(codes, matches, threshold))
    return matches


class SimilarPairs:
    """The class's submissions compared (`similarity.py`) in a process of its own, started
    before grading so that it runs beside the graders (about 0.7 s more for a class of 50 on
    two cores, hence `--similarity` asks for it), with memory of its own."""

    def __init__(self, out: Path, submissions: list) -> None:
        from autograder.reports.similarity import similarity_report

        context = multiprocessing.get_context("fork")
        self._pool = ProcessPoolExecutor(1, mp_context=context)
        self._future = self._pool.submit(similarity_report, submissions, out)

    def pairs(self, timeout: float = 600) -> list[tuple[str, str, float]] | None:
        """The pairs at or above the threshold; None if the comparison could not be made."""
        from autograder.reports.similarity import THRESHOLD

        try:
            matches = self._future.result(timeout=timeout)
        except Exception:  # noqa: BLE001 - a report section must never cost the grades
            return None
        finally:
            self._pool.shutdown(wait=False, cancel_futures=True)
        return [(m.left, m.right, m.score) for m in matches if m.score >= THRESHOLD]


def class_submissions(out: Path, known: set[str], submissions: list) -> list:
    """This run's submissions and the files of every other student saved in `out`."""
    from autograder.grading.load import Submission

    graded = {submission.student for submission in submissions}
    others = [
        Submission(record.student, tuple(Path(name) for name in record.files))
        for record in whole_class(out, known - graded, [])
        if record.files
    ]
    return [*submissions, *others]


def command(args) -> int:
    """Write DIR/similarity.html and .csv and print the pairs at or above the threshold."""
    with unpacking(args.paths) as unpack:
        found = discover(args.paths, args.assignment, unpack)
        if not found.submissions:
            print(
                "no submissions found: give notebooks, .py files or folders of them",
                file=sys.stderr,
            )
            return 2
        matches = similarity_report(found.submissions, args.out, args.threshold)
    flagged = [m for m in matches if m.score >= args.threshold]
    for match in flagged[:15]:
        print(f"{match.score:4.0%}  {match.left}  ~  {match.right}")
    if len(flagged) > 15:
        print(f"... and {len(flagged) - 15} more")
    print(
        f"{len(flagged)} pair(s) at or above {args.threshold:.0%}: "
        f"{args.out / 'similarity.html'} (a reason to look, not a verdict)"
    )
    return 0
