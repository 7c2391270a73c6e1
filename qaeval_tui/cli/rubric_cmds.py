"""`qaeval rubric publish`: record the config's rubric as the store's, the one everyone on it works under.

Exit codes: 0 published (or already on record) · 2 usage (no store, a changed rubric under the
version on record, a login that may not publish: a reviewer's on a team store).
"""

from __future__ import annotations

import typer

from qaeval_tui.cli.common import config_from, guarded, open_store, stdout
from qaeval_tui.cli.options import Curator, Db

rubric_app = typer.Typer(
    help="The rubric a store records: every app and command on a team store labels and judges under it.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@guarded
def rubric_publish(
    ctx: typer.Context,
    curator: Curator = "",
    db: Db = None,
) -> None:
    """Record the config's rubric (axes, scales, anchors, guidelines) as the store's. Exit 0, or 2."""
    from qaeval_tui.core.review.team_rubric import publish

    config = config_from(ctx, team_rubric=False)  # the local rubric is the one to publish
    by = curator or "curator"  # on a team store the database records the login instead
    with open_store(ctx, db, must_exist=True) as store:  # a reviewer's login: the database refuses it
        done = publish(store, config.rubric, by)
    record = done.record
    verb = "published" if done.added else "already on record:"
    stdout.print(
        f"{verb} rubric version {record.rubric_version} ({len(config.rubric.axes)} axes), "
        f"by {record.published_by} at {record.published_at}"
    )


def register(app: typer.Typer) -> None:
    rubric_app.command("publish")(rubric_publish)
    app.add_typer(rubric_app, name="rubric")
