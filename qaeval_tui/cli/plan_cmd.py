"""`qaeval plan`: the suite size a target minimum detectable effect needs, per metric, from a baseline.

Exit 0, or 2 on a usage or input error (a missing or invalid baseline, an unknown metric, a bad --mde).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from qaeval_tui.cli.common import config_from, guarded_input_as_usage, print_json, stdout
from qaeval_tui.cli.options import AsJson

if TYPE_CHECKING:
    from qaeval_tui.core.gate.plan import SuitePlan


@guarded_input_as_usage
def plan(
    ctx: typer.Context,
    baseline_path: Path = typer.Option(..., "--baseline", help="The baseline whose per-case values plan the suite."),
    mde: float | None = typer.Option(
        None, "--mde", help="Target minimum detectable effect, above 0 and at most 1 (default: each tolerance)."
    ),
    metrics: list[str] | None = typer.Option(
        None, "--metric", help="Plan only this metric (repeat for more; default: every gated metric)."
    ),
    as_json: AsJson = False,
) -> None:
    """Print the suite size a target MDE needs per metric, from a baseline's per-case values.

    Exit 0, or 2 on a usage or input error (a missing or invalid baseline, an unknown metric, a bad --mde).
    """
    from qaeval_tui.core.gate.baseline import load_baseline
    from qaeval_tui.core.gate.decision import resolve_tolerances
    from qaeval_tui.core.gate.plan import plan_suite

    config = config_from(ctx)
    tolerances = resolve_tolerances(config.gate.tolerances, config.gate.gated)
    suite = plan_suite(load_baseline(baseline_path), tolerances, mde, metrics or (), mode=config.gate.mode)
    if as_json:
        print_json(suite.to_json())
        return
    _print_plan(suite)


def _print_plan(suite: SuitePlan) -> None:
    from rich.table import Table

    from qaeval_tui.core.gate import power
    from qaeval_tui.core.gate.report_stats import mde_text

    stdout.print(
        f"Baseline: {suite.n_cases} cases; MDE = {power.FORMULA}, alpha {power.ALPHA} "
        f"Holm-corrected over m = {suite.family} metrics, power {power.POWER}; the sign-flip test reaches "
        f"significance only with {power.floor_cases(suite.family)} or more cases",
        soft_wrap=True,
    )
    table = Table("metric", "n", "MDE now", "target", "cases needed", "suite size", box=None, pad_edge=False)
    for row in suite.metrics:
        table.add_row(
            row.name,
            str(row.n),
            "n/a" if row.n == 0 else mde_text(row.mde),
            "not gated" if row.target is None else f"{row.target:.3f}",
            "n/a" if row.cases_needed is None else str(row.cases_needed),
            "n/a" if row.suite_size_needed is None else str(row.suite_size_needed),
        )
    stdout.print(table)
    for row in suite.metrics:
        if row.reason:
            stdout.print(f"{row.name}: {row.reason}", soft_wrap=True, markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(plan)
