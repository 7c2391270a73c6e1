"""Fixtures for the curation and oversight tests: a private workspace per test, and a host that keeps notices.

Each test gets its own folder holding a copy of the repository's golden/ (inbox included) and a
copy of a store built once per session (`build_labeled_store`). The repository's files are never
written.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from textual.app import App
from textual.notifications import SeverityLevel

from tests.conftest import DEMO_GOLDEN, REPO
from tests.tui.scenes import host as oversight_host
from tests.tui.scenes.host import FIXED_NOW, Workspace, build_labeled_store, make_workspace

__all__ = ["FIXED_NOW", "OversightHost", "Workspace", "host_text", "oversight_template", "workspace"]

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


class OversightHost(oversight_host.OversightHost):
    """The scenes' host, keeping every notification (toasts are not drawn under run_test)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.notices: list[str] = []
        """Every notification's title and text, in order."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        self.notices.append(f"{title}: {message}" if title else message)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)
