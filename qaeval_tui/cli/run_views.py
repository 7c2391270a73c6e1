"""How `run`, `gate` and `drift` print: tables and plain lines from core data, never styling data.

Every text from data goes through `one_line()` (control characters shown as escapes); the
consoles never parse markup, so a `[bold]` in an answer prints as written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table

from qaeval_tui.cli.common import stdout
from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.decision import GateReport
from qaeval_tui.core.gate.report import calibration_sentence, fired_checks, format_ci, judge_errors, metric_label
from qaeval_tui.core.gate.report_stats import mde_text, mde_warnings, mode_line, refusal_line
from qaeval_tui.core.running.metrics import METRIC_SPECS, Scoreboard, slice_columns
from qaeval_tui.core.running.result import RunResult
from qaeval_tui.core.statistics.drift import DriftReport
from qaeval_tui.core.statistics.ppi import MIN_LABELLED_FOR_CI
from qaeval_tui.core.statistics.run_ppi import RunPPI
from qaeval_tui.core.text import one_line

REMOVED_SHOWN = 10
SHOWN = 15  # cases listed by name before "... and N more"


def say(text: str) -> None:
    """One line of report on stdout, never re-wrapped (CI logs and pipes keep whole lines)."""
    stdout.print(text, soft_wrap=True)


def _value(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def judge_calls_line(calls: dict[str, Any]) -> str:
    """What the model judge cost this run: calls made, answers from the cache, errors, tokens, cost."""
    line = (
        f"Judge calls: {calls['calls']}   cached: {calls['cached']}   errors: {calls['errors']}"
        f"   tokens: {calls['input_tokens']} in / {calls['output_tokens']} out"
    )
    if calls.get("calls_without_usage"):
        line += f" (+ {calls['calls_without_usage']} call(s) with no usage reported)"
    if calls.get("estimated_cost") is not None:
        line += f"   estimated cost: {calls['estimated_cost']:.4f} {one_line(str(calls['currency']))}"
    return line


def print_scoreboard(result: RunResult, ppi: RunPPI | None = None) -> None:
    judge = result.judge_config
    say(f"Cases: {len(result.cases)}   adapter: {one_line(result.adapter, 60)}")
    errors = result.judge_errors
    say(
        f"Judge: {one_line(judge.name, 40)}/{one_line(judge.model, 40)}   config {judge.config_hash()[:12]}"
        f"   judge errors: {len(errors)}"
    )
    if result.judge_calls is not None:
        say(judge_calls_line(result.judge_calls))
    if errors and all(r.verdict.status == "skipped" for r in errors):
        say("Checks-only run: no judge was asked; every verdict is skipped and the judge metrics are n/a.")
    elif errors:
        say(f"The judge failed on {len(errors)} case(s); their judge scores are missing, not zero:")
        for r in errors[:SHOWN]:
            say(f"  {one_line(r.case_id, 50)}: {one_line(r.judge_error or '', 160)}")
        if len(errors) > SHOWN:
            say(f"  ... and {len(errors) - SHOWN} more (see --json or --out)")
    board: Scoreboard = result.board
    table = Table("metric", "value", "n", "", box=None, pad_edge=False)
    for name, metric in board.overall.items():
        note = "judge" if METRIC_SPECS[name].judge_axis else ""
        table.add_row(
            name, _value(metric.value), str(metric.n), note if metric.value is not None else metric.reason or ""
        )
    stdout.print(table)
    if ppi is not None and ppi.labelled_cases:  # the judge metrics again, corrected by the humans' labels
        print_ppi(ppi, result.rubric_version)
    columns = slice_columns()
    say("By slice (" + ", ".join(f"{short} = {name}" for short, name in columns.items()) + "):")
    for kind, groups in board.slices.items():
        slices = Table(kind, "n", *columns, box=None, pad_edge=False)
        for key, metrics in groups.items():
            size = board.slice_sizes[kind][key]
            slices.add_row(one_line(key, 26), str(size), *(_value(metrics[name].value) for name in columns.values()))
        stdout.print(slices)
    failing = [r for r in result.cases if not r.passed]
    if failing:
        say(f"{len(failing)} case(s) not passing:")
        for r in failing[:SHOWN]:
            say(f"  {one_line(r.case_id, 50)}: {', '.join(r.failures)}")
        if len(failing) > SHOWN:
            say(f"  ... and {len(failing) - SHOWN} more (see --json or --out)")
    reasons = failure_reasons(result)
    if reasons:
        say("Why:")
        for reason, count in reasons:
            say(f"  {count} case{'' if count == 1 else 's'}: {one_line(reason, 200)}")


def failure_reasons(result: RunResult) -> list[tuple[str, int]]:
    """The system's failures (check `adapter_ok`) and the judge's errors, each reason once with how
    many cases it cost, most frequent first: a whole run failing for one cause reads as one line."""
    counts: dict[str, int] = {}
    for case in result.cases:
        for check in case.checks:
            if check.name == "adapter_ok" and check.failed:
                reason = check.detail.removeprefix("the adapter failed: ")
                counts[reason] = counts.get(reason, 0) + 1
        if case.verdict.status == "error":
            reason = f"the judge failed: {case.judge_error or 'no reason given'}"
            counts[reason] = counts.get(reason, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def strict_failure(result: RunResult) -> str | None:
    """`run --strict`: why this run is no smoke test pass (every adapter call or every judge call
    failed), or None."""
    cases = result.cases
    if not cases:
        return None
    if all(any(c.name == "adapter_ok" and c.failed for c in case.checks) for case in cases):
        return f"--strict: the system failed on every case ({len(cases)})"
    if all(case.verdict.status == "error" for case in cases):
        return f"--strict: the judge failed on every case ({len(cases)})"
    return None


def print_ppi(ppi: RunPPI, rubric_version: str) -> None:
    """Each judge metric's PPI estimate: judge mean over every case, corrected on the labelled ones."""
    say(
        f"PPI estimates: judge mean over all cases + mean (human - judge) on the {ppi.labelled_cases} labelled "
        f"case(s) (latest blind labels, rubric {one_line(rubric_version, 20)}; "
        f"no interval below {MIN_LABELLED_FOR_CI} labelled):"
    )
    table = Table("metric", "ppi", "95% CI", "labelled", "n", "judge", box=None, pad_edge=False)
    for name, estimate in ppi.estimates.items():
        span = "n/a" if estimate.ci is None else f"[{estimate.ci[0]:.3f}, {estimate.ci[1]:.3f}]"
        table.add_row(
            name,
            _value(estimate.value),
            span,
            str(estimate.n_labelled),
            str(estimate.n_cases),
            _value(estimate.judge_mean),
        )
    stdout.print(table)


