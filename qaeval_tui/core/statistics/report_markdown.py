"""Agreement and calibration reports as Markdown (fits a CI step summary). Strings only, no I/O.

Every text from data (axis names, reviewers, item ids, judge name, rubric version, reasons that
quote them) goes through `markdown_text()`: one line, markup escaped, so a `|` cannot split a
cell and a newline cannot start a heading. Only our own emphasis is built as `Markdown`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from qaeval_tui.core.statistics.agreement import AgreementReport
from qaeval_tui.core.statistics.calibration import CalibrationReport
from qaeval_tui.core.statistics.report_tables import (
    MISSING,
    agreement_axes_table,
    calibration_axes_table,
    pairwise_table,
)
from qaeval_tui.core.text import markdown_text


class Markdown(str):
    """Markdown we wrote ourselves: put in a cell as is."""


def _cell(text: object) -> str:
    return text if isinstance(text, Markdown) else markdown_text(str(text))


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(map(_cell, header)) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows]
    return lines


def agreement_markdown(report: AgreementReport) -> str:
    data = report.to_json()
    lines = [
        f"## Inter-rater agreement (rubric version {_cell(report.rubric_version)})",
        "",
        f"{report.n_items} items, reviewers {', '.join(map(_cell, report.reviewers))}; latest blind revision per "
        f"item and reviewer; bootstrap CI {report.confidence:.0%}, {report.replicates} replicates, seed {report.seed}. "
        f"Source: {_cell(report.source)}.",
        "",
    ]
    header, rows, notes = agreement_axes_table(data)
    notes = [f"- {_cell(note)}" for note in notes]
    lines += _table(header, rows)
    if notes:
        lines += ["", *notes]
    for name, pairs in data["pairwise"].items():
        if not pairs:
            continue
        weights = pairs[0]["kappa_weights"] or "unweighted"
        lines += ["", f"### Pairwise agreement: {_cell(name)} (kappa {_cell(weights)})", ""]
        lines += _table(*pairwise_table(pairs))
    return "\n".join(lines) + "\n"


def _confusion(name: str, axis: dict[str, Any]) -> list[str]:
    labels = axis["confusion"]["labels"]
    rows = [
        [Markdown(f"**{value}**"), *counts] for value, counts in zip(labels, axis["confusion"]["counts"], strict=True)
    ]
    return [
        "",
        f"#### {_cell(name)}: rows human consensus, columns judge",
        "",
        *_table(["human \\ judge", *map(str, labels)], rows),
    ]


def calibration_markdown(report: CalibrationReport) -> str:
    data = report.to_json()
    bar = data["bar"]
    lines = [
        f"## Judge calibration: {report.verdict}",
        "",
        f"Judge {_cell(report.judge_name) or MISSING} (config {_cell(report.judge_config_hash)}), rubric version "
        f"{_cell(report.rubric_version)}. Bar per axis: exact agreement >= {bar['min_exact']:.2f} with n >= "
        f"{bar['min_n']}. Human side: adjudicated label, else unanimous blind label, else the median on a scale "
        f"point; unresolved items are left out. Source: {_cell(report.source)}.",
        "",
    ]
    header, rows = calibration_axes_table(data)
    lines += _table(header, rows)
    lines += [""] + [f"- {_cell(name)}: {_cell(axis['verdict_reason'])}" for name, axis in data["axes"].items()]
    for name, axis in data["axes"].items():
        missing = {key: why for key, why in axis["reasons"].items() if why}
        if missing and axis["n"]:
            lines.append(
                f"- {_cell(name)}: "
                + "; ".join(f"{_cell(key)} undefined: {_cell(why)}" for key, why in missing.items())
            )
    for name, axis in data["axes"].items():
        lines += _confusion(name, axis)
    unresolved = sorted({item for axis in data["axes"].values() for item in axis["unresolved_items"]})
    if unresolved:
        shown = ", ".join(map(_cell, unresolved[:20]))
        lines += ["", f"{len(unresolved)} item(s) unresolved, offered for adjudication: {shown}"]
        if len(unresolved) > 20:
            lines[-1] += f", ... ({len(unresolved) - 20} more in --json)"
    return "\n".join(lines) + "\n"
