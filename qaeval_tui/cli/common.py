"""Shared CLI plumbing: config lookup, consoles, and turning user errors into exit codes."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import typer

from qaeval_tui.core.errors import InputError, QaevalError, UsageError
from qaeval_tui.core.text import json_visible

if TYPE_CHECKING:
    from qaeval_tui.cli.literal_console import LiteralConsole
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.store.backend import StoreBackend
    from qaeval_tui.core.store.opening import StoreLocation

P = ParamSpec("P")
R = TypeVar("R")


class _Deferred:
    """A `LiteralConsole` built on first use: `qaeval --help` never loads rich (its consoles print nothing)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: LiteralConsole | None = None

    def _built(self) -> LiteralConsole:
        if self._console is None:
            from qaeval_tui.cli.literal_console import LiteralConsole

            self._console = LiteralConsole(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self._built(), name)

    def __enter__(self) -> Any:
        return self._built().__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._built().__exit__(*exc)


# Data prints as written: no markup, no emoji codes, control and bidi characters escaped. A
# diagnostic is one line however long, terminal or CI log: a grep for it must not meet a break.
stdout: LiteralConsole = _Deferred(soft_wrap=False)  # type: ignore[assignment]  # a LiteralConsole on first use
stderr: LiteralConsole = _Deferred(stderr=True, soft_wrap=True)  # type: ignore[assignment]


def config_from(ctx: typer.Context, *, team_rubric: bool = True) -> Config:
    """The configuration chosen by the global `--config` option (loaded once per invocation).

    On a team store (the command's store is a PostgreSQL URL) with a rubric on record, the config's
    rubric is the store's: everyone labels and judges under one rubric, and a local one that differs
    is named on stderr, once. `team_rubric=False` (publishing, the team commands) keeps the local one.
    """
    root = ctx.find_root()
    if root.obj is None:
        root.obj = {}
    if "config" not in root.obj:
        from qaeval_tui.core.config import load_config  # the config models: off `qaeval --help`'s path

        root.obj["config"] = load_config(root.params.get("config"))
    if "team_rubric" not in root.obj:
        root.obj["team_rubric"] = True
        if team_rubric:
            root.obj["config"] = _with_team_rubric(ctx, root.obj["config"])
    config: Config = root.obj["config"]
    return config


def _with_team_rubric(ctx: typer.Context, config: Config) -> Config:
    from qaeval_tui.core.store.opening import is_postgres_url, redacted, resolve_location

    db = ctx.params.get("db")
    chosen = db if isinstance(db, str) and db else os.environ.get(STORE_ENV)
    try:
        target = resolve_location(chosen or config.paths.store, Path.cwd() if chosen else Path(config.base_dir))
    except UsageError:  # not a store URL: the command says so if it opens the store
        return config
    if not is_postgres_url(target):
        return config
    from qaeval_tui.core.review.team_rubric import on_record
    from qaeval_tui.core.store.pg_team import published_rubric

    try:
        record = published_rubric(str(target))
    except UsageError:  # unreachable: the command itself says so when it opens the store
        return config
    config, warning = on_record(record, config, redacted(str(target)))
    if warning is not None:
        stderr.print(f"warning: {warning}", soft_wrap=True)
    return config


REVIEWER_ENV = "QAEVAL_REVIEWER"


def choose_reviewer(config: Config, option: str | None) -> str | None:
    """--reviewer, else $QAEVAL_REVIEWER, else review.reviewer, in the roster's spelling; None: asked on screen.

    A name the team does not have is a UsageError showing the roster (core.review.roster). The name
    chosen is remembered as this machine's last reviewer, the picker's default next time.
    """
    from qaeval_tui.core.review.roster import choose_reviewer as on_the_team
    from qaeval_tui.core.review.roster import remember_reviewer

    name = option or os.environ.get(REVIEWER_ENV) or config.review.reviewer
    if name is None:
        return None
    chosen = on_the_team(config, name)
    remember_reviewer(chosen)
    return chosen


STORE_ENV = "QAEVAL_DB"


def store_path(ctx: typer.Context, db: str | None) -> StoreLocation:
    """The store a command uses: `--db`, else $QAEVAL_DB, else `paths.store` from the config.

    Each is a SQLite file path or a `postgresql://` URL; a relative `paths.store` is against the
    config file's folder, a relative `--db` or $QAEVAL_DB against the working folder."""
    from qaeval_tui.core.store.opening import resolve_location

    config = config_from(ctx)
    chosen = db or os.environ.get(STORE_ENV)
    if chosen:
        return resolve_location(chosen, Path.cwd())
    return resolve_location(config.paths.store, Path(config.base_dir))


def open_store(ctx: typer.Context, db: str | None, *, must_exist: bool = False) -> StoreBackend:
    """Open the command's store (see `store_path`), creating it unless `must_exist`.

    The one way a command opens the store: a store that cannot be opened, reached or written is a
    UsageError naming it (a URL's password masked), and one that must exist and does not is refused
    before anything is created.
    """
    from qaeval_tui.core.store.opening import open_store as open_target
    from qaeval_tui.core.store.opening import store_exists

    target = store_path(ctx, db)
    if must_exist and not store_exists(target):
        if db is not None:
            raise UsageError(f"{target}: no such store")
        raise UsageError(f"{target}: no store here yet; run `qaeval run` first or pass --db")
    return open_target(target)


@contextmanager
def optional_store(
    ctx: typer.Context, db: str | None, *, whole_view_for: str | None = None
) -> Iterator[StoreBackend | None]:
    """The store when there is one, else None (a command that can read files instead); a `--db` that
    names no store is refused. Closed after the block. `whole_view_for` (a command computing figures
    over the store) refuses a team store's reviewer login, which sees only part of it."""
    from qaeval_tui.core.store.opening import is_postgres_url, store_exists

    target = store_path(ctx, db)
    if db is None and not store_exists(target):
        yield None
        return
    if whole_view_for is not None and is_postgres_url(target):
        from qaeval_tui.core.store.pg_team import require_whole_view

        require_whole_view(str(target), whole_view_for)
    with open_store(ctx, db, must_exist=True) as store:
        yield store


def guarded(func: Callable[P, R], *, invalid_input_exit: int | None = None) -> Callable[P, R]:
    """Run a command; a user mistake becomes a clear message on stderr and its exit code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except InputError as exc:
            for problem in exc.problems:
                stderr.print(str(problem))
            stderr.print(f"error: {len(exc.problems)} problem(s) in {exc.what}; nothing was changed")
            raise typer.Exit(invalid_input_exit or exc.exit_code) from exc
        except QaevalError as exc:
            stderr.print(f"error: {exc}")
            raise typer.Exit(exc.exit_code) from exc

    return wrapper


def guarded_input_as_usage(func: Callable[P, R]) -> Callable[P, R]:
    """`guarded` for a command whose documented exit codes have none for invalid input files, which
    then exit 2 like any usage error (`cases`, `queue`, `agreement`; `calibrate`, whose 1 means RETUNE)."""
    return guarded(func, invalid_input_exit=2)


def print_json(data: Any) -> None:
    """Machine-readable output to stdout, nothing else on that stream; strict JSON (no NaN, no Infinity).

    Control, bidi and invisible characters in strings are `\\u` escapes (core.text.json_visible).
    """
    from qaeval_tui.core.atomic_file import strict_json

    document = strict_json(data, "stdout", indent=2, ensure_ascii=False, sort_keys=False)
    sys.stdout.write(json_visible(document) + "\n")