def verdict_line(report: GateReport) -> str:
    """The gate's verdict and its reason in one line: what a CI log shows first."""
    if report.verdict == "REFUSED":
        reason = refusal_line(report) or "no verdict was reached"
    elif report.verdict == "PASS":
        reason = "every deterministic check green, no metric beyond tolerance, no regression, new cases pass"
    else:
        parts = []
        checks = [finding for finding in report.tier1 if finding.kind == "check"]
        if checks:
            parts.append(f"{len(checks)} deterministic check(s) fired on {len({f.case_id for f in checks})} case(s)")
        failed_on = judge_errors(report)
        if failed_on:
            parts.append(f"the judge failed on {len(failed_on)} case(s)")
        if report.tier2:
            parts.append(f"{len(report.tier2)} Tier 2 finding(s)")
        reason = "; ".join(parts) or "blocked"
    return f"GATE: {report.verdict} — {reason}"


def print_gate(report: GateReport, *, quiet: bool = False, baseline: Path | None = None) -> None:
    """The gate's report; `quiet`: only the findings (the verdict line comes first, from the caller)."""
    refusal = refusal_line(report)
    if refusal and report.verdict != "REFUSED":
        say(f"  [?] {refusal}")
    fired = fired_checks(report)
    if fired:
        checks = [finding for finding in report.tier1 if finding.kind == "check"]
        failed_on = judge_errors(report)
        parts = []
        if checks:
            parts.append(f"{len(checks)} deterministic check(s) fired on {len({f.case_id for f in checks})} case(s)")
        if failed_on:
            parts.append(f"the judge failed on {len(failed_on)} case(s)")
        say(f"  [x] Tier 1 FAILED: {'; '.join(parts)}")
        for name, cases in fired.items():
            say(f"      {name}: {', '.join(one_line(case, 50) for case in cases)}")
        for finding in report.tier1:
            say(f"        {one_line(finding.case_id or '', 40)} [{finding.name}] {one_line(finding.message, 160)}")
    else:
        say("  [ok] Tier 1: every deterministic check green on every case")
    if report.tier2:
        say(f"  [x] Tier 2 FAILED: {len(report.tier2)} finding(s)")
        for finding in report.tier2:
            where = f"{one_line(finding.case_id, 40)}: " if finding.case_id else ""
            # A metric's reason is whole: it may name the cases whose values were lost.
            say(f"      {where}{one_line(finding.message, 200 if finding.case_id else 600)}")
    elif report.refused_metrics:  # nothing blocked, but not every metric could be decided
        say(f"  [?] Tier 2 REFUSED: {len(report.refused_metrics)} metric(s) refused; no regression, new cases pass")
    else:
        say("  [ok] Tier 2: no metric beyond tolerance, no regression, new cases pass")
    if quiet:
        return
    table = Table(
        "metric",
        "baseline",
        "current",
        "delta",
        f"{report.confidence:.0%} CI (paired)",
        "tol",
        "status",
        box=None,
        pad_edge=False,
    )
    for delta in report.metrics:
        tolerance = "" if delta.tolerance is None else power.tolerance_text(delta.tolerance)
        signed = "n/a" if delta.delta is None else f"{delta.delta:+.3f}"
        table.add_row(
            metric_label(delta),
            _value(delta.baseline),
            _value(delta.current),
            signed,
            format_ci(delta),
            tolerance,
            delta.status_text,
        )
    stdout.print(table)
    by_ppi = [d for d in report.metrics if d.basis == "ppi"]
    if by_ppi:  # [gate] judge_metrics = "ppi": what the judge rows of the table compare
        say(
            "judge metrics gated on PPI estimates, baseline -> now: "
            + "; ".join(f"{d.name} {_value(d.baseline)} -> {_value(d.current)} ({d.ci_reason})" for d in by_ppi)
        )
    print_statistics(report, baseline)
    moved = [d for d in report.metrics if d.basis == "shared" and d.n_baseline != d.n_current]
    if moved:  # a mean over other cases than the baseline's: say so beside the table
        say(
            "values on the shared cases, baseline -> now: "
            + ", ".join(f"{d.name} {d.n_baseline} -> {d.n_current}" for d in moved)
        )
    sentence = calibration_sentence(report)
    if sentence is not None:
        say(one_line(sentence))
    if report.untrusted_axes:
        trust = report.axis_trust
        say(
            "untrusted judge axes: " + ", ".join(f"{one_line(a)} ({one_line(trust[a])})" for a in report.untrusted_axes)
        )
    if report.removed_cases:
        shown = ", ".join(one_line(c, 40) for c in report.removed_cases[:REMOVED_SHOWN])
        more = (
            f" and {len(report.removed_cases) - REMOVED_SHOWN} more"
            if len(report.removed_cases) > REMOVED_SHOWN
            else ""
        )
        say(f"{len(report.removed_cases)} baseline case(s) not in this run: {shown}{more}")


