"""The labeling guidelines, toggled with `g`: the focused axis's, then the rubric's general ones.

Guidelines are project-authored Markdown from the config (or the files it names), so they are
rendered as Markdown. Nothing from a source, an answer or a question ever reaches this widget.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from qaeval_tui.core.rubric import Rubric


def guidelines_markdown(rubric: Rubric, axis_name: str) -> str:
    """The focused axis's guidelines, then the general ones; a sentence when the rubric has none."""
    parts = [rubric.axis(axis_name).guidelines.strip(), rubric.guidelines.strip()]
    text = "\n\n---\n\n".join(part for part in parts if part)
    return text or "*This rubric has no guidelines: add `guidelines` to `[rubric]` or `[[rubric.axes]]`.*"


class GuidelinesPane(VerticalScroll, can_focus=False):
    """Hidden until `g`; shown in place of the sources."""

    DEFAULT_CSS = """
    GuidelinesPane { height: 1fr; border-top: solid $secondary; padding: 0 1; display: none; }
    GuidelinesPane.-shown { display: block; }
    """

    def compose(self) -> ComposeResult:
        yield Markdown()

    def show(self, rubric: Rubric, axis_name: str) -> None:
        self.query_one(Markdown).update(guidelines_markdown(rubric, axis_name))
