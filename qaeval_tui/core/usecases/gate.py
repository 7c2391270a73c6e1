"""Gate a run against the committed baseline (`qaeval gate`).

The baseline is read and its settings checked before the suite runs, so a missing, unreadable or
mismatched baseline costs nothing; so is every output path, so a report that could never be
written (or two outputs that both claim stdout) does not wait for the run to find out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from qaeval_tui.core.batch import collector_paused
from qaeval_tui.core.config import Config
from qaeval_tui.core.gate.baseline import Baseline, load_baseline
from qaeval_tui.core.gate.decision import GateReport, resolve_tolerances, run_gate
from qaeval_tui.core.gate.ppi_gate import PPIGate, baseline_ppi, current_ppi, gated_judge_metrics
from qaeval_tui.core.gate.report import gate_junit, gate_markdown
from qaeval_tui.core.gate.trust import stored_axis_trust
from qaeval_tui.core.running.result import RunResult
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.run import (
    ProgressDisplay,
    check_output_targets,
    no_progress,
    run_from_config,
    write_document,
    write_report,
)


@dataclass(frozen=True)
class GateOutputs:
    """Where the gate writes besides its report on the console (each optional; `-` is stdout)."""

    artifact: Path | None = None
    junit: Path | None = None
    markdown: Path | None = None
    as_json: bool = False
    """The JSON report goes to stdout (written by the caller): no other output may claim it."""


@dataclass(frozen=True)
class GateOutcome:
    result: RunResult
    report: GateReport
    console: bool
    """True when stdout is free for the tables (no output was sent there)."""


def gate_against_baseline(
    config: Config,
    baseline_path: Path,
    golden_paths: Sequence[Path],
    store_path: Path,
    *,
    adapter: str | None = None,
    judge: str | None = None,
    workers: int | None = None,
    outputs: GateOutputs = GateOutputs(),
    progress: ProgressDisplay = no_progress,
    stdout: TextIO | None = None,
) -> GateOutcome:
    """Load the baseline, check the outputs, run and store the suite against it, read the judge's
    trust, decide, and write the artifact and the JUnit and Markdown reports."""
    reference = load_baseline(baseline_path)
    if config.gate.judge_metrics == "ppi":  # a baseline without PPI values costs no run
        baseline_ppi(reference, gated_judge_metrics(resolve_tolerances(config.gate.tolerances)))
    console = check_output_targets(
        outputs.as_json, ("--out", outputs.artifact), ("--junit", outputs.junit), ("--markdown", outputs.markdown)
    )
    result = run_from_config(
        config,
        golden_paths,
        store_path,
        adapter=adapter,
        judge=judge,
        workers=workers,
        against=reference,
        progress=progress,
    )
    with Store.open(store_path) as store:
        report = decide(config, result, reference, store)
    write_gate_reports(report, result, outputs, stdout)
    return GateOutcome(result, report, console)


def decide(config: Config, result: RunResult, reference: Baseline, store: Store) -> GateReport:
    """The gate's verdict on a finished run: the judge's stored trust read, then Tier 1 and Tier 2."""
    trust = stored_axis_trust(store, config, result.judge_config.config_hash())
    return run_gate(
        result,
        reference,
        tolerances=config.gate.tolerances,
        replicates=config.gate.bootstrap_replicates,
        seed=config.gate.seed,
        axis_trust=trust,
        ppi=ppi_comparison(config, result, reference, store),
    )


def ppi_comparison(config: Config, result: RunResult, reference: Baseline, store: Store) -> PPIGate | None:
    """With `[gate] judge_metrics = "ppi"`, the PPI estimates to gate; refused (exit 2) where one is missing."""
    if config.gate.judge_metrics != "ppi":
        return None
    from qaeval_tui.core.statistics.run_ppi import run_ppi_from_store

    gated = gated_judge_metrics(resolve_tolerances(config.gate.tolerances))
    estimates = run_ppi_from_store(result, config.rubric, store).estimates
    return PPIGate(current_ppi(estimates, gated), baseline_ppi(reference, gated))


def write_gate_reports(
    report: GateReport, result: RunResult, outputs: GateOutputs, stdout: TextIO | None = None
) -> None:
    """The run artifact, JUnit and Markdown the caller asked for (the JSON report is the caller's)."""
    with collector_paused():  # a batch step (core/batch.py): the JUnit of 10,000 cases took a second more
        if outputs.artifact is not None:  # built only when asked for: on 10,000 cases it costs a second
            write_document(outputs.artifact, result.artifact(), stdout)
        write_report(outputs.junit, gate_junit(report), stdout)
        write_report(outputs.markdown, gate_markdown(report), stdout)
