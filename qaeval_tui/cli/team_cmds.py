"""`qaeval team init|add|list|remove|rename|reset-password`: the people of a team store on PostgreSQL, one login each.

Exit codes: 0 done · 2 usage (no PostgreSQL URL, cannot connect, a login that may not create roles
or does not own the store, a bad or taken name, an unknown role, a store with no team yet, no such
login to remove, rename or reset).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from qaeval_tui.cli.common import STORE_ENV, config_from, guarded, print_json, stderr, stdout, store_path
from qaeval_tui.cli.options import AsJson, Db
from qaeval_tui.core.errors import UsageError

if TYPE_CHECKING:
    from qaeval_tui.core.config import Config

team_app = typer.Typer(
    help="The team on a PostgreSQL store: secure it, add a login per person, list them.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _store_url(ctx: typer.Context, db: str | None) -> str:
    """The command's store (--db, else $QAEVAL_DB, else paths.store): it must be a PostgreSQL URL."""
    from qaeval_tui.core.store.opening import is_postgres_url, store_name

    config_from(ctx, team_rubric=False)  # the team commands work on logins, not under a rubric
    target = store_path(ctx, db)
    if not is_postgres_url(target):
        raise UsageError(
            f"{store_name(target)}: the team commands need a PostgreSQL store: "
            "pass --db postgresql://USER:PASSWORD@HOST/DB"
        )
    return str(target)


@guarded
def team_init(ctx: typer.Context, db: Db = None) -> None:
    """Create or upgrade the store's schema, the reviewer and curator roles and the row security. Exit 0, or 2."""
    from qaeval_tui.core.store.opening import redacted
    from qaeval_tui.core.store.pg_team import init_team, side_channels_open

    config = config_from(ctx, team_rubric=False)  # the owner's rubric is the one recorded
    url = _store_url(ctx, db)
    migrate_store(url)
    schema = init_team(url)
    record = _record_rubric(url, config)
    stdout.print(
        f"team store ready: {redacted(url)} (schema {schema}), rubric version {record} on record; "
        "add people with `qaeval team add NAME --role ROLE`"
    )
    if side_channels_open(url):
        stderr.print(
            "note: any login can still read per-table row counts from the catalogs and create large objects; "
            "run `qaeval team init` once as a superuser to close them",
            markup=False,
        )


def _record_rubric(url: str, config: Config) -> str:
    """Record the config's rubric as the store's, unless one is on record already (then it stays: a
    change is `qaeval rubric publish`, under a new version). Returns the version on record."""
    from qaeval_tui.core.review.team_rubric import publish
    from qaeval_tui.core.store.postgres.store import PgStore

    with PgStore.open(url) as store:
        latest = store.latest_rubric()
        if latest is not None:
            return latest.rubric_version
        return publish(store, config.rubric, "owner").record.rubric_version


def migrate_store(url: str) -> None:
    """Create or upgrade the store's tables: opening it as a store runs the missing migrations."""
    from qaeval_tui.core.store.postgres.store import PgStore

    PgStore.open(url).close()


@guarded
def team_add(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The person's name, as the roster spells it: their login and label name."),
    role: list[str] = typer.Option(
        ..., "--role", help="reviewer or curator; give --role twice for someone who does both."
    ),
    db: Db = None,
) -> None:
    """Create NAME's database login and print, once, the URL to hand them. Exit 0, or 2."""
    from qaeval_tui.core.store.pg_team import add_member

    config = config_from(ctx, team_rubric=False)
    url = _store_url(ctx, db)
    name = _roster_spelling(config, name)
    added = add_member(url, name, role)
    stdout.print(added.url)
    stderr.print(
        f"created {added.name} ({', '.join(added.roles)}): hand them the URL above ({_apps(added.roles)} or "
        f"${STORE_ENV}); it holds their password, which is shown only this once and kept nowhere"
    )


def _apps(roles: tuple[str, ...]) -> str:
    """The app(s) a login of `roles` opens with its URL: a curator's is `qaeval curate`."""
    if "reviewer" in roles and "curator" in roles:
        return "`qaeval review --db URL` to label, `qaeval curate --db URL` to curate"
    return "`qaeval curate --db URL`" if "curator" in roles else "`qaeval review --db URL`"


