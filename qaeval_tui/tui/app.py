"""The `qaeval review` application: screens, keys and the palette, wired to one services.

`create_app` is the one factory: the CLI, the tests and the screenshot script all build the app
through it, so what is tested is what runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.timer import Timer

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.roster import roles_of
from qaeval_tui.core.review.session import BlindItemView, SessionSummary
from qaeval_tui.core.review.views import Role, seat_for
from qaeval_tui.core.store.opening import StoreLocation
from qaeval_tui.core.usecases.prepare import PrepareReport
from qaeval_tui.tui.commands import SCALE_KEYS, Scope, bindings, commands_for, keymap, resolve_keys, scale_digits
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.destinations import Destination, destination, from_anywhere, hidden_commands
from qaeval_tui.tui.literal import notice, palette
from qaeval_tui.tui.messages import Prepared, PrepareStep, StoreAvailability
from qaeval_tui.tui.navigation import Navigate, build_screen
from qaeval_tui.tui.services import Services
from qaeval_tui.tui.workers import QaevalApp

if TYPE_CHECKING:
    from qaeval_tui.tui.screens.preparing import PreparingScreen

ScreenFactory = Callable[[AppContext], Screen[Any]]
"""Builds a screen on the app's context."""
ResultHandler = Callable[[Any], None]
"""What a dismissed screen's result is handed to."""

TITLES: dict[Role, str] = {"reviewer": "qaeval review", "curator": "qaeval curate"}


@dataclass(frozen=True)
class PrepareOutcome:
    """How preparing the store ended: a report, or the error that stopped it."""

    report: PrepareReport | None
    error: Exception | None


PREPARING_AFTER = 0.3
"""Seconds of preparing before the preparing screen shows: a prepared store opens on its first item
without a screen flashing past first."""


