"""TUI test fixtures: the demo store (built once, copied per test) and the app from the CLI's factory."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.views import Role
from qaeval_tui.tui.app import ReviewApp, create_app
from qaeval_tui.tui.screens.review import ReviewScreen
from tests.conftest import DEMO_GOLDEN
from tests.tui.scenes.review import AnyPilot, FixedClock, build_demo_store, idle, wait_until

_TEXT = re.compile(r'<text[^>]*\bx="([\d.]+)" y="([\d.]+)" textLength="([\d.]+)"[^>]*>([^<]*)</text>')


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo-store") / "demo.db"
    build_demo_store(path, DEMO_GOLDEN, Config())
    return path


@pytest.fixture
def demo_db(demo_template: Path, tmp_path: Path) -> Path:
    """A private copy of the demo store: run stored, queues built for ana, ben and chloe."""
    path = tmp_path / "qaeval.db"
    shutil.copyfile(demo_template, path)
    return path


def make_app(
    db: Path,
    reviewer: str | None = "ana",
    *,
    config: Config | None = None,
    clock: FixedClock | None = None,
    data: Path = DEMO_GOLDEN,
    role: Role = "reviewer",
) -> ReviewApp:
    return create_app(
        config or Config(),
        db_path=db,
        data_paths=[data],
        reviewer=reviewer,
        clock=clock or FixedClock(),
        deterministic=True,
        role=role,
    )


def screen_text(app: ReviewApp) -> str:
    """Every character on screen, line by line, read back from the exported SVG.

    The SVG leaves out runs of plain spaces, so text is placed by its x position, not joined.
    """
    cells: dict[float, dict[int, str]] = {}
    width = 0.0
    for x, y, length, raw in _TEXT.findall(app.export_screenshot()):
        text = html.unescape(raw).replace("\xa0", " ")
        width = width or float(length) / max(len(text), 1)
        row = cells.setdefault(float(y), {})
        for offset, char in enumerate(text):
            row[round(float(x) / width) + offset] = char
    lines = []
    for _, row in sorted(cells.items()):
        lines.append("".join(row.get(column, " ") for column in range(max(row) + 1)).rstrip())
    return "\n".join(lines)


def flat(text: str) -> str:
    """`text` with every run of whitespace (line ends included) as one space: wrapping-proof."""
    return " ".join(text.split())


def sources_pane(app: ReviewApp) -> str:
    """The screen text between the two horizontal rules of the narrow review layout."""
    lines = screen_text(app).splitlines()
    rules = [index for index, line in enumerate(lines) if line.strip().startswith("────")]
    return "\n".join(lines[rules[0] + 1 : rules[1]])


async def open_review(pilot: AnyPilot) -> ReviewScreen:
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await wait_until(pilot, lambda: idle(app))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


async def settle(pilot: AnyPilot, *keys: str) -> None:
    """Press keys and wait until every save or load they started has come back."""
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await pilot.press(*keys)
    await wait_until(
        pilot,
        lambda: (
            not getattr(app.screen, "busy", "")
            and not getattr(app.screen, "pending", [])
            and all(worker.is_finished for worker in app.workers)
        ),
    )
    await pilot.pause()
