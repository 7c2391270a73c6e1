"""Per-axis rows: the scale, the value given, and the anchor sentence of the focused value."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from qaeval_tui.core.text import one_line
from qaeval_tui.tui.draft import UNSCORED, LabelDraft
from qaeval_tui.tui.literal import line, plain, styled


def anchor_lines(draft: LabelDraft) -> list[Content]:
    """Every anchor of the focused axis, the one under the cursor marked."""
    axis = draft.axis
    lines = []
    for point, anchor in zip(axis.scale, axis.anchors, strict=True):
        here = point == draft.cursor_value
        lines.append(
            Content.assemble(
                ("▸ " if here else "  ", "bold $accent"),
                (f"{point} · ", "bold $accent" if here else "$foreground-muted"),
                plain(anchor).stylize("bold") if here else plain(anchor),
            )
        )
    return lines


class AxesPanel(Static):
    """Rendered from the draft (view state) plus the gold answer the core chose to release."""

    DEFAULT_CSS = """
    AxesPanel {
        height: auto;
        padding: 0 1;
        border-top: solid $primary;
    }
    """

    def show(
        self, draft: LabelDraft, gold: str | None, gold_hint: str, problem: str = "", *, all_anchors: bool = True
    ) -> None:
        names = {axis.name: one_line(axis.name, 40) for axis in draft.axes}  # axis names come from the config
        width = max(map(len, names.values())) + 2
        lines: list[Content] = []
        for index, axis in enumerate(draft.axes):
            focused = index == draft.focus
            value = draft.value_of(axis.name)
            parts: list[str | tuple[str, str] | Content] = [
                ("▸ " if focused else "  ", "bold $accent"),
                (names[axis.name].ljust(width), "bold" if focused else ""),
            ]
            for point_index, point in enumerate(axis.scale):
                if value == point:
                    parts.append((f" {point} ", "reverse bold $success"))
                elif focused and draft.cursors.get(axis.name, 0) == point_index:
                    parts.extend([" ", (str(point), "underline bold $accent"), " "])
                else:
                    parts.append(f" {point} ")
            if value is UNSCORED:
                state = ("  ·", "$foreground-muted")
            elif value is None:
                state = ("  can't judge", "$warning")
            else:
                state = ("  ✓", "$success")
            parts.append(state)
            if axis.needs_gold:
                parts.append(("  (sees the gold answer)", "$foreground-muted"))
            elif axis.name in draft.locked:
                parts.append(("  locked: gold shown", "$foreground-muted"))
            lines.append(Content.assemble(*parts))
        axis = draft.axis
        if all_anchors:
            lines.extend(anchor_lines(draft))
        else:
            lines.append(
                Content.assemble(
                    (f"{draft.cursor_value} · ", "bold $accent"),
                    plain(axis.anchors[axis.scale.index(draft.cursor_value)]),
                )
            )
        if axis.needs_gold:
            if gold is not None:
                lines.append(Content.assemble(("Gold answer: ", "bold $warning"), styled(gold, "$foreground")))
            else:
                lines.append(Content.styled(gold_hint, "$foreground-muted italic"))
        if problem:
            lines.append(Content.styled(problem, "bold $error"))
        if draft.note:
            lines.append(Content.assemble(("note ", "bold $secondary"), line(draft.note)))
        self.update(Content("\n").join(lines))
