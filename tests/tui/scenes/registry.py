"""The one registry of scenes: every screen state the snapshot tests check and `make screenshots` draws.

Each `Shot` names its picture (`screenshots/<file>.svg`, and the snapshot test's id), its window
title and terminal size, and the scene that plays it: a review scene (`scenes.review`, the app of
`qaeval review` on the demo store) or an oversight scene (`scenes.oversight`, a curation screen on
the demo store with the demo labels). `app_for` builds a scene's app and `settle` plays it; the
snapshot tests (`tests/tui/test_snapshots.py`) and `scripts/screenshots.py` both read `SHOTS`
through them, so a scene cannot be tested without being drawn, nor drawn without being tested.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.tui.app import ReviewApp
from qaeval_tui.tui.screens.adjudicate import AdjudicationScreen
from qaeval_tui.tui.screens.browse import BrowseScreen
from qaeval_tui.tui.screens.dashboard import DashboardScreen
from qaeval_tui.tui.screens.flags import FlagsScreen
from qaeval_tui.tui.screens.inbox import InboxScreen
from qaeval_tui.tui.screens.promote import PromoteScreen
from qaeval_tui.tui.screens.runs import RunsScreen
from tests.tui.scenes import oversight
from tests.tui.scenes.flags_scene import play_flags
from tests.tui.scenes.host import build_labeled_store
from tests.tui.scenes.oversight import (
    BEDROOM,
    GATEWAY,
    ONE_REVIEWER,
    RESTOCKING,
    OversightScene,
    play_adjudication,
    play_browse,
    play_browse_living,
    play_case,
    play_consensus,
    play_curator_home,
    play_dashboard,
    play_dashboard_end,
    play_drilldown,
    play_import_dialog,
    play_inbox,
    play_promote,
    play_promote_refused,
    play_promote_typed,
    play_reject,
    play_short_of_labels,
)
from tests.tui.scenes.review import (
    AnyPilot,
    Scene,
    play_home,
    play_keys,
    play_literal,
    play_preparing,
    play_reveal,
    play_reviewer_prompt,
    play_summary,
    scene_app,
)
from tests.tui.scenes.runs_scene import play_run_case, play_run_diff, play_run_table, play_runs

REVIEW_SCENES: tuple[Scene, ...] = (
    Scene("01-reviewer", "Who is reviewing?", (80, 24), None, play_reviewer_prompt),
    Scene("02-preparing", "Preparing a fresh store", (80, 24), "ana", play_preparing, held=True),
    Scene("03-home", "Home", (100, 32), "ana", play_home),
    Scene("04-review", "Review: a new item (80x24)", (80, 24), "ana", play_keys()),
    Scene("05-review-gold", "Review: blind axes scored, gold answer shown", (80, 24), "ana", play_keys("2", "1")),
    Scene(
        "06-review-wide",
        "Review: a citation selected, wide layout",
        (140, 40),
        "ana",
        play_keys("right_square_bracket"),
    ),
    Scene("07-note", "Review: writing a note", (80, 24), "ana", play_keys("f", "n", *"units look wrong")),
    Scene("08-reveal", "Review: judge verdict revealed after submit", (100, 32), "ana", play_reveal),
    Scene("09-help", "Help: every key", (100, 32), "ana", play_keys("question_mark")),
    Scene("10-literal", "Literal rendering of markup and escape sequences", (100, 32), "ben", play_literal),
    Scene("11-summary", "End of the queue", (100, 32), "ana", play_summary),
    Scene("12-leave", "Review: leaving a partly scored item asks once", (80, 24), "ana", play_keys("2", "escape")),
)

OVERSIGHT_SCENES: tuple[OversightScene, ...] = (
    OversightScene("01-inbox", "Inbox: production misses", (100, 32), InboxScreen, play_inbox, True, (RESTOCKING,)),
    OversightScene("02-import", "Inbox: importing a miss file", (100, 32), InboxScreen, play_import_dialog),
    OversightScene(
        "03-promote",
        "Promote: validation as you type",
        (100, 32),
        lambda c: PromoteScreen(c, BEDROOM),
        play_promote,
        True,
    ),
    OversightScene(
        "04-promote-ready",
        "Promote: a valid draft",
        (100, 32),
        lambda c: PromoteScreen(c, BEDROOM),
        play_promote_typed,
        True,
    ),
    OversightScene(
        "05-promote-refused",
        "Promote: refused, nothing written",
        (100, 32),
        lambda c: PromoteScreen(c, BEDROOM),
        play_promote_refused,
        True,
    ),
    OversightScene(
        "06-near-duplicate",
        "Promote: near-duplicate warning",
        (100, 32),
        lambda c: PromoteScreen(c, GATEWAY),
        play_promote,
        True,
    ),
    OversightScene(
        "07-reject", "Reject with a reason", (100, 32), lambda c: PromoteScreen(c, RESTOCKING), play_reject, True
    ),
    OversightScene("08-adjudication", "Adjudication: worst first", (100, 32), AdjudicationScreen, play_adjudication),
    OversightScene(
        "09-consensus", "Adjudication: recording a consensus", (100, 32), AdjudicationScreen, play_consensus
    ),
    OversightScene("10-dashboard", "Calibration dashboard", (100, 42), DashboardScreen, play_dashboard),
    OversightScene("11-drilldown", "Dashboard: items behind a cell", (100, 32), DashboardScreen, play_drilldown),
    OversightScene("12-browse", "Golden browser", (100, 32), BrowseScreen, play_browse),
    OversightScene("13-browse-living", "Golden browser: living split", (100, 32), BrowseScreen, play_browse_living),
    OversightScene("14-case", "Golden case, frozen: read-only", (100, 32), BrowseScreen, play_case),
    OversightScene(
        "15-short-of-labels",
        "Adjudication: items short of blind labels",
        (100, 32),
        AdjudicationScreen,
        play_short_of_labels,
        leave_out=(ONE_REVIEWER,),
    ),
    OversightScene("16-flags", "Flags queue: reviewers' flags and notes", (100, 32), FlagsScreen, play_flags),
    OversightScene(
        "17-curator-home",
        "Curator home: every curator screen",
        (100, 32),
        None,
        play_curator_home,
        role="curator",
    ),
    OversightScene(
        "18-runs", "Stored runs and each gated metric's history", (130, 36), RunsScreen, play_runs, runs=True
    ),
    OversightScene("19-run", "A run's cases: failing only", (130, 32), RunsScreen, play_run_table, runs=True),
    OversightScene("20-run-case", "One case of a run", (100, 40), RunsScreen, play_run_case, runs=True),
    OversightScene("21-run-diff", "Two runs compared", (120, 36), RunsScreen, play_run_diff, runs=True),
    OversightScene(
        "22-dashboard-pace",
        "Dashboard: confusion heat maps and each reviewer's pace",
        (100, 42),
        DashboardScreen,
        play_dashboard_end,
    ),
)


@dataclass(frozen=True)
class Shot:
    file: str
    """The picture's name: `screenshots/<file>.svg`, and the snapshot test's id."""
    title: str
    """The window title of the picture."""
    scene: Scene | OversightScene

    @property
    def size(self) -> tuple[int, int]:
        return self.scene.size


SHOTS: tuple[Shot, ...] = (
    *(Shot(scene.name, f"qaeval review: {scene.title}", scene) for scene in REVIEW_SCENES),
    *(Shot(f"oversight-{scene.name}", f"qaeval: {scene.title}", scene) for scene in OVERSIGHT_SCENES),
)


@dataclass(frozen=True)
class Templates:
    """The stores scenes copy: `demo` (run stored, queues built) and `labeled` (plus the demo labels
    of `labels`, the folder a scene's own store is built from when it leaves some out)."""

    demo: Path
    labeled: Path
    golden: Path
    labels: Path
    config: Config


def app_for(shot: Shot, templates: Templates, workdir: Path) -> tuple[ReviewApp, Path | None]:
    """The shot's app on a private copy of its data under `workdir`, and the folder to run it in.

    Oversight scenes show paths relative to their folder, so they must run inside it (None: anywhere).
    """
    scene = shot.scene
    if isinstance(scene, Scene):
        return scene_app(scene, templates.demo, workdir, templates.golden, templates.config), None
    root = workdir / shot.file
    root.mkdir(parents=True)
    template = templates.labeled
    if scene.leave_out:
        template = build_labeled_store(
            workdir / f"{shot.file}.db", templates.golden, templates.labels, leave_out=scene.leave_out
        )
    return oversight.scene_app(scene, root, template, templates.golden), root


async def settle(shot: Shot, pilot: AnyPilot) -> None:
    """Play the shot's scene to the picture; toasts are cleared (they time out: no picture may depend on timing)."""
    if isinstance(shot.scene, Scene):
        await shot.scene.steps(pilot)
        await pilot.pause()
        pilot.app.clear_notifications()
    else:
        await oversight.settle(pilot, shot.scene)
    await pilot.pause()
