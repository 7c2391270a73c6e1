"""A throwaway PostgreSQL cluster for the tests: started once per session, stopped and removed at the end.

pytest-postgresql's `PostgreSQLExecutor` does the work (initdb, `pg_ctl start` on a loopback port
with its Unix socket in a temporary folder, `pg_ctl stop`); its `postgresql_proc` fixture is not
used because it calls `pg_ctl` as the current user and the server refuses to run as root. So when
the tests run as root (as in CI containers), the executor is handed a two-line wrapper script in
place of `pg_ctl` that re-runs the real one as the `postgres` system user (`runuser`), and the
cluster's folder is made theirs. The binaries come from `pg_config --bindir`, else the newest
`/usr/lib/postgresql/*/bin` (Debian's layout), else `pg_ctl` on PATH.

Nothing is skipped: when no server can be started, every test using it errors with the reason
(no binaries, no non-root user, initdb or start failing with the server log's last lines).

Fixtures (imported into `tests/conftest.py`, so every test folder has them):
- `pg_server`: the session's `PgServer`: `dsn` (superuser, the `postgres` database), `url(name)`,
  `new_database()`, and `stop()` / `start()` for restart tests.
- `pg_url`: the URL of a fresh, migrated, empty store database of this test's own (a copy of a
  migrated template: `CREATE DATABASE ... TEMPLATE`, a few milliseconds).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

SUPERUSER = "postgres"
TEMPLATE = "qaeval_template"
_RUN_AS = "postgres"  # the system user the server runs as when the tests run as root


class PgServerError(RuntimeError):
    """The test server could not be started: the message says why."""


def pg_bindir() -> Path:
    """The folder of the PostgreSQL server binaries (initdb, pg_ctl, postgres)."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        with contextlib.suppress(OSError, subprocess.CalledProcessError):
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=True).stdout
            candidates.append(Path(out.strip()))
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True)
    candidates += [Path(p) for p in versions]
    on_path = shutil.which("pg_ctl")
    if on_path is not None:
        candidates.append(Path(on_path).resolve().parent)
    for folder in candidates:
        if all((folder / name).is_file() for name in ("pg_ctl", "initdb", "postgres")):
            return folder
    raise PgServerError(
        "no PostgreSQL server binaries found (pg_config --bindir, /usr/lib/postgresql/*/bin, pg_ctl on PATH); "
        "install the server (Debian: apt-get install postgresql)"
    )


def _free_port() -> int:
    import port_for

    return int(port_for.select_random())


