"""The review screen: one item at a time, blind, from the keyboard alone.

It renders only the core's `BlindItemView`; its data flow lives in `ReviewFlow` (review_flow.py),
this file holds the layout and what each key does to the draft label.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container

from qaeval_tui.tui.commands import bindings, resolve_keys
from qaeval_tui.tui.draft import LabelDraft
from qaeval_tui.tui.literal import notice
from qaeval_tui.tui.screens.leave_dialog import LeaveDialog
from qaeval_tui.tui.screens.note import NoteDialog
from qaeval_tui.tui.screens.review_flow import ReviewFlow
from qaeval_tui.tui.widgets.answer_view import AnswerView
from qaeval_tui.tui.widgets.axes_panel import AxesPanel
from qaeval_tui.tui.widgets.guidelines_pane import GuidelinesPane
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.sources_panel import SourcesPanel
from qaeval_tui.tui.widgets.status_line import StatusLine


class ReviewScreen(ReviewFlow):
    """Blind labeling. Opened on the next item of the queue, or on an item reopened by undo."""

    SCOPE = "review"
    BINDINGS = bindings("review")
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]  # noqa: RUF012 (Textual's own type)

    def compose(self) -> ComposeResult:
        yield StatusLine()
        with Container(id="body"):
            yield AnswerView()
            yield SourcesPanel()
            yield GuidelinesPane()
        yield AxesPanel()
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "score":
            return any(parameters[0] in axis.scale for axis in self.context.services.config.rubric.axes)
        if action == "reveal":
            return True if self.last_submitted else None
        if action in ("next_citation", "previous_citation"):
            return True if self.item and self.item.citations else None
        return True

    # -- actions ----------------------------------------------------------------------------------

    def _locked(self) -> bool:
        """Refuse, saying why, a change to a blind axis once the gold answer was shown for the item."""
        if self.draft is None or self.draft.axis.name not in self.draft.locked:
            return False
        self.notify(
            notice(f"{self.draft.axis.name} is locked: the gold answer was shown for this item"),
            severity="warning",
            markup=False,
        )
        return True

    def action_score(self, value: int) -> None:
        if self.defer(f"score({value})") or self.draft is None or self._locked():
            return
        if not self.draft.on_scale(value):
            scale = ", ".join(str(point) for point in self.draft.axis.scale)
            self.notify(
                notice(f"{value} is not on the {self.draft.axis.name} scale ({scale})"),
                severity="warning",
                markup=False,
            )
            return
        self.draft.score(value)
        self._scores_changed()

    def action_score_cursor(self) -> None:
        if not self.defer("score_cursor") and self.draft is not None and not self._locked():
            self.draft.score(self.draft.cursor_value)
            self._scores_changed()

    def action_cant_judge(self) -> None:
        if not self.defer("cant_judge") and self.draft is not None and not self._locked():
            self.draft.score(None)
            self._scores_changed()

    def _move(self, action: str, change: Callable[[LabelDraft], None]) -> None:
        if not self.defer(action) and self.draft is not None:
            change(self.draft)
            self._refresh_axes()

    def action_next_axis(self) -> None:
        self._move("next_axis", lambda draft: draft.move_focus(1))

    def action_previous_axis(self) -> None:
        self._move("previous_axis", lambda draft: draft.move_focus(-1))

    def action_value_left(self) -> None:
        self._move("value_left", lambda draft: draft.move_cursor(-1))

    def action_value_right(self) -> None:
        self._move("value_right", lambda draft: draft.move_cursor(1))

    def action_note(self) -> None:
        if self.defer("note") or self.draft is None:
            return

        def keep(note: str | None) -> None:
            if note is not None and self.draft is not None:
                self.draft.note = note
                self._refresh_axes()

        self.app.push_screen(NoteDialog(self.draft.note, blink=not self.context.deterministic), keep)

    def action_flag(self) -> None:
        if not self.defer("flag") and self.draft is not None:
            self.draft.flagged = not self.draft.flagged
            self._refresh_status()

    def _select_citation(self, action: str, step: int) -> None:
        if self.defer(action) or self.item is None or not self.item.citations:
            return
        markers = [citation.marker for citation in self.item.citations]
        index = markers.index(self.selected) + step if self.selected in markers else (0 if step > 0 else -1)
        citation = self.item.citations[index % len(markers)]
        self.selected = citation.marker
        self.query_one(AnswerView).show(self.item, self.selected)
        self.query_one(SourcesPanel).select(self.selected, citation.source_id)

    def action_next_citation(self) -> None:
        self._select_citation("next_citation", 1)

    def action_previous_citation(self) -> None:
        self._select_citation("previous_citation", -1)

    def action_guidelines(self) -> None:
        """Show the guidelines in place of the sources, or the sources again."""
        pane = self.query_one(GuidelinesPane)
        shown = not pane.has_class("-shown")
        pane.set_class(shown, "-shown")
        self.query_one(SourcesPanel).display = not shown
        self._refresh_axes()

    def action_sources_down(self) -> None:
        self.query_one(SourcesPanel).scroll_page_down(animate=False)

    def action_sources_up(self) -> None:
        self.query_one(SourcesPanel).scroll_page_up(animate=False)

    def action_back(self) -> None:
        if self.busy:  # not `defer`: with no item on screen (a failed load) escape must still leave
            self.pending.append("back")
            return
        if self.unsaved_work():
            self.confirm_leave(by_escape=True, leave=lambda: self.dismiss(None))
            return
        self.dismiss(None)

    def unsaved_work(self) -> str:
        """What leaving now would drop, in words ("" when nothing: the item is as loaded, or saving)."""
        if self.busy or self.draft is None or not self.draft.unsaved:
            return ""
        return self.draft.unsaved_summary()

    def confirm_leave(self, *, by_escape: bool, leave: Callable[[], object]) -> None:
        """Ask once before dropping unsaved scores; `leave` runs if the reviewer confirms."""
        keys = resolve_keys(self.context.services.config.review.keys)
        quit_key = self.app.get_key_display(Binding(keys["quit"], "quit"))
        going = "Go home" if by_escape else "Quit"

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                leave()

        dialog = LeaveDialog(going, self.unsaved_work(), by_escape=by_escape, quit_key=quit_key)
        self.app.push_screen(dialog, decided)