@guarded
def team_remove(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The person's login (any case)."),
    db: Db = None,
) -> None:
    """Drop NAME's login; the labels they wrote stay, under their name. Exit 0, or 2."""
    from qaeval_tui.core.store.pg_team import remove_member

    login = remove_member(_store_url(ctx, db), name)
    stdout.print(
        f"removed the login {login}: their labels stay under {login}; a queue they left is a curator's to hand on "
        "(`qaeval queue`)"
    )


@guarded
def team_rename(
    ctx: typer.Context,
    old: str = typer.Argument(..., help="The person's login now (any case)."),
    new: str = typer.Argument(..., help="Their new name, as the roster spells it: their login from now on."),
    db: Db = None,
) -> None:
    """Give OLD's login the name NEW; their password and what they wrote stay theirs. Exit 0, or 2."""
    from qaeval_tui.core.store.pg_rename import rename_member

    config = config_from(ctx, team_rubric=False)
    url = _store_url(ctx, db)
    new = _roster_spelling(config, new)
    renamed = rename_member(url, old, new)
    if renamed.url is not None:  # the server cleared a password salted with the old name
        stdout.print(renamed.url)
        stderr.print(
            f"renamed {renamed.old} to {renamed.new}: the server cleared their old password (stored as MD5, salted "
            f"with the name), so hand them the URL above, with a new one, shown only this once and kept nowhere"
        )
        return
    stdout.print(renamed.shown_url, markup=False)
    stderr.print(
        f"renamed {renamed.old} to {renamed.new} ({', '.join(renamed.roles)}): their password is unchanged; in the URL "
        f"they hold, the user name is now {renamed.new} (as above, with their password for ***); they reopen any app "
        f"they had open with it; what they wrote as {renamed.old} stays theirs",
        markup=False,
    )


def _roster_spelling(config: Config, name: str) -> str:
    """`name` as the roster spells it; UsageError when a roster is set and `name` is not on it."""
    from qaeval_tui.core.review.roster import member

    if not config.review.roster:
        return name
    found = member(config, name)
    if found is None:
        team = ", ".join(m.name for m in config.review.roster)
        raise UsageError(f"name {name!r}: not on the team; the roster: {team} (add them to [review] roster first)")
    return found.name


@guarded
def team_reset_password(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The person's login (any case)."),
    db: Db = None,
) -> None:
    """Give NAME's login a new password and print, once, the new URL to hand them. Exit 0, or 2."""
    from qaeval_tui.core.store.pg_team import reset_password

    renewed = reset_password(_store_url(ctx, db), name)
    stdout.print(renewed.url)
    stderr.print(
        f"new password for {renewed.name}: hand them the URL above ({_apps(renewed.roles)}); their old one no "
        "longer works, and this one is shown only this once and kept nowhere"
    )


@guarded
def team_list(ctx: typer.Context, as_json: AsJson = False, db: Db = None) -> None:
    """List the store's logins and their roles. Exit 0, or 2."""
    from qaeval_tui.core.store.pg_team import members

    found = members(_store_url(ctx, db))
    if as_json:
        print_json([{"name": m.name, "roles": list(m.roles), "can_login": m.can_login} for m in found])
        return
    if not found:
        stdout.print("no members yet: `qaeval team add NAME --role reviewer`")
        return
    from rich.table import Table  # rich: loaded by the command that prints, not by `qaeval --help`

    table = Table("name", "roles", "login", box=None, pad_edge=False)
    for person in found:
        table.add_row(person.name, ", ".join(person.roles), "yes" if person.can_login else "no")
    stdout.print(table)
    stdout.print(f"{len(found)} member(s)")


def register(app: typer.Typer) -> None:
    team_app.command("init")(team_init)
    team_app.command("add")(team_add)
    team_app.command("list")(team_list)
    team_app.command("remove")(team_remove)
    team_app.command("rename")(team_rename)
    team_app.command("reset-password")(team_reset_password)
    app.add_typer(team_app, name="team")
