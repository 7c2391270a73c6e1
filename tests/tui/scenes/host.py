"""The real app opened on one curation or oversight screen, on a private workspace: scenes and tests.

A workspace is a folder holding a copy of a golden folder (its inbox included) and a copy of a
store built once: the demo run, the queues of ana, ben and chloe, and their committed synthetic
labels. The originals are never written. Decisions are stamped with a fixed time, so a screen that
shows one looks the same on every run.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.screen import Screen

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.labels_io import import_labels
from qaeval_tui.core.review.views import Role
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.app import ReviewApp, create_app
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.services import Services
from tests.tui.scenes.review import FixedClock, build_demo_store

FIXED_NOW = "2026-10-20T10:00:00.000Z"
LABELED_BY = ("ana", "ben", "chloe")

ScreenFactory = Callable[[AppContext], Screen[Any]]


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


def build_labeled_store(path: Path, golden: Path, labels: Path, *, leave_out: tuple[tuple[str, str], ...] = ()) -> Path:
    """The demo store with the labels of LABELED_BY (`labels/<name>.jsonl`) imported; no inbox.

    `leave_out` names (reviewer, case id) labels never imported: an item another reviewer labelled
    alone, as when a second blind label has not arrived yet.
    """
    config = Config()
    build_demo_store(path, golden, config, reviewers=LABELED_BY)
    files = [labels / f"{name}.jsonl" for name in LABELED_BY]
    if leave_out:
        kept = path.parent / f"{path.stem}-labels"
        kept.mkdir()
        for file in files:
            lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
            keep = [line for line in lines if (file.stem, json.loads(line)["case_id"]) not in leave_out]
            (kept / file.name).write_text("".join(keep), encoding="utf-8")
        files = [kept / file.name for file in files]
    with Store.open(path) as store:
        import_labels(store, files, config.rubric)
    return path


def make_workspace(root: Path, template: Path, golden: Path) -> Workspace:
    """Copy `golden` to root/golden and the `template` store to root/.qaeval/qaeval.db."""
    shutil.copytree(golden, root / "golden")
    db = root / ".qaeval" / "qaeval.db"
    db.parent.mkdir(parents=True)
    shutil.copyfile(template, db)
    return Workspace(root, Config(base_dir=str(root)), db)


def oversight_app(
    workspace: Workspace,
    factory: ScreenFactory | None,
    *,
    curator: str = "dana",
    golden_paths: Sequence[Path] | None = None,
    role: Role = "curator",
) -> ReviewApp:
    """The app `qaeval curate` runs (`role`), opened on `factory`'s screen with `curator` as the reviewer.

    Built by the CLI's factory (`create_app`): the same stylesheet, keys, help and palette. Only
    the decision time is fixed (`Services(now=...)`), so a screen that shows one looks the same on
    every run.
    """
    golden = list(golden_paths if golden_paths is not None else [workspace.golden])
    services = Services(workspace.config, workspace.db, golden, now=lambda: FIXED_NOW)
    return create_app(
        workspace.config,
        db_path=workspace.db,
        data_paths=golden,
        reviewer=curator,
        clock=FixedClock(),
        deterministic=True,
        services=services,
        start=factory,
        role=role,
    )
