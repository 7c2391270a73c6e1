"""`qaeval run`, `baseline`, `gate` and `drift`: run the suite headlessly, store it, gate it, watch it.

Exit codes (DESIGN §8.5): run/baseline 0 ran, 2 usage or input; gate 0 pass, 1 block, 2 usage
or input (a missing, unreadable or mismatched baseline included), 3 refused; drift 0, 1 alarm, 2.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer

from qaeval_tui.cli.common import config_from, guarded, open_store, print_json, stderr
from qaeval_tui.cli.options import Adapter, ArtifactOut, AsJson, Data, Db, Html, Judge, Markdown, Samples, Workers
from qaeval_tui.core.errors import InputError

if TYPE_CHECKING:
    from qaeval_tui.core.running.result import RunResult
    from qaeval_tui.core.store.backend import StoreBackend
    from qaeval_tui.core.usecases.gate import GateOutcome

# Modules that do the work are imported inside the commands that need them, so that
# `qaeval --help` and the other commands do not pay for them (see cli/main.py).

P = ParamSpec("P")
R = TypeVar("R")


class _RunInputError(InputError):
    """Bad input to a run command: exit 2 here, because exit 1 means "the gate blocked" / "drift alarm"."""

    exit_code = 2


def input_exits_2(func: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except InputError as exc:
            raise _RunInputError(exc.problems, exc.what) from exc

    return wrapper


@contextmanager
def progress_bar() -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr when it is a terminal; nothing at all otherwise (CI logs stay clean)."""
    if not stderr.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (
        TextColumn("running cases"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        TextColumn("{task.fields[judge]}", markup=False),
    )  # fmt: skip
    with Progress(*columns, console=stderr, transient=True) as bar:
        task = bar.add_task("run", total=None, judge="")

        def update(done: int, total: int, judge_line: str = "") -> None:
            bar.update(task, completed=done, total=total, judge=judge_line)

        update.shows_judge_line = True  # type: ignore[attr-defined]  # the judge's calls, cache, tokens, cost
        yield update


@contextmanager
def executed(
    ctx: typer.Context,
    data: list[Path] | None,
    adapter: str | None,
    judge: str | None,
    workers: int | None,
    db: str | None,
    checks_only: bool = False,
    no_cache: bool = False,
    samples: int | None = None,
) -> Iterator[tuple[RunResult, StoreBackend]]:
    """Load, then open the store once, run and store: the part every command shares; the block reads the
    same open store (PPI's labels)."""
    from qaeval_tui.core.usecases.run import plan_suite, run_and_store

    config = config_from(ctx)
    plan = plan_suite(
        config,
        data or [config.path(config.paths.golden)],
        adapter=adapter,
        judge=judge,
        workers=workers,
        checks_only=checks_only,
        samples=samples,
    )
    with open_store(ctx, db) as store:
        with progress_bar() as update:
            result = run_and_store(store, plan, update=update, no_cache=no_cache, checks_only=checks_only)
        yield result, store


@guarded
@input_exits_2
def run(
    ctx: typer.Context,
    data: Data = None,
    adapter: Adapter = None,
    judge: Judge = None,
    workers: Workers = None,
    db: Db = None,
    out: ArtifactOut = None,
    as_json: AsJson = False,
    checks_only: bool = typer.Option(
        False, "--checks-only", help="Run the deterministic checks only: no judge is asked, every verdict is skipped."
    ),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Ask the judge afresh for every case instead of reusing cached verdicts."
    ),
    samples: Samples = None,
    strict: bool = typer.Option(
        False, "--strict", help="Exit 1 when every adapter call or every judge call failed (a smoke test)."
    ),
) -> None:
    """Run the suite through the adapter and the judge, print the scoreboard and store the run.

    Exit 0 ran, 1 with --strict when every adapter call or every judge call failed, 2 usage or input error.
    """
    from qaeval_tui.cli.run_views import print_scoreboard, strict_failure
    from qaeval_tui.core.usecases.run import run_ppi_for, with_ppi

    console = _check_targets(as_json, ("--out", out))
    running = executed(
        ctx, data, adapter, judge, workers, db, checks_only=checks_only, no_cache=no_cache, samples=samples
    )
    artifact = None
    with running as (result, store):
        ppi = run_ppi_for(config_from(ctx), result, store)
        if out is not None or as_json:  # built only when asked for, its cases read back from the store
            artifact = with_ppi(result.artifact(), ppi)
    if artifact is not None:
        _write_document(out, artifact)
        if as_json:
            _print_document(artifact)
    if console and not as_json:
        print_scoreboard(result, ppi)
    if not as_json:
        stderr.print(f"stored run {result.run_id}" + (f"; artifact written to {_shown(out)}" if out else ""))
    failed = strict_failure(result) if strict else None
    if failed is not None:
        stderr.print(f"error: {failed}", soft_wrap=True)
        raise typer.Exit(1)


