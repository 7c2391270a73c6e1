"""Starting `qaeval review`: the reviewer prompt, a fresh store prepared in a worker, errors, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.cli.common import choose_reviewer
from qaeval_tui.core.config import Config, ReviewConfig
from qaeval_tui.core.errors import InputError, UsageError
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.prepare import PrepareReport
from qaeval_tui.tui.app import create_app
from qaeval_tui.tui.screens.reviewer import ReviewerScreen
from qaeval_tui.tui.services import Services
from tests.conftest import DEMO_GOLDEN, make_case, write_jsonl
from tests.tui.conftest import make_app, open_review, screen_text, settle
from tests.tui.scenes.review import wait_until


async def test_fresh_store_is_prepared_then_the_first_item_shows(tmp_path: Path) -> None:
    db = tmp_path / "fresh" / "qaeval.db"
    app = make_app(db, "ana")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        assert screen.item is not None and screen.item.position == 1 and screen.item.total == 26
    with Store.open(db) as store:
        assert len(store.list_runs()) == 1 and len(store.review_items()) == 39
        assert len(store.assignments("ana")) == 26


async def test_a_reviewer_with_items_opens_on_the_first_item_and_home_is_built_when_they_go_there(
    demo_db: Path,
) -> None:
    from qaeval_tui.tui.screens.home import HomeScreen

    app = make_app(demo_db, "ana")
    async with app.run_test(size=(100, 30)) as pilot:
        first = await open_review(pilot)
        assert first.item is not None and first.item.position == 1
        # nothing under the review screen but Textual's own: no home laid out only to be left
        assert [type(screen).__name__ for screen in app.screen_stack[1:]] == ["ReviewScreen"]
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        home = app.screen
        assert isinstance(home, HomeScreen)
        assert "Your progress · ana" in screen_text(app) and "0 of 26" in screen_text(app)
        await pilot.press("enter")
        again = await open_review(pilot)
        assert again.item is not None and again.item.item_id == first.item.item_id
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is home and isinstance(home, HomeScreen) and home.loaded)
        assert [type(screen).__name__ for screen in app.screen_stack[1:]] == ["HomeScreen"]


async def test_a_prepared_store_opens_on_its_first_item_with_no_preparing_screen_flashing_past(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qaeval_tui.tui import app as app_module
    from qaeval_tui.tui.screens.preparing import PreparingScreen

    # A prepared demo store takes tens of milliseconds; a second leaves room for a loaded test machine.
    monkeypatch.setattr(app_module, "PREPARING_AFTER", 1.0)
    app = make_app(demo_db, "ana")
    pushed: list[str] = []
    push = app.push_screen

    def recorded(screen: Any, *args: Any, **kwargs: Any) -> Any:
        pushed.append(type(screen).__name__)
        return push(screen, *args, **kwargs)

    app.push_screen = recorded  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await open_review(pilot)
        await pilot.pause(app_module.PREPARING_AFTER + 0.1)  # its timer was stopped, not only late
        assert pushed == ["ReviewScreen"] and PreparingScreen.__name__ not in pushed


class SlowServices(Services):
    """Preparing takes until the test lets it finish."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.go_on = threading.Event()

    def prepare(self, reviewer: str, step: Callable[[str], object], *, enrol: bool = True) -> PrepareReport:
        step("Running the system and the judge: 12 of 39 cases")
        assert self.go_on.wait(timeout=30)
        return super().prepare(reviewer, step, enrol=enrol)


async def test_a_slow_preparation_shows_its_steps_then_gives_way_to_the_first_item(demo_db: Path) -> None:
    from qaeval_tui.tui.screens.preparing import PreparingScreen

    services = SlowServices(Config(), demo_db, [DEMO_GOLDEN])
    app = create_app(Config(), db_path=demo_db, data_paths=[DEMO_GOLDEN], reviewer="ana", services=services)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PreparingScreen))
        await pilot.pause()
        assert "Preparing the review for ana" in screen_text(app) and "12 of 39 cases" in screen_text(app)
        services.go_on.set()
        review = await open_review(pilot)
        assert review.item is not None and review.item.position == 1
        assert [type(screen).__name__ for screen in app.screen_stack[1:]] == ["ReviewScreen"]


async def test_reviewer_is_asked_when_unknown_and_checked(demo_db: Path) -> None:
    app = make_app(demo_db, None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewerScreen))
        await pilot.press(*"no spaces", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ReviewerScreen)
        assert "use letters, digits" in screen_text(app)
        for _ in range(len("no spaces")):
            await pilot.press("backspace")
        await pilot.press(*"dana", "enter")
        screen = await open_review(pilot)
        assert app.context.reviewer == "dana" and screen.item is not None
        await settle(pilot, "1", "1", "1", "enter")
    with Store.open(demo_db) as store:
        assert len(store.labels(reviewer="dana")) == 1
        assert 0 < len(store.assignments("dana")) <= 26  # joined the existing queue with a share


