"""Data text to Textual `Content`, literally.

Every string that came from data (questions, answers, sources, notes, evidence) reaches the
screen through here: control characters become visible `\\xNN` escapes (core.text.literal) and
the result is plain `Content`, never parsed as markup, so `[bold red]x[/]` shows as typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from textual.content import Content

from qaeval_tui.core.text import literal

Mark = tuple[int, int, str]
"""(start, end, style) over the original text; the style is ours, never from data."""


def plain(text: str) -> Content:
    """`text` as literal, unstyled Content."""
    return Content(literal(text))


def marked(text: str, marks: Sequence[Mark] = ()) -> Content:
    """`text` as literal Content with our styles over character ranges of the original text.

    Escaping a control character lengthens the text, so range bounds are mapped through the
    escaping piece by piece.
    """
    cuts = sorted({0, len(text), *(max(0, min(len(text), bound)) for start, end, _ in marks for bound in (start, end))})
    pieces: list[str] = []
    mapped: dict[int, int] = {0: 0}
    position = 0
    for start, end in pairwise(cuts):
        piece = literal(text[start:end])
        pieces.append(piece)
        position += len(piece)
        mapped[end] = position
    content = Content("".join(pieces))
    for start, end, style in marks:
        low, high = mapped[max(0, min(len(text), start))], mapped[max(0, min(len(text), end))]
        if high > low:
            content = content.stylize(style, low, high)
    return content


def styled(text: str, style: str) -> Content:
    """Literal data text in one of our styles."""
    return Content.styled(literal(text), style)
