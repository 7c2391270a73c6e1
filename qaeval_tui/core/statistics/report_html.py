"""Agreement and calibration reports as one self-contained HTML file (inline CSS, no script, no network).

Every piece of text from data goes through `html_text()` (entities escaped, hidden characters
shown). The figures are inline SVG (`statistics.svg`): alpha and exact agreement per axis as points
with their intervals (none where the table prints none), and each confusion matrix as a heat map
whose shade follows each cell's share of its row (the diagonal is agreement, green; the rest red).
"""

from __future__ import annotations

from collections.abc import Sequence

from qaeval_tui.core.statistics.agreement import AgreementReport
from qaeval_tui.core.statistics.calibration import CalibrationReport
from qaeval_tui.core.statistics.figures import HeatMap, agreement_figures, calibration_figures
from qaeval_tui.core.statistics.report_tables import (
    agreement_axes_table,
    calibration_axes_table,
    calibration_notes,
    pairwise_table,
)
from qaeval_tui.core.statistics.svg import heatmap_svg, interval_svg
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
.figures { display: flex; flex-wrap: wrap; gap: 1.5rem 3rem; margin: 1rem 0; }
svg.figure { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; break-inside: avoid; }
@media print { body { margin: 0; max-width: none; } .figures, .grids { break-inside: avoid; } }
"""


def html_page(title: str, body: list[str]) -> str:
    """A whole self-contained page: the title as heading, `body` (HTML already escaped) below it."""
    return _page(title, body)


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


def confusion_grid(name: str, labels: Sequence[int], counts: Sequence[Sequence[int]]) -> str:
    """One axis's confusion matrix as an SVG heat map (rows: human consensus, columns: judge)."""
    heat = HeatMap(name, tuple(labels), tuple(tuple(row) for row in counts))
    return f'<div class="grid">{heatmap_svg(heat)}</div>'


def _figures(*svgs: str) -> str:
    return '<div class="figures">' + "".join(svgs) + "</div>"


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
    body.append(_figures(*(interval_svg(figure) for figure in agreement_figures(report))))
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
    body.append(_figures(*(interval_svg(figure) for figure in calibration_figures(report))))
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