class ReviewApp(QaevalApp[int]):
    """Blind labeling from the keyboard (reviewer prompt, preparing, home, review, summary), or,
    as the curator app, home and the curation and oversight screens. The role is fixed at start:
    the reviewer app offers no screen that shows verdicts, other labels, consensus or case ids."""

    CSS_PATH = "app.tcss"
    TITLE = "qaeval review"
    BINDINGS = bindings("app")

    def __init__(self, context: AppContext, start: ScreenFactory | None = None) -> None:
        super().__init__()
        self.context = context
        self.title = TITLES[context.role]
        self.start = start
        """The screen to open instead of the reviewer prompt and preparation (scenes and tests)."""
        self.failure: Exception | None = None
        """The error that stopped preparation; the CLI reports it after the app has exited."""
        self.prepared = False
        """The store is prepared for this seat: every screen may be opened from anywhere."""
        self.preparing_steps: list[str] = []
        """What preparing the store has done so far, in words (the preparing screen shows them)."""
        self._preparing_timer: Timer | None = None
        self._preparing_screen: PreparingScreen | None = None
        """The preparing screen, once preparing took long enough to show it (its module loads then)."""
        self._preparation_error: Exception | None = None
        if context.deterministic:
            self.animation_level = "none"

    @property
    def config(self) -> Config:
        return self.context.services.config

    def on_mount(self) -> None:
        self.set_keymap(keymap(self.config.review.keys))
        # post_message is thread-safe and never waits on this thread (which may be closing the store)
        self.context.services.on_unavailable = lambda text: self.post_message(StoreAvailability(text))
        if self.start is not None:
            self.push_screen(self.start(self.context))
        elif self.context.reviewer:
            self._prepare()
        else:
            from qaeval_tui.tui.screens.reviewer import ReviewerScreen

            self.push_screen(ReviewerScreen(self.context), self._reviewer_chosen)

    def on_store_availability(self, message: StoreAvailability) -> None:
        """The store went away (why; the call in flight waits and retries) or came back (None)."""
        if message.text is None:
            self.notify("the store is back; the work that waited for it is done", title="Store", markup=False)
        else:
            self.notify(notice(message.text), title="Store unavailable", severity="warning", timeout=30, markup=False)

    def on_unmount(self) -> None:
        """Close the store on its own thread, after a save still in flight (services.py)."""
        self.context.services.close()

    def _reviewer_chosen(self, name: str | None) -> None:
        if name:
            if self.context.role == "curator":
                try:
                    seat_for(name, "curator", self.config)
                except Exception as exc:  # a UsageError: reported by the CLI after exit, exit 2
                    self.failure = exc
                    self.exit(return_code=2)
                    return
            self.context.reviewer = name
            self._prepare()

    def _prepare(self) -> None:
        """Prepare the store on a worker; the preparing screen shows only once it takes a while (a
        fresh store runs the suite), so a prepared store opens straight on its first item."""
        services, reviewer = self.context.services, self.context.reviewer
        # A curator gets a review queue only when the roster makes them a reviewer too.
        enrol = self.context.role == "reviewer" or (
            bool(services.config.review.roster) and "reviewer" in roles_of(services.config, reviewer)
        )

        def work() -> None:
            try:
                report = services.prepare(reviewer, lambda text: self.post_message(PrepareStep(text)), enrol=enrol)
                services.progress()  # the session reads its history now, while the screen waits for it
            except Exception as exc:
                self._preparation_error = exc  # kept for the CLI's report after exit
                raise
            self.post_message(Prepared(report))

        self.preparing_steps.clear()
        self._preparing_timer = self.set_timer(PREPARING_AFTER, self._show_preparing)
        self.run_core(self, work, group="prepare", title="Not prepared")

    def _show_preparing(self) -> None:
        from qaeval_tui.tui.screens.preparing import PreparingScreen

        if not self.prepared and self._preparing_timer is not None:
            self._preparing_screen = PreparingScreen(self.context, self.preparing_steps)
            self.push_screen(self._preparing_screen)

    def on_prepare_step(self, message: PrepareStep) -> None:
        self.preparing_steps.append(message.text)
        if self._preparing_screen is not None and self.screen is self._preparing_screen:
            self._preparing_screen.show_steps()

    def on_prepared(self, message: Prepared) -> None:
        self._preparation_over()
        self._prepared(PrepareOutcome(message.report, None))

    def worker_failed(self, group: str, text: str) -> None:
        """Preparation failed (the one handler has shown why): the app exits with the error."""
        if group == "prepare" and self.is_running:
            self._preparation_over()
            self._prepared(PrepareOutcome(None, self._preparation_error))

    def _preparation_over(self) -> None:
        if self._preparing_timer is not None:
            self._preparing_timer.stop()
            self._preparing_timer = None
        if self._preparing_screen is not None and self.screen is self._preparing_screen:
            self.pop_screen()
        self._preparing_screen = None

    def _prepared(self, outcome: PrepareOutcome | None) -> None:
        if outcome is None or outcome.error is not None:
            self.failure = outcome.error if outcome else None
            self.exit(return_code=int(getattr(self.failure, "exit_code", 1)))
            return
        self.prepared = True
        if self.context.role == "reviewer":
            # Straight to the first item: home is built only when the reviewer goes there (_home).
            self.open_destination(destination("review"))
        else:
            self._home()

    def _home(self) -> None:
        """Show home when nothing is left under the screen just closed (the reviewer app opens on review)."""
        from qaeval_tui.tui.screens.home import HomeScreen

        if self.prepared and len(self.screen_stack) <= 1:
            self.push_screen(HomeScreen(self.context))

    # -- navigation: screens return results, the app decides what comes next ---------------------

    def on_navigate(self, message: Navigate) -> None:
        self.open_destination(destination(message.scope), *message.selection, then=message.then)

    def open_destination(self, entry: Destination, *selection: object, then: ResultHandler | None = None) -> None:
        """Push `entry`'s screen on `selection`, unless this app does not offer it; its result goes to
        `then` (the asking screen), else to the app's own flow (review -> summary -> review)."""
        if entry.role != self.context.role:
            return  # another role's screen: this app does not offer it (destinations.py)
        flows: dict[str, ResultHandler] = {"review": self._review_closed, "summary": self._summary_closed}
        self.push_screen(build_screen(entry, self.context, *selection), then or flows.get(entry.scope))

    def _review_closed(self, summary: SessionSummary | None) -> None:
        """The queue is done (its summary), or the reviewer went home (None)."""
        if summary is not None:
            self.open_destination(destination("summary"), summary)
        else:
            self._home()

    def _summary_closed(self, reopened: BlindItemView | None) -> None:
        """Undo reopened an item (review it again), or the reviewer went home (None)."""
        if reopened is not None:
            self.open_destination(destination("review"), reopened)
        else:
            self._home()

    async def action_quit(self) -> None:
        """Quit; with unsaved scores on the item under review, ask once first (quit again leaves)."""
        from qaeval_tui.tui.screens.leave_dialog import LeaveDialog
        from qaeval_tui.tui.screens.review import ReviewScreen

        if not isinstance(self.screen, LeaveDialog):
            review = next((screen for screen in self.screen_stack if isinstance(screen, ReviewScreen)), None)
            if review is not None and review.unsaved_work():
                review.confirm_leave(by_escape=False, leave=self.exit)
                return
        self.exit()

    def action_help(self) -> None:
        from qaeval_tui.tui.screens.help import open_help

        open_help(self.screen, dict(self.config.review.keys), hidden_commands(self.context.role))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The app's own commands, and Textual's theme switcher. Textual's other entries go: its
        Quit and Keys duplicate the app's quit and help, and its Screenshot and Maximize are no
        command of this app (a screenshot would also be an export the reviewer app does not offer)."""
        yield from (command for command in super().get_system_commands(screen) if command.title == "Theme")
        scope: Scope | None = getattr(screen, "SCOPE", None)
        scope = None if scope == "app" else scope  # the app's own commands are added below
        keys = resolve_keys(self.config.review.keys)
        hidden = hidden_commands(self.context.role)
        for command in commands_for(scope) if scope else ():
            if command.name in hidden:
                continue
            key = palette(self.get_key_display(Binding(keys[command.name], command.name)))  # keys come from config
            callback: Callable[[], object] = partial(screen.run_action, command.runs)
            yield SystemCommand(f"{command.palette_title} ({key})", command.help, callback)
        if scale := SCALE_KEYS.get(scope or ""):  # a digit off the selected axis's scale does nothing
            for digit in scale_digits(axis.scale for axis in self.config.rubric.axes):
                run = partial(screen.run_action, f"{scale.action}({digit})")
                yield SystemCommand(f"{scale.title} {digit}", scale.palette_help or scale.help, run)
        prepared = self.prepared or any(getattr(below, "SCOPE", None) == "home" for below in self.screen_stack)
        if scope != "home" and prepared and not screen.is_modal:
            # Every other screen from anywhere once the store is prepared; home lists these with their keys.
            for entry, opener in from_anywhere(self.context.role):
                if entry.scope != scope:
                    yield SystemCommand(opener.palette_title, opener.help, partial(self.open_destination, entry))
        help_key = palette(self.get_key_display(Binding(keys["help"], "help")))
        yield SystemCommand(f"Help ({help_key})", "Every key and what it does.", self.action_help)
        quit_command = next(command for command in commands_for("app") if command.name == "quit")
        quit_key = palette(self.get_key_display(Binding(keys["quit"], "quit")))
        yield SystemCommand(f"Quit ({quit_key})", quit_command.help, self.action_quit)


def create_app(
    config: Config,
    *,
    db_path: StoreLocation,
    data_paths: Sequence[Path],
    reviewer: str | None,
    clock: Callable[[], float] = time.monotonic,
    deterministic: bool = False,
    services: Services | None = None,
    start: ScreenFactory | None = None,
    role: Role = "reviewer",
) -> ReviewApp:
    """Build the reviewer app, or with `role="curator"` the curator app. Raises UsageError for a bad
    `[review.keys]` remap, or a named curator the roster does not make one, before anything opens.

    `clock` and `deterministic` exist for tests and screenshots (a fixed clock, no animation or
    blinking); `services` lets a screenshot hold the app on a transient screen, and `start` opens
    the app on one screen of an already prepared store (the scenes of the curation screens).
    """
    resolve_keys(config.review.keys)
    if role == "curator" and reviewer:
        seat_for(reviewer, role, config)
    door = services or Services(config, db_path, data_paths)
    return ReviewApp(AppContext(door, clock, deterministic, reviewer or "", role), start)