async def test_invalid_golden_data_on_a_fresh_store_stops_with_the_error(tmp_path: Path) -> None:
    bad = write_jsonl(tmp_path / "golden" / "frozen.jsonl", [make_case("c1", gold_source_ids=["s9"])])
    app = make_app(tmp_path / "qaeval.db", "ana", data=bad)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.failure is not None or not app.is_running)
    assert isinstance(app.failure, InputError)
    assert "gold_source_ids[0]" in str(app.failure) and app.return_code == 1


def test_a_bad_key_remap_is_refused_before_the_app_starts(tmp_path: Path) -> None:
    for keys, message in (
        ({"sumbit": "k"}, "unknown command"),
        ({"skip": "x"}, "bound to both"),
        ({"flag": "3"}, "digit"),
    ):
        with pytest.raises(UsageError, match=message):
            create_app(Config(review=ReviewConfig(keys=keys)), db_path=tmp_path / "q.db", data_paths=[], reviewer="ana")


def test_reviewer_comes_from_option_then_environment_then_config(monkeypatch: pytest.MonkeyPatch) -> None:
    from qaeval_tui.core.config import Config, ReviewConfig

    configured, unset = Config(review=ReviewConfig(reviewer="cfg")), Config()
    monkeypatch.setenv("QAEVAL_REVIEWER", "env-name")
    assert choose_reviewer(configured, "opt") == "opt"
    assert choose_reviewer(configured, None) == "env-name"
    monkeypatch.delenv("QAEVAL_REVIEWER")
    assert choose_reviewer(configured, None) == "cfg"
    assert choose_reviewer(unset, None) is None
    with pytest.raises(UsageError, match="letters, digits"):
        choose_reviewer(unset, "two words")


def test_qaeval_help_does_not_import_textual() -> None:
    code = "import sys; from qaeval_tui.cli.main import app; print(any(m.startswith('textual') for m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=dict(os.environ)
    )
    assert result.stdout.strip() == "False"
    assert (
        "review"
        in subprocess.run(
            [sys.executable, "-m", "qaeval_tui.cli", "--help"], capture_output=True, text=True, check=True
        ).stdout
    )


def test_cli_refuses_a_bad_reviewer_name_or_key_remap_with_exit_2(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from qaeval_tui.cli.main import app

    runner = CliRunner()
    result = runner.invoke(app, ["review", "--reviewer", "two words", "--db", str(tmp_path / "q.db")])
    assert result.exit_code == 2 and "letters, digits" in result.output
    config = tmp_path / "qaeval.toml"
    config.write_text('[review.keys]\nsubmit = "x"\n', encoding="utf-8")
    result = runner.invoke(
        app, ["--config", str(config), "review", "--reviewer", "ana", "--db", str(tmp_path / "q.db")]
    )
    assert result.exit_code == 2 and "bound to both" in result.output
    assert not (tmp_path / "q.db").exists()  # refused before anything was opened


_FIRST_ITEM = """
import asyncio, json, sys
from pathlib import Path
from qaeval_tui.core.config import Config
from qaeval_tui.core.usecases.prepare import PrepareReport
from qaeval_tui.tui.app import create_app
from qaeval_tui.tui.services import Services

app = create_app(Config(), db_path=Path(sys.argv[1]), data_paths=[Path(sys.argv[2])], reviewer="ana")

async def first_item(pilot):
    while getattr(app.screen, "item", None) is None:
        await asyncio.sleep(0.01)
    await pilot.pause()
    from pydantic import BaseModel

    models, built = [BaseModel], []
    while models:
        for model in models.pop().__subclasses__():
            models.append(model)
            if model.__dict__.get("__pydantic_complete__"):
                built.append(model.__qualname__)
    print(json.dumps(sorted(built)))
    print(json.dumps(sorted(sys.modules)))
    app.exit()

app.run(headless=True, auto_pilot=first_item, size=(100, 32))
"""

OFF_THE_START = (
    "numpy",  # the statistics: agreement, calibration, the dashboard
    "krippendorff",
    "sqlite_utils",
    "markdown_it",  # the guidelines pane, built on the first `g`
    "importlib.metadata",  # pydantic's scan for plugins, made when it builds its first schema
    "qaeval_tui.core.statistics",
    "qaeval_tui.core.curation.adjudication",
    "qaeval_tui.core.curation.promotion",  # the curator's inbox, flags and promotion: their first call loads them
    "qaeval_tui.core.curation.inbox",
    "qaeval_tui.core.curation.flags",
    "qaeval_tui.core.runs",
)


def test_the_review_start_imports_nothing_the_first_item_does_not_need(demo_db: Path) -> None:
    """Issue 26's cold start: what the reviewer waits for before the first item is what it shows."""
    result = subprocess.run(
        [sys.executable, "-c", _FIRST_ITEM, str(demo_db), str(DEMO_GOLDEN)],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ),
        timeout=120,
    )
    *_, built, modules = result.stdout.strip().splitlines()
    loaded = json.loads(modules)
    assert "qaeval_tui.tui.screens.review" in loaded  # the check ran where the first item shows
    # The default config is read without validating it (config/sections.py: Section), so no pydantic
    # model has built its schema and validator: the first label submitted builds Label's.
    assert json.loads(built) == []
    assert [name for name in loaded if any(name == off or name.startswith(off + ".") for off in OFF_THE_START)] == []
