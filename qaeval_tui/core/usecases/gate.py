"""Gate a run against the committed baseline (`qaeval gate`).

The baseline is read and its settings checked before the suite runs, so a missing, unreadable or
mismatched baseline costs nothing; so is every output path, so a report that could never be
written (or two outputs that both claim stdout) does not wait for the run to find out; and so is
the calibration artifact the judge's trust comes from (`--calibration`, else `[gate] calibration`):
the gate never reads trust from the local store, so the same commit gates the same on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from qaeval_tui.core.batch import collector_paused
from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate.baseline import Baseline, load_baseline
from qaeval_tui.core.gate.calibration_file import LoadedCalibration
from qaeval_tui.core.gate.decision import GateReport, resolve_tolerances, run_gate
from qaeval_tui.core.gate.ppi_gate import PPIGate, baseline_ppi, current_ppi, gated_judge_metrics
from qaeval_tui.core.gate.report import gate_junit, gate_markdown
from qaeval_tui.core.gate.report_html import gate_html
from qaeval_tui.core.gate.trust import calibration_for_gate, gate_trust
from qaeval_tui.core.running.result import RunResult
from qaeval_tui.core.statistics.drift import point_from_run
from qaeval_tui.core.statistics.figures import BandedSeries, metric_histories, points_from_runs
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.usecases.configured import RunPlan
from qaeval_tui.core.usecases.run import (
    ProgressDisplay,
    check_output_targets,
    no_progress,
    plan_suite,
    run_and_store,
    whole_labelled_cases,
    write_document,
    write_report,
)


@dataclass(frozen=True)
class GateOutputs:
    """Where the gate writes besides its report on the console (each optional; `-` is stdout)."""

    artifact: Path | None = None
    junit: Path | None = None
    markdown: Path | None = None
    html: Path | None = None
    """The HTML report with its figures (`--html`)."""
    as_json: bool = False
    """The JSON report goes to stdout (written by the caller): no other output may claim it."""


@dataclass(frozen=True)
class GateOutcome:
    result: RunResult
    report: GateReport
    console: bool
    """True when stdout is free for the tables (no output was sent there)."""


@dataclass(frozen=True)
class GatePlan:
    """What the gate checked before any store is opened: the baseline, the calibration artifact, the
    outputs, and the suite's run, loaded."""

    reference: Baseline
    calibration: LoadedCalibration | None
    outputs: GateOutputs
    console: bool
    """True when stdout is free for the tables (no output was sent there)."""
    run: RunPlan


def plan_gate(
    config: Config,
    baseline_path: Path,
    golden_paths: Sequence[Path],
    *,
    adapter: str | None = None,
    judge: str | None = None,
    workers: int | None = None,
    outputs: GateOutputs = GateOutputs(),
    calibration: Path | None = None,
    samples: int | None = None,
) -> GatePlan:
    """Load the baseline and the calibration artifact, check the outputs, and load the suite's run (a
    baseline of another judge, rubric or k refused): every refusal comes before the store is opened.

    `calibration` overrides `[gate] calibration`."""
    reference = load_baseline(baseline_path)
    if config.gate.judge_metrics == "ppi":  # a baseline without PPI values costs no run
        baseline_ppi(reference, ppi_gated(config, reference))
    loaded = calibration_for_gate(config, calibration)
    console = check_output_targets(
        outputs.as_json,
        ("--out", outputs.artifact),
        ("--junit", outputs.junit),
        ("--markdown", outputs.markdown),
        ("--html", outputs.html),
    )
    plan = plan_suite(
        config, golden_paths, adapter=adapter, judge=judge, workers=workers, against=reference, samples=samples
    )
    return GatePlan(reference, loaded, outputs, console, plan)


