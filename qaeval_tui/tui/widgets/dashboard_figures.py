"""The dashboard's tables as Content: agreement per axis, judge versus human per axis, reviewer progress.

Every figure comes from the core's `Dashboard`; these functions only lay them out. An undefined
figure shows as "-" with the core's reason written under the table, never as a number.
"""

from __future__ import annotations

from typing import NamedTuple

from textual.content import Content

from qaeval_tui.core.statistics.alpha_interval import MIN_ITEMS_ALPHA_INTERVAL
from qaeval_tui.core.statistics.figures import agreement_figures, calibration_figures
from qaeval_tui.core.statistics.verdict import bar_line, report_notes, verdict_line
from qaeval_tui.core.usecases.dashboard import Dashboard
from qaeval_tui.tui.literal import line, plain
from qaeval_tui.tui.widgets.charts import interval_strip, pace_blocks
from qaeval_tui.tui.widgets.figure_table import Cell, Column, figure, figure_table, interval
from qaeval_tui.tui.widgets.status_line import clock_text

HEAD = "bold $primary"
MUTED = "$foreground-muted"
VERDICT_STYLES = {"TRUSTED": "bold $success", "RETUNE": "bold $error", "INSUFFICIENT": "bold $warning"}


class Section(NamedTuple):
    """A titled table and the notes under it (the table is kept on one line per row; notes wrap)."""

    title: Content
    table: Content
    notes: Content
    plot: Content = Content("")
    """The section's picture (points with their intervals), or empty."""


def _section(
    title: Content, table: Content | None = None, notes: list[Content] | None = None, plot: Content | None = None
) -> Section:
    return Section(title, table or Content(""), Content("\n").join(notes or []), plot or Content(""))


def _title(text: str, note: str = "") -> Content:
    """Our title, and a note that may quote data (judge name, rubric version): shown literally."""
    return Content.assemble((text, HEAD), Content.assemble("  ", line(note)).stylize(MUTED) if note else "")


def _axis(name: str) -> Content:
    return Content.assemble(line(name), ": ").stylize("bold")


def _problem(text: str) -> Content:
    return plain(text).stylize("$warning")


def agreement_section(dashboard: Dashboard) -> Section:
    report = dashboard.agreement
    if report is None:
        return _section(_title("Inter-rater agreement"), notes=[_problem(dashboard.agreement_problem or "")])
    used = report.selection.get("used", 0)
    note = (
        f"{len(report.reviewers)} reviewers · {report.n_items} items · {used} blind labels · "
        f"{report.replicates} bootstrap replicates (seed {report.seed}); CI from {MIN_ITEMS_ALPHA_INTERVAL} items"
    )
    columns = [
        Column("axis", 20), Column("level", 7), Column("alpha", 6, ">"), Column("95% CI", 11, ">"),
        Column("raw", 5, ">"), Column("items", 5, ">"), Column("can't", 5, ">"), Column("distribution", 18),
    ]  # fmt: skip
    rows: list[list[Cell]] = []
    reasons: list[Content] = []
    for name, axis in report.axes.items():
        spread = " ".join(f"{value}:{count}" for value, count in axis.distribution.items())
        rows.append(
            [
                name, axis.level, figure(axis.alpha.value), interval(axis.alpha.ci), figure(axis.raw_agreement),
                str(axis.n_items), str(axis.n_cant_judge), spread,
            ]
        )  # fmt: skip
        if axis.alpha.value is None:
            reasons.append(Content.assemble(_axis(name), ("alpha undefined: ", MUTED), plain(axis.alpha.reason or "")))
        elif axis.alpha.ci is None and axis.alpha.ci_reason and axis.alpha.ci_reason.startswith("too few items"):
            rows[-1][3] = Content.styled(f"n < {MIN_ITEMS_ALPHA_INTERVAL}", MUTED)  # too few for an interval
        elif axis.alpha.ci is None and axis.alpha.ci_reason:
            reasons.append(Content.assemble(_axis(name), ("no CI: ", MUTED), plain(axis.alpha.ci_reason)))
    excluded = report.selection.get("post_reveal_excluded", 0)
    if excluded:
        reasons.append(Content.styled(f"{excluded} post-reveal revision(s) left out (blind labels only)", MUTED))
    quarantined = report.selection.get("quarantined_excluded", 0)
    if quarantined:
        reasons.append(Content.styled(f"{quarantined} quarantined label row(s) left out", MUTED))
    plot = interval_strip(agreement_figures(report)[0])
    return _section(_title("Inter-rater agreement", note), figure_table(columns, rows), reasons, plot)


