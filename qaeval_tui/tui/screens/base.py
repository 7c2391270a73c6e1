"""The one base of every screen of the app: the app's context, core calls in workers, queued keys.

Every full screen (reviewer prompt, preparing, home, review, summary, curation and oversight)
is an `AppScreen` on the app's one `AppContext`; its `SCOPE` names its destination in
`tui/destinations.py` (and so its keys), and help for it opens through the app's one help path.
It asks for the next screen by name (`navigate`) and returns its own result (`dismiss`). Modal
dialogs are not screens of their own.

Keys pressed during a save are queued and replayed in order once the result is on screen: a
fast reviewer's "2 1 2 enter 1 ..." lands on the right items, and nothing waits on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from textual.message import Message
from textual.screen import Screen

from qaeval_tui.tui.commands import Scope
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import notice
from qaeval_tui.tui.messages import CallFailed
from qaeval_tui.tui.navigation import Navigate
from qaeval_tui.tui.workers import QaevalApp

ResultT = TypeVar("ResultT")


class AppScreen(Screen[ResultT]):
    """A screen of the app: `call` runs core work in a thread and posts its message."""

    SCOPE: ClassVar[Scope] = "app"
    """Whose keys the help screen and the palette list for this screen."""

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.context = context
        self.busy = ""
        """What the core is doing for this screen right now ("saving…"), or ""."""
        self.pending: list[str] = []
        """Actions typed while busy, replayed in order afterwards."""

    @property
    def ready(self) -> bool:
        """True when actions may run now (not busy, something on screen)."""
        return not self.busy

    def busy_changed(self) -> None:
        """Hook: show the busy state."""

    def call(self, busy: str, work: Callable[[], Message], failure: str = "Not saved") -> None:
        """Run `work` (core calls only, no widgets) in a worker and post its message.

        If it raises, the app shows a notice headed `failure` and calls `worker_failed` here.
        """
        self.busy = busy
        self.busy_changed()
        self.run_core(lambda: self.post_message(work()), group="core", title=failure)

    def run_core(self, work: Callable[[], object], *, group: str, title: str, exclusive: bool = False) -> None:
        """Hand `work` to the app's workers, which report any failure (workers.py)."""
        app = self.app
        if not isinstance(app, QaevalApp):
            raise TypeError(f"{type(self).__name__} runs inside a QaevalApp, not {type(app).__name__}")
        app.run_core(self, work, group=group, title=title, exclusive=exclusive)

    def navigate(self, scope: Scope, *selection: object, then: Callable[[Any], None] | None = None) -> None:
        """Ask the app for the destination `scope` on `selection` (`navigation.py`); `then` gets its result.

        A screen never builds or pushes its successor: the app does, through the one factory."""
        self.post_message(Navigate(scope, selection, then))

    def worker_failed(self, group: str, text: str) -> None:
        """A call of this screen failed and the app has said so: drop the keys queued behind it.

        Screens that show `text` where the result would have gone extend this."""
        if not self.is_attached:
            return  # dismissed while the call ran
        self.pending.clear()  # keys typed after a refused call would land on the wrong item
        self.settle()

    def defer(self, action: str) -> bool:
        """Queue `action` if the screen is not ready; True when it was queued."""
        if self.ready:
            return False
        self.pending.append(action)
        return True

    def settle(self) -> None:
        self.busy = ""
        self.busy_changed()

    async def replay(self) -> None:
        """Run the queued actions in order; stop (keeping the rest) when one starts a new call."""
        pending, self.pending = self.pending, []
        for index, action in enumerate(pending):
            if not self.ready:
                self.pending.extend(pending[index:])
                return
            await self.run_action(action)

    async def on_call_failed(self, message: CallFailed) -> None:
        """A call the core refused as a result ("nothing to undo"), not as an exception."""
        self.worker_failed("core", message.text)
        # Error texts quote data (file names, field values): shown literally, never as markup.
        self.notify(notice(message.text), title=notice(message.title), severity="error", timeout=8, markup=False)