def gate_against_baseline(
    config: Config,
    store: StoreBackend,
    plan: GatePlan,
    *,
    progress: ProgressDisplay = no_progress,
    stdout: TextIO | None = None,
    require_trusted: bool = False,
) -> GateOutcome:
    """Run and store the planned suite in the open `store`, decide with the judge's trust, and write the
    artifact and the JUnit, Markdown and HTML reports.

    `require_trusted` (or `[gate] require_trusted`) fails Tier 2 on any gated judge metric whose axis is
    not TRUSTED; `store` also holds the labels PPI reads."""
    with progress() as update:
        result = run_and_store(store, plan.run, update=update)
    report = decide(config, result, plan.reference, plan.calibration, require_trusted=require_trusted, store=store)
    histories = gate_histories(report, result, store) if plan.outputs.html is not None else ()
    write_gate_reports(report, result, plan.outputs, stdout, histories)
    return GateOutcome(result, report, plan.console)


def decide(
    config: Config,
    result: RunResult,
    reference: Baseline,
    calibration: LoadedCalibration | None = None,
    *,
    require_trusted: bool = False,
    store: StoreBackend | None = None,
) -> GateReport:
    """The gate's verdict on a finished run: the judge's trust from the calibration artifact (none:
    every judge axis uncalibrated), then Tier 1 and Tier 2. `store` holds the labels PPI reads."""
    trust = gate_trust(calibration, result.judge_config.config_hash(), result.rubric_version, config.calibration)
    return run_gate(
        result,
        reference,
        tolerances=config.gate.tolerances,
        replicates=config.gate.bootstrap_replicates,
        seed=config.gate.seed,
        mode=config.gate.mode,
        trust=trust,
        require_trusted=require_trusted or config.gate.require_trusted,
        ppi=ppi_comparison(config, result, reference, store),
        gated=config.gate.gated,
    )


def ppi_comparison(
    config: Config, result: RunResult, reference: Baseline, store: StoreBackend | None
) -> PPIGate | None:
    """With `[gate] judge_metrics = "ppi"`, the PPI estimates to gate; refused (exit 2) where one is missing."""
    if config.gate.judge_metrics != "ppi":
        return None
    if store is None:
        raise UsageError('[gate] judge_metrics = "ppi" needs the store that holds the labels on the run\'s cases')
    from qaeval_tui.core.statistics.run_ppi import run_ppi_from_store

    gated = ppi_gated(config, reference)
    whole = whole_labelled_cases(result, store)
    ppi = run_ppi_from_store(whole, config.rubric, store, min_reviewers=config.calibration.min_reviewers)
    return PPIGate(current_ppi(ppi.estimates, gated), baseline_ppi(reference, gated))


def ppi_gated(config: Config, reference: Baseline) -> list[str]:
    """The judge metrics `judge_metrics = "ppi"` compares PPI estimates of (none newer than the baseline)."""
    tolerances = resolve_tolerances(config.gate.tolerances, config.gate.gated)
    return gated_judge_metrics(tolerances, reference.not_in_baseline)


def gate_histories(report: GateReport, result: RunResult, store: StoreBackend) -> tuple[BandedSeries, ...]:
    """Each gated metric's history over the stored runs comparable with this one, this run last."""
    points = [point for point in points_from_runs(store.list_runs()) if point.run_id != result.run_id]
    points.append(point_from_run(result))
    gated = [delta.name for delta in report.metrics if delta.tolerance is not None]
    return metric_histories(points, gated)


def write_gate_reports(
    report: GateReport,
    result: RunResult,
    outputs: GateOutputs,
    stdout: TextIO | None = None,
    histories: Sequence[BandedSeries] = (),
) -> None:
    """The run artifact, JUnit, Markdown and HTML the caller asked for (the JSON report is the caller's)."""
    with collector_paused():  # a batch step (core/batch.py): the JUnit of 10,000 cases took a second more
        if outputs.artifact is not None:  # built only when asked for: on 10,000 cases it costs a second
            write_document(outputs.artifact, result.artifact(), stdout)
        write_report(outputs.junit, gate_junit(report), stdout)
        write_report(outputs.markdown, gate_markdown(report), stdout)
        if outputs.html is not None:
            write_report(outputs.html, gate_html(report, histories), stdout)
