"""A secured team store for the RLS and team tests: migrated, `team init` applied, logins made on demand.

Logins are server-wide (PostgreSQL roles live in the cluster, not in a database), so each test's
names get a suffix of their own and are dropped when the test ends.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field

import psycopg
from psycopg import sql

from qaeval_tui.core.store.pg_team import add_member, init_team
from tests.pg.server import PgServer


def migrate(url: str) -> None:
    """The store's tables, by the PostgreSQL backend's migrations."""
    from qaeval_tui.cli.team_cmds import migrate_store

    migrate_store(url)


@dataclass
class TeamStore:
    """A secured store (`owner_url`: the superuser who ran `team init`) and the logins made for it."""

    owner_url: str
    suffix: str = field(default_factory=lambda: secrets.token_hex(3))
    made: list[str] = field(default_factory=list)

    def name(self, base: str) -> str:
        return f"{base}_{self.suffix}"

    def login(self, base: str, *roles: str) -> str:
        """A new login named `base` (plus this test's suffix) in `roles`; its connection URL."""
        member = add_member(self.owner_url, self.name(base), roles or ("reviewer",))
        self.made.append(member.name)
        return member.url

    def owner(self) -> psycopg.Connection[tuple[object, ...]]:
        return psycopg.connect(self.owner_url, autocommit=True)


def secured_store(pg_server: PgServer, pg_url: str) -> Iterator[TeamStore]:
    """The body of each test module's `team_store` fixture: `pg_url` migrated and secured, its logins
    dropped afterwards."""
    migrate(pg_url)
    init_team(pg_url)
    store = TeamStore(pg_url)
    yield store
    with pg_server.admin() as conn:
        for name in store.made:
            with contextlib.suppress(psycopg.Error):
                conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))


LABEL_COLUMNS = (
    "item_id, case_id, reviewer, revision, scores_json, note, flagged, skipped, rubric_version, revealed, "
    "created_at, seconds_spent, origin"
)


def label_row(item_id: str, reviewer: str, *, skipped: int = 0, revision: int = 1) -> tuple[object, ...]:
    case_id = {"i1": "c1", "i2": "c2", "i3": "c3"}[item_id]
    scores = "{}" if skipped else '{"faithfulness": 2}'
    return (item_id, case_id, reviewer, revision, scores, "", 0, skipped, "1", 0, "2026-12-01T10:00:00Z", 3.0, "review")


def insert_label(conn: psycopg.Connection[tuple[object, ...]], row: tuple[object, ...]) -> str:
    """Insert one label row as the connection's login; the reviewer name stored."""
    cursor = conn.execute(
        f"INSERT INTO labels ({LABEL_COLUMNS}) VALUES ({', '.join(['%s'] * 13)}) RETURNING reviewer", row
    )
    return str(cursor.fetchone()[0])  # type: ignore[index]


def seed(store: TeamStore, ana: str, ben: str) -> None:
    """Three items of one run, each with a judge verdict: i1 and i2 in both queues, i3 in ben's only;
    ben has labeled i1; a curator adjudicated i1; the inbox holds one decided miss."""
    with store.owner() as conn:
        for n in (1, 2, 3):
            conn.execute(
                "INSERT INTO cases VALUES (%s, %s, 'frozen', %s)", (f"h{n}", f"c{n}", f'{{"id": "c{n}", "gold": "x"}}')
            )
        conn.execute(
            """INSERT INTO runs (run_id, suite_hash, adapter, judge_name, judge_config_hash, code_version,
               started_at, finished_at, n_cases, data_json, metrics_json)
               VALUES ('r1', 's', 'secret-system-b', 'j', 'cfg', 'v', 't', 't', 3, '{}', '{}')"""
        )
        for n in (1, 2, 3):
            conn.execute(
                "INSERT INTO run_outputs VALUES ('r1', %s, %s, %s, %s, %s, %s)",
                (n, f"c{n}", f"h{n}", f"o{n}", '{"answer": "ten years"}', '{"checks": "hidden"}'),
            )
            conn.execute(
                """INSERT INTO judge_verdicts (run_id, item_id, case_id, judge_name, config_hash, status,
                   verdict_json, created_at) VALUES ('r1', %s, %s, 'j', 'cfg', 'ok', '{"scores": {}}', 't')""",
                (f"i{n}", f"c{n}"),
            )
            conn.execute(
                "INSERT INTO review_items VALUES (%s, %s, %s, %s, 'r1', 't')", (f"i{n}", f"c{n}", f"h{n}", f"o{n}")
            )
        for reviewer, items in ((ana, ("i1", "i2")), (ben, ("i1", "i2", "i3"))):
            for position, item in enumerate(items, 1):
                conn.execute("INSERT INTO assignments VALUES (%s, %s, %s, 7, 't')", (reviewer, item, position))
        insert_label(conn, label_row("i1", ben))
        conn.execute(
            """INSERT INTO adjudications (item_id, axis, score, reason, adjudicator, created_at)
               VALUES ('i1', 'faithfulness', 2, 'r', 'cara', 't')"""
        )
        conn.execute("INSERT INTO inbox (trace_id, miss_json, source, imported_at) VALUES ('t1', '{}', 'f', 't')")
        conn.execute(
            """INSERT INTO inbox_decisions (trace_id, decision, case_id, reason, curator, decided_at)
               VALUES ('t1', 'rejected', NULL, 'dup', 'cara', 't')"""
        )


_SCENARIO_SERVER: list[PgServer] = []


def scenario_database(*, secured: bool = False) -> str:
    """The owner's URL of a fresh database for tests/exit_scenarios.py, whose scenarios get no fixtures:
    on a server of their own, started on first use and removed when the test process ends."""
    import atexit

    if not _SCENARIO_SERVER:
        server = PgServer()
        atexit.register(server.remove)
        server.start()
        server.make_template()
        _SCENARIO_SERVER.append(server)
    url = _SCENARIO_SERVER[0].new_database()
    if secured:
        migrate(url)
        init_team(url)
    return url


def qaeval(*args: str) -> tuple[int, str, str]:
    """The CLI in process: exit code, stdout, stderr (an exception other than an exit fails the test)."""
    from typer.testing import CliRunner

    from qaeval_tui.cli.main import app

    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.stdout, result.stderr
