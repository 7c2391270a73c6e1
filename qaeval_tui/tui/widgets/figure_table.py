"""Tables of figures as aligned Content, never parsed as markup.

A `str` cell is data: it is shown literally on one line (tui.literal.line). Data text for a
DataTable goes through tui.literal.cell instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from textual.content import Content

from qaeval_tui.tui.literal import line

Align = Literal["<", ">"]
Cell = Content | str


def figure(value: float | None, digits: int = 2, signed: bool = False) -> str:
    """A figure for a table; "-" where it is undefined (the reason is shown beside the table)."""
    if value is None:
        return "-"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def interval(bounds: tuple[float, float] | None, digits: int = 2) -> str:
    return "-" if bounds is None else f"{bounds[0]:.{digits}f}–{bounds[1]:.{digits}f}"


@dataclass(frozen=True)
class Column:
    title: str
    width: int
    align: Align = "<"


def _fit(cell: Cell, column: Column) -> Content:
    content = cell if isinstance(cell, Content) else line(cell)
    content = content.truncate(column.width, ellipsis=True)
    gap = column.width - content.cell_length
    return content.pad_left(gap) if column.align == ">" else content.pad_right(gap)


def figure_table(columns: Sequence[Column], rows: Sequence[Sequence[Cell]], gap: int = 2) -> Content:
    """A header line and one line per row, each cell cut or padded to its column."""
    spacer = " " * gap
    header = Content(spacer).join(_fit(line(c.title).stylize("bold"), c) for c in columns)
    lines = [header.stylize("$foreground-muted")]
    for row in rows:
        lines.append(Content(spacer).join(_fit(cell, column) for cell, column in zip(row, columns, strict=True)))
    return Content("\n").join(lines)
