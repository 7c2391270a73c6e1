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
    calibration_notes,
    pairwise_table,
)
from qaeval_tui.core.statistics.verdict import human_bar_words, report_notes, verdict_line
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
    lines += quarantined_lines(data["labels"])
    return "\n".join(lines) + "\n"


def quarantined_lines(selection: dict[str, Any]) -> list[str]:
    """How many quarantined label rows the report left out (none: nothing)."""
    count = selection.get("quarantined_excluded", 0)
    return ["", f"{count} quarantined label row(s) left out (`qaeval labels check` lists them)."] if count else []


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
    spans = data["intervals"]
    lines = [f"## Judge calibration: {report.verdict}", ""]
    lines += [f"**Warning:** {_cell(note)}" for note in report_notes(data)]
    lines += [
        f"Judge {_cell(report.judge_name) or MISSING} (config {_cell(report.judge_config_hash)}), rubric version "
        f"{_cell(report.rubric_version)}. Bar per axis ({bar['rule']} rule): exact agreement >= {bar['min_exact']:.2f} "
        f"with n >= {bar['min_n']}, alpha (judge as a coder) above {bar['chance_floor']:.2f}{human_bar_words(bar)}. "
        f"Human side: adjudicated "
        f"label, else among >= {bar['min_reviewers']} blind reviewers the unanimous label, else the median on a scale "
        f"point; unresolved items are left out. Intervals: exact agreement {spans['exact']} (from "
        f"{spans['exact_min_items']} items), alpha {spans['alpha']} (from {spans['alpha_min_items']} items). "
        f"Source: {_cell(report.source)}.",
        "",
    ]
    header, rows = calibration_axes_table(data)
    lines += _table(header, rows)
    lines += [""] + [f"- {_cell(verdict_line(name, axis))}" for name, axis in data["axes"].items()]
    lines += [f"- {_cell(name)}: {_cell(note)}" for name, note in calibration_notes(data)]
    for name, axis in data["axes"].items():
        lines += _confusion(name, axis)
    for what, key, offered in (
        ("unresolved (reviewers split)", "unresolved_items", "adjudication"),
        ("labelled by one reviewer only", "one_reviewer_items", "more labels"),
    ):
        found = sorted({item for axis in data["axes"].values() for item in axis[key]})
        if found:
            shown = ", ".join(map(_cell, found[:20]))
            lines += ["", f"{len(found)} item(s) {what}, offered for {offered}: {shown}"]
            if len(found) > 20:
                lines[-1] += f", ... ({len(found) - 20} more in --json)"
    lines += quarantined_lines(data["labels"])
    return "\n".join(lines) + "\n"