class PgServer:
    """One running throwaway cluster, reachable on 127.0.0.1 with a superuser password."""

    def __init__(self) -> None:
        from pytest_postgresql.executors import PostgreSQLExecutor

        self.bindir = pg_bindir()
        self.root = Path(tempfile.mkdtemp(prefix="qaeval-pg-"))  # not under pytest's root-only tmp folder
        self.password = secrets.token_hex(12)
        self.host = "127.0.0.1"
        self.port = _free_port()
        self.socket_dir = self.root / "socket"
        self.socket_dir.mkdir()
        pg_ctl = self.bindir / "pg_ctl"
        if os.geteuid() == 0:
            pg_ctl = self._as_server_user(pg_ctl)
        self.executor = PostgreSQLExecutor(
            executable=str(pg_ctl),
            host=self.host,
            port=self.port,
            datadir=str(self.root / "data"),
            unixsocketdir=str(self.socket_dir),
            logfile=str(self.root / "server.log"),
            startparams="-w",
            dbname=TEMPLATE,
            user=SUPERUSER,  # initdb trusts everyone; `start()` then requires passwords on TCP
            postgres_options="-c fsync=off -c full_page_writes=off -c max_connections=200",
            timeout=60,
        )
        self._databases = 0
        self._started = False

    def _as_server_user(self, pg_ctl: Path) -> Path:
        """A wrapper running `pg_ctl` as the non-root server user, who is given the cluster's folder."""
        try:
            user = pwd.getpwnam(_RUN_AS)
        except KeyError:
            raise PgServerError(
                f"the tests run as root and the PostgreSQL server refuses root, but there is no {_RUN_AS!r} "
                "user to run it as (the Debian postgresql package creates it)"
            ) from None
        runuser = shutil.which("runuser")
        if runuser is None:
            raise PgServerError("the tests run as root and `runuser` (util-linux) is missing to start the server")
        os.chown(self.root, user.pw_uid, user.pw_gid)
        os.chown(self.socket_dir, user.pw_uid, user.pw_gid)
        wrapper = Path(tempfile.mkdtemp(prefix="qaeval-pgctl-")) / "pg_ctl"
        wrapper.write_text(
            f'#!/bin/sh\ncd "{self.root}" && exec "{runuser}" -u {_RUN_AS} -- "{pg_ctl}" "$@"\n', encoding="utf-8"
        )
        wrapper.chmod(stat.S_IRWXU)
        self._wrapper_dir = wrapper.parent
        return wrapper

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the server (the first time: initdb, then passwords required on TCP); back once it takes logins."""
        first = not self._started
        try:
            self.executor.start()
        except Exception as exc:  # any failure is reported with the server's own words
            raise PgServerError(f"the PostgreSQL test server did not start ({exc}){self._log_tail()}") from exc
        self._wait_until_ready(first)
        if first:
            self._require_passwords()
        self._started = True

    def _wait_until_ready(self, first: bool, timeout: float = 60) -> None:
        """mirakuru returns once the port accepts connections; the server may still be starting up then."""
        url = f"postgresql://{SUPERUSER}@{self.host}:{self.port}/postgres" if first else self.dsn
        deadline = time.monotonic() + timeout
        while True:
            try:
                psycopg.connect(url, connect_timeout=5).close()
                return
            except psycopg.OperationalError as exc:
                if time.monotonic() > deadline:
                    why = f"the PostgreSQL test server never accepted a login ({exc}){self._log_tail()}"
                    raise PgServerError(why) from exc
                time.sleep(0.05)

    def _require_passwords(self) -> None:
        """Logins over TCP need their password (as on a real server); the Unix socket stays trusted.

        Not initdb's `--pwfile`: the executor writes that file as root, where the server user cannot read it.
        """
        trusted = f"postgresql://{SUPERUSER}@{self.host}:{self.port}/postgres"
        with psycopg.connect(trusted, autocommit=True) as conn:
            conn.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(SUPERUSER), self.password))
            hba = Path(str(conn.execute("SHOW hba_file").fetchone()[0]))  # type: ignore[index]
            hba.write_text(
                "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\n",
                encoding="utf-8",
            )
            conn.execute("SELECT pg_reload_conf()")

    def stop(self) -> None:
        """Stop the server (fast shutdown), keeping its data: `start()` brings it back."""
        self.executor.stop()

    def remove(self) -> None:
        with contextlib.suppress(Exception):
            self.executor.stop()
        shutil.rmtree(self.root, ignore_errors=True)
        if hasattr(self, "_wrapper_dir"):
            shutil.rmtree(self._wrapper_dir, ignore_errors=True)

    def _log_tail(self) -> str:
        log = self.root / "server.log"
        if not log.exists():
            return ""
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
        return "; server log: " + " | ".join(lines)

    # -- connections and databases ------------------------------------------------------------

    def url(self, dbname: str = "postgres", user: str = SUPERUSER, password: str | None = None) -> str:
        secret = self.password if password is None and user == SUPERUSER else password
        who = user if secret is None else f"{user}:{secret}"
        return f"postgresql://{who}@{self.host}:{self.port}/{dbname}"

    @property
    def dsn(self) -> str:
        """The superuser's URL to the maintenance database."""
        return self.url()

    def admin(self) -> psycopg.Connection[tuple[object, ...]]:
        """A superuser connection in autocommit mode (CREATE/DROP DATABASE, roles)."""
        return psycopg.connect(self.dsn, autocommit=True)

    def make_template(self) -> None:
        """The migrated, empty store every test database is copied from."""
        with self.admin() as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(TEMPLATE)))
        migrate = _migrator()
        if migrate is not None:
            migrate(self.url(TEMPLATE))

    def new_database(self, *, template: str | None = TEMPLATE) -> str:
        """Create a database of its own (a copy of the migrated template, or empty) and return its URL."""
        self._databases += 1
        name = f"t{self._databases}_{secrets.token_hex(3)}"
        query = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template is not None:
            query = sql.SQL("{} TEMPLATE {}").format(query, sql.Identifier(template))
        with self.admin() as conn:
            conn.execute(query)
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        with self.admin() as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _migrator() -> Callable[[str], None] | None:
    """How the template gets the store schema: opening it as a store migrates it."""

    def migrate(url: str) -> None:
        from qaeval_tui.core.store.postgres.store import PgStore

        PgStore.open(url).close()

    return migrate


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    try:
        server = PgServer()
    except PgServerError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        server.start()
        server.make_template()
    except PgServerError as exc:
        server.remove()
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    url = pg_server.new_database()
    yield url
    with contextlib.suppress(psycopg.Error):
        pg_server.drop_database(url)