def print_statistics(report: GateReport, baseline: Path | None = None) -> None:
    """Each tested metric's p-values and MDE beside its tolerance (a table of its own: the deltas'
    table fills 80 columns), how they were reached, and the tolerances this suite cannot resolve
    (each one is in the table's "resolved" column and in `--json`; here, one line naming them)."""
    tested = [delta for delta in report.metrics if delta.test is not None]
    if tested:
        table = Table("metric", "n", "p", "p (Holm)", "significant", "MDE", "tol", "resolved", box=None, pad_edge=False)
        for delta in tested:
            test = delta.test
            assert test is not None and delta.tolerance is not None
            table.add_row(
                delta.name,
                str(test.n),
                _p(test.p_value),
                _p(test.p_holm),
                "yes" if test.significant else "no",
                mde_text(test.mde),
                power.tolerance_text(delta.tolerance),
                "yes" if test.resolvable else "NO",
            )
        stdout.print(table)
    say(mode_line(report))
    for row in report.spread:  # a tolerance inside the noise of a sampled system: each said, never summarised
        if row.warning:
            say(f"warning: {row.warning}")
    warned = [d.name for d in report.metrics if d.test is not None and d.test.warning]
    if warned and mde_warnings(report):
        plan = (
            f"qaeval plan --baseline {one_line(str(baseline), 200)}"
            if baseline is not None
            else "qaeval plan --baseline BASELINE"
        )
        say(
            f"warning: {len(warned)} tolerance(s) are below what this suite resolves ({', '.join(warned)}); "
            f"`{plan}` says how many cases each needs"
        )


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def print_drift(report: DriftReport, path: Path) -> None:
    table = Table("metric", "value", "band", "n", "state", box=None, pad_edge=False)
    for band in report.bands:
        span = "" if band.low is None or band.high is None else f"[{band.low:.3f}, {band.high:.3f}]"
        table.add_row(one_line(band.metric), _value(band.value), span, str(band.n), band.state)
    stdout.print(table)
    where = f"not appended to {path}" if report.judge_errors else f"appended to {path}"
    say(
        f"{where}; compared with {report.compared} earlier point(s)"
        + (f", skipped {report.skipped} from another suite or judge" if report.skipped else "")
    )
    for band in report.alarms:
        say(f"DRIFT ALARM: {one_line(band.metric)} {one_line(band.message)}")
    if report.judge_errors:
        say(f"DRIFT ALARM: the judge failed on {len(report.judge_errors)} case(s); this run's point was not appended")
        for case_id, error in report.judge_errors[:SHOWN]:
            say(f"  {one_line(case_id, 50)}: {one_line(error, 160)}")
        if len(report.judge_errors) > SHOWN:
            say(f"  ... and {len(report.judge_errors) - SHOWN} more (see --json)")
    if not report.alarmed:
        say("no drift")
