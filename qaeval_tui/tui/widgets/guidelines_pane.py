"""The labeling guidelines, toggled with `g`: the focused axis's, then the rubric's general ones.

Guidelines are project-authored Markdown from the config (or the files it names), so they are
rendered as Markdown. Nothing from a source, an answer or a question ever reaches this widget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import VerticalScroll

from qaeval_tui.core.rubric import Rubric

if TYPE_CHECKING:
    from textual.widgets import Markdown


def guidelines_markdown(rubric: Rubric, axis_name: str) -> str:
    """The focused axis's guidelines, then the general ones; a sentence when the rubric has none."""
    parts = [rubric.axis(axis_name).guidelines.strip(), rubric.guidelines.strip()]
    text = "\n\n---\n\n".join(part for part in parts if part)
    return text or "*This rubric has no guidelines: add `guidelines` to `[rubric]` or `[[rubric.axes]]`.*"


class GuidelinesPane(VerticalScroll, can_focus=False):
    """Hidden until `g`; shown in place of the sources.

    The Markdown widget (and its parser) is built on the first `g`, not at start: most sessions
    never open the guidelines, and the review screen's cold start should not pay for them."""

    DEFAULT_CSS = """
    GuidelinesPane { height: 1fr; border-top: solid $secondary; padding: 0 1; display: none; }
    GuidelinesPane.-shown { display: block; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._markdown: Markdown | None = None

    def show(self, rubric: Rubric, axis_name: str) -> None:
        text = guidelines_markdown(rubric, axis_name)
        if self._markdown is None:
            from textual.widgets import Markdown

            self._markdown = Markdown(text)
            self.mount(self._markdown)
        else:
            self._markdown.update(text)
