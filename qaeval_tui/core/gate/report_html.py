"""The gate report as one self-contained HTML page (`qaeval gate --html PATH`): the verdict, both tiers,
the metric table, and the same figures as inline SVG: each metric's change against the baseline as a
point with its paired interval (none where the table prints none) and the tolerance, and each gated
metric's history over the stored runs comparable with this one, with its drift band.

Written over the same `GateReport` as the JSON, Markdown and JUnit reports; data through `html_text()`.
"""

from __future__ import annotations

from collections.abc import Sequence

from qaeval_tui.core.gate.decision import GateReport
from qaeval_tui.core.gate.report import fired_checks, format_ci, metric_label, tier1_summary
from qaeval_tui.core.gate.report_stats import mode_line, refusal_line
from qaeval_tui.core.statistics.figures import BandedSeries, IntervalFigure, IntervalPoint
from qaeval_tui.core.statistics.report_html import html_page
from qaeval_tui.core.statistics.svg import interval_svg, sparkline_svg
from qaeval_tui.core.text import html_text

VERDICT_CLASSES = {"PASS": "TRUSTED", "BLOCK": "RETUNE", "REFUSED": "INSUFFICIENT"}


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def delta_figure(report: GateReport) -> IntervalFigure:
    """Each metric's current minus baseline, with its paired interval where the report prints one."""
    points = []
    reach = 0.05
    for delta in report.metrics:
        low, high = delta.ci if delta.ci is not None else (None, None)
        note = "" if delta.ci is not None else delta.ci_reason or "no interval"
        points.append(IntervalPoint(delta.name, delta.delta, low, high, note=note if delta.delta is not None else ""))
        reach = max(reach, *(abs(v) for v in (delta.delta, low, high, delta.tolerance) if v is not None))
    reach = min(1.0, round(reach * 1.2 + 0.005, 2))
    return IntervalFigure(
        "delta",
        f"Change against the baseline (current − baseline), {report.confidence:.0%} paired CI",
        tuple(points),
        (-reach, reach),
        0.0,
        "no change",
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], classes: Sequence[str] = ()) -> str:
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)
    body = []
    for index, row in enumerate(rows):
        css = f' class="{classes[index]}"' if index < len(classes) and classes[index] else ""
        body.append(f"<tr{css}>" + "".join(f"<td>{html_text(cell)}</td>" for cell in row) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def gate_html(report: GateReport, histories: Sequence[BandedSeries] = ()) -> str:
    """The whole page; `histories` are the gated metrics' series over the stored runs (may be empty)."""
    run, baseline = report.run, report.baseline
    judge = run.get("judge") or {}
    body = [
        f'<p>Verdict: <span class="verdict {VERDICT_CLASSES[report.verdict]}">{html_text(report.verdict)}</span></p>',
        f'<p class="meta">{run["n_cases"]} case(s) run through {html_text(str(run["adapter"]))} (judge '
        f"{html_text(str(judge.get('name')))}/{html_text(str(judge.get('model')))}) · run "
        f"{html_text(str(run['run_id']))}"
        f" · gated against a baseline of {baseline['n_cases']} case(s) · {html_text(mode_line(report))}</p>",
    ]
    refusal = refusal_line(report)
    if refusal:
        body.append(f'<p class="verdict INSUFFICIENT">{html_text(refusal)}</p>')
    body.append("<h2>Metrics against the baseline</h2>")
    body.append('<div class="figures">' + interval_svg(delta_figure(report), width=640) + "</div>")
    body.append("<h2>History of the gated metrics</h2>")
    if histories:
        body.append(
            '<p class="note">Over the stored runs of the same suite and judge, oldest first; the shaded strip is '
            "the band `qaeval drift` judges this run against (the mean of the runs before it, ± its spread).</p>"
        )
        cards = [
            f'<div><h3>{html_text(series.metric)}</h3>{sparkline_svg(series)}<p class="note">'
            f"{html_text(series.message)}</p></div>"
            for series in histories
        ]
        body.append('<div class="figures">' + "".join(cards) + "</div>")
    else:
        body.append('<p class="note">No stored run to draw a history from.</p>')
    fired = fired_checks(report)
    if fired:
        body.append(f"<h2>Tier 1: failed ({html_text(tier1_summary(report))})</h2>")
        body.append(_table(["check", "case", "detail"], [[f.name, f.case_id or "", f.message] for f in report.tier1]))
    else:
        body.append("<h2>Tier 1: passed</h2><p>Every deterministic check is green on every case.</p>")
    tier2 = "failed" if report.tier2 else "refused" if report.refused_metrics else "passed"
    body.append(f"<h2>Tier 2: {tier2}</h2>")
    rows, classes = [], []
    for delta in report.metrics:
        rows.append(
            [
                metric_label(delta), _number(delta.baseline), _number(delta.current), _number(delta.delta, True),
                format_ci(delta), "" if delta.tolerance is None else f"{delta.tolerance:.3f}", delta.status_text,
            ]
        )  # fmt: skip
        classes.append({"fail": "RETUNE", "refused": "INSUFFICIENT"}.get(delta.status, ""))
    header = ["metric", "baseline", "current", "delta", f"{report.confidence:.0%} CI", "tolerance", "status"]
    body.append(_table(header, rows, classes))
    findings = [f for f in report.tier2 if f.kind != "metric"]
    body += [f'<p class="note">{html_text(f.case_id or f.name)}: {html_text(f.message)}</p>' for f in findings]
    return html_page(f"qaeval gate: {report.verdict}", body)
