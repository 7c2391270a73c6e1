"""A host for one curation or oversight screen on a private workspace: the scenes' and the tests' app.

A workspace is a folder holding a copy of a golden folder (its inbox included) and a copy of a
store built once: the demo run, the queues of ana, ben and chloe, and their committed synthetic
labels. The originals are never written. Decisions are stamped with a fixed time, so a screen that
shows one looks the same on every run.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.screen import Screen

import qaeval_tui.tui
from qaeval_tui.core.config import Config
from qaeval_tui.core.review.labels_io import import_labels
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.context import OversightContext
from qaeval_tui.tui.services import Services
from qaeval_tui.tui.workers import QaevalApp
from tests.tui.scenes.review import build_demo_store

APP_CSS = Path(qaeval_tui.tui.__file__).with_name("app.tcss")
"""The review app's stylesheet (`ReviewApp.CSS_PATH`): one stylesheet for every screen."""

FIXED_NOW = "2026-10-20T10:00:00.000Z"
LABELED_BY = ("ana", "ben", "chloe")

ScreenFactory = Callable[[OversightContext], Screen[Any]]


@dataclass(frozen=True)
class Workspace:
    root: Path
    config: Config
    db: Path

    @property
    def golden(self) -> Path:
        return self.root / "golden"

    @property
    def living(self) -> Path:
        return self.golden / "living.jsonl"

    @property
    def inbox_file(self) -> Path:
        return self.golden / "inbox" / "misses.jsonl"

    def store(self) -> Store:
        return Store.open(self.db)


def build_labeled_store(path: Path, golden: Path, labels: Path) -> Path:
    """The demo store with the labels of LABELED_BY (`labels/<name>.jsonl`) imported; no inbox."""
    config = Config()
    build_demo_store(path, golden, config, reviewers=LABELED_BY)
    with Store.open(path) as store:
        import_labels(store, [labels / f"{name}.jsonl" for name in LABELED_BY], config.rubric)
    return path


def make_workspace(root: Path, template: Path, golden: Path) -> Workspace:
    """Copy `golden` to root/golden and the `template` store to root/.qaeval/qaeval.db."""
    shutil.copytree(golden, root / "golden")
    db = root / ".qaeval" / "qaeval.db"
    db.parent.mkdir(parents=True)
    shutil.copyfile(template, db)
    return Workspace(root, Config(base_dir=str(root)), db)


class OversightHost(QaevalApp[None]):
    """Pushes one screen built on an OversightContext; styled by the review app's stylesheet."""

    CSS_PATH = str(APP_CSS)  # absolute: the stylesheet lives in the package, this host in the tests

    def __init__(
        self,
        workspace: Workspace,
        factory: ScreenFactory,
        *,
        curator: str = "dana",
        golden_paths: Sequence[Path] | None = None,
    ) -> None:
        super().__init__()
        self.animation_level = "none"
        golden = golden_paths if golden_paths is not None else [workspace.golden]
        services = Services(workspace.config, workspace.db, golden, now=lambda: FIXED_NOW)
        self.context = OversightContext(services, curator=curator, deterministic=True)
        self.factory = factory

    def on_mount(self) -> None:
        self.push_screen(self.factory(self.context))

    def on_unmount(self) -> None:
        self.context.services.close()
