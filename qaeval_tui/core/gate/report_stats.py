"""The statistical part of every gate output: p-values, Holm decisions, MDEs, warnings and refusals.

Shared by the JSON, Markdown and JUnit reports (report.py) and the console (cli/run_views.py), so
all of them say the same thing in the same words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.spread import spread_line
from qaeval_tui.core.gate.statistical import TEST_NAME
from qaeval_tui.core.statistics.significance import EXACT_MAX_PATTERNS

if TYPE_CHECKING:
    from qaeval_tui.core.gate.decision import GateReport
    from qaeval_tui.core.gate.delta import MetricDelta

STAT_COLUMNS = ("p (Holm; * significant)", "MDE")
REFUSAL = "no verdict was reached; refusing is not passing"


def stat_cells(delta: MetricDelta) -> tuple[str, str]:
    """The Holm-adjusted p-value and the MDE of a metric, as table cells ("" when it was not tested)."""
    test = delta.test
    if test is None:
        return ("", "")
    shown = "<0.001" if test.p_holm < 0.001 else f"{test.p_holm:.3f}"
    return (shown + (" *" if test.significant else ""), mde_text(test.mde))


def mde_text(mde: float | None) -> str:
    """An MDE as a cell: "none" when the suite has no finite MDE (its test cannot reach significance)."""
    return "none" if mde is None else f"{mde:.3f}"


def checked_metrics(report: GateReport) -> list[str]:
    return [delta.name for delta in report.metrics if delta.test is not None]


def mode_line(report: GateReport) -> str:
    """How the p-values and MDEs were reached, in one line."""
    checked = len(checked_metrics(report))
    spread = spread_line(report.spread, report.samples)
    tail = "" if spread is None else f"; {spread}"
    if not checked:
        return f"mode {report.mode}: no gated metric has a case both runs scored, so none was tested{tail}"
    return (
        f"mode {report.mode}: p-values by {TEST_NAME} (exact where small, else {flips_drawn(report)} flips, "
        f"seed {report.seed}), Holm-corrected across {checked} metric(s), significant at Holm p <= {power.ALPHA}; "
        f"MDE = {power.FORMULA} at power {power.POWER}, sd planned from the baseline{tail}"
    )


def flips_drawn(report: GateReport) -> int:
    """The most random sign flips a test that is not exact draws: bootstrap_replicates, raised to 20 m / alpha."""
    return power.flips(max(1, len(checked_metrics(report))), report.replicates)


def mde_warnings(report: GateReport) -> list[str]:
    """One warning per gated metric whose tolerance is below what this suite resolves, and (a sampled run in
    tolerance mode) per tolerance inside the run-to-run spread."""
    found = [delta.test.warning for delta in report.metrics if delta.test is not None and delta.test.warning]
    return found + [row.warning for row in report.spread if row.warning]


def refusal_line(report: GateReport) -> str | None:
    """Why the gate refused, naming the metrics; None when it did not."""
    refused = report.refused_metrics
    if not refused:
        return None
    named = f"{len(refused)} metric(s) refused ({', '.join(refused)})"
    if report.verdict != "REFUSED":  # a block was reached all the same; these metrics had no verdict of their own
        return f"besides the block, {named}: a tolerance below what the suite resolves is no verdict"
    return f"{REFUSAL}: {named}"


def statistics_json(report: GateReport) -> dict[str, Any]:
    """The `statistics` block of the `--json` report (per-metric figures are in `metrics[].statistics`)."""
    return {
        "mode": report.mode,
        "test": TEST_NAME,
        "replicates": flips_drawn(report),
        "replicates_rule": power.FLIPS_RULE,
        "exact_up_to_patterns": EXACT_MAX_PATTERNS,
        "seed": report.seed,
        "correction": "Holm (1979) across the metrics checked",
        "alpha": power.ALPHA,
        "metrics_checked": checked_metrics(report),
        "mde_formula": power.FORMULA,
        "power": power.POWER,
        "refused_metrics": report.refused_metrics,
        "mde_warnings": mde_warnings(report),
        # A sampled run (k > 1): each case's values are means over k samples; the spread those showed.
        **(
            {"samples": report.samples, "spread": [row.to_json() for row in report.spread]}
            if report.samples > 1
            else {}
        ),
    }
