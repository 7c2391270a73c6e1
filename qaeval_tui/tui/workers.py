"""Every slow call runs as a worker on the app, and one handler makes every failure visible.

Screens hand their core calls to `QaevalApp.run_core`; a call that raises, whatever the exception,
becomes a literal error notice and the screen that asked is told to settle (clear its busy state
and the keys queued behind the call). Nothing a worker raises is dropped or only logged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from textual.app import App
from textual.worker import Worker, WorkerState

from qaeval_tui.core.errors import QaevalError
from qaeval_tui.tui.literal import notice

ReturnT = TypeVar("ReturnT")


class Caller(Protocol):
    """A screen that started a worker; told which of its calls failed, so it can settle."""

    def worker_failed(self, group: str, text: str) -> None: ...


def failure_text(error: BaseException | None) -> str:
    """The project's own errors speak for themselves; anything else is named, never hidden."""
    if isinstance(error, QaevalError):
        return str(error)
    return f"unexpected error: {type(error).__name__}: {error}"


class QaevalApp(App[ReturnT]):
    """The app every screen of qaeval runs in: core calls as thread workers, failures in one place."""

    def __init__(self) -> None:
        super().__init__()
        self._callers: dict[Worker[Any], Caller] = {}

    def run_core(
        self, caller: Caller, work: Callable[[], object], *, group: str, title: str, exclusive: bool = False
    ) -> Worker[Any]:
        """Run `work` (core calls, then a posted message; never widgets) in a thread.

        `title` heads the notice if it fails ("Not saved"); `group` tells the caller which call failed;
        `exclusive` cancels the caller's earlier calls of the same group (their results are stale).
        """
        if exclusive:  # per caller: two screens' reads of the same kind do not cancel each other
            for earlier, who in list(self._callers.items()):
                if who is caller and earlier.group == group:
                    earlier.cancel()
        worker: Worker[Any] = self.run_worker(work, name=title, group=group, thread=True, exit_on_error=False)
        self._callers[worker] = caller
        return worker

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        caller = self._callers.pop(worker, None)
        if event.state is not WorkerState.ERROR:
            return
        text = failure_text(worker.error)
        # Error texts quote data (file names, field values): shown literally, never as markup.
        self.notify(notice(text), title=notice(worker.name), severity="error", timeout=8, markup=False)
        if caller is not None:
            caller.worker_failed(worker.group, text)