@guarded
@input_exits_2
def baseline(
    ctx: typer.Context,
    out: Path = typer.Option(
        ..., "--out", help="Write the baseline here (commit it; updating it is a deliberate act; '-' for stdout)."
    ),
    data: Data = None,
    adapter: Adapter = None,
    judge: Judge = None,
    workers: Workers = None,
    db: Db = None,
    as_json: AsJson = False,
    samples: Samples = None,
) -> None:
    """Run the suite and write the scores as the baseline the gate compares against. Exit 0, or 2."""
    from qaeval_tui.cli.run_views import print_scoreboard
    from qaeval_tui.core.gate.baseline import baseline_document
    from qaeval_tui.core.usecases.run import run_ppi_for, with_ppi

    console = _check_targets(as_json, ("--out", out))
    with executed(ctx, data, adapter, judge, workers, db, samples=samples) as (result, store):
        ppi = run_ppi_for(config_from(ctx), result, store)
    document = baseline_document(result)
    if ppi.labelled_cases:  # what `[gate] judge_metrics = "ppi"` compares against
        document = with_ppi(document, ppi)
    _write_document(out, document)
    if as_json:
        _print_document(document)
        return
    if console:
        print_scoreboard(result, ppi)
    stderr.print(f"baseline written to {_shown(out)} (suite {result.suite_hash[:12]}, {len(result.cases)} cases)")


GateBaseline = Annotated[Path, typer.Option("--baseline", help="The committed baseline to gate against.")]
JUnit = Annotated[
    Path | None, typer.Option("--junit", help="Write JUnit XML here (a testcase per case; '-' for stdout).")
]
GateCalibration = Annotated[
    Path | None,
    typer.Option(
        "--calibration",
        help="Calibration artifact (qaeval calibrate --out) the judge's trust comes from (default: gate.calibration).",
    ),
]
RequireTrusted = Annotated[
    bool,
    typer.Option(
        "--require-trusted",
        help="Fail Tier 2 on a gated judge metric whose axis is not TRUSTED, uncalibrated included.",
    ),
]
Quiet = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="Print only the verdict line and the findings (no scoreboard or tables)."),
]


@guarded
@input_exits_2
def gate(
    ctx: typer.Context,
    baseline_path: GateBaseline,
    data: Data = None,
    adapter: Adapter = None,
    judge: Judge = None,
    workers: Workers = None,
    db: Db = None,
    junit: JUnit = None,
    markdown: Markdown = None,
    html: Html = None,
    out: ArtifactOut = None,
    as_json: AsJson = False,
    calibration: GateCalibration = None,
    require_trusted: RequireTrusted = False,
    samples: Samples = None,
    quiet: Quiet = False,
) -> None:
    """Run the suite and gate it against the baseline: Tier 1 checks, Tier 2 deltas.

    Exit 0 pass, 1 block, 2 usage or input error (a missing, unreadable or mismatched baseline too),
    3 refused ([gate] mode = "statistical": a tolerance below what the suite resolves; never a pass).
    """
    from qaeval_tui.core.usecases.gate import GateOutputs, gate_against_baseline, plan_gate

    config = config_from(ctx)
    plan = plan_gate(
        config,
        baseline_path,
        data or [config.path(config.paths.golden)],
        adapter=adapter,
        judge=judge,
        workers=workers,
        outputs=GateOutputs(artifact=out, junit=junit, markdown=markdown, html=html, as_json=as_json),
        calibration=calibration,
        samples=samples,
    )
    with open_store(ctx, db) as store:
        outcome = gate_against_baseline(config, store, plan, progress=progress_bar, require_trusted=require_trusted)
    _print_gate_outcome(outcome, baseline_path, as_json=as_json, quiet=quiet)
    raise typer.Exit(outcome.report.exit_code)


