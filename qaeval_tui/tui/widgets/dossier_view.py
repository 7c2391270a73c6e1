"""A review item laid open, read-only: question, gold, answer, every blind label side by side, sources.

Used by adjudication (without the judge) and by the dashboard's drill-down (with it). Every
string from data goes through `tui.literal`.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from qaeval_tui.core.curation.dossier import ItemDossier
from qaeval_tui.core.text import one_line
from qaeval_tui.tui.literal import line, plain, styled
from qaeval_tui.tui.widgets.figure_table import Cell, Column, figure_table
from qaeval_tui.tui.widgets.source_block import SourceBlock

HEAD = "bold $primary"
MUTED = "$foreground-muted"


def score_text(scores: dict[str, int | None], axis: str) -> str:
    if axis not in scores:
        return "-"
    value = scores[axis]
    return "can't judge" if value is None else str(value)


def _section(title: str, body: Content) -> Content:
    return Content.assemble((f"{title:<10}", HEAD), body)


def labels_table(dossier: ItemDossier, axes: tuple[str, ...], focus_axis: str | None) -> Content:
    """Reviewers as rows, axes as columns; then the consensus and, when present, the judge."""
    columns = [Column("", 11)] + [Column(axis, min(max(len(one_line(axis)), 11), 24), ">") for axis in axes]
    rows: list[list[Cell]] = []
    for label in dossier.labels:
        flag = " ⚑" if label.flagged else ""
        rows.append([plain(label.reviewer + flag).stylize("bold"), *(score_text(label.scores, a) for a in axes)])
    consensus = {c.axis: c for c in dossier.consensus}
    rows.append(
        [
            Content.styled("consensus", "italic"),
            *(
                Content.styled(
                    f"{'-' if consensus[a].value is None else consensus[a].value} {consensus[a].source}",
                    "$success" if consensus[a].source in ("unanimous", "adjudicated") else "$warning",
                )
                for a in axes
            ),
        ]
    )
    if dossier.judge is not None:
        judge = dossier.judge
        name = Content.styled("judge", "bold $accent")
        if judge.status != "ok":
            rows.append([name, *(Content.styled(judge.status, "$error") for _ in axes)])
        else:
            rows.append([name, *(Content.styled(score_text(judge.scores, a), "bold $accent") for a in axes)])
    table = figure_table(columns, rows)
    if focus_axis in axes:
        column = axes.index(focus_axis) + 1
        start = sum(c.width + 2 for c in columns[:column])
        end = start + columns[column].width
        lines = table.split("\n")
        lines[0] = lines[0].stylize("bold reverse $accent", start, end)
        table = Content("\n").join(lines)
    return table


def dossier_content(dossier: ItemDossier, axes: tuple[str, ...], focus_axis: str | None) -> Content:
    lines: list[Content] = [
        Content.assemble(
            line(dossier.case_id).stylize("bold"), ("  item ", MUTED), line(dossier.item_id).stylize(MUTED)
        ),
        _section("Question", plain(dossier.question)),
    ]
    if dossier.expected_behavior == "abstain":
        lines.append(_section("Gold", Content.styled("the system should abstain", "italic")))
    else:
        gold = plain(dossier.gold_answer or "")
        lines.append(_section("Gold", gold))
        lines.append(
            _section("", Content.assemble(("gold sources ", MUTED), plain(", ".join(dossier.gold_source_ids))))
        )
    answer = plain(dossier.answer) if dossier.answer.strip() else Content.styled("(empty answer)", "italic")
    if dossier.abstained:
        answer = Content.assemble(("(abstained) ", "bold $warning"), answer)
    lines.append(_section("Answer", answer))
    for citation in dossier.citations:
        where = "" if citation.resolvable else " (not among the sources)"
        quote = Content.assemble(" “", plain(citation.quote), "”") if citation.quote else Content("")
        lines.append(
            _section(
                "",
                Content.assemble(
                    (f"[{citation.marker}] ", "bold $accent"), plain(citation.source_id), (where, "$error"), quote
                ),
            )
        )
    lines.append(Content(""))
    lines.append(Content.styled("Blind labels", HEAD))
    if dossier.labels:
        lines.append(labels_table(dossier, axes, focus_axis))
    else:
        lines.append(Content.styled("no blind labels on this item", MUTED))
    for label in dossier.labels:
        if label.note.strip():
            lines.append(Content.assemble(line(label.reviewer).stylize("bold"), ": “", plain(label.note), "”"))
    for ruling in dossier.rulings:
        lines.append(
            Content.assemble(
                ("ruling on ", MUTED), line(ruling.axis).stylize("bold"), ": ", styled(ruling.text(), "$text-success")
            )
        )
    if dossier.post_reveal_revisions:
        count = dossier.post_reveal_revisions
        lines.append(
            Content.styled(f"{count} post-reveal revision(s) not shown: the statistics do not use them", MUTED)
        )
    if dossier.judge is not None:
        for axis in axes:
            evidence = dossier.judge.evidence.get(axis)
            if evidence:
                judge_on = Content.assemble("judge on ", line(axis), ": ").stylize(MUTED)
                lines.append(Content.assemble(judge_on, "“", plain(evidence), "”"))
    lines.append(Content(""))
    lines.append(Content.styled("Sources", HEAD))
    return Content("\n").join(lines)


class DossierView(VerticalScroll, can_focus=False):
    """Scrolled by the screen's keys (page up / page down); the list beside it keeps the focus."""

    DEFAULT_CSS = """
    DossierView { height: 1fr; padding: 0 1; }
    DossierView > #dossier-head { margin-bottom: 1; }
    """

    async def show(self, dossier: ItemDossier, axes: tuple[str, ...], focus_axis: str | None = None) -> None:
        await self.remove_children()
        blocks = [SourceBlock(source, dossier.citations, None) for source in dossier.sources]
        await self.mount(Static(dossier_content(dossier, axes, focus_axis), id="dossier-head"), *blocks)
        self.scroll_home(animate=False)

    async def clear(self, message: str) -> None:
        await self.remove_children()
        await self.mount(Static(styled(message, MUTED)))
