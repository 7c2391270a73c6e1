"""The SQLite store (sqlite-utils). Every SQL statement of the project lives in this module.

WAL mode and a busy timeout let two reviewers label one database at once; each write is one
transaction, committed before the caller moves on. Runs, verdicts, labels, adjudications and
inbox decisions are append-only: triggers refuse UPDATE and DELETE, so a changed mind is a
new revision and history is never erased.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from qaeval_tui.core.errors import UsageError

BUSY_TIMEOUT_MS = 10_000
APPEND_ONLY = ("runs", "run_outputs", "judge_verdicts", "labels", "adjudications", "inbox_decisions")

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the whole first schema.
    (
        """CREATE TABLE cases (
            case_hash TEXT PRIMARY KEY, case_id TEXT NOT NULL, split TEXT NOT NULL, case_json TEXT NOT NULL)""",
        "CREATE INDEX cases_by_id ON cases(case_id)",
        """CREATE TABLE runs (
            run_id TEXT PRIMARY KEY, suite_hash TEXT NOT NULL, adapter TEXT NOT NULL, judge_name TEXT,
            judge_config_hash TEXT, code_version TEXT NOT NULL, started_at TEXT NOT NULL,
            finished_at TEXT NOT NULL, n_cases INTEGER NOT NULL, data_json TEXT NOT NULL,
            metrics_json TEXT NOT NULL)""",
        """CREATE TABLE run_outputs (
            run_id TEXT NOT NULL REFERENCES runs(run_id), position INTEGER NOT NULL, case_id TEXT NOT NULL,
            case_hash TEXT NOT NULL, output_hash TEXT NOT NULL, output_json TEXT NOT NULL,
            result_json TEXT NOT NULL, PRIMARY KEY (run_id, case_id))""",
        """CREATE TABLE judge_verdicts (
            id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT, item_id TEXT NOT NULL, case_id TEXT NOT NULL,
            judge_name TEXT NOT NULL, config_hash TEXT NOT NULL, status TEXT NOT NULL,
            verdict_json TEXT NOT NULL, created_at TEXT NOT NULL)""",
        "CREATE INDEX verdicts_by_item ON judge_verdicts(item_id, config_hash)",
        """CREATE TABLE review_items (
            item_id TEXT PRIMARY KEY, case_id TEXT NOT NULL, case_hash TEXT NOT NULL,
            output_hash TEXT NOT NULL, run_id TEXT NOT NULL, created_at TEXT NOT NULL)""",
        """CREATE TABLE assignments (
            reviewer TEXT NOT NULL, item_id TEXT NOT NULL REFERENCES review_items(item_id),
            position INTEGER NOT NULL, seed INTEGER NOT NULL, created_at TEXT NOT NULL,
            PRIMARY KEY (reviewer, item_id))""",
        "CREATE INDEX assignments_in_order ON assignments(reviewer, position)",
        """CREATE TABLE labels (
            id INTEGER PRIMARY KEY AUTOINCREMENT, item_id TEXT NOT NULL, case_id TEXT NOT NULL,
            reviewer TEXT NOT NULL, revision INTEGER NOT NULL, scores_json TEXT NOT NULL,
            note TEXT NOT NULL, flagged INTEGER NOT NULL, skipped INTEGER NOT NULL,
            rubric_version TEXT NOT NULL, revealed INTEGER NOT NULL, created_at TEXT NOT NULL,
            seconds_spent REAL NOT NULL, origin TEXT NOT NULL, UNIQUE (item_id, reviewer, revision))""",
        "CREATE INDEX labels_by_reviewer ON labels(reviewer, item_id)",
        """CREATE TABLE reveals (
            item_id TEXT NOT NULL, reviewer TEXT NOT NULL, revealed_at TEXT NOT NULL,
            PRIMARY KEY (item_id, reviewer))""",
        """CREATE TABLE adjudications (
            id INTEGER PRIMARY KEY AUTOINCREMENT, item_id TEXT NOT NULL, axis TEXT NOT NULL, score INTEGER,
            reason TEXT NOT NULL, adjudicator TEXT NOT NULL, created_at TEXT NOT NULL)""",
        """CREATE TABLE inbox (
            trace_id TEXT PRIMARY KEY, miss_json TEXT NOT NULL, source TEXT NOT NULL, imported_at TEXT NOT NULL)""",
        """CREATE TABLE inbox_decisions (
            id INTEGER PRIMARY KEY AUTOINCREMENT, trace_id TEXT NOT NULL REFERENCES inbox(trace_id),
            decision TEXT NOT NULL, case_id TEXT, reason TEXT NOT NULL, curator TEXT NOT NULL,
            decided_at TEXT NOT NULL)""",
        *(
            f"""CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table}
                BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END"""
            for table in APPEND_ONLY
            for verb in ("UPDATE", "DELETE")
        ),
    ),
)
SCHEMA_VERSION = len(_MIGRATIONS)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Store:
    """One open database. Use `Store.open(path)`; close with `close()` or a `with` block."""

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self.conn = connection
        self.db = sqlite_utils.Database(connection)
        self.path = path

    @classmethod
    def open(cls, path: str | Path) -> Store:
        """Open (creating and migrating as needed) the store at `path`; ':memory:' works too."""
        text = str(path)
        if text != ":memory:":
            Path(text).parent.mkdir(parents=True, exist_ok=True)
        try:
            # Autocommit mode: transactions are explicit (BEGIN IMMEDIATE) in `transaction()`.
            connection = sqlite3.connect(text, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
        except sqlite3.DatabaseError as exc:
            raise UsageError(f"{text}: not a usable SQLite database ({exc})") from exc
        store = cls(connection, text)
        store.migrate()
        return store

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front so concurrent writers queue instead of deadlocking."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- schema -------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def journal_mode(self) -> str:
        return str(self.conn.execute("PRAGMA journal_mode").fetchone()[0])

    def migrate(self) -> None:
        current = self.schema_version
        if current > SCHEMA_VERSION:
            raise UsageError(
                f"{self.path}: store schema version {current} is newer than this qaeval ({SCHEMA_VERSION}); upgrade qaeval"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            with self.transaction() as conn:
                for statement in _MIGRATIONS[version - 1]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version}")

    def table_names(self) -> list[str]:
        return self.db.table_names()

    def count(self, table: str) -> int:
        if table not in self.db.table_names():
            raise KeyError(table)
        return int(self.conn.execute(f"SELECT count(*) FROM [{table}]").fetchone()[0])

    # -- cases --------------------------------------------------------------------------------

    def upsert_cases(self, rows: Iterable[tuple[str, str, str, dict[str, Any]]]) -> int:
        """Store (case_hash, case_id, split, case_json) rows; content-addressed, so re-adding is a no-op."""
        with self.transaction() as conn:
            before = conn.total_changes
            conn.executemany(
                "INSERT OR IGNORE INTO cases (case_hash, case_id, split, case_json) VALUES (?, ?, ?, ?)",
                ((h, cid, split, json.dumps(data, ensure_ascii=False)) for h, cid, split, data in rows),
            )
            return conn.total_changes - before

    def case_json(self, case_hash: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT case_json FROM cases WHERE case_hash = ?", (case_hash,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def case_rows(self) -> list[tuple[str, str, str, dict[str, Any]]]:
        rows = self.conn.execute("SELECT case_hash, case_id, split, case_json FROM cases ORDER BY case_id")
        return [(h, cid, split, json.loads(data)) for h, cid, split, data in rows]

    # -- runs and judge verdicts -------------------------------------------------------------

    def insert_run(self, run: dict[str, Any], outputs: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> None:
        """Store one whole run (its record, per-case outputs and judge verdicts) in one transaction.

        `run` keys: run_id, suite_hash, adapter, judge_name, judge_config_hash, code_version,
        started_at, finished_at, n_cases, data (JSON-able), metrics (JSON-able).
        `outputs` keys: position, case_id, case_hash, output_hash, output (JSON-able), result (JSON-able).
        `verdicts` keys: item_id, case_id, judge_name, config_hash, status, verdict (JSON-able), created_at.
        """
        with self.transaction() as conn:
            conn.execute(
                """INSERT INTO runs (run_id, suite_hash, adapter, judge_name, judge_config_hash, code_version,
                   started_at, finished_at, n_cases, data_json, metrics_json) VALUES (?,?,?,?,?,?,?,?,?,?,?)""",
                (
                    run["run_id"], run["suite_hash"], run["adapter"], run.get("judge_name"), run.get("judge_config_hash"),
                    run["code_version"], run["started_at"], run["finished_at"], run["n_cases"],
                    json.dumps(run.get("data", {}), ensure_ascii=False), json.dumps(run.get("metrics", {}), ensure_ascii=False),
                ),
            )
            conn.executemany(
                """INSERT INTO run_outputs (run_id, position, case_id, case_hash, output_hash, output_json, result_json)
                   VALUES (?,?,?,?,?,?,?)""",
                (
                    (run["run_id"], o["position"], o["case_id"], o["case_hash"], o["output_hash"],
                     json.dumps(o["output"], ensure_ascii=False), json.dumps(o.get("result", {}), ensure_ascii=False))
                    for o in outputs
                ),
            )
            conn.executemany(
                """INSERT INTO judge_verdicts (run_id, item_id, case_id, judge_name, config_hash, status, verdict_json, created_at)
                   VALUES (?,?,?,?,?,?,?,?)""",
                (
                    (run["run_id"], v["item_id"], v["case_id"], v["judge_name"], v["config_hash"], v["status"],
                     json.dumps(v["verdict"], ensure_ascii=False), v["created_at"])
                    for v in verdicts
                ),
            )

    _RUN_COLUMNS = (
        "run_id, suite_hash, adapter, judge_name, judge_config_hash, code_version, started_at, finished_at, "
        "n_cases, data_json, metrics_json"
    )

    @staticmethod
    def _run_row(row: tuple[Any, ...]) -> dict[str, Any]:
        keys = ("run_id", "suite_hash", "adapter", "judge_name", "judge_config_hash", "code_version",
                "started_at", "finished_at", "n_cases")
        record = dict(zip(keys, row[:9], strict=True))
        record["data"] = json.loads(row[9])
        record["metrics"] = json.loads(row[10])
        return record

    def list_runs(self) -> list[dict[str, Any]]:
        """Every run, newest first."""
        rows = self.conn.execute(f"SELECT {self._RUN_COLUMNS} FROM runs ORDER BY started_at DESC, rowid DESC")
        return [self._run_row(row) for row in rows]

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(f"SELECT {self._RUN_COLUMNS} FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return None if row is None else self._run_row(row)

    def latest_run(self) -> dict[str, Any] | None:
        runs = self.conn.execute(f"SELECT {self._RUN_COLUMNS} FROM runs ORDER BY started_at DESC, rowid DESC LIMIT 1")
        row = runs.fetchone()
        return None if row is None else self._run_row(row)

    def run_outputs(self, run_id: str) -> list[dict[str, Any]]:
        """Per-case outputs of a run, in suite order."""
        rows = self.conn.execute(
            """SELECT position, case_id, case_hash, output_hash, output_json, result_json FROM run_outputs
               WHERE run_id = ? ORDER BY position""",
            (run_id,),
        )
        return [
            {"position": p, "case_id": cid, "case_hash": ch, "output_hash": oh, "output": json.loads(o), "result": json.loads(r)}
            for p, cid, ch, oh, o, r in rows
        ]

    def verdicts(self, *, run_id: str | None = None, config_hash: str | None = None) -> list[dict[str, Any]]:
        """Stored judge verdicts (as exported per §8.3), optionally for one run or one judge config."""
        clauses, params = [], []
        if run_id is not None:
            clauses.append("run_id = ?")
            params.append(run_id)
        if config_hash is not None:
            clauses.append("config_hash = ?")
            params.append(config_hash)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.conn.execute(f"SELECT verdict_json FROM judge_verdicts {where} ORDER BY id", params)
        return [json.loads(row[0]) for row in rows]