def _print_gate_outcome(outcome: GateOutcome, baseline_path: Path, *, as_json: bool, quiet: bool) -> None:
    from qaeval_tui.cli.run_views import print_gate, print_scoreboard, say, verdict_line
    from qaeval_tui.core.gate.report import gate_json

    report = outcome.report
    if as_json:
        print_json(gate_json(report))
    elif outcome.console:
        say(verdict_line(report))
        if not quiet:
            print_scoreboard(outcome.result)
        print_gate(report, quiet=quiet, baseline=baseline_path)
    else:  # a report took stdout; the verdict still reaches the log
        stderr.print(verdict_line(report), soft_wrap=True)


def _check_targets(as_json: bool, *options: tuple[str, Path | None]) -> bool:
    """Refuse unwritable outputs and a second claim on stdout before the suite runs; True: stdout is free."""
    from qaeval_tui.core.usecases.run import check_output_targets

    return check_output_targets(as_json, *options)


def _shown(path: Path | None) -> str:
    from qaeval_tui.core.usecases.run import STDOUT

    return "stdout" if str(path) == STDOUT else str(path)


def _write_document(path: Path | None, document: dict[str, Any]) -> None:
    from qaeval_tui.core.usecases.run import write_document

    write_document(path, document)


def _print_document(document: dict[str, Any]) -> None:
    from qaeval_tui.core.usecases.run import print_document

    print_document(document)


@guarded
@input_exits_2
def drift(
    ctx: typer.Context,
    timeseries: Path = typer.Option(..., "--timeseries", help="JSONL time series to append this run's metrics to."),
    window: int = typer.Option(10, "--window", min=1, help="Trailing points that make a metric's band."),
    sigma: float = typer.Option(
        3.0, "--sigma", help="Band half-width in standard deviations, 0 to 10 (a wider band never alarms)."
    ),
    min_band: float = typer.Option(
        0.02, "--min-band", help="Smallest band half-width, 0 to 0.5 (metrics are in [0, 1]; wider hides a halving)."
    ),
    data: Data = None,
    adapter: Adapter = None,
    judge: Judge = None,
    workers: Workers = None,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """Run the suite, append its metrics to a time series, and alarm when one leaves its band.

    Higher-is-better metrics alarm on drops only; over-refusal in both directions. Exit 0, 1 alarm, 2.
    """
    from qaeval_tui.cli.run_views import print_drift
    from qaeval_tui.core.statistics.drift import (
        append_point,
        check_drift,
        check_options,
        point_from_run,
        read_timeseries,
    )

    check_options(window, sigma, min_band)
    history = read_timeseries(timeseries)  # a corrupt series fails before the run
    with executed(ctx, data, adapter, judge, workers, db) as (result, _store):
        point = point_from_run(result)
    failed = [(r.case_id, r.judge_error or "") for r in result.judge_errors]
    report = check_drift(history, point, window=window, sigma=sigma, min_band=min_band, judge_errors=failed)
    if not report.judge_errors:  # a point the judge only partly scored would skew every later band
        append_point(timeseries, point)
    if as_json:
        print_json(report.to_json())
    else:
        print_drift(report, timeseries)
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    app.command()(run)
    app.command()(baseline)
    app.command()(gate)
    app.command()(drift)
