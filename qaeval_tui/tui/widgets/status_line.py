"""One line on top of the review screen: who, where in the queue, time on item, pace.

The screen sets the line's `status` reactive; the line redraws when the status changes and not
when an update changes nothing (most of the places that refresh it). Set directly, not bound
with `data_bind`: the binding's indirection added about 2 ms to submit-to-next (`make bench`).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from qaeval_tui.core.review.session import Progress
from qaeval_tui.tui.literal import plain


def clock_text(seconds: float) -> str:
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


@dataclass(frozen=True)
class Status:
    """What the line shows; every figure comes from the core or the clock."""

    reviewer: str
    position: int
    total: int
    progress: Progress | None
    seconds_on_item: float
    pace: float | None
    flagged: bool
    has_note: bool
    busy: str
    notice: str = ""


class StatusLine(Widget):
    DEFAULT_CSS = """
    StatusLine { dock: top; height: 1; padding: 0 1; background: $panel; }
    """

    status: reactive[Status | None] = reactive(None)

    def render(self) -> Content:
        status = self.status
        if status is None:
            return Content("")
        parts: list[Content | str | tuple[str, str]] = [plain(status.reviewer).stylize("bold $accent")]
        if status.position:
            parts.append(f"  item {status.position}/{status.total}")
        if status.progress is not None:
            parts.append((f"  done {status.progress.done}/{status.progress.assigned}", "bold"))
            if status.progress.skipped:
                parts.append(f"  skipped {status.progress.skipped}")
        parts.append(f"  on item {clock_text(status.seconds_on_item)}")
        if status.pace is not None:
            parts.append(f"  pace {clock_text(status.pace)}/item")
        if status.flagged:
            parts.append(("  ⚑ flagged", "bold $error"))
        if status.has_note:
            parts.append(("  ✎ note", "bold $accent"))
        if status.busy:
            parts.append((f"  {status.busy}", "italic $warning"))
        elif status.notice:
            parts.append((f"  {status.notice}", "$success"))
        return Content.assemble(*parts)
