"""A snapshot of every curation and oversight screen: the scenes `make screenshots` writes to screenshots/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DEMO_GOLDEN, REPO
from tests.tui.oversight_host import oversight_template
from tests.tui.scenes.oversight import SCENES, OversightScene, scene_app, settle
from tests.tui.scenes.review import AnyPilot

__all__ = ["oversight_template"]  # fixture


@pytest.mark.parametrize("scene", SCENES, ids=[scene.name for scene in SCENES])
def test_screen(
    scene: OversightScene,
    snap_compare: Any,
    oversight_template: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path / "scene"
    root.mkdir()
    monkeypatch.chdir(root)  # paths on screen are relative to the scene's folder
    app = scene_app(scene, root, oversight_template, DEMO_GOLDEN)

    async def run_before(pilot: AnyPilot) -> None:
        await settle(pilot, scene)

    assert snap_compare(app, terminal_size=scene.size, run_before=run_before)


def _picture(svg: str) -> str:
    """What the screen showed: the SVG without its random ids and its window title."""
    svg = re.sub(r"terminal-\d+-", "terminal-", svg)
    return re.sub(r'(<text class="terminal-title"[^>]*>)[^<]*(</text>)', r"\1\2", svg)


@pytest.mark.parametrize("scene", SCENES, ids=[scene.name for scene in SCENES])
def test_committed_screenshot_is_the_tested_picture(scene: OversightScene) -> None:
    """screenshots/oversight-*.svg (shown in the README) must be the tested pictures: rerun `make screenshots`."""
    committed = REPO / "screenshots" / f"oversight-{scene.name}.svg"
    snapshot = Path(__file__).parent / "__snapshots__" / "test_curation_snapshots" / f"test_screen[{scene.name}].svg"
    assert committed.is_file(), f"{committed} is missing"
    assert _picture(committed.read_text(encoding="utf-8")) == _picture(snapshot.read_text(encoding="utf-8"))
