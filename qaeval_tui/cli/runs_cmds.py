"""`qaeval runs`, `qaeval runs show RUN` and `qaeval diff RUN_A RUN_B`: browse stored runs and compare two.

Exit codes: 0 shown (or listed) · 2 usage (no store, an unknown or ambiguous run id, an unknown case, a bad filter).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from qaeval_tui.cli.common import guarded, open_store, print_json, stdout
from qaeval_tui.cli.options import AsJson, Db
from qaeval_tui.core.text import one_line

if TYPE_CHECKING:
    from qaeval_tui.core.runs.views import RunSummary

runs_app = typer.Typer(
    help="Stored runs: list them (`qaeval runs` or `runs list`), or show one run's cases (`runs show RUN`).",
    invoke_without_command=True,
    rich_markup_mode=None,
)


def say(text: str) -> None:
    stdout.print(text, soft_wrap=True)


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


Unfinished = typer.Option(
    False, "--unfinished", help="List the runs cut short before their end instead, with the cases each stored."
)


@runs_app.callback()
def runs_default(ctx: typer.Context, as_json: AsJson = False, db: Db = None, unfinished: bool = Unfinished) -> None:
    """Stored runs: `qaeval runs` alone lists them (as `runs list` does)."""
    if ctx.invoked_subcommand is None:
        _list(ctx, as_json, db, unfinished)


@runs_app.command("list")
def runs_list(ctx: typer.Context, as_json: AsJson = False, db: Db = None, unfinished: bool = Unfinished) -> None:
    """List the stored runs, newest first: id, system, judge, suite, when, headline metrics. Exit 0, or 2."""
    _list(ctx, as_json, db, unfinished)


@guarded
def _list(ctx: typer.Context, as_json: bool, db: str | None, unfinished: bool) -> None:
    from qaeval_tui.core.runs.views import HEADLINE_METRICS, SHORT_NAMES, list_runs, list_unfinished

    with open_store(ctx, db, must_exist=True) as store:
        runs = list_unfinished(store) if unfinished else list_runs(store)
    if as_json:
        print_json([run.to_json() for run in runs])
        return
    if unfinished:
        _say_unfinished(runs)
        return
    if not runs:
        say("no runs stored yet: `qaeval run` stores one")
        return
    short = [SHORT_NAMES[name] for name in HEADLINE_METRICS]
    from rich.table import Table  # rich loads with the first table, not with --help

    table = Table("run", "system", "judge", "suite", "finished", "cases", "judge err", *short, box=None, pad_edge=False)
    for run in runs:
        table.add_row(
            run.run_id, one_line(run.adapter, 30), one_line(run.judge, 30), run.suite_hash[:12],
            one_line(run.finished_at, 24), str(run.n_cases), str(run.judge_errors),
            *(_value(run.metrics[name]) for name in HEADLINE_METRICS),
        )  # fmt: skip
    stdout.print(table)
    say(f"{len(runs)} run(s); " + ", ".join(f"{s} = {name}" for name, s in SHORT_NAMES.items()))


def _say_unfinished(runs: list[RunSummary]) -> None:
    if not runs:
        say("no unfinished runs: every run the store holds reached its end")
        return
    from rich.table import Table

    table = Table("run", "system", "judge", "suite", "started", "cases stored", box=None, pad_edge=False)
    for run in runs:
        table.add_row(
            run.run_id, one_line(run.adapter, 30), one_line(run.judge, 30), run.suite_hash[:12],
            one_line(run.started_at, 24), str(run.n_cases),
        )  # fmt: skip
    stdout.print(table)
    say(
        f"{len(runs)} unfinished run(s): cut short before their end, so no report, gate or listing reads them; "
        "`qaeval run` again judges only the cases the verdict cache does not hold"
    )


@runs_app.command("show")
@guarded
def runs_show(
    ctx: typer.Context,
    run: str = typer.Argument(..., help="Run id, a unique prefix of it, `latest` or `previous`."),
    case: str | None = typer.Option(
        None, "--case", help="Show this case in full: answer, citations, retrieved sources, each check's reason."
    ),
    slice_: str | None = typer.Option(
        None, "--slice", help="Only cases of one slice: split=..., difficulty=... or adversarial=..."
    ),
    failing: bool = typer.Option(False, "--failing", help="Only cases that did not pass."),
    check: str | None = typer.Option(None, "--check", help="Only cases that failed this check."),
    judge_errors: bool = typer.Option(
        False, "--judge-errors", help="Only cases whose judge verdict is an error, skipped or missing."
    ),
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """One run's case × check/metric table (pass/fail, values, judge scores and outcome), or one case. Exit 0, or 2."""
    from qaeval_tui.core.runs.views import CaseFilter, case_detail, check_names, parse_slice, run_table

    criteria = CaseFilter(
        slice=parse_slice(slice_) if slice_ is not None else None,
        failing=failing,
        check=check,
        judge_errors=judge_errors,
    )
    check_names(check)
    with open_store(ctx, db, must_exist=True) as store:
        if case is not None:
            detail = case_detail(store, run, case)
            if as_json:
                print_json(detail.to_json())
            else:
                from qaeval_tui.cli.runs_views import print_case_detail

                print_case_detail(detail)
            return
        table = run_table(store, run, criteria)
    if as_json:
        print_json(table.to_json())
        return
    from qaeval_tui.cli.runs_views import print_run_table

    print_run_table(table)


@guarded
def diff(
    ctx: typer.Context,
    run_a: str = typer.Argument(..., help="The earlier run (id, unique prefix, `latest` or `previous`)."),
    run_b: str = typer.Argument(..., help="The later run, compared against RUN_A."),
    show_all: bool = typer.Option(False, "--all", help="List unchanged cases too."),
    answers: bool = typer.Option(
        True, "--answers/--no-answers", help="Print each changed answer's word diff ([-removed-] {+added+})."
    ),
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Compare two stored runs: cases that changed status, metric deltas per case, the answers' word diff.

    Exit 0 compared (whatever changed), 2 usage (an unknown or ambiguous run).
    """
    from qaeval_tui.core.runs.compare import compare_runs

    with open_store(ctx, db, must_exist=True) as store:
        result = compare_runs(store, run_a, run_b)
    if as_json:
        print_json(result.to_json())
        return
    from qaeval_tui.cli.runs_views import print_diff

    print_diff(result, show_all=show_all, answers=answers)


def register(app: typer.Typer) -> None:
    app.add_typer(runs_app, name="runs")
    app.command()(diff)
