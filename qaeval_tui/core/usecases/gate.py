"""Gate a run against the committed baseline (`qaeval gate`).

The baseline is read and its settings checked before the suite runs, so a missing, unreadable or
mismatched baseline costs nothing; so is every output path, so a report that could never be
written does not wait for the run to find out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from qaeval_tui.core.atomic_file import write_output
from qaeval_tui.core.config import Config
from qaeval_tui.core.gate.baseline import load_baseline
from qaeval_tui.core.gate.decision import GateReport, run_gate
from qaeval_tui.core.gate.report import gate_junit, gate_markdown
from qaeval_tui.core.gate.trust import stored_axis_trust
from qaeval_tui.core.running.result import RunResult, write_json
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.run import ProgressDisplay, check_output_targets, no_progress, run_from_config


@dataclass(frozen=True)
class GateOutputs:
    """Files the gate writes besides its report on stdout (each optional)."""

    artifact: Path | None = None
    junit: Path | None = None
    markdown: Path | None = None


@dataclass(frozen=True)
class GateOutcome:
    result: RunResult
    report: GateReport


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
) -> GateOutcome:
    """Load the baseline, run and store the suite, read the judge's trust, decide, write the outputs."""
    reference = load_baseline(baseline_path)
    check_output_targets(outputs.artifact, outputs.junit, outputs.markdown)
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
        trust = stored_axis_trust(store, config, result.judge_config.config_hash())
    report = run_gate(
        result,
        reference,
        tolerances=config.gate.tolerances,
        replicates=config.gate.bootstrap_replicates,
        seed=config.gate.seed,
        axis_trust=trust,
    )
    if outputs.artifact is not None:
        write_json(outputs.artifact, result.artifact())
    if outputs.junit is not None:
        write_output(outputs.junit, gate_junit(report))
    if outputs.markdown is not None:
        write_output(outputs.markdown, gate_markdown(report))
    return GateOutcome(result, report)
