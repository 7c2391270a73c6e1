"""`qaeval store copy`: a whole store into an empty one, SQLite or PostgreSQL, checked table by table.

A copy that fails keeps nothing: a SQLite file it created is removed with its -wal/-shm and lock
files (only those this copy made).
"""

from __future__ import annotations

import glob
from contextlib import ExitStack
from pathlib import Path

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.copy import CopyReport, copy_store


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


def copy_between(source: str, target: str) -> CopyReport:
    """Copy `source` into the empty `target`: UsageError for a store that would vanish, the same store
    twice, a missing source or a target that is not empty; the copy's own checks otherwise."""
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
    return report