def calibration_section(dashboard: Dashboard) -> Section:
    report = dashboard.calibration
    if report is None:
        return _section(_title("Judge vs human"), notes=[_problem(dashboard.calibration_problem or "")])
    data = report.to_json()
    note = (
        f"judge {report.judge_name} {report.judge_config_hash[:8]} · rubric {report.rubric_version} · "
        f"{bar_line(data['bar'])}"
    )
    columns = [
        Column("axis", 20), Column("n", 4, ">"), Column("exact", 5, ">"), Column("95% CI", 9, ">"),
        Column("±1", 4, ">"), Column("MAE", 4, ">"), Column("bias", 5, ">"), Column("κ quad", 6, ">"),
        Column("alpha", 5, ">"), Column("verdict", 12),
    ]  # fmt: skip
    rows: list[list[Cell]] = []
    notes: list[Content] = []
    for name, axis in report.axes.items():
        alpha = axis.alpha.value if axis.alpha is not None else None
        rows.append(
            [
                name, str(axis.n), figure(axis.exact), interval(axis.exact_ci), figure(axis.within_one),
                figure(axis.mae), figure(axis.bias, signed=True), figure(axis.kappa_quadratic), figure(alpha),
                Content.styled(axis.verdict, VERDICT_STYLES[axis.verdict]),
            ]
        )  # fmt: skip
        words = verdict_line(name, axis.to_json())  # the same words as the CLI's outputs
        parts = [plain(words).stylize(VERDICT_STYLES[axis.verdict], 0, len(name) + 1 + len(axis.verdict))]
        unresolved = axis.consensus_counts.get("unresolved", 0)
        if unresolved:
            parts.append(Content.styled(f" · {unresolved} split item(s) to adjudicate", "$warning"))
        notes.append(Content.assemble(*parts))
    notes += [plain(f"warning: {note}").stylize("$warning") for note in report_notes(data)]
    overall = Content.assemble(("overall ", MUTED), (report.verdict, VERDICT_STYLES[report.verdict]))
    plot = interval_strip(calibration_figures(report)[0])
    return _section(_title("Judge vs human", note), figure_table(columns, rows, gap=1), [*notes, overall], plot)


def progress_section(dashboard: Dashboard) -> Section:
    columns = [
        Column("reviewer", 14), Column("done", 11, ">"), Column("skipped", 7, ">"), Column("flagged", 7, ">"),
        Column("labeled", 7, ">"), Column("post-reveal", 11, ">"), Column("time", 9, ">"),
    ]  # fmt: skip
    rows: list[list[Cell]] = [
        [
            plain(p.reviewer), f"{p.done} of {p.assigned}", str(p.skipped), str(p.flagged), str(p.labeled),
            str(p.post_reveal), clock_text(p.seconds_spent),
        ]
        for p in dashboard.reviewers
    ]  # fmt: skip
    note = f"{dashboard.labels_read} label revision(s) in the store"
    if not rows:
        return _section(_title("Reviewer progress", note), notes=[Content.styled("no reviewers yet", MUTED)])
    pace = [Content.styled("Pace: seconds per label through the queue, in the order labelled (taller: slower)", MUTED)]
    for reviewer in dashboard.pace:
        median = "-" if reviewer.median is None else f"{reviewer.median:.1f} s"
        pace.append(
            Content.assemble(
                line(reviewer.reviewer, 14).pad_right(max(0, 14 - len(line(reviewer.reviewer, 14).plain))),
                "  ", pace_blocks(reviewer),
                (f"  median {median} · {reviewer.items} label(s)", MUTED),
            )
        )  # fmt: skip
    return _section(_title("Reviewer progress", note), figure_table(columns, rows), pace)
