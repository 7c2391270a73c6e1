"""Opening a store by what `--db` names, its *location*: a SQLite file path, or a `postgresql://`
(or `postgres://`) URL.

The one function every command and both apps open their store with (`open_store`): nothing
outside `core.store` knows which backend it got, only the `StoreBackend` interface. A URL's
password is never shown: `store_name` masks it, and so does every message naming the store.
psycopg is imported only when a URL is opened (the review TUI's cold start stays SQLite's).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.urls import URL_SCHEMES, is_postgres_url, redacted

if TYPE_CHECKING:
    from qaeval_tui.core.store.backend import StoreBackend

__all__ = [
    "URL_SCHEMES",
    "StoreLocation",
    "is_postgres_url",
    "open_store",
    "redacted",
    "resolve_location",
    "store_exists",
    "store_name",
]

StoreLocation = str | Path
"""What names a store (`--db`): a SQLite path, or a PostgreSQL URL (kept as text: a Path would fold its `//`)."""


def store_name(location: StoreLocation) -> str:
    """How messages name the store: its path, or its URL (of any scheme: a mistyped one too) without the password."""
    return redacted(str(location)) if is_postgres_url(location) or "://" in str(location) else str(location)


def resolve_location(value: str | Path, base: Path) -> StoreLocation:
    """A configured store: a URL as it is, a relative path against `base`; a URL of another scheme is refused."""
    if is_postgres_url(value):
        return str(value)
    _refuse_other_urls(str(value))
    path = Path(value)
    return path if path.is_absolute() else base / path


def store_exists(location: StoreLocation) -> bool:
    """Whether there is a store there already: a SQLite file, or (assumed) the database a URL names."""
    return is_postgres_url(location) or Path(location).is_file()


def open_store(location: StoreLocation, *, one_thread: bool = False) -> StoreBackend:
    """Open (creating and migrating as needed) the store at `location`; close it with `close()` or `with`.

    A URL of another scheme, an unreachable server or a refused login is a UsageError naming the
    store (password masked); `one_thread` pins a SQLite connection to the opening thread.
    """
    if is_postgres_url(location):
        from qaeval_tui.core.store.postgres.store import PgStore

        return PgStore.open(str(location))
    _refuse_other_urls(str(location))
    from qaeval_tui.core.store.sqlite import Store

    return Store.open(location, one_thread=one_thread)


def _refuse_other_urls(text: str) -> None:
    if "://" in text:
        raise UsageError(f"{redacted(text)}: not a store: give a SQLite file path or a postgresql:// URL")
