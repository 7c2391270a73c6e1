"""A snapshot of every screen state: the one registry of scenes (`scenes.registry.SHOTS`), which
`make screenshots` also draws into screenshots/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.core.config import Config
from tests.conftest import DEMO_GOLDEN, REPO
from tests.tui.oversight_host import DEMO_LABELS, oversight_template
from tests.tui.scenes.registry import SHOTS, Shot, Templates, app_for, settle
from tests.tui.scenes.review import AnyPilot

__all__ = ["oversight_template"]  # fixture


@pytest.mark.parametrize("shot", SHOTS, ids=[shot.file for shot in SHOTS])
def test_screen(
    shot: Shot,
    snap_compare: Any,
    demo_template: Path,
    oversight_template: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    templates = Templates(demo_template, oversight_template, DEMO_GOLDEN, DEMO_LABELS, Config())
    app, folder = app_for(shot, templates, tmp_path)
    if folder is not None:
        monkeypatch.chdir(folder)  # paths on screen are relative to the scene's folder

    async def run_before(pilot: AnyPilot) -> None:
        await settle(shot, pilot)

    assert snap_compare(app, terminal_size=shot.size, run_before=run_before)


def _picture(svg: str) -> str:
    """What the screen showed: the SVG without its random ids and its window title."""
    svg = re.sub(r"terminal-\d+-", "terminal-", svg)
    return re.sub(r'(<text class="terminal-title"[^>]*>)[^<]*(</text>)', r"\1\2", svg)


@pytest.mark.parametrize("shot", SHOTS, ids=[shot.file for shot in SHOTS])
def test_committed_screenshot_is_the_tested_picture(shot: Shot) -> None:
    """screenshots/ (shown in the README) must be the tested pictures: rerun `make screenshots` if not."""
    committed = REPO / "screenshots" / f"{shot.file}.svg"
    snapshot = Path(__file__).parent / "__snapshots__" / "test_snapshots" / f"test_screen[{shot.file}].svg"
    assert committed.is_file(), f"{committed} is missing: run make screenshots"
    assert snapshot.is_file(), f"{snapshot} is missing"
    assert _picture(committed.read_text(encoding="utf-8")) == _picture(snapshot.read_text(encoding="utf-8"))
