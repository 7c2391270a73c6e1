"""The CLI's consoles print every string as written, through the one literal path (core.text)."""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleDimensions, HighlighterType, JustifyMethod, OverflowMethod
from rich.style import Style
from rich.text import Text

from qaeval_tui.core.text import literal

NOT_A_TERMINAL_WIDTH = 240
"""Columns when stdout is a file or a pipe (a CI log) and `COLUMNS` is unset: rich's 80 cut tables."""


class LiteralConsole(Console):
    """A rich Console that never interprets text.

    No markup, no `:emoji:` codes, no highlighting, and every hidden character (ESC, C1 controls,
    bidi overrides, …) shown as an escape by `literal()`. Every string the console renders,
    printed directly or as a table cell or header, passes through `render_str`, so this is the
    one gate between data and the terminal: a command cannot forget it.
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(markup=False, emoji=False, highlight=False, **options)

    @property
    def size(self) -> ConsoleDimensions:
        """A terminal's own size, or `COLUMNS` when set; otherwise `NOT_A_TERMINAL_WIDTH` wide."""
        dimensions = super().size
        if self._width is None and "COLUMNS" not in self._environ and not self.is_terminal:
            return ConsoleDimensions(NOT_A_TERMINAL_WIDTH, dimensions.height)
        return dimensions

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size

    def render_str(
        self,
        text: str,
        *,
        style: str | Style = "",
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        emoji: bool | None = None,
        markup: bool | None = None,
        highlight: bool | None = None,
        highlighter: HighlighterType | None = None,
    ) -> Text:
        return super().render_str(
            literal(text), style=style, justify=justify, overflow=overflow, emoji=False, markup=False, highlight=False
        )
