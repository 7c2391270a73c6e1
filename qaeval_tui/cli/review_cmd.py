"""`qaeval review`: open the blind-labeling TUI. Textual is imported only when this command runs."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from qaeval_tui.cli.common import REVIEWER_ENV, choose_reviewer, config_from, guarded, store_path
from qaeval_tui.cli.options import Data, Db
from qaeval_tui.core.errors import UsageError

if TYPE_CHECKING:
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.review.views import Role
    from qaeval_tui.core.store.opening import StoreLocation


def name_given(option: str | None, configured: str | None) -> str | None:
    """The curator app's name: --as, else $QAEVAL_REVIEWER, else review.reviewer, else None (asked on
    screen). Only its form is checked here; whether the roster makes it a curator, by the app's seat."""
    from qaeval_tui.core.usecases.prepare import reviewer_name_problem

    name = option or os.environ.get(REVIEWER_ENV) or configured
    if name is None:
        return None
    problem = reviewer_name_problem(name)
    if problem:
        raise UsageError(f"reviewer {name!r}: {problem}")
    return name


@guarded
def review(
    ctx: typer.Context,
    reviewer: str | None = typer.Option(
        None, "--reviewer", help=f"Your reviewer name (else ${REVIEWER_ENV}, else review.reviewer, else asked)."
    ),
    db: Db = None,
    data: Data = None,
) -> None:
    """Open the review TUI: blind-label system answers per axis, from the keyboard.

    On a fresh store it first runs the configured system and judge over the data and builds the
    queue; after that it resumes where you left off. Exit 0, 1 on invalid golden data found while
    preparing a fresh store, 2 on a usage error.
    """
    gc.disable()  # until the app runs (open_app); on any earlier refusal, collection resumes here
    try:
        config = config_from(ctx)
        name, target = choose_reviewer(config, reviewer), store_path(ctx, db)
        from qaeval_tui.core.store.opening import is_postgres_url

        if is_postgres_url(target):  # a team store: its login labels as itself (core.store.pg_team)
            from qaeval_tui.core.store.pg_team import reviewer_for_login

            name = reviewer_for_login(str(target), name)
        open_app(config, "reviewer", name, target, data)
    finally:
        gc.enable()


def open_app(config: Config, role: Role, name: str | None, db_path: StoreLocation, data: list[Path] | None) -> None:
    """Run the reviewer or the curator app until it quits; raise what stopped it (the CLI's exit code)."""
    from qaeval_tui.tui.app import create_app

    app = create_app(
        config,
        db_path=db_path,
        data_paths=data or [config.path(config.paths.golden)],
        reviewer=name,
        role=role,
    )
    # Starting allocates tens of thousands of objects that live as long as the app (modules, config
    # and Textual's classes and styles); collecting while they are made only scans them again and
    # again. Once built they are frozen out of the collector's scans and collection resumes.
    gc.freeze()
    gc.enable()
    try:
        app.run()
    finally:
        # The app closes its store thread when it unmounts (after any save in flight); this second
        # close does nothing then, and closes it if the app ended before it ever mounted.
        app.context.services.close()
    if app.failure is not None:
        raise app.failure
    from qaeval_tui.cli.common import stderr

    parting = app.context.services.parting
    if role == "reviewer" and parting is not None:
        stderr.print(parting.parting_line(app.context.reviewer), soft_wrap=True)
    elif role == "curator" and app.context.reviewer:
        stderr.print(app.context.services.curated.parting_line(app.context.reviewer), soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(review)
