"""Agreement and calibration reports as one self-contained HTML file (inline CSS, no script, no network).

Every piece of text from data goes through `html_text()` (entities escaped, hidden characters
shown); confusion matrices are coloured grids whose shade follows each cell's share of its row
(the diagonal is agreement, shaded green; the rest red).
"""

from __future__ import annotations

from collections.abc import Sequence

from qaeval_tui.core.statistics.agreement import AgreementReport
from qaeval_tui.core.statistics.calibration import CalibrationReport
from qaeval_tui.core.statistics.report_tables import (
    agreement_axes_table,
    calibration_axes_table,
    calibration_notes,
    pairwise_table,
)
from qaeval_tui.core.statistics.verdict import human_bar_words, report_notes, verdict_line
from qaeval_tui.core.text import html_text

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 72rem;
       color: #1d232a; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; } h3 { font-size: 1rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #cfd6dd; padding: .3rem .6rem; text-align: right; }
th { background: #eef2f5; } td:first-child, th:first-child { text-align: left; }
.meta { color: #4c5864; } .note { color: #4c5864; font-size: .92em; }
.TRUSTED { background: #d9f2df; } .RETUNE { background: #f9d9d6; } .INSUFFICIENT { background: #fbefc8; }
.verdict { font-weight: 600; padding: .1rem .5rem; border-radius: .3rem; }
.grids { display: flex; flex-wrap: wrap; gap: 2rem; }
.grid td { width: 3rem; text-align: center; } .grid th { text-align: center; }
"""


def _page(title: str, body: list[str]) -> str:
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{html_text(title)}</title>",
            f"<style>{_CSS}</style></head><body>",
            f"<h1>{html_text(title)}</h1>",
            *body,
            "</body></html>",
            "",
        ]
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[object]], row_classes: Sequence[str] = ()) -> str:
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)
    body = []
    for index, row in enumerate(rows):
        css = f' class="{row_classes[index]}"' if index < len(row_classes) and row_classes[index] else ""
        body.append(f"<tr{css}>" + "".join(f"<td>{html_text(str(cell))}</td>" for cell in row) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _shade(count: int, row_total: int, diagonal: bool) -> str:
    share = count / row_total if row_total else 0.0
    # Lightness from 97% (empty) to 55% (the whole row in this cell).
    lightness = 97 - 42 * share
    hue = 135 if diagonal else 5
    return f"background: hsl({hue}, 60%, {lightness:.0f}%)"


def confusion_grid(name: str, labels: Sequence[int], counts: Sequence[Sequence[int]]) -> str:
    head = "".join(f"<th>{html_text(str(v))}</th>" for v in labels)
    rows = []
    for i, (value, row) in enumerate(zip(labels, counts, strict=True)):
        total = sum(row)
        cells = "".join(
            f'<td style="{_shade(c, total, i == j)}" title="human {html_text(str(value))}, '
            f'judge {html_text(str(labels[j]))}">{c}</td>'
            for j, c in enumerate(row)
        )
        rows.append(f"<tr><th>{html_text(str(value))}</th>{cells}</tr>")
    return (
        f'<div><h3>{html_text(name)}</h3><table class="grid"><thead><tr><th>human \\ judge</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def agreement_html(report: AgreementReport) -> str:
    data = report.to_json()
    body = [
        f'<p class="meta">Rubric version {html_text(report.rubric_version)} · {report.n_items} items · reviewers '
        f"{html_text(', '.join(report.reviewers))} · latest blind revision per item and reviewer · bootstrap "
        f"{report.confidence:.0%} CI, {report.replicates} replicates, seed {report.seed} · source "
        f"{html_text(report.source)}</p>"
    ]
    header, rows, notes = agreement_axes_table(data)
    body.append(_table(header, rows))
    body += [f'<p class="note">{html_text(note)}</p>' for note in notes]
    for name, pairs in data["pairwise"].items():
        if pairs:
            body.append(
                f"<h2>Pairwise agreement: {html_text(name)} "
                f"(kappa {html_text(pairs[0]['kappa_weights'] or 'unweighted')})</h2>"
            )
            body.append(_table(*pairwise_table(pairs)))
    body += _quarantined(data["labels"])
    return _page("Inter-rater agreement", body)


def calibration_html(report: CalibrationReport) -> str:
    data = report.to_json()
    bar = data["bar"]
    spans = data["intervals"]
    body = [f'<p>Overall: <span class="verdict {report.verdict}">{report.verdict}</span></p>']
    body += [f'<p class="verdict RETUNE">Warning: {html_text(note)}</p>' for note in report_notes(data)]
    body.append(
        f'<p class="meta">Judge {html_text(report.judge_name)} · config {html_text(report.judge_config_hash)} · rubric '
        f"version {html_text(report.rubric_version)} · bar per axis ({bar['rule']} rule): exact agreement ≥ "
        f"{bar['min_exact']:.2f} with n ≥ {bar['min_n']}, alpha (judge as a coder) above {bar['chance_floor']:.2f}"
        f"{html_text(human_bar_words(bar))} · "
        f"human side: adjudicated, else among ≥ {bar['min_reviewers']} blind reviewers unanimous, else median on a "
        f"scale point · intervals: exact agreement {spans['exact']} (from {spans['exact_min_items']} items), alpha "
        f"{spans['alpha']} (from {spans['alpha_min_items']} items) · source {html_text(report.source)}</p>"
    )
    header, rows = calibration_axes_table(data)
    body.append(_table(header, rows, [axis["verdict"] for axis in data["axes"].values()]))
    body += [f'<p class="note">{html_text(verdict_line(name, axis))}</p>' for name, axis in data["axes"].items()]
    body += [f'<p class="note">{html_text(name)}: {html_text(note)}</p>' for name, note in calibration_notes(data)]
    body.append("<h2>Confusion matrices (rows: human consensus, columns: judge)</h2>")
    body.append(
        '<div class="grids">'
        + "".join(
            confusion_grid(name, a["confusion"]["labels"], a["confusion"]["counts"]) for name, a in data["axes"].items()
        )
        + "</div>"
    )
    for title, key in (
        ("Unresolved, offered for adjudication", "unresolved_items"),
        ("One reviewer only, offered for more labels", "one_reviewer_items"),
    ):
        found = sorted({item for axis in data["axes"].values() for item in axis[key]})
        if found:
            body.append(f"<h2>{title} ({len(found)})</h2>")
            body.append(f'<p class="note">{html_text(", ".join(found))}</p>')
    body += _quarantined(data["labels"])
    return _page(f"Judge calibration: {report.verdict}", body)


def _quarantined(selection: dict[str, int | bool]) -> list[str]:
    count = selection.get("quarantined_excluded", 0)
    return [f'<p class="note">{count} quarantined label row(s) left out.</p>'] if count else []
