"""One source: its id and title, then its text with every cited span highlighted."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from qaeval_tui.core.review.session import CitationView, SourceView
from qaeval_tui.tui.literal import Mark, marked, plain

CITED_STYLE = "on $warning 25%"
SELECTED_STYLE = "bold reverse $warning"


class SourceBlock(Static):
    """A source with its cited spans marked; the selected citation's span stands out."""

    DEFAULT_CSS = """
    SourceBlock { padding: 0 1; margin-bottom: 1; }
    """

    def __init__(self, source: SourceView, citations: tuple[CitationView, ...], selected: int | None) -> None:
        super().__init__()
        self.show(source, citations, selected)

    def show(self, source: SourceView, citations: tuple[CitationView, ...], selected: int | None) -> None:
        """Show another source in this block (blocks are reused from item to item)."""
        self.source = source
        self.citations = tuple(c for c in citations if c.source_id == source.source_id)
        self.selected = selected
        self.update(self._content())

    def _heading(self) -> Content:
        markers = " ".join(f"[{c.marker}]" for c in self.citations)
        title = plain(self.source.title) if self.source.title else Content.styled("(untitled)", "$foreground-muted")
        return Content.assemble(
            plain(self.source.source_id).stylize("bold $primary"),
            " · ",
            title.stylize("bold"),
            (f"  {markers}" if markers else "", "bold $accent"),
        )

    def selected_span(self) -> tuple[int, int] | None:
        for citation in self.citations:
            if citation.marker == self.selected and citation.span is not None:
                return citation.span
        return None

    def _content(self) -> Content:
        marks: list[Mark] = [(start, end, CITED_STYLE) for start, end in self.source.cited_spans]
        chosen = self.selected_span()
        if chosen is not None:
            marks.append((chosen[0], chosen[1], SELECTED_STYLE))
        return Content.assemble(self._heading(), "\n", marked(self.source.text, marks))

    def select(self, selected: int | None) -> None:
        self.selected = selected
        self.update(self._content())

    def line_of_selection(self) -> int:
        """Roughly which rendered line the selected span starts on (heading is line 0)."""
        span = self.selected_span()
        width = self.content_size.width
        if span is None or width <= 0:
            return 0
        before = marked(self.source.text[: span[0]])
        return 1 + max(0, len(before.wrap(width)) - 1)
