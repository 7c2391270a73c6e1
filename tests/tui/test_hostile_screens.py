"""Every screen on a store where every text holds the hostile string: nothing of it reaches the terminal raw.

The store is built from tests/hostile.py: the hostile config (axis names, anchors, rubric version),
golden set (a split named by a hostile file name), the hostile adapter and judge (answers, quotes,
errors, evidence), labels whose notes are hostile and the hostile production misses. Each screen
is opened on it and its export (what Textual would draw) must hold no raw ESC, C1, BEL or bidi
control, no emoji made from `:warning:`, and must show the text literally, markup included.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from textual.app import App

from qaeval_tui.core.config import Config, load_config
from qaeval_tui.core.curation.inbox import import_misses
from qaeval_tui.core.review.labels_io import import_labels
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.app import ReviewApp, create_app
from qaeval_tui.tui.screens.adjudicate import AdjudicationScreen
from qaeval_tui.tui.screens.browse import BrowseScreen
from qaeval_tui.tui.screens.case_detail import CaseDetailScreen
from qaeval_tui.tui.screens.consensus_dialog import ConsensusDialog
from qaeval_tui.tui.screens.dashboard import DashboardScreen
from qaeval_tui.tui.screens.drilldown import DrilldownScreen
from qaeval_tui.tui.screens.help import HelpScreen
from qaeval_tui.tui.screens.home import HomeScreen
from qaeval_tui.tui.screens.import_dialog import ImportDialog
from qaeval_tui.tui.screens.inbox import InboxScreen
from qaeval_tui.tui.screens.note import NoteDialog
from qaeval_tui.tui.screens.promote import PromoteScreen
from qaeval_tui.tui.screens.reject_dialog import RejectDialog
from qaeval_tui.tui.screens.reveal import RevealDialog
from qaeval_tui.tui.screens.review import ReviewScreen
from qaeval_tui.tui.screens.reviewer import ReviewerScreen
from qaeval_tui.tui.screens.run_case import RunCaseScreen
from qaeval_tui.tui.screens.run_table import RunTableScreen
from qaeval_tui.tui.screens.runs import RunsScreen
from qaeval_tui.tui.screens.summary import SummaryScreen
from tests.hostile import EMOJI, HOSTILE, MISSES, REVIEWERS, TIME, TRACE_ID, hostile_workspace, label_line, raw_controls
from tests.tui.conftest import flat, screen_text
from tests.tui.scenes.host import Workspace, oversight_app
from tests.tui.scenes.review import AnyPilot, FixedClock, build_demo_store, idle, press_and_settle, wait_until


@dataclass(frozen=True)
class Hostile:
    root: Path
    config: Config
    db: Path

    @property
    def golden(self) -> Path:
        return self.root / "golden"


@pytest.fixture(scope="session")
def hostile_template(tmp_path_factory: pytest.TempPathFactory) -> Hostile:
    """The hostile run stored, queues for ana and ben, labels (hostile notes, disagreeing), the misses imported."""
    root = hostile_workspace(tmp_path_factory.mktemp("hostile-tui"))
    config = load_config(root / "qaeval.toml")
    db = root / "qaeval.db"
    build_demo_store(db, root / "golden", config, reviewers=REVIEWERS)
    with Store.open(db) as store:
        case_of = store.case_ids_by_item()
        queues = {name: [item for _, item, _ in store.assignments(name)] for name in REVIEWERS}
        files = []
        for reviewer, score, items in (("ana", 0, queues["ana"][:2]), ("ben", 2, queues["ben"])):
            lines = [{**label_line(reviewer, item, score), "case_id": case_of[item]} for item in items]
            lines = [{**line, "rubric_version": config.rubric.version, "created_at": TIME} for line in lines]
            path = root / "store-labels" / f"{reviewer}.jsonl"
            path.parent.mkdir(exist_ok=True)
            path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
            files.append(path)
        import_labels(store, files, config.rubric)
        import_misses(store, root / MISSES)
    return Hostile(root, config, db)


@pytest.fixture
def hostile(hostile_template: Hostile, tmp_path: Path) -> Hostile:
    root = tmp_path / "work"
    shutil.copytree(hostile_template.root, root)
    return Hostile(root, load_config(root / "qaeval.toml"), root / "qaeval.db")


def problems(svg: str, where: str, *, quoted: bool = True) -> list[str]:
    """What is wrong with what the screen drew: raw controls, an emoji, or (where it shows data) no literal text."""
    found = [f"{where}: raw {shown}" for shown in raw_controls(svg)[:3]]
    if re.search(f"markup\\[/\\]\\s*{EMOJI}", flat(screen_text_of(svg))):  # the screen's own ⚠ signs are fine
        found.append(f"{where}: an emoji made from :warning:")
    if quoted and "EVIL\\x1b[2J" not in svg.replace("&#160;", " "):
        found.append(f"{where}: the hostile text is not shown as an escape")
    return found


def check(svg: str, where: str, *, quoted: bool = True) -> None:
    assert problems(svg, where, quoted=quoted) == []


# -- the review app ----------------------------------------------------------------------------------------


def review_app(hostile: Hostile, reviewer: str | None = "ana") -> ReviewApp:
    return create_app(
        hostile.config,
        db_path=hostile.db,
        data_paths=[hostile.golden],
        reviewer=reviewer,
        clock=FixedClock(),
        deterministic=True,
    )


async def snap(pilot: AnyPilot) -> str:
    """The screen once the layout has settled (the first frames of a screen are partial)."""
    for _ in range(3):
        await pilot.pause(0.05)
    return pilot.app.export_screenshot()


async def on_review(pilot: AnyPilot) -> ReviewApp:
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await wait_until(pilot, lambda: idle(app))
    return app


async def test_review_screens_show_hostile_data_literally(hostile: Hostile) -> None:
    app = review_app(hostile)
    async with app.run_test(size=(100, 40), notifications=True) as pilot:
        await on_review(pilot)
        shots = {"review": await snap(pilot)}
        await press_and_settle(pilot, "1", "1")  # the blind axes scored: the gold answer shows
        shots["gold"] = await snap(pilot)
        await press_and_settle(pilot, "right_square_bracket")  # a citation selected: its quote highlighted
        shots["citation"] = await snap(pilot)
        await press_and_settle(pilot, "1", "enter", "r")
        await wait_until(pilot, lambda: isinstance(app.screen, RevealDialog))
        shots["reveal"] = await snap(pilot)
        await pilot.press("escape", "question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        shots["help"] = await snap(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await press_and_settle(pilot, "u")  # the submitted item reopened
        shots["undo"] = await snap(pilot)
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NoteDialog))
        shots["note"] = await snap(pilot)
    assert [problem for name, svg in shots.items() for problem in problems(svg, name, quoted=name != "help")] == []
    text = {name: flat(screen_text_of(svg)) for name, svg in shots.items()}
    assert "[bold red]markup[/]" in text["review"] and ":warning:" in text["review"]  # as typed
    assert "Gold answer: M8. EVIL" in text["gold"]
    assert "Judge verdict and other reviewers on the item" in text["reveal"] and "evidence:" in text["reveal"]
    assert "reopened" in text["undo"] and "Note on this item" in text["note"]


async def test_review_screen_on_a_wide_terminal(hostile: Hostile) -> None:
    app = review_app(hostile, "ana")
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await on_review(pilot)
        await press_and_settle(pilot, "right_square_bracket")
        check(await snap(pilot), "wide review")


async def test_home_and_summary_show_hostile_data_literally(hostile: Hostile) -> None:
    app = review_app(hostile, "ben")  # every item of ben's queue is labelled: the end of the queue
    async with app.run_test(size=(100, 40), notifications=True) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        summary = await snap(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        home = await snap(pilot)
    check(summary, "summary", quoted=False)
    check(home, "home")  # the golden set's split names and tags


async def test_reviewer_prompt(hostile: Hostile) -> None:
    # The config refuses such names now; built directly, as a config from before that rule would be.
    review = hostile.config.review.model_copy(update={"reviewers": ("ana", HOSTILE)})
    app = review_app(Hostile(hostile.root, hostile.config.model_copy(update={"review": review}), hostile.db), None)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewerScreen))
        svg = await snap(pilot)
    check(svg, "reviewer prompt")
    assert "Configured reviewers: ana, EVIL" in flat(screen_text_of(svg))


async def test_command_palette_shows_a_remapped_key_literally(hostile: Hostile) -> None:
    # A palette entry is parsed as markup; the key in it comes from [review.keys].
    review = hostile.config.review.model_copy(update={"keys": {"help": HOSTILE}})
    app = review_app(Hostile(hostile.root, hostile.config.model_copy(update={"review": review}), hostile.db), None)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewerScreen))
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: "Help (EVIL" in flat(screen_text(app)))
        svg = await snap(pilot)
    check(svg, "command palette")
    assert "Help (EVIL\\x1b[2J" in flat(screen_text_of(svg)) and "[bold red]markup[/]" in flat(screen_text_of(svg))


# -- curation and oversight ----------------------------------------------------------------------------------


async def idle_host(pilot: AnyPilot) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: not getattr(app.screen, "busy", "") and all(w.is_finished for w in app.workers))
    for _ in range(3):
        await pilot.pause(0.05)


def host(hostile: Hostile, factory: Callable[[Any], Any]) -> App[Any]:
    return oversight_app(Workspace(hostile.root, hostile.config, hostile.db), factory, golden_paths=[hostile.golden])


def is_screen(kind: type[Any]) -> Callable[[AnyPilot], Awaitable[None]]:
    async def wait(pilot: AnyPilot) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, kind))
        await idle_host(pilot)

    return wait


@dataclass(frozen=True)
class Visit:
    factory: Callable[[Any], Any]
    keys: tuple[str, ...]
    lands_on: type
    shows: str = ""  # a phrase of ours the shot must hold: the state was really reached
    quoted: bool = True  # the screen quotes hostile data


OVERSIGHT: dict[str, Visit] = {
    "inbox": Visit(InboxScreen, (), InboxScreen, "Production-miss inbox"),
    "import dialog": Visit(InboxScreen, ("i",), ImportDialog, "Import production misses"),
    "imported": Visit(InboxScreen, ("i", "enter"), InboxScreen, "already in the inbox"),  # titled with the path
    "promote": Visit(lambda c: PromoteScreen(c, TRACE_ID), (), PromoteScreen, "Promote tr-hostile-01"),
    "promote refused": Visit(lambda c: PromoteScreen(c, TRACE_ID), ("ctrl+s",), PromoteScreen, "Not promoted"),
    "reject": Visit(lambda c: PromoteScreen(c, TRACE_ID), ("ctrl+r",), RejectDialog, "Reject", quoted=False),
    "adjudication": Visit(AdjudicationScreen, (), AdjudicationScreen, "open disagreement"),
    "consensus": Visit(AdjudicationScreen, ("enter",), ConsensusDialog, "Consensus on"),
    "dashboard": Visit(DashboardScreen, (), DashboardScreen, "Judge vs human"),
    "drilldown": Visit(DashboardScreen, ("tab", "enter"), DrilldownScreen, "consensus"),
    "browse": Visit(BrowseScreen, (), BrowseScreen, "Golden set"),
    "browse split": Visit(BrowseScreen, ("s",), BrowseScreen, "split: EVIL"),
    "case": Visit(BrowseScreen, ("enter",), CaseDetailScreen, "Sources (2)"),
    "runs": Visit(RunsScreen, (), RunsScreen, "Stored runs", quoted=False),
    "run": Visit(RunsScreen, ("enter",), RunTableScreen, "showing"),
    "run case": Visit(RunsScreen, ("enter", "enter"), RunCaseScreen, "Question"),
}


@pytest.mark.parametrize("name", OVERSIGHT)
async def test_oversight_screens_show_hostile_data_literally(name: str, hostile: Hostile) -> None:
    visit = OVERSIGHT[name]
    app = host(hostile, visit.factory)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await idle_host(pilot)
        await pilot.pause(0.3)
        for key in visit.keys:
            await pilot.press(key)
            await idle_host(pilot)
        await is_screen(visit.lands_on)(pilot)
        svg = await snap(pilot)
    check(svg, name, quoted=visit.quoted)
    assert visit.shows in flat(screen_text_of(svg))


def screen_text_of(svg: str) -> str:
    class Shot:
        def export_screenshot(self) -> str:
            return svg

    return screen_text(cast(Any, Shot()))
