"""Small pictures drawn with Unicode blocks, as Content: intervals, a history with its band, a pace.

They draw the core's figure data (`core.statistics.figures`) and compute nothing of their own
beyond where a value falls on the screen. Data text (axis, metric and reviewer names) is shown
literally; every picture sits beside the numbers it draws.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from qaeval_tui.core.statistics.figures import BandedSeries, IntervalFigure, Pace
from qaeval_tui.tui.literal import line

MUTED = "$foreground-muted"
POINT = "bold $accent"
SPAN = "$accent"
BLOCKS = " ▁▂▃▄▅▆▇█"
STATE_STYLES = {"ok": "$success", "alarm": "bold $error", "warming_up": "$warning", "n/a": MUTED}


def _column(value: float, low: float, high: float, width: int) -> int:
    clamped = max(low, min(high, value))
    return round((clamped - low) / (high - low) * (width - 1))


def interval_strip(figure: IntervalFigure, *, label_width: int = 20, width: int = 41) -> Content:
    """One line per point: its label, a track with the interval as ━ and the point as ●, then the numbers.

    No interval is drawn where the figure has none (too few items, undefined): the line says why."""
    low, high = figure.domain
    lines = [Content.styled(figure.title, "bold")]
    scale = [" "] * width
    for tick in (low, (low + high) / 2, high):
        text = f"{tick:g}"
        at = max(0, min(width - len(text), _column(tick, low, high, width) - len(text) // 2))
        scale[at : at + len(text)] = list(text)
    lines.append(Content.styled(" " * label_width + "".join(scale), MUTED))
    for point in figure.points:
        track: list[tuple[str, str]] = [("·", MUTED)] * width
        if figure.reference is not None:
            track[_column(figure.reference, low, high, width)] = ("│", MUTED)
        if point.low is not None and point.high is not None:
            for column in range(_column(point.low, low, high, width), _column(point.high, low, high, width) + 1):
                track[column] = ("━", SPAN)
        if point.value is not None:
            track[_column(point.value, low, high, width)] = ("●", POINT)
        if point.value is None:
            words = Content.styled(f" undefined: {point.note}" if point.note else " undefined", "$warning")
        elif point.low is not None and point.high is not None:
            words = Content(f" {point.value:.2f} [{point.low:.2f}, {point.high:.2f}]")
        else:
            words = Content(f" {point.value:.2f}") + (
                Content.styled(" no interval", MUTED) if point.note else Content("")
            )
        label = line(point.label).truncate(label_width - 1, ellipsis=True)
        lines.append(
            Content.assemble(
                label.pad_right(label_width - label.cell_length),
                *(Content.styled(glyph, style) for glyph, style in track),
                words,
            )
        )
    if figure.reference is not None and figure.reference_label:
        lines.append(Content.styled(" " * label_width + f"│ {figure.reference_label} {figure.reference:g}", MUTED))
    return Content("\n").join(lines)


def band_chart(series: BandedSeries, *, height: int = 3, width: int = 30) -> list[Content]:
    """A history as columns of eighth blocks, `height` rows high and about `width` wide (each run one to
    four columns); the rows the band covers are shaded. The latest run carries the drift state's colour
    (red on an alarm)."""
    repeat = max(1, min(4, width // max(len(series.values), 1)))
    low, high = 0.0, 1.0  # every metric is a rate: drawn on the whole 0..1, the band clipped to it
    steps = height * 8
    rows: list[Content] = []
    for row in reversed(range(height)):
        row_low = low + (high - low) * row / height
        row_high = low + (high - low) * (row + 1) / height
        in_band = (
            series.low is not None and series.high is not None and row_high >= series.low and row_low <= series.high
        )
        cells = []
        for index, value in enumerate(series.values):
            last = index == len(series.values) - 1
            if value is None:
                glyph = "·" if row == 0 else " "
            else:
                level = round((value - low) / (high - low) * steps)
                glyph = BLOCKS[max(0, min(8, level - row * 8))] if level > row * 8 else " "
                if row == 0 and level == 0:
                    glyph = "▁"
            style = STATE_STYLES.get(series.state, SPAN) if last else SPAN
            if in_band:
                style += " on $success 20%"
            cells.append(Content.styled(glyph * repeat, style))
        rows.append(Content.assemble(*cells))
    return rows


def band_words(series: BandedSeries) -> Content:
    latest = next((v for v in reversed(series.values) if v is not None), None)
    band = (
        f"band [{series.low:.3f}, {series.high:.3f}]"
        if series.low is not None and series.high is not None
        else "no band"
    )
    now = "-" if latest is None else f"{latest:.3f}"
    return Content.assemble(
        line(series.metric).stylize("bold"),
        f"  {now}  {band}  ",
        Content.styled(series.state.replace("_", " "), STATE_STYLES.get(series.state, MUTED)),
        Content.styled(f"  {len(series.values)} run(s)", MUTED),
    )


def history_block(histories: Sequence[BandedSeries], *, height: int = 2) -> Content:
    """Each gated metric: its name, latest value, band and state, and its chart below."""
    if not histories:
        return Content.styled("No stored runs yet: `qaeval run` stores one.", MUTED)
    parts: list[Content] = []
    for series in histories:
        for index, row in enumerate(band_chart(series, height=height)):
            parts.append(Content.assemble(row, "  ", band_words(series) if index == 0 else ""))
    return Content("\n").join(parts)


def pace_blocks(pace: Pace) -> Content:
    """Seconds per item as one row of blocks (taller: slower), in the order labelled."""
    top = max(pace.seconds, default=0.0)
    if not pace.seconds or top <= 0:
        return Content.styled("-", MUTED)
    glyphs = "".join(BLOCKS[max(1, round(8 * seconds / top))] for seconds in pace.seconds)
    return Content.styled(glyphs, SPAN)
