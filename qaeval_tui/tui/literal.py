"""Data text to Textual `Content` (or a Rich `Text` for a DataTable cell), literally.

Every string that came from data (questions, answers, sources, notes, evidence, tags, split and
axis names, reviewer and judge names, file paths, error messages that quote them) reaches the
screen through here. Hidden characters (control, bidi, invisible format characters) become
visible escapes through `core.text.literal`, the one literal path; the result is never parsed as
markup, so `[bold red]x[/]` and `:warning:` show as typed.

What does not take a `Content` parses a `str` as markup: a DataTable cell, a border title, a
notification, a command palette entry. Hand those `cell()` / `line()` / `notice()` / `palette()`
results, never the data string itself; an Input or TextArea draws its value raw, so prefill it
with `editable()`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from rich.text import Text
from textual.content import Content
from textual.markup import escape

from qaeval_tui.core.text import literal, one_line

Mark = tuple[int, int, str]
"""(start, end, style) over the original text; the style is ours, never from data."""


def plain(text: str) -> Content:
    """`text` as literal, unstyled Content (line breaks kept)."""
    return Content(literal(text))


def line(text: str, width: int | None = None) -> Content:
    """`text` as literal Content on one line, optionally cut to `width` with an ellipsis."""
    return Content(one_line(text, width))


def styled(text: str, style: str) -> Content:
    """Literal data text in one of our styles."""
    return Content.styled(literal(text), style)


def cell(text: str, style: str = "") -> Text:
    """Data text as one literal DataTable cell (a `str` cell would be parsed as markup), folded onto one line."""
    return Text(one_line(text), style=style, no_wrap=True, overflow="ellipsis")


def editable(text: str) -> str:
    """Data prefilled into an Input or TextArea: hidden characters escaped (a field draws its value raw).

    A field submitted unchanged should give back the original: compare with `editable(original)`.
    """
    return literal(text)


def notice(text: str) -> str:
    """A notification's title or text quoting data: literal, line breaks kept (notify with markup=False)."""
    return literal(text)


def palette(text: str) -> str:
    """Data in a command palette entry (Textual parses its title as markup): literal, one line, markup escaped."""
    return escape(one_line(text))


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
