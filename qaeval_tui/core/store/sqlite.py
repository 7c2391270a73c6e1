"""The SQLite store (sqlite-utils). Every SQL statement of the project lives in this module.

WAL mode and a busy timeout let two reviewers label one database at once; each write is one
transaction, committed before the caller moves on. Runs, verdicts, labels, adjudications and
inbox decisions are append-only: triggers refuse UPDATE and DELETE, so a changed mind is a
new revision and history is never erased.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from qaeval_tui.core.errors import QaevalError, UsageError
from qaeval_tui.core.limits import MAX_REVISION, MAX_SEED

if TYPE_CHECKING:
    import sqlite_utils

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
    # 2: a review session reads one reviewer's revisions in id order from the index alone. IF NOT
    # EXISTS: two processes opening an old store at once may both decide to upgrade it.
    (
        """CREATE INDEX IF NOT EXISTS labels_by_reviewer_in_order
           ON labels(reviewer, id, item_id, skipped, flagged, seconds_spent)""",
    ),
)
SCHEMA_VERSION = len(_MIGRATIONS)


def _store_error(path: str, exc: OSError | sqlite3.Error) -> UsageError | None:
    """The one-line error for a store that cannot be opened or written, or None for any other failure."""
    if isinstance(exc, OSError):
        from qaeval_tui.core.atomic_file import why_not_written

        return UsageError(f"{path}: cannot open the store: {why_not_written(Path(path), exc)}")
    reason = {
        sqlite3.SQLITE_READONLY: "the store is read-only (the file, its folder or its disk); qaeval writes it "
        "and the -wal and -shm files beside it",
        sqlite3.SQLITE_CANTOPEN: "cannot open the store (is it a folder, or in a folder qaeval may not write?)",
        sqlite3.SQLITE_PERM: "no permission to write the store",
        sqlite3.SQLITE_FULL: "the disk is full: the store could not be written",
        sqlite3.SQLITE_IOERR: f"the store could not be written to disk ({exc})",
    }.get(getattr(exc, "sqlite_errorcode", 0) & 0xFF)  # the primary code of an extended one
    return None if reason is None else UsageError(f"{path}: {reason}; nothing was changed")


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Store:
    """One open database. Use `Store.open(path)`; close with `close()` or a `with` block."""

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self.conn = connection
        self.path = path

    @cached_property
    def db(self) -> sqlite_utils.Database:
        """sqlite-utils over the same connection, imported on first use: importing it slows the TUI's cold start."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    @classmethod
    def open(cls, path: str | Path) -> Store:
        """Open (creating and migrating as needed) the store at `path`; ':memory:' works too."""
        text = str(path)
        connection = None
        try:
            if text != ":memory:":
                Path(text).parent.mkdir(parents=True, exist_ok=True)
            # Autocommit mode: transactions are explicit (BEGIN IMMEDIATE) in `transaction()`.
            connection = sqlite3.connect(
                text, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
            )
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
            store = cls(connection, text)
            store.migrate()
        except (OSError, sqlite3.Error) as exc:
            if connection is not None:
                connection.close()
            raise _store_error(text, exc) or UsageError(f"{text}: not a usable SQLite database ({exc})") from exc
        return store

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front so concurrent writers queue instead of deadlocking.

        A store that cannot be written (read-only, disk full or failing) is a UsageError naming it.
        """
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException:
                if self.conn.in_transaction:  # SQLite may have rolled back already
                    self.conn.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            error = _store_error(self.path, exc)
            if error is None:
                raise
            raise error from exc

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
                f"{self.path}: store schema version {current} is newer than this qaeval "
                f"({SCHEMA_VERSION}); upgrade qaeval"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            with self.transaction() as conn:
                for statement in _MIGRATIONS[version - 1]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version}")

    def table_names(self) -> list[str]:
        return [name for (name,) in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]

    def count(self, table: str) -> int:
        if table not in self.table_names():
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

    # -- production-miss inbox ----------------------------------------------------------------

    _DECISION_KEYS = ("decision", "case_id", "reason", "curator", "decided_at")

    @staticmethod
    def _stored_misses(conn: sqlite3.Connection, trace_ids: Iterable[str]) -> dict[str, tuple[str, str, str]]:
        ids = list(dict.fromkeys(trace_ids))
        found: dict[str, tuple[str, str, str]] = {}
        for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT trace_id, miss_json, source, imported_at FROM inbox WHERE trace_id IN ({marks})", chunk
            )
            found.update((trace_id, (miss, source, at)) for trace_id, miss, source, at in rows)
        return found

    def inbox_payloads(self, trace_ids: Iterable[str]) -> dict[str, tuple[str, str, str]]:
        """(miss_json, source, imported_at) of each given trace id already in the inbox."""
        return self._stored_misses(self.conn, trace_ids)

    def add_inbox_misses(self, rows: Sequence[tuple[str, str, str]]) -> tuple[list[str], list[str]]:
        """Add (trace_id, miss_json, source) rows in one transaction; returns (added, conflicting) trace ids.

        A trace id already stored with the same miss_json is left as it is, so re-importing a file
        changes nothing. When any trace id is stored with a different miss_json, nothing at all is
        added and those trace ids come back as conflicts.
        """
        with self.transaction() as conn:
            stored = self._stored_misses(conn, (row[0] for row in rows))
            conflicts = [trace_id for trace_id, miss, _ in rows if trace_id in stored and stored[trace_id][0] != miss]
            if conflicts:
                return [], conflicts
            now = utc_now()
            new = [(trace_id, miss, source, now) for trace_id, miss, source in rows if trace_id not in stored]
            conn.executemany("INSERT INTO inbox (trace_id, miss_json, source, imported_at) VALUES (?, ?, ?, ?)", new)
        return [row[0] for row in new], []

    def inbox_entries(self, trace_id: str | None = None) -> list[dict[str, Any]]:
        """Inbox rows in import order, each with its decision (None while pending).

        Keys: trace_id, miss (parsed JSON), source, imported_at, decision (dict of decision, case_id,
        reason, curator, decided_at, or None). The first decision on an entry is the one that counts.
        """
        where = "WHERE i.trace_id = ?" if trace_id is not None else ""
        rows = self.conn.execute(
            f"""SELECT i.trace_id, i.miss_json, i.source, i.imported_at,
                       d.decision, d.case_id, d.reason, d.curator, d.decided_at
                FROM inbox i
                LEFT JOIN inbox_decisions d
                  ON d.id = (SELECT min(id) FROM inbox_decisions WHERE trace_id = i.trace_id)
                {where} ORDER BY i.rowid""",
            () if trace_id is None else (trace_id,),
        )
        return [
            {
                "trace_id": tid,
                "miss": json.loads(miss),
                "source": source,
                "imported_at": at,
                "decision": None if rest[0] is None else dict(zip(self._DECISION_KEYS, rest, strict=True)),
            }
            for tid, miss, source, at, *rest in rows
        ]

    def record_inbox_decision(
        self,
        trace_id: str,
        decision: str,
        *,
        case_id: str | None,
        reason: str,
        curator: str,
        decided_at: str,
        effect: Callable[[], None] | None = None,
    ) -> dict[str, Any] | None:
        """Record the one decision ('promoted' or 'rejected') on an inbox entry, in one transaction.

        When the entry is already decided, writes nothing and returns that earlier decision.
        `effect` runs inside the transaction, after the row is written and before the commit: a file
        write that belongs with the decision (appending the promoted case) happens under the same
        write lock, and if it raises, the decision is rolled back.
        """
        with self.transaction() as conn:
            earlier = conn.execute(
                f"SELECT {', '.join(self._DECISION_KEYS)} FROM inbox_decisions WHERE trace_id = ? ORDER BY id LIMIT 1",
                (trace_id,),
            ).fetchone()
            if earlier is not None:
                return dict(zip(self._DECISION_KEYS, earlier, strict=True))
            conn.execute(
                """INSERT INTO inbox_decisions (trace_id, decision, case_id, reason, curator, decided_at)
                   VALUES (?, ?, ?, ?, ?, ?)""",
                (trace_id, decision, case_id, reason, curator, decided_at),
            )
            if effect is not None:
                effect()
        return None

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
                    run["run_id"],
                    run["suite_hash"],
                    run["adapter"],
                    run.get("judge_name"),
                    run.get("judge_config_hash"),
                    run["code_version"],
                    run["started_at"],
                    run["finished_at"],
                    run["n_cases"],
                    json.dumps(run.get("data", {}), ensure_ascii=False),
                    json.dumps(run.get("metrics", {}), ensure_ascii=False),
                ),
            )
            conn.executemany(
                """INSERT INTO run_outputs (run_id, position, case_id, case_hash, output_hash, output_json, result_json)
                   VALUES (?,?,?,?,?,?,?)""",
                (
                    (
                        run["run_id"],
                        o["position"],
                        o["case_id"],
                        o["case_hash"],
                        o["output_hash"],
                        json.dumps(o["output"], ensure_ascii=False),
                        json.dumps(o.get("result", {}), ensure_ascii=False),
                    )
                    for o in outputs
                ),
            )
            conn.executemany(
                """INSERT INTO judge_verdicts (run_id, item_id, case_id, judge_name, config_hash, status,
                   verdict_json, created_at) VALUES (?,?,?,?,?,?,?,?)""",
                (
                    (
                        run["run_id"],
                        v["item_id"],
                        v["case_id"],
                        v["judge_name"],
                        v["config_hash"],
                        v["status"],
                        json.dumps(v["verdict"], ensure_ascii=False),
                        v["created_at"],
                    )
                    for v in verdicts
                ),
            )

    _RUN_COLUMNS = (
        "run_id, suite_hash, adapter, judge_name, judge_config_hash, code_version, started_at, finished_at, "
        "n_cases, data_json, metrics_json"
    )

    @staticmethod
    def _run_row(row: tuple[Any, ...]) -> dict[str, Any]:
        keys = (
            "run_id",
            "suite_hash",
            "adapter",
            "judge_name",
            "judge_config_hash",
            "code_version",
            "started_at",
            "finished_at",
            "n_cases",
        )
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
            {
                "position": p,
                "case_id": cid,
                "case_hash": ch,
                "output_hash": oh,
                "output": json.loads(o),
                "result": json.loads(r),
            }
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

    # -- review items, assignments, labels, reveals, adjudications --

    _LABEL_COLUMNS = (
        "item_id, case_id, reviewer, scores_json, note, flagged, skipped, rubric_version, revealed, revision, "
        "created_at, seconds_spent, origin, id"
    )

    @staticmethod
    def _label_row(row: tuple[Any, ...]) -> dict[str, Any]:
        """A labels row as the §8.2 export keys, plus `origin` and the row `id` (insertion order)."""
        (
            item_id,
            case_id,
            reviewer,
            scores,
            note,
            flagged,
            skipped,
            version,
            revealed,
            revision,
            created,
            secs,
            origin,
            rid,
        ) = row
        return {
            "item_id": item_id,
            "case_id": case_id,
            "reviewer": reviewer,
            "scores": json.loads(scores),
            "note": note,
            "flagged": bool(flagged),
            "skipped": bool(skipped),
            "rubric_version": version,
            "revealed": bool(revealed),
            "revision": revision,
            "created_at": created,
            "seconds_spent": secs,
            "origin": origin,
            "id": rid,
        }

    def insert_review_items(self, rows: Iterable[tuple[str, str, str, str, str]]) -> int:
        """Store (item_id, case_id, case_hash, output_hash, run_id) rows; an existing item is kept as is."""
        with self.transaction() as conn:
            before = conn.total_changes
            conn.executemany(
                """INSERT OR IGNORE INTO review_items (item_id, case_id, case_hash, output_hash, run_id, created_at)
                   VALUES (?, ?, ?, ?, ?, ?)""",
                ((*row, utc_now()) for row in rows),
            )
            return conn.total_changes - before

    def review_items(self) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT item_id, case_id, case_hash, output_hash, run_id FROM review_items ORDER BY item_id"
        )
        keys = ("item_id", "case_id", "case_hash", "output_hash", "run_id")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def review_item(self, item_id: str) -> dict[str, Any] | None:
        """One review item with its case content and the system output it pairs, or None."""
        row = self.conn.execute(
            """SELECT r.item_id, r.case_id, r.case_hash, r.output_hash, r.run_id, c.case_json, o.output_json
               FROM review_items r
               LEFT JOIN cases c ON c.case_hash = r.case_hash
               LEFT JOIN run_outputs o ON o.run_id = r.run_id AND o.case_id = r.case_id
               WHERE r.item_id = ?""",
            (item_id,),
        ).fetchone()
        if row is None:
            return None
        keys = ("item_id", "case_id", "case_hash", "output_hash", "run_id")
        item = dict(zip(keys, row[:5], strict=True))
        item["case"] = None if row[5] is None else json.loads(row[5])
        item["output"] = None if row[6] is None else json.loads(row[6])
        return item

    def case_ids_by_item(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT item_id, case_id FROM review_items").fetchall())

    def assignments(self, reviewer: str | None = None) -> list[tuple[str, str, int]]:
        """(reviewer, item_id, position) rows, in each reviewer's queue order."""
        if reviewer is None:
            rows = self.conn.execute("SELECT reviewer, item_id, position FROM assignments ORDER BY reviewer, position")
        else:
            rows = self.conn.execute(
                "SELECT reviewer, item_id, position FROM assignments WHERE reviewer = ? ORDER BY position", (reviewer,)
            )
        return [(r, i, int(p)) for r, i, p in rows]

    def write_assignments(self, rows: Iterable[tuple[str, str, int, int]], *, replace: bool) -> int:
        """Store (reviewer, item_id, position, seed) rows in one transaction; `replace` clears the old queue first.

        Labels are untouched either way: a reassigned reviewer keeps every label already made.
        """
        with self.transaction() as conn:
            if replace:
                conn.execute("DELETE FROM assignments")
            before = conn.total_changes
            now = utc_now()
            conn.executemany(
                """INSERT OR IGNORE INTO assignments (reviewer, item_id, position, seed, created_at)
                   VALUES (?, ?, ?, ?, ?)""",
                ((reviewer, item_id, position, _seed(seed), now) for reviewer, item_id, position, seed in rows),
            )
            return conn.total_changes - before

    def append_label(self, label: dict[str, Any], origin: str = "review") -> dict[str, Any]:
        """Append one label revision in one committed transaction and return it as stored.

        The revision number is taken inside the transaction, so two sessions labeling the same
        item at once get distinct revisions instead of a lost write. `revealed` is set from the
        reveals table when the caller passes None.
        """
        with self.transaction() as conn:
            item_id, reviewer = label["item_id"], label["reviewer"]
            (latest,) = conn.execute(
                "SELECT coalesce(max(revision), 0) FROM labels WHERE item_id = ? AND reviewer = ?", (item_id, reviewer)
            ).fetchone()
            revealed = label.get("revealed")
            if revealed is None:
                revealed = (
                    conn.execute(
                        "SELECT 1 FROM reveals WHERE item_id = ? AND reviewer = ?", (item_id, reviewer)
                    ).fetchone()
                    is not None
                )
            cursor = conn.execute(
                f"""INSERT INTO labels ({self._LABEL_COLUMNS.removesuffix(", id")})
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    item_id,
                    label["case_id"],
                    reviewer,
                    json.dumps(label["scores"], ensure_ascii=False, sort_keys=True),
                    label.get("note", ""),
                    int(bool(label.get("flagged", False))),
                    int(bool(label.get("skipped", False))),
                    label["rubric_version"],
                    int(bool(revealed)),
                    _revision(latest + 1, item_id, reviewer),
                    label.get("created_at") or utc_now(),
                    float(label.get("seconds_spent", 0.0)),
                    origin,
                ),
            )
            row = conn.execute(f"SELECT {self._LABEL_COLUMNS} FROM labels WHERE id = ?", (cursor.lastrowid,)).fetchone()
        return self._label_row(row)

    def insert_labels(self, labels: Iterable[dict[str, Any]], origin: str) -> int:
        """Insert fully specified label revisions (revision numbers given) in one transaction."""
        with self.transaction() as conn:
            before = conn.total_changes
            conn.executemany(
                f"""INSERT INTO labels ({self._LABEL_COLUMNS.removesuffix(", id")})
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    (
                        lab["item_id"],
                        lab["case_id"],
                        lab["reviewer"],
                        json.dumps(lab["scores"], ensure_ascii=False, sort_keys=True),
                        lab["note"],
                        int(lab["flagged"]),
                        int(lab["skipped"]),
                        lab["rubric_version"],
                        int(lab["revealed"]),
                        _revision(lab["revision"], lab["item_id"], lab["reviewer"]),
                        lab["created_at"],
                        float(lab["seconds_spent"]),
                        origin,
                    )
                    for lab in labels
                ),
            )
            return conn.total_changes - before

    def labels(self, *, reviewer: str | None = None, item_id: str | None = None) -> list[dict[str, Any]]:
        """Every label revision (history included), oldest first."""
        clauses, params = [], []
        if reviewer is not None:
            clauses.append("reviewer = ?")
            params.append(reviewer)
        if item_id is not None:
            clauses.append("item_id = ?")
            params.append(item_id)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.conn.execute(f"SELECT {self._LABEL_COLUMNS} FROM labels {where} ORDER BY id", params)
        return [self._label_row(row) for row in rows]

    def label_reviewers(self) -> list[str]:
        return [row[0] for row in self.conn.execute("SELECT DISTINCT reviewer FROM labels ORDER BY reviewer")]

    def record_reveal(self, item_id: str, reviewer: str) -> None:
        """Remember that `reviewer` saw the judge verdict of `item_id` (the first time counts)."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO reveals (item_id, reviewer, revealed_at) VALUES (?, ?, ?)",
                (item_id, reviewer, utc_now()),
            )

    def has_revealed(self, item_id: str, reviewer: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM reveals WHERE item_id = ? AND reviewer = ?", (item_id, reviewer)
        ).fetchone()
        return row is not None

    def latest_verdict(self, item_id: str) -> dict[str, Any] | None:
        """The most recently stored judge verdict (§8.3 shape) for one item, any judge."""
        row = self.conn.execute(
            "SELECT verdict_json FROM judge_verdicts WHERE item_id = ? ORDER BY id DESC LIMIT 1", (item_id,)
        ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def insert_adjudication(self, item_id: str, axis: str, score: int | None, reason: str, adjudicator: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                """INSERT INTO adjudications (item_id, axis, score, reason, adjudicator, created_at)
                   VALUES (?, ?, ?, ?, ?, ?)""",
                (item_id, axis, score, reason, adjudicator, utc_now()),
            )

    def adjudications(self) -> dict[tuple[str, str], int | None]:
        """The latest adjudicated score per (item_id, axis); a later adjudication supersedes an earlier one."""
        rows = self.conn.execute("SELECT item_id, axis, score FROM adjudications ORDER BY id")
        return {(item_id, axis): score for item_id, axis, score in rows}

    def queue_length(self, reviewer: str) -> int:
        (length,) = self.conn.execute("SELECT count(*) FROM assignments WHERE reviewer = ?", (reviewer,)).fetchone()
        return int(length)

    def queue_item_ids(self, reviewer: str) -> list[str]:
        """The item ids of `reviewer`'s queue, in queue order."""
        rows = self.conn.execute("SELECT item_id FROM assignments WHERE reviewer = ? ORDER BY position", (reviewer,))
        return [item_id for (item_id,) in rows]

    def label_marks(self, reviewer: str, *, after_id: int = 0) -> list[tuple[int, str, int, int, float]]:
        """(id, item_id, skipped, flagged, seconds_spent) of `reviewer`'s revisions with id > `after_id`, oldest first.

        Label ids grow in commit order (one writer at a time, AUTOINCREMENT, append-only), so reading
        past the last id seen catches up on every revision committed since, by any connection.
        `skipped` and `flagged` are 0 or 1 as stored: no per-row conversion over a whole history.
        """
        rows: list[tuple[int, str, int, int, float]] = self.conn.execute(
            """SELECT id, item_id, skipped, flagged, seconds_spent FROM labels
               WHERE reviewer = ? AND id > ? ORDER BY id""",
            (reviewer, after_id),
        ).fetchall()
        return rows

    def change_token(self) -> tuple[int, int]:
        """Differs from an earlier token once anything was committed since, by this connection or another."""
        (version,) = self.conn.execute("PRAGMA data_version").fetchone()
        return int(version), self.conn.total_changes

    # -- bulk reads for statistics --
    # The reads behind agreement, calibration and the dashboard: tuples instead of a dict per row,
    # and JSON parsed once per distinct text (scores repeat a few combinations of scale points), so
    # the mappings handed out are shared between rows and read-only.

    def label_revisions(self) -> list[StoredLabel]:
        """Every label revision (history included), oldest first, with the fields the statistics read."""
        rows = self.conn.execute(
            """SELECT item_id, reviewer, revision, skipped, rubric_version, revealed, flagged, seconds_spent,
                      scores_json FROM labels ORDER BY id"""
        ).fetchall()
        scores = {text: MappingProxyType(json.loads(text)) for text in {row[8] for row in rows}}
        return [
            StoredLabel(
                item, reviewer, revision, skipped != 0, version, revealed != 0, flagged != 0, secs, scores[text]
            )
            for item, reviewer, revision, skipped, version, revealed, flagged, secs, text in rows
        ]

    def verdict_scores(self, *, config_hash: str | None = None) -> list[StoredVerdict]:
        """What a calibration reads of `verdicts()`, in the same order; the evidence never reaches Python."""
        where, params = ("WHERE config_hash = ?", (config_hash,)) if config_hash is not None else ("", ())
        rows = self.conn.execute(
            f"""SELECT json_extract(verdict_json, '$.item_id'),
                       json_extract(verdict_json, '$.status', '$.judge', '$.scores')
                FROM judge_verdicts {where} ORDER BY id""",
            params,
        ).fetchall()
        fields: dict[str, tuple[str, Mapping[str, Any], Mapping[str, Any]]] = {}
        for text in {row[1] for row in rows}:
            status, judge, scores = json.loads(text)
            fields[text] = (status, MappingProxyType(judge), MappingProxyType(scores))
        return [StoredVerdict(item, *fields[text]) for item, text in rows]

    def queued_items(self) -> list[tuple[str, str]]:
        """(reviewer, item_id) of every queue entry, in no particular order: the queues as sets."""
        return self.conn.execute("SELECT reviewer, item_id FROM assignments").fetchall()


class OutOfRangeError(QaevalError):
    """A number the store would have to hold is beyond what it takes (nothing is written): exit 2."""


def _revision(revision: int, item_id: str, reviewer: str) -> int:
    """A label revision the files can carry back (label files cap it): refused, never an overflow."""
    if not 1 <= revision <= MAX_REVISION:
        raise OutOfRangeError(
            f"revision {revision} of {reviewer} on {item_id} is beyond the largest a label can have "
            f"({MAX_REVISION}); nothing was stored"
        )
    return revision


def _seed(seed: int) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise OutOfRangeError(f"seed {seed} is not a whole number from 0 to {MAX_SEED}; nothing was stored")
    return seed


class StoredLabel(NamedTuple):
    """One stored label revision, as `Store.label_revisions` reads it."""

    item_id: str
    reviewer: str
    revision: int
    skipped: bool
    rubric_version: str
    revealed: bool
    flagged: bool
    seconds_spent: float
    scores: Mapping[str, int | None]


class StoredVerdict(NamedTuple):
    """One stored judge verdict without its evidence, as `Store.verdict_scores` reads it."""

    item_id: str
    status: str
    judge: Mapping[str, str | float | int]
    scores: Mapping[str, int | None]
