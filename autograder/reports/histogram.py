"""The class page's histogram of the scores, as inline SVG (nothing fetched, nothing drawn by a
library: the page stays one self-contained file)."""

from __future__ import annotations

from collections.abc import Sequence


def _number(value: float) -> str:
    return f"{value:.4g}"


def score_histogram(
    scores: Sequence[float], max_score: float, mean: float, median: float, bins: int = 10
) -> str:
    """The distribution of `scores` out of `max_score`: `bins` bars of equal width, with the
    `mean` and `median` marked."""
    width, height, left, bottom, top = 560, 236, 36, 34, 30
    plot_w, plot_h = width - left - 12, height - bottom - top
    top_score = max_score or 1.0
    counts = [0] * bins
    for score in scores:
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
        ("mean", mean, "#b42318", ""),
        ("median", median, "#17803d", " stroke-dasharray='5 3'"),
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
