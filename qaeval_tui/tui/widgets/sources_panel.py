"""The sources the system answered from, scrollable, with a keyboard jump to a citation's span."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.geometry import Region

from qaeval_tui.core.review.session import BlindItemView
from qaeval_tui.tui.widgets.source_block import SourceBlock


class SourcesPanel(VerticalScroll, can_focus=False):
    """One SourceBlock per source; `select` scrolls the selected citation's span into view."""

    DEFAULT_CSS = """
    SourcesPanel { height: 1fr; border-top: solid $primary; }
    """

    async def show(self, item: BlindItemView, selected: int | None) -> None:
        """Show the item's sources, reusing the blocks already mounted (mounting is the slow part)."""
        blocks = list(self.query(SourceBlock))
        for block, source in zip(blocks, item.sources, strict=False):
            block.show(source, item.citations, selected)
        if len(blocks) > len(item.sources):
            await self.remove_children(blocks[len(item.sources) :])
        elif len(blocks) < len(item.sources):
            await self.mount_all(SourceBlock(s, item.citations, selected) for s in item.sources[len(blocks) :])
        self.scroll_home(animate=False)

    def select(self, selected: int | None, source_id: str | None) -> None:
        target: SourceBlock | None = None
        for block in self.query(SourceBlock):
            block.select(selected)
            if block.source.source_id == source_id:
                target = block
        if target is not None:
            self.call_after_refresh(self._bring_span_into_view, target)

    def _bring_span_into_view(self, block: SourceBlock) -> None:
        line = block.line_of_selection()
        region = block.virtual_region
        # One line of context above the span (the heading, when the span starts the text).
        self.scroll_to_region(Region(region.x, region.y + max(0, line - 1), region.width, 1), animate=False, top=True)
