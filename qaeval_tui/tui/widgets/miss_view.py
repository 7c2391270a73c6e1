"""A production miss as the production system saw it: question, its answer and citations, why it missed."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from qaeval_tui.core.curation.inbox import InboxEntry
from qaeval_tui.tui.literal import plain

HEAD = "bold $primary"
MUTED = "$foreground-muted"
STATUS_STYLES = {"pending": "bold $warning", "promoted": "bold $success", "rejected": "bold $error"}


def _row(title: str, body: Content) -> Content:
    return Content.assemble((f"{title:<10}", HEAD), body)


def miss_content(entry: InboxEntry, *, with_question: bool = True, with_sources: bool = True) -> Content:
    miss = entry.miss
    lines = [
        Content.assemble(
            plain(miss.trace_id).stylize("bold"),
            "  ",
            (entry.status, STATUS_STYLES[entry.status]),
            ("  reported by ", MUTED),
            plain(miss.reporter),
            (" at ", MUTED),
            plain(miss.reported_at),
        )
    ]
    if with_question:
        lines.append(_row("Question", plain(miss.question)))
    answer = plain(miss.answer) if miss.answer.strip() else Content.styled("(empty answer)", "italic")
    lines.append(_row("Answered", answer))
    for citation in miss.citations:
        known = citation.source_id in miss.source_ids()
        quote = Content.assemble(" “", plain(citation.quote), "”") if citation.quote else Content("")
        where = "" if known else " (not among its sources)"
        lines.append(_row("", Content.assemble(("cites ", MUTED), plain(citation.source_id), (where, "$error"), quote)))
    lines.append(_row("Why", plain(miss.reason).stylize("$warning")))
    if miss.provenance is not None:
        lines.append(_row("Traced", plain(miss.provenance.describe()).stylize(MUTED)))
    if with_sources:
        titles = ", ".join(f"{s.id} {s.title}" if s.title else s.id for s in miss.sources)
        lines.append(_row("Sources", plain(titles or "none")))
    decision = entry.decision
    if decision is not None:
        what = f"promoted as {decision.case_id}" if decision.decision == "promoted" else "rejected"
        lines.append(
            _row(
                "Decided",
                Content.assemble(
                    plain(what).stylize(STATUS_STYLES[decision.decision]),
                    (" by ", MUTED),
                    plain(decision.curator),
                    (" at ", MUTED),
                    plain(decision.decided_at),
                    (": ", MUTED),
                    plain(decision.reason),
                ),
            )
        )
    return Content("\n").join(lines)


class MissView(Static):
    DEFAULT_CSS = """
    MissView { padding: 0 1; height: auto; }
    """

    def show(self, entry: InboxEntry | None, *, with_question: bool = True, with_sources: bool = True) -> None:
        if entry is None:
            self.update(Content.styled("No miss selected.", MUTED))
        else:
            self.update(miss_content(entry, with_question=with_question, with_sources=with_sources))
