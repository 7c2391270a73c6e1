"""One axis's confusion matrix as a coloured grid with a cell cursor.

Rows are the human consensus, columns the judge, in scale order. A cell's colour says how much
of its row it holds: green on the diagonal (judge and humans agree), red off it, stronger for a
larger share, none for an empty cell. Arrow keys move the cursor; the screen opens the items
behind the cell under it.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from qaeval_tui.core.usecases.dashboard import ConfusionView
from qaeval_tui.tui.literal import line

CELL = 5
LABEL = 8


def share_style(count: int, row_total: int, diagonal: bool) -> str:
    """The background of a cell holding `count` of its row's `row_total` items."""
    if count == 0 or row_total == 0:
        return "$foreground-muted"
    strength = 15 + 5 * round(12 * count / row_total)  # 15% .. 75% in steps of 5
    colour = "$success" if diagonal else "$error"
    return f"bold $text on {colour} {strength}%"


class ConfusionGrid(Widget, can_focus=True):
    """A focusable grid; `cursor` is (human index, judge index) into the scale."""

    DEFAULT_CSS = """
    ConfusionGrid {
        width: auto;
        height: auto;
        padding: 0;
        margin: 0 1 1 0;
        border: round $panel-lighten-2;
    }
    ConfusionGrid:focus { border: round $accent; }
    """
    BINDINGS = [  # noqa: RUF012 (Textual's own type)
        Binding("up", "move(-1, 0)", "up", show=False),
        Binding("down", "move(1, 0)", "down", show=False),
        Binding("left", "move(0, -1)", "left", show=False),
        Binding("right", "move(0, 1)", "right", show=False),
    ]

    cursor: reactive[tuple[int, int]] = reactive((0, 0))

    def __init__(self, view: ConfusionView, title: Content, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self.title = title
        self.border_title = line(view.axis)  # a str title would be parsed as markup

    @property
    def human(self) -> int:
        return self.view.scale[self.cursor[0]]

    @property
    def judge(self) -> int:
        return self.view.scale[self.cursor[1]]

    def on_mount(self) -> None:
        # Start on the largest off-diagonal cell: the judge's commonest mistake is the usual question.
        scale = self.view.scale
        best, where = 0, (0, 0)
        for h in range(len(scale)):
            for j in range(len(scale)):
                count = self.view.counts[h][j]
                if h != j and count > best:
                    best, where = count, (h, j)
        self.cursor = where

    def action_move(self, rows: int, columns: int) -> None:
        size = len(self.view.scale)
        h, j = self.cursor
        self.cursor = (max(0, min(size - 1, h + rows)), max(0, min(size - 1, j + columns)))

    def render(self) -> Content:
        scale, counts = self.view.scale, self.view.counts
        lines = [self.title]
        head = Content("judge →".ljust(LABEL)) + Content("".join(f"{v:>{CELL - 1}} " for v in scale))
        lines.append(head.stylize("$foreground-muted") + Content.styled("    n", "$foreground-muted"))
        for h, human in enumerate(scale):
            total = sum(counts[h])
            row = [Content.styled(f"human {human}"[: LABEL - 1].ljust(LABEL), "$foreground-muted")]
            for j in range(len(scale)):
                text = f"{counts[h][j]:>{CELL - 1}} "
                style = share_style(counts[h][j], total, h == j)
                if (h, j) == self.cursor:
                    style = f"{style} reverse" if self.has_focus else f"{style} underline"
                row.append(Content.styled(text, style))
            row.append(Content.styled(f"{total:>5}", "$foreground-muted"))
            lines.append(Content.assemble(*row))
        return Content("\n").join(lines)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
