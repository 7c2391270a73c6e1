"""Guidelines in the labeling view (issue 13): every anchor of the focused axis, and `g` for the guidelines."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Markdown

from qaeval_tui.core.config import Config
from qaeval_tui.tui.widgets.guidelines_pane import GuidelinesPane, guidelines_markdown
from qaeval_tui.tui.widgets.sources_panel import SourcesPanel
from tests.tui.conftest import make_app, open_review, screen_text, settle

ANCHORS = Config().rubric.axis("citation_correctness").anchors


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_every_anchor_of_the_focused_axis_is_on_screen_at_once(demo_db: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=size) as pilot:
        await open_review(pilot)
        await settle(pilot, "tab")
        text = " ".join(screen_text(app).split())
        for anchor in ANCHORS:
            assert anchor[:40] in text  # columns share a screen row: the start of each anchor


async def test_g_shows_the_focused_axis_guidelines_as_markdown_in_place_of_the_sources(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_review(pilot)
        pane = screen.query_one(GuidelinesPane)
        assert not pane.display
        await settle(pilot, "g")
        assert pane.display and not screen.query_one(SourcesPanel).display
        source = pane.query_one(Markdown).source
        assert source == guidelines_markdown(Config().rubric, "faithfulness")
        assert screen.item is not None and screen.item.answer not in source  # data never goes through Markdown
        text = screen_text(app)
        assert "Abstentions" in text and "## Faithfulness" not in text  # rendered, not shown as source
        await settle(pilot, "tab")  # the pane follows the focused axis
        assert pane.query_one(Markdown).source.startswith("## Citation correctness")
        await settle(pilot, "g")
        assert not pane.display and screen.query_one(SourcesPanel).display
