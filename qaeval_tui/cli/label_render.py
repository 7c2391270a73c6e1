"""Console rendering (rich) of the agreement and calibration reports.

The console never parses markup and escapes hidden characters; every name from data (axes,
reviewers, judge, rubric version, reasons quoting them) is also folded onto one line here, so a
newline in an axis name cannot break a table or forge a line of the report.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table

from qaeval_tui.cli.common import stdout
from qaeval_tui.core.statistics.agreement import AgreementReport
from qaeval_tui.core.statistics.alpha_interval import MIN_ITEMS_ALPHA_INTERVAL
from qaeval_tui.core.statistics.calibration import CalibrationReport
from qaeval_tui.core.statistics.calibration_outcomes import outcome_lines
from qaeval_tui.core.statistics.report_tables import calibration_notes, distribution_text, number, signed
from qaeval_tui.core.statistics.verdict import bar_line, report_notes, verdict_line
from qaeval_tui.core.text import one_line


def _span(value: list[float] | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value[0]:.{digits}f}–{value[1]:.{digits}f}"


def _table(*columns: str) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for index, name in enumerate(columns):
        table.add_column(name, justify="left" if index == 0 else "right", no_wrap=True)
    return table


def print_agreement(report: AgreementReport) -> None:
    data: dict[str, Any] = report.to_json()
    stdout.print(
        f"Inter-rater agreement · rubric {one_line(report.rubric_version)} · {report.n_items} items · "
        f"reviewers {', '.join(map(one_line, report.reviewers))}",
        soft_wrap=True,
    )
    table = _table("axis", "alpha", "95% CI", "raw agr.", "items", "pairable")
    for name, axis in data["axes"].items():
        table.add_row(
            one_line(name), number(axis["alpha"]), _span(axis["ci"]), number(axis["raw_agreement"]),
            str(axis["n_items"]), str(axis["n_pairable"]),
        )  # fmt: skip
    stdout.print(table)
    for name, axis in data["axes"].items():
        stdout.print(
            f"{one_line(name)} ({axis['level']}): {distribution_text(axis['distribution'])} · "
            f"can't judge {axis['n_cant_judge']}"
        )
        if axis["reason"]:
            stdout.print(f"  alpha undefined: {one_line(axis['reason'])}", soft_wrap=True)
        elif axis["ci_reason"]:
            stdout.print(f"  no CI: {one_line(axis['ci_reason'])}", soft_wrap=True)
    stdout.print("value:count per scale point, blind labels")
    stdout.print(
        f"CI: seeded BCa bootstrap over items, {report.replicates} replicates, seed {report.seed}; "
        f"none below {MIN_ITEMS_ALPHA_INTERVAL} pairable items (too few for a 95% interval to hold)"
    )
    pairs = _table("axis", "reviewers", "common", "raw agr.", "kappa")
    for name, rows in data["pairwise"].items():
        for row in rows:
            pairs.add_row(
                one_line(name),
                " / ".join(map(one_line, row["reviewers"])),
                str(row["n_common"]),
                number(row["raw_agreement"]),
                number(row["kappa"]),
            )
    if pairs.row_count:
        stdout.print(pairs)
        stdout.print("kappa: unweighted on nominal axes, quadratic-weighted on ordinal and interval axes")
    selection = data["labels"]
    if selection.get("post_reveal_excluded"):
        stdout.print(
            f"{selection['post_reveal_excluded']} post-reveal revision(s) left out (--include-post-reveal reads them)"
        )
    print_quarantined(selection)


def print_quarantined(selection: dict[str, Any]) -> None:
    """Say how many quarantined label rows a report left out (none: nothing said)."""
    if selection.get("quarantined_excluded"):
        stdout.print(
            f"{selection['quarantined_excluded']} quarantined label row(s) left out (`qaeval labels check` lists them)"
        )


def print_calibration(report: CalibrationReport) -> None:
    data: dict[str, Any] = report.to_json()
    bar = data["bar"]
    stdout.print(f"Judge calibration: {report.verdict}")
    for note in report_notes(data):
        stdout.print(f"warning: {note}", soft_wrap=True)
    stdout.print(
        f"judge {one_line(report.judge_name or '-')} · config {one_line(report.judge_config_hash[:16])} · "
        f"rubric {one_line(report.rubric_version)} · "
        f"{bar_line(bar)}",
        soft_wrap=True,
    )
    verdicts = _table("axis", "verdict", "n", "exact", "95% CI", "alpha", "95% CI")
    figures = _table("axis", "±1", "MAE", "bias", "kappa", "QWK", "unres.", "1 rev.", "+labels")
    for name, axis in data["axes"].items():
        verdicts.add_row(
            one_line(name), axis["verdict"], str(axis["n"]), number(axis["exact"], 2), _span(axis["exact_ci"], 2),
            number(axis["alpha"], 2), _span(axis["alpha_ci"], 2),
        )  # fmt: skip
        figures.add_row(
            one_line(name), number(axis["within_one"], 2), number(axis["mae"], 2), signed(axis["bias"], 2),
            number(axis["kappa"], 2), number(axis["kappa_quadratic"], 2), str(axis["consensus"]["unresolved"]),
            str(axis["consensus"]["one_reviewer"]), str(axis["labels_needed"]),
        )  # fmt: skip
    stdout.print(verdicts)
    for name, axis in data["axes"].items():
        stdout.print(one_line(verdict_line(name, axis)), soft_wrap=True)
    for name, note in calibration_notes(data):
        stdout.print(f"  {one_line(name)}: {one_line(note)}", soft_wrap=True)
    stdout.print(figures)
    stdout.print(
        "±1: within one step · bias: judge minus human (positive: the judge is lenient) · QWK: quadratic-weighted kappa"
    )
    for name, axis in data["axes"].items():
        labels = axis["confusion"]["labels"]
        grid = _table(f"{one_line(name)}: human \\ judge", *map(str, labels))
        for value, counts in zip(labels, axis["confusion"]["counts"], strict=True):
            grid.add_row(str(value), *map(str, counts))
        stdout.print(grid)
    unresolved = sorted({item for axis in data["axes"].values() for item in axis["unresolved_items"]})
    if unresolved:
        stdout.print(
            f"{len(unresolved)} item(s) unresolved (reviewers split, no adjudication): see --json for their ids"
        )
    single = sorted({item for axis in data["axes"].values() for item in axis["one_reviewer_items"]})
    if single:
        stdout.print(f"{len(single)} item(s) labelled by one reviewer only, offered for more labels: see --json")
    print_quarantined(data["labels"])
    for line in outcome_lines(data.get("faithfulness_outcome")):
        stdout.print(line, soft_wrap=True)
    stdout.print(
        f"unres.: reviewers split, no adjudication · 1 rev.: one reviewer only · +labels: judged items still "
        f"needed for an exact-agreement CI half-width under {bar['target_half_width']:.2f} · alpha: judge as a coder"
    )
    stdout.print(
        f"CI: exact agreement Wilson with continuity correction (from {data['intervals']['exact_min_items']} items), "
        f"alpha {data['intervals']['alpha']} (from {data['intervals']['alpha_min_items']} items)"
    )
