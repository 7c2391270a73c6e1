"""Issue 3: `qaeval run` on 10,000 synthetic cases with 2 workers, and what `qaeval gate` costs beyond it.

The run is a whole process (interpreter start, loading, the bundled hub and judge, storing the run
into a fresh database), as CI runs it; timed twice, the faster kept. `qaeval gate` is a whole process
too, once, read against the sum of both targets.

"The gate beyond the run" is measured in process, on one 10,000-case run result built once through
the same plan `qaeval run` uses: what `gate_against_baseline` does after the run (core/usecases/gate.py)
— read the baseline and the judge's trust, `run_gate`, render the JSON, Markdown and JUnit reports and
write each to a file — best of three. (The difference of two whole-process timings it replaces buried
a second of gating under the seconds a run varies by on a shared machine, and printed negative values.)
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from benchmarks import Figure
from benchmarks.synthetic import write_synthetic_golden
from qaeval_tui.core.atomic_file import strict_json, write_output
from qaeval_tui.core.config import Config
from qaeval_tui.core.gate.baseline import baseline_document, load_baseline
from qaeval_tui.core.gate.report import gate_json
from qaeval_tui.core.running.result import RunResult
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.text import json_visible
from qaeval_tui.core.usecases.configured import plan_run
from qaeval_tui.core.usecases.gate import GateOutputs, decide, write_gate_reports
from qaeval_tui.core.usecases.run import write_document

CASES = 10_000
RUN_TARGET_S = 20.0
GATE_EXTRA_TARGET_S = 5.0
GATE_REPEATS = 3


def _qaeval(*args: str, expect: int = 0) -> float:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "qaeval_tui.cli", *args], capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if result.returncode != expect:
        raise RuntimeError(f"qaeval {args[0]} exited {result.returncode}: {result.stderr[-2000:]}")
    return elapsed


def gate_beyond_the_run(config: Config, result: RunResult, baseline_path: Path, store: Store, out: Path) -> float:
    """Seconds from a finished run to the gate's reports on disk, as `qaeval gate --json --markdown --junit`:
    the same use-case steps the command takes after its run."""
    started = time.perf_counter()
    report = decide(config, result, load_baseline(baseline_path), store=store)
    write_output(
        out / "gate.json",
        json_visible(strict_json(gate_json(report), "gate.json", indent=2, ensure_ascii=False)) + "\n",
    )
    write_gate_reports(report, result, GateOutputs(junit=out / "gate.xml", markdown=out / "gate.md"))
    elapsed = time.perf_counter() - started
    if report.exit_code != 0:
        raise RuntimeError(f"the gate of a run against its own baseline did not pass: {report.verdict}")
    return elapsed


def run(workdir: Path) -> list[Figure]:
    folder = workdir / "golden"
    write_synthetic_golden(folder, CASES)
    baseline = workdir / "baseline.json"

    def common(db: str) -> tuple[str, ...]:
        return ("--data", str(folder), "--workers", "2", "--db", str(workdir / db))

    # The run result the gate reads, built once; its baseline is the one `qaeval baseline` would write.
    config = Config(base_dir=str(workdir))
    result = plan_run(config, [folder], workers=2).run()
    write_document(baseline, baseline_document(result))
    with Store.open(workdir / "gate-in-process.db") as store:
        extras = [gate_beyond_the_run(config, result, baseline, store, workdir) for _ in range(GATE_REPEATS)]
    del result

    runs = [_qaeval("run", *common(f"run-{attempt}.db")) for attempt in range(2)]
    reports = ("--junit", str(workdir / "gate.xml"), "--markdown", str(workdir / "gate.md"))
    gate_seconds = _qaeval("gate", "--baseline", str(baseline), *reports, *common("gate.db"))
    run_seconds, extra = min(runs), min(extras)
    gate_target = RUN_TARGET_S + GATE_EXTRA_TARGET_S
    return [
        Figure(
            f"qaeval run, {CASES:,} cases, 2 workers (whole process)",
            run_seconds,
            "s",
            f"<= {RUN_TARGET_S:.0f} s",
            run_seconds <= RUN_TARGET_S,
        ),
        Figure(
            f"qaeval gate, {CASES:,} cases vs their baseline (whole process)",
            gate_seconds,
            "s",
            f"<= {gate_target:.0f} s",
            gate_seconds <= gate_target,
        ),
        Figure(
            "qaeval gate beyond the run (in process: gate + 3 reports)",
            extra,
            "s",
            f"<= {GATE_EXTRA_TARGET_S:.0f} s",
            extra <= GATE_EXTRA_TARGET_S,
        ),
    ]
