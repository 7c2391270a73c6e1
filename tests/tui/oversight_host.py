"""Fixtures for the curation and oversight tests: a private workspace per test, and the app keeping notices.

Each test gets its own folder holding a copy of the repository's golden/ (inbox included) and a
copy of a store built once per session (`build_labeled_store`). The repository's files are never
written.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast
from weakref import WeakKeyDictionary

import pytest
from textual.app import App
from textual.notifications import SeverityLevel

from qaeval_tui.tui.app import ReviewApp
from tests.conftest import DEMO_GOLDEN, REPO
from tests.tui.scenes import host as oversight_host
from tests.tui.scenes.host import FIXED_NOW, Workspace, build_labeled_store, make_workspace

__all__ = ["FIXED_NOW", "Workspace", "host_text", "notices", "oversight_app", "oversight_template", "workspace"]

DEMO_LABELS = REPO / "labels"


@pytest.fixture(scope="session")
def oversight_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_labeled_store(tmp_path_factory.mktemp("oversight-store") / "demo.db", DEMO_GOLDEN, DEMO_LABELS)


@pytest.fixture
def workspace(oversight_template: Path, tmp_path: Path) -> Iterator[Workspace]:
    yield make_workspace(tmp_path / "work", oversight_template, DEMO_GOLDEN)


def host_text(app: App[Any]) -> str:
    """Every character on screen, line by line (the review tests' reader works on any app)."""
    from tests.tui.conftest import screen_text

    return screen_text(cast(Any, app))


_NOTICES: WeakKeyDictionary[App[Any], list[str]] = WeakKeyDictionary()


def notices(app: App[Any]) -> list[str]:
    """Every notification's title and text the app has shown, in order (toasts are not drawn under run_test)."""
    return _NOTICES[app]


def oversight_app(*args: Any, **kwargs: Any) -> ReviewApp:
    """The real app opened on one screen (`scenes.host.oversight_app`), keeping every notification."""
    app = oversight_host.oversight_app(*args, **kwargs)
    kept = _NOTICES[app] = []
    show = app.notify

    def notify(
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        kept.append(f"{title}: {message}" if title else message)
        show(message, title=title, severity=severity, timeout=timeout, markup=markup)

    app.notify = notify  # type: ignore[method-assign]  # the instance's own notify: the app stays the real one
    return app
