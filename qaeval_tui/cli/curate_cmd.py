"""`qaeval curate`: open the curator app. Textual is imported only when this command runs."""

from __future__ import annotations

from pathlib import Path  # typer reads the annotations below, which name it, from this module

import typer

from qaeval_tui.cli.common import REVIEWER_ENV, config_from, guarded, store_path
from qaeval_tui.cli.options import Data, Db
from qaeval_tui.cli.review_cmd import name_given, open_app

__all__ = ["Path", "curate", "register"]


@guarded
def curate(
    ctx: typer.Context,
    name: str | None = typer.Option(
        None,
        "--as",
        "--reviewer",
        help=f"Your name, a curator of [review] roster (else ${REVIEWER_ENV}, else review.reviewer, else asked).",
    ),
    db: Db = None,
    data: Data = None,
) -> None:
    """Open the curator TUI: inbox, adjudication, calibration dashboard and golden browser.

    These screens show judge verdicts, every reviewer's labels, consensus and case ids, so only a
    curator of `[review] roster` (anyone, with no roster) opens them; labeling stays in `qaeval
    review`. On a fresh store it first prepares it as `review` does. Exit 0, 1 on invalid golden
    data found while preparing a fresh store, 2 on a usage error (a bad name, or one that is not a
    curator).
    """
    config = config_from(ctx)
    chosen, target = name_given(name, config.review.reviewer), store_path(ctx, db)
    from qaeval_tui.core.store.opening import is_postgres_url

    if is_postgres_url(target):  # a team store: its login acts as itself (core.store.pg_team)
        from qaeval_tui.core.store.pg_team import person_for_login

        chosen = person_for_login(str(target), chosen, "curator")
    open_app(config, "curator", chosen, target, data)


def register(app: typer.Typer) -> None:
    app.command()(curate)
