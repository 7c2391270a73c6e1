"""The figures of `statistics.figures` as inline SVG strings for the HTML reports.

No script, no font or image from elsewhere, no CSS the page must load: each figure is one `<svg>`
element that prints as it shows (dark strokes, fills that survive a printer's "no backgrounds").
Every drawn number is also in the markup: `data-*` attributes carry the exact values (six decimal
places; "" where the report has none) and a `<title>` says them in words, so a screen reader, a
test and a curious reader all get the number, not just its pixel.
"""

from __future__ import annotations

from qaeval_tui.core.statistics.figures import BandedSeries, HeatMap, IntervalFigure
from qaeval_tui.core.text import html_text

INK = "#1d232a"
MUTED = "#6b7782"
POINT = "#1f5fa8"
GOOD = "#2e7d3e"
BAD = "#b3261e"
BAND = "#cfe8d5"


def data_number(value: float | None) -> str:
    """A number for a data attribute: six decimals, or "" when there is none."""
    return "" if value is None else f"{value:.6f}"


def _shown(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _attr(text: str) -> str:
    return html_text(text)


def interval_svg(figure: IntervalFigure, width: int = 560) -> str:
    """Points with their intervals, one row per label; a dashed line at the figure's reference value."""
    row, top, label_w, value_w = 26, 30, 170, 150
    plot_w = width - label_w - value_w
    low, high = figure.domain
    height = top + row * len(figure.points) + 22

    def x(value: float) -> float:
        clamped = max(low, min(high, value))
        return label_w + (clamped - low) / (high - low) * plot_w

    parts = [
        f'<svg class="figure interval" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" data-figure="{_attr(figure.name)}" '
        f'data-domain-low="{data_number(low)}" data-domain-high="{data_number(high)}">',
        f"<title>{html_text(figure.title)}</title>",
        f'<text x="0" y="16" font-size="13" font-weight="600" fill="{INK}">{html_text(figure.title)}</text>',
        f'<line x1="{label_w}" y1="{height - 18}" x2="{label_w + plot_w}" y2="{height - 18}" stroke="{MUTED}"/>',
    ]
    for tick in (low, (low + high) / 2, high):
        parts.append(
            f'<text x="{x(tick):.1f}" y="{height - 4}" font-size="10" text-anchor="middle" fill="{MUTED}">'
            f"{tick:g}</text>"
        )
    if figure.reference is not None:
        ref = x(figure.reference)
        parts.append(
            f'<line class="reference" x1="{ref:.1f}" y1="{top - 8}" x2="{ref:.1f}" y2="{height - 18}" stroke="{MUTED}" '
            f'stroke-dasharray="4 3" data-value="{data_number(figure.reference)}"><title>'
            f"{html_text(figure.reference_label)} {figure.reference:g}</title></line>"
        )
    for index, point in enumerate(figure.points):
        y = top + row * index + row / 2
        words = f"{point.label}: {_shown(point.value)}"
        if point.low is not None and point.high is not None:
            words += f" [{point.low:.3f}, {point.high:.3f}]"
        if point.note:
            words += f" ({point.note})"
        parts.append(
            f'<g class="point" data-label="{_attr(point.label)}" data-value="{data_number(point.value)}" '
            f'data-low="{data_number(point.low)}" data-high="{data_number(point.high)}">'
            f"<title>{html_text(words)}</title>"
        )
        parts.append(
            f'<text x="0" y="{y + 4:.1f}" font-size="12" fill="{INK}">{html_text(_clip(point.label, 24))}</text>'
        )
        if point.low is not None and point.high is not None:
            parts.append(
                f'<line x1="{x(point.low):.1f}" y1="{y:.1f}" x2="{x(point.high):.1f}" y2="{y:.1f}" stroke="{POINT}" '
                'stroke-width="2"/>'
            )
            for end in (point.low, point.high):
                parts.append(
                    f'<line x1="{x(end):.1f}" y1="{y - 5:.1f}" x2="{x(end):.1f}" y2="{y + 5:.1f}" stroke="{POINT}" '
                    'stroke-width="2"/>'
                )
        if point.value is not None:
            parts.append(f'<circle cx="{x(point.value):.1f}" cy="{y:.1f}" r="4.5" fill="{POINT}"/>')
        shown = _shown(point.value)
        if point.low is not None and point.high is not None:
            shown += f" [{point.low:.3f}, {point.high:.3f}]"
        elif point.value is not None and point.note:
            shown += " (no interval)"
        elif point.value is None:
            shown = "undefined"
        parts.append(
            f'<text x="{label_w + plot_w + 8}" y="{y + 4:.1f}" font-size="11" fill="{MUTED}">{html_text(shown)}</text>'
        )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def heatmap_svg(heat: HeatMap, cell: int = 44) -> str:
    """A confusion table as shaded squares: green on the diagonal (agreement), red off it, darker for a
    larger share of its row; each square says its count."""
    size = len(heat.scale)
    left, top = 64, 50
    width, height = left + cell * size + 50, top + cell * size + 10
    parts = [
        f'<svg class="figure heatmap" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" data-figure="confusion" data-axis="{_attr(heat.name)}">',
        f"<title>{html_text(f'{heat.name}: human consensus (rows) by judge (columns)')}</title>",
        f'<text x="0" y="14" font-size="13" font-weight="600" fill="{INK}">{html_text(_clip(heat.name, 30))}</text>',
        f'<text x="{left}" y="28" font-size="10" fill="{MUTED}">judge →</text>',
        f'<text x="0" y="{top - 6}" font-size="10" fill="{MUTED}">human ↓</text>',
    ]
    for j, value in enumerate(heat.scale):
        parts.append(
            f'<text x="{left + cell * j + cell / 2:.0f}" y="{top - 6}" font-size="11" text-anchor="middle" '
            f'fill="{INK}">{value}</text>'
        )
    for i, human in enumerate(heat.scale):
        y = top + cell * i
        parts.append(
            f'<text x="{left - 8}" y="{y + cell / 2 + 4:.0f}" font-size="11" text-anchor="end" fill="{INK}">'
            f"{human}</text>"
        )
        for j, judge in enumerate(heat.scale):
            count, share = heat.counts[i][j], heat.share(i, j)
            hue = 135 if i == j else 5
            fill = "#ffffff" if count == 0 else f"hsl({hue}, 60%, {95 - 50 * share:.0f}%)"
            text = INK if share < 0.6 else "#ffffff"
            parts.append(
                f'<g class="cell" data-human="{human}" data-judge="{judge}" data-count="{count}" '
                f'data-share="{data_number(share)}"><title>human {human}, judge {judge}: {count} item(s), '
                f"{share:.0%} of the row</title>"
                f'<rect x="{left + cell * j}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="{MUTED}"/>'
                f'<text x="{left + cell * j + cell / 2:.0f}" y="{y + cell / 2 + 4:.0f}" font-size="12" '
                f'text-anchor="middle" fill="{text}">{count}</text></g>'
            )
    parts.append("</svg>")
    return "".join(parts)


def sparkline_svg(series: BandedSeries, width: int = 320, height: int = 56) -> str:
    """A metric's history as a line on 0..1, its drift band as a shaded strip, the latest point marked."""
    low, high = 0.0, 1.0  # every metric is a rate: drawn on the whole 0..1, the band clipped to it
    pad, left = 6, 4
    plot_w, plot_h = width - 2 * left, height - 2 * pad
    count = max(len(series.values), 1)

    def x(index: int) -> float:
        return left + (plot_w * index / (count - 1) if count > 1 else plot_w / 2)

    def y(value: float) -> float:
        return pad + plot_h * (1 - (max(low, min(high, value)) - low) / (high - low))

    colour = BAD if series.state == "alarm" else POINT
    words = f"{series.metric}: {series.state}: {series.message}"
    parts = [
        f'<svg class="figure sparkline" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" data-figure="history" data-metric="{_attr(series.metric)}" '
        f'data-band-low="{data_number(series.low)}" data-band-high="{data_number(series.high)}" '
        f'data-state="{_attr(series.state)}" data-points="{len(series.values)}">',
        f"<title>{html_text(words)}</title>",
        f'<rect x="0.5" y="0.5" width="{width - 1}" height="{height - 1}" fill="none" stroke="{MUTED}" '
        'stroke-width="0.5"/>',
    ]
    if series.low is not None and series.high is not None:
        top, bottom = y(series.high), y(series.low)
        parts.append(
            f'<rect class="band" x="{left}" y="{top:.1f}" width="{plot_w}" height="{max(bottom - top, 1):.1f}" '
            f'fill="{BAND}" stroke="{GOOD}" stroke-width="0.5" stroke-dasharray="3 2"><title>band '
            f"[{series.low:.3f}, {series.high:.3f}]</title></rect>"
        )
    runs: list[list[str]] = [[]]
    for index, value in enumerate(series.values):
        if value is None:
            runs.append([])  # a gap: the metric had no value in that run
        else:
            runs[-1].append(f"{x(index):.1f},{y(value):.1f}")
    for run in runs:
        if len(run) > 1:
            parts.append(f'<polyline points="{" ".join(run)}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
    for index, (label, value) in enumerate(zip(series.labels, series.values, strict=True)):
        if value is None:
            continue
        last = index == len(series.values) - 1
        parts.append(
            f'<circle cx="{x(index):.1f}" cy="{y(value):.1f}" r="{3.5 if last else 1.8}" fill="{colour}" '
            f'data-run="{_attr(label)}" data-value="{data_number(value)}"><title>{html_text(label)}: '
            f"{value:.3f}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)
