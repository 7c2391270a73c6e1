"""How the review screen talks to the core: items in, labels out, all through workers.

`ReviewFlow` holds the screen's view state and its core traffic; `ReviewScreen` (review.py) adds
the layout and the keys. Every write runs in a worker; keys pressed while one is in flight are
kept and replayed in order once the next item is on screen, so a fast reviewer never loses one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from textual.message import Message

from qaeval_tui.core.review.session import Advance, BlindItemView, Progress, SessionSummary
from qaeval_tui.core.usecases.prepare import pace
from qaeval_tui.tui import heap
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.draft import ItemTimer, LabelDraft
from qaeval_tui.tui.literal import notice
from qaeval_tui.tui.messages import (
    CallFailed,
    GoldArrived,
    ItemArrived,
    LabelSaved,
    ProgressArrived,
    RevealArrived,
)
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.screens.reveal import RevealDialog
from qaeval_tui.tui.services import Services
from qaeval_tui.tui.widgets.answer_view import AnswerView
from qaeval_tui.tui.widgets.axes_panel import AxesPanel
from qaeval_tui.tui.widgets.guidelines_pane import GuidelinesPane
from qaeval_tui.tui.widgets.sources_panel import SourcesPanel
from qaeval_tui.tui.widgets.status_line import Status, StatusLine

WIDE = 120
"""From this width the screen has two columns, and the anchors move to the left one."""


class ReviewFlow(AppScreen[SessionSummary | None]):
    """View state of the review screen and every core call it makes.

    Dismissed with the session's summary when the queue is done, or None when the reviewer leaves.
    """

    def __init__(self, context: AppContext, item: BlindItemView | None = None) -> None:
        super().__init__(context)
        self.item: BlindItemView | None = None
        self.draft: LabelDraft | None = None
        self.progress: Progress | None = None
        self.gold: str | None = None
        self.selected: int | None = None
        self.last_submitted: str | None = None
        self.saved_position = 0
        """The queue position of the item whose submit is in flight, for the "saved" toast once it commits."""
        self.shown_at = context.clock()
        self._reopened = item
        self.background: Counter[str] = Counter()
        """Background reads in flight, by name ("progress", "gold")."""
        self.notice = ""
        """What the last core call did to the item on screen ("reopened"), shown in the status line."""
        self.problem = ""
        """Why the last submit was refused before reaching the core, in words; cleared with the item."""
        self.timer = ItemTimer(context.clock, context.services.config.review.idle_cutoff_seconds)
        self._settled = False
        """Whether the heap is settled for this screen (heap.py): from its first item until it unmounts."""

    def on_mount(self) -> None:
        self.set_interval(1.0, self._refresh_status)
        reopened = self._reopened
        if reopened is not None:
            self.call("loading…", lambda: ItemArrived(reopened, None, notice="reopened"), "Not loaded")
        else:
            self.call("loading…", lambda: self._next("", None), "Not loaded")

    # -- talking to the core (workers) ------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return not self.busy and self.item is not None

    def busy_changed(self) -> None:
        self._refresh_status()

    def _next(self, notice: str, submitted: str | None) -> ItemArrived:
        services = self.context.services
        item, progress = services.next_with_progress()
        if item is None:
            return ItemArrived(None, progress, services.summary(), notice, submitted)
        return ItemArrived(item, progress, None, notice, submitted)

    def _advanced(self, advance: Advance, notice: str, submitted: str | None) -> ItemArrived:
        """The item after a submit or skip, with its progress (one hand-off for all three)."""
        if advance.item is None:
            return ItemArrived(None, advance.progress, self.context.services.summary(), notice, submitted)
        return ItemArrived(advance.item, advance.progress, None, notice, submitted)

    def _background(self, name: str, work: Callable[[Services], Message], *, after_refresh: bool = False) -> None:
        """A read the reviewer does not wait for (progress, gold answer): no busy state, keys keep flowing.

        `after_refresh` starts it once the screen has painted, so it does not compete with that paint.
        """
        services = self.context.services
        self.background[name] += 1

        def run() -> None:
            self.post_message(work(services))

        title = f"{name} not updated"
        if after_refresh:
            self.call_after_refresh(lambda: self.run_core(run, group=name, title=title))
        else:
            self.run_core(run, group=name, title=title)

    def _say_saved(self, position: int) -> None:
        """Say "saved" once the committed label is on disk (the next item shows before: a commit is
        flushed to disk just after it, store.durable)."""
        services = self.context.services
        self.background["saved"] += 1

        def run() -> None:
            services.wait_saved()
            self.post_message(LabelSaved(position))

        self.run_core(run, group="saved", title="Not yet on disk")

    def on_label_saved(self, message: LabelSaved) -> None:
        self._landed("saved")
        self.notify(f"✓ item {message.position} saved", timeout=2)

    def _landed(self, name: str) -> None:
        self.background[name] -= 1
        if self.background[name] <= 0:
            del self.background[name]

    def worker_failed(self, group: str, text: str) -> None:
        if group in self.background:
            self._landed(group)  # a background read: the item on screen and the keys typed stay
        else:
            super().worker_failed(group, text)

    def on_progress_arrived(self, message: ProgressArrived) -> None:
        self._landed("progress")
        self.progress = message.progress
        self._refresh_status()

    async def on_item_arrived(self, message: ItemArrived) -> None:
        self.busy = ""
        if message.progress is not None:
            self.progress = message.progress
        if message.submitted is not None:
            self.last_submitted = message.submitted
            if not self.context.deterministic:  # pictures: a toast that fades would race the capture
                self._say_saved(self.saved_position)
        if message.item is None:
            if message.summary is not None:
                self.dismiss(message.summary)
            return
        await self._display(message.item)
        self.notice = message.notice
        self._refresh_status()
        if not self._settled:  # what the screen needs now lives as long as it does (heap.py)
            self._settled = True
            heap.settle()
        if message.progress is None:  # the item first, then the slower progress read
            self._background("progress", lambda services: ProgressArrived(services.progress()), after_refresh=True)
        await self.replay()

    async def on_reveal_arrived(self, message: RevealArrived) -> None:
        self.settle()
        self.app.push_screen(RevealDialog(message.view, self.context.services.config.rubric.axis_names))
        await self.replay()

    # -- showing ----------------------------------------------------------------------------------

    async def _display(self, item: BlindItemView) -> None:
        self.item, self.draft = item, LabelDraft.for_item(item)
        self.selected, self.gold, self.problem = None, None, ""
        self.shown_at = self.context.clock()
        self.timer.start()
        self.query_one(AnswerView).show(item, None)
        await self.query_one(SourcesPanel).show(item, None)
        self._scores_changed()
        self.refresh_bindings()

    def _scores_changed(self) -> None:
        """Redraw, and ask the core whether the gold answer may show now (in a worker: never block keys)."""
        self._refresh_axes()
        if self.item is None or self.draft is None:
            return
        item_id, scores = self.item.item_id, dict(self.draft.scores)
        if not scores and not self.item.gold_lock and not all(axis.needs_gold for axis in self.draft.axes):
            return  # a blind axis unscored and nothing locked: the core would say "not yet"

        def ask(services: Services) -> GoldArrived:
            return GoldArrived(item_id, *services.gold(item_id, scores))

        self._background("gold", ask)

    def on_gold_arrived(self, message: GoldArrived) -> None:
        """Show what the core released and lock what it locked: the lock is the core's, not the screen's."""
        self._landed("gold")
        if self.item is None or self.draft is None or message.item_id != self.item.item_id:
            return
        relock = message.lock and (
            self.draft.locked != frozenset(message.lock)
            or any(self.draft.scores.get(name) != value for name, value in message.lock.items())
        )
        if message.gold != self.gold or relock:
            self.gold = message.gold
            if relock:
                overruled = [
                    name for name, value in message.lock.items() if self.draft.scores.get(name, value) != value
                ]
                self.draft.lock(message.lock)
                if overruled:  # typed while the gold answer was on its way: the lock holds, said why
                    self.notify(
                        notice(f"{', '.join(overruled)} kept as scored when the gold answer was shown (locked)"),
                        severity="warning",
                        markup=False,
                    )
            self._refresh_axes()

    def _refresh_axes(self) -> None:
        if self.draft is None:
            return
        blind = [axis.name for axis in self.draft.axes if not axis.needs_gold]
        hint = f"Gold answer: shown once {', '.join(blind)} {'is' if len(blind) == 1 else 'are'} scored."
        if self.problem:
            self.problem = self.draft.missing_message()
        wide = self.size.width >= WIDE
        self.query_one(AxesPanel).show(self.draft, self.gold, hint, self.problem, all_anchors=not wide)
        self.query_one(AnswerView).show_anchors(self.draft)
        pane = self.query_one(GuidelinesPane)
        if pane.has_class("-shown"):
            pane.show(self.context.services.config.rubric, self.draft.axis.name)
        self._refresh_status()

    def _refresh_status(self) -> None:
        item, draft = self.item, self.draft
        self.query_one(StatusLine).status = Status(
            reviewer=self.context.reviewer,
            position=item.position if item else 0,
            total=item.total if item else 0,
            progress=self.progress,
            seconds_on_item=self.timer.seconds() if item else 0.0,
            pace=pace(self.progress) if self.progress else None,
            flagged=bool(draft and draft.flagged),
            has_note=bool(draft and draft.note),
            busy=self.busy,
            notice=self.notice,
        )

    # -- labels out ------------------------------------------------------------------------------

    def action_skip(self) -> None:
        if self.defer("skip") or self.item is None:
            return
        item_id, seconds, services = self.item.item_id, self._seconds(), self.context.services

        def work() -> ItemArrived:
            return self._advanced(services.skip_and_next(item_id, seconds), "skipped", None)

        self.call("skipping…", work)

    def action_submit(self) -> None:
        if self.defer("submit") or self.item is None or self.draft is None:
            return
        if self.draft.missing:  # said in words here; the core refuses it anyway
            self.problem = self.draft.missing_message()
            self.draft.focus = self.draft.axes.index(self.draft.missing[0])
            self._refresh_axes()
            return
        position = self.item.position
        item_id, seconds, services, draft = self.item.item_id, self._seconds(), self.context.services, self.draft
        scores, note, flagged = dict(draft.scores), draft.note, draft.flagged

        def work() -> ItemArrived:
            return self._advanced(services.submit_and_next(item_id, scores, note, flagged, seconds), "", item_id)

        self.saved_position = position
        self.call("saving…", work)

    def action_undo(self) -> None:
        if self.defer("undo"):
            return
        services = self.context.services

        def work() -> Message:
            item = services.undo()
            if item is None:
                return CallFailed("You have not submitted a label yet.", "Nothing to undo")
            return ItemArrived(item, None, notice="reopened: a change is a new revision")

        self.call("reopening…", work, "Not reopened")

    def action_reveal(self) -> None:
        if self.defer("reveal"):
            return
        target, services = self.last_submitted, self.context.services
        if target is None:
            self.notify("Reveal works on the item you last submitted; submit one first.", severity="warning")
            return
        self.call("revealing…", lambda: RevealArrived(services.reveal(target)), "Not revealed")

    def _seconds(self) -> float:
        return self.timer.seconds()

    def on_unmount(self) -> None:
        if self._settled:
            self._settled = False
            heap.release()

    def on_screen_suspend(self) -> None:
        self.timer.pause()  # time on another screen (help, a dialog, home) is not time on the item

    def on_screen_resume(self) -> None:
        self.timer.resume()

    def on_key(self) -> None:
        self.timer.touch()

    def on_resize(self) -> None:
        self._refresh_axes()  # the anchors move between the axes panel and the left column
