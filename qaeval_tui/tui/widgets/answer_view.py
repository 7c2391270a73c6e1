"""The question, the system's answer with its citation markers, and the list of citations."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from qaeval_tui.core.review.session import BlindItemView, CitationView
from qaeval_tui.tui.draft import LabelDraft
from qaeval_tui.tui.literal import Mark, marked, plain, styled
from qaeval_tui.tui.widgets.axes_panel import anchor_lines

MARKER_STYLE = "bold $accent"
SELECTED_STYLE = "reverse bold $accent"


def _marker_marks(answer: str, citations: tuple[CitationView, ...], selected: int | None) -> list[Mark]:
    marks: list[Mark] = []
    for citation in citations:
        token = f"[{citation.marker}]"
        start = answer.find(token)
        while start >= 0:
            style = SELECTED_STYLE if citation.marker == selected else MARKER_STYLE
            marks.append((start, start + len(token), style))
            start = answer.find(token, start + len(token))
    return marks


def _citation_line(citation: CitationView, selected: bool) -> Content:
    head = Content.styled(f"[{citation.marker}]", SELECTED_STYLE if selected else MARKER_STYLE)
    if not citation.resolvable:
        where = Content.assemble(" ", plain(citation.source_id), (" — not among the sources", "$error"))
    elif citation.span is None:
        where = Content.assemble(" ", plain(citation.source_id), (" — quote not found in that source", "$warning"))
    else:
        where = Content.assemble(" ", plain(citation.source_id))
    quote = Content.assemble(" “", plain(citation.quote), "”") if citation.quote else Content("")
    return Content.assemble(head, where, quote)


class AnswerView(VerticalScroll, can_focus=False):
    """Question and answer; the selected citation's marker is shown in reverse."""

    DEFAULT_CSS = """
    AnswerView { height: auto; max-height: 45%; padding: 0 1; }
    AnswerView > Static { margin-bottom: 0; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="question")
        yield Static(id="answer")
        yield Static(id="citations")
        yield Static(id="anchors")

    def show(self, item: BlindItemView, selected: int | None) -> None:
        self.query_one("#question", Static).update(
            Content.assemble(("Question  ", "bold $primary"), plain(item.question))
        )
        answer = marked(item.answer, _marker_marks(item.answer, item.citations, selected))
        if item.abstained:
            answer = Content.assemble(("(abstained) ", "bold $warning"), answer)
        elif not item.answer.strip():
            answer = Content.styled("(empty answer)", "$foreground-muted italic")
        self.query_one("#answer", Static).update(Content.assemble(("Answer    ", "bold $primary"), answer))
        lines = [_citation_line(citation, citation.marker == selected) for citation in item.citations]
        citations = Content("\n").join(lines) if lines else Content.styled("(no citations)", "$foreground-muted italic")
        self.query_one("#citations", Static).update(citations)

    def show_anchors(self, draft: LabelDraft) -> None:
        """All anchors of the focused axis (shown on wide terminals, in the left column's free space)."""
        head = Content.assemble(
            ("Anchors   ", "bold $primary"),
            styled(draft.axis.name, "bold"),
            ("  (g: guidelines)", "$foreground-muted"),
        )
        self.query_one("#anchors", Static).update(Content("\n").join([head, *anchor_lines(draft)]))
