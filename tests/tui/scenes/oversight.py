"""Every curation and oversight screen as a scene: the data it needs, a terminal size, the keys to reach it.

`make screenshots` and the snapshot tests play these scenes the same way, so the committed pictures
are the tested ones. Each opens the real app (`create_app`) on its screen, on a private workspace. Paths on
screen are relative to the scene's folder (the caller changes into it), so the pictures do not
depend on where they were made.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from qaeval_tui.core.curation.inbox import import_misses
from qaeval_tui.core.curation.rejection import reject
from qaeval_tui.core.review.views import Role
from qaeval_tui.tui.app import ReviewApp
from qaeval_tui.tui.screens.adjudicate import AdjudicationScreen
from qaeval_tui.tui.screens.browse import BrowseScreen
from qaeval_tui.tui.screens.dashboard import DashboardScreen
from qaeval_tui.tui.screens.drilldown import DrilldownScreen
from qaeval_tui.tui.screens.inbox import InboxScreen
from qaeval_tui.tui.screens.promote import PromoteScreen
from tests.tui.scenes.host import ScreenFactory, Workspace, make_workspace, oversight_app
from tests.tui.scenes.review import AnyPilot, wait_until

# Misses of the demo inbox (golden/inbox/misses.jsonl), by the part each plays in the pictures.
BEDROOM = "tr-20261002-3f9a61"  # promoted
RESTOCKING = "tr-20261003-b27c04"  # rejected: the answer was right
GATEWAY = "tr-20261004-5d1e88"  # near-duplicate of gateway-price-current-01
# A case ana and ben both labelled; scenes that leave ben's label out show it labelled by one reviewer.
ONE_REVIEWER = ("ben", "accessories-total-01")

Steps = Callable[[AnyPilot], Awaitable[None]]


async def _idle(pilot: AnyPilot) -> None:
    """Wait until the screen's core calls have come back, then let the screen settle."""
    app = pilot.app
    await wait_until(pilot, lambda: not getattr(app.screen, "busy", "") and all(w.is_finished for w in app.workers))
    for _ in range(3):
        await pilot.pause(0.05)


async def play_inbox(pilot: AnyPilot) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, InboxScreen) and app.screen.loaded and not app.screen.busy)


async def play_import_dialog(pilot: AnyPilot) -> None:
    await play_inbox(pilot)
    await pilot.press("i")


async def play_promote(pilot: AnyPilot) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, PromoteScreen) and app.screen.form is not None)


async def play_promote_typed(pilot: AnyPilot) -> None:
    await play_promote(pilot)
    await pilot.press("tab", "tab", "tab", *"No. Not in a sleeping area.", "tab", "down", "space")


async def play_promote_refused(pilot: AnyPilot) -> None:
    await play_promote(pilot)
    await pilot.press("ctrl+u", *"gateway-price-current-01", "ctrl+s")


async def play_reject(pilot: AnyPilot) -> None:
    await play_promote(pilot)
    await pilot.press("ctrl+r", *"The answer was right: the fee is in the terms.")


async def play_adjudication(pilot: AnyPilot) -> None:
    app = pilot.app

    def ready() -> bool:
        screen = app.screen
        return isinstance(screen, AdjudicationScreen) and screen.loaded and screen.dossier is not None

    await wait_until(pilot, ready)


async def play_short_of_labels(pilot: AnyPilot) -> None:
    await play_adjudication(pilot)
    await pilot.press("o")
    app = pilot.app

    def ready() -> bool:
        screen = app.screen
        if not isinstance(screen, AdjudicationScreen) or not screen.show_short:
            return False
        entry = screen.selected()
        return entry is not None and screen.dossier is not None and screen.dossier.item_id == entry.item_id

    await wait_until(pilot, ready)


async def play_consensus(pilot: AnyPilot) -> None:
    await play_adjudication(pilot)
    await pilot.press("1", *"0 and 2 both misread the anchor; 1 fits", "tab", "enter")
    await pilot.pause()
    await pilot.press("down", "down", "down", "down", "enter")  # cites "Partly supported answers"


async def play_curator_home(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.home import HomeScreen

    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)


async def play_dashboard(pilot: AnyPilot) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen) and app.screen.dashboard is not None)


async def play_dashboard_end(pilot: AnyPilot) -> None:
    """The dashboard scrolled to its end: the confusion heat maps and each reviewer's pace."""
    await play_dashboard(pilot)
    pilot.app.screen.query_one("#dash-body").scroll_end(animate=False)
    await pilot.pause()


async def play_drilldown(pilot: AnyPilot) -> None:
    await play_dashboard(pilot)
    app = pilot.app
    await pilot.press("tab", "enter")
    await wait_until(pilot, lambda: isinstance(app.screen, DrilldownScreen) and app.screen.dossier is not None)


async def play_browse(pilot: AnyPilot) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.screen.golden is not None)


async def play_browse_living(pilot: AnyPilot) -> None:
    await play_browse(pilot)
    await pilot.press("s", "s")


async def play_case(pilot: AnyPilot) -> None:
    await play_browse(pilot)
    await pilot.press("slash", *"error-e204", "enter", "enter")


@dataclass(frozen=True)
class OversightScene:
    name: str
    title: str
    size: tuple[int, int]
    factory: ScreenFactory | None
    """The screen the app opens on; None: the app's own start (it prepares the store, then home)."""
    steps: Steps
    inbox: bool = False
    rejected: tuple[str, ...] = ()
    leave_out: tuple[tuple[str, str], ...] = ()
    """(reviewer, case id) demo labels the scene's store never received (`build_labeled_store`)."""
    role: Role = "curator"
    """The app the scene opens in: the curator's, the only one that opens a curation screen's successors."""
    runs: bool = False
    """Store more runs beside the demo run (`runs_scene.add_runs`): the stored-runs screens."""


def scene_app(scene: OversightScene, root: Path, template: Path, golden: Path) -> ReviewApp:
    """The scene's data under `root` (a copy of `golden` and of the `template` store) and the app on its screen.

    Run it with `root` as the working directory.
    """
    workspace = make_workspace(root, template, golden)
    if scene.inbox:
        with workspace.store() as store:
            import_misses(store, workspace.inbox_file)
            for trace_id in scene.rejected:
                reject(store, trace_id, reason="The answer was right.", curator="dana", now="2026-10-19T16:00:00Z")
    if scene.runs:
        from tests.tui.scenes.runs_scene import add_runs

        add_runs(workspace.db, workspace.golden)
    relative = Workspace(root, workspace.config.model_copy(update={"base_dir": "."}), workspace.db)
    return oversight_app(relative, scene.factory, golden_paths=[Path("golden")], role=scene.role)


async def settle(pilot: AnyPilot, scene: OversightScene) -> None:
    await scene.steps(pilot)
    await _idle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()
