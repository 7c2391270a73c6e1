"""`qaeval store copy --from SRC --to DST`: move a whole store between SQLite files and PostgreSQL.

Exit codes: 0 copied and checked · 1 the target did not read back what the source holds (rolled
back) · 2 usage (a missing source, the same store twice, a target that is not empty).
"""

from __future__ import annotations

import glob
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from qaeval_tui.cli.common import guarded, print_json, stdout
from qaeval_tui.cli.options import AsJson
from qaeval_tui.core.errors import UsageError

if TYPE_CHECKING:
    from qaeval_tui.core.store.backend import StoreBackend

store_app = typer.Typer(
    help="The store as a whole: copy it between SQLite and PostgreSQL.", no_args_is_help=True, rich_markup_mode=None
)


def same_store(source: str, target: str) -> bool:
    from qaeval_tui.core.store.opening import is_postgres_url

    if is_postgres_url(source) or is_postgres_url(target):
        return source == target
    return Path(source).resolve() == Path(target).resolve()


def new_sqlite_file(target: str) -> Path | None:
    """The SQLite file a copy to `target` would create, or None (a URL, or a file there already)."""
    from qaeval_tui.core.store.opening import is_postgres_url

    if is_postgres_url(target) or Path(target).exists():
        return None
    return Path(target)


def is_discarded(target: str) -> bool:
    """A name SQLite opens as a store that vanishes when closed: empty, blank, `:memory:`, a `file:` URI."""
    name = target.strip()
    return not name or name.lower() == ":memory:" or name.lower().startswith("file:")


def open_any_store(target: str, *, must_exist: bool = False) -> StoreBackend:
    """A SQLite file or a PostgreSQL URL; a source that must exist and does not is refused, nothing created."""
    from qaeval_tui.core.store.opening import open_store, store_exists, store_name

    if must_exist and not store_exists(target):
        raise UsageError(f"{store_name(target)}: no such store")
    return open_store(target)


@guarded
def store_copy(
    source: str = typer.Option(
        ..., "--from", metavar="SRC", help="The store to copy: a SQLite file or a postgresql:// URL."
    ),
    target: str = typer.Option(
        ..., "--to", metavar="DST", help="An empty store to copy into (a new SQLite file is created)."
    ),
    as_json: AsJson = False,
) -> None:
    """Copy every table, ids and history included, into an empty store; check counts and hashes.

    Exit 0 copied and equal, 1 a table differs (nothing kept), 2 usage (missing source, target not empty)."""
    from qaeval_tui.core.store.copy import copy_store

    for option, value in (("--from", source), ("--to", target)):
        if is_discarded(value):
            raise UsageError(
                f"{option} {value!r}: not a store that outlives the copy (SQLite keeps an empty name or "
                "':memory:' in memory and discards it); name a file or a postgresql:// URL"
            )
    if same_store(source, target):
        from qaeval_tui.core.store.opening import store_name

        raise UsageError(f"{store_name(target)}: the source and the target are the same store")
    created = new_sqlite_file(target)
    beside = set() if created is None else set(created.parent.glob(f"{glob.escape(created.name)}*"))
    try:
        with ExitStack() as stack:
            source_store = open_any_store(source, must_exist=True)
            stack.callback(source_store.close)
            target_store = open_any_store(target)
            stack.callback(target_store.close)
            report = copy_store(source_store, target_store)
    except BaseException:
        if created is not None:  # nothing was kept: no empty store left behind that looks like a copy
            for leftover in created.parent.glob(f"{glob.escape(created.name)}*"):
                if leftover not in beside:  # the store, its -wal/-shm and lock files: only what this copy made
                    leftover.unlink(missing_ok=True)
        raise
    if as_json:
        print_json(
            {
                "source": report.source,
                "target": report.target,
                "tables": [
                    {"table": check.table, "rows": check.target_rows, "sha256": check.target_hash}
                    for check in report.tables
                ],
                "equal": True,
            }
        )
        return
    from rich.table import Table  # rich: loaded by the command that prints, not by `qaeval --help`

    table = Table("table", "rows", "sha256", box=None, pad_edge=False)
    for check in report.tables:
        table.add_row(check.table, str(check.target_rows), check.target_hash[:16])
    stdout.print(table)
    stdout.print(
        f"copied {report.rows} row(s) in {len(report.tables)} tables from {report.source} to {report.target}: "
        "row counts and content hashes equal in every table"
    )


def register(app: typer.Typer) -> None:
    store_app.command("copy")(store_copy)
    app.add_typer(store_app, name="store")
