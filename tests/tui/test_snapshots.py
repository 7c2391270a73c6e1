"""A snapshot of every screen state: the same scenes `make screenshots` writes to screenshots/."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.core.config import Config
from tests.conftest import DEMO_GOLDEN, REPO
from tests.tui.scenes.review import SCENES, AnyPilot, Scene, scene_app


def _settled(scene: Scene) -> Callable[[AnyPilot], Any]:
    async def run_before(pilot: AnyPilot) -> None:
        await scene.steps(pilot)
        await pilot.pause()
        pilot.app.clear_notifications()  # toasts time out; the picture must not depend on timing
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("scene", SCENES, ids=[scene.name for scene in SCENES])
def test_screen(scene: Scene, snap_compare: Any, demo_template: Path, tmp_path: Path) -> None:
    app = scene_app(scene, demo_template, tmp_path, DEMO_GOLDEN, Config())
    assert snap_compare(app, terminal_size=scene.size, run_before=_settled(scene))


def _picture(svg: str) -> str:
    """The SVG without its random id and window title: what the screen showed."""
    svg = re.sub(r"terminal-\d+-", "terminal-", svg)
    return re.sub(r'(<text class="terminal-title"[^>]*>)[^<]*(</text>)', r"\1\2", svg)


@pytest.mark.parametrize("scene", SCENES, ids=[scene.name for scene in SCENES])
def test_committed_screenshot_is_current(scene: Scene) -> None:
    """screenshots/ (shown in the README) must be the tested pictures: rerun `make screenshots` if not."""
    committed = REPO / "screenshots" / f"{scene.name}.svg"
    snapshot = Path(__file__).parent / "__snapshots__" / "test_snapshots" / f"test_screen[{scene.name}].svg"
    assert committed.is_file(), f"{committed} is missing: run make screenshots"
    assert _picture(committed.read_text(encoding="utf-8")) == _picture(snapshot.read_text(encoding="utf-8"))
