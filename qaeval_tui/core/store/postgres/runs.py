"""Golden cases, runs, their per-case outputs and the judge verdicts, on PostgreSQL.

The rows written and the checks on what is read back are the codec's, as for SQLite. The bulk read
of verdict fields parses each stored document in Python (SQLite's `json_extract` has no faster
equivalent over TEXT here), each distinct text once.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import psycopg

from qaeval_tui.core.store import codec
from qaeval_tui.core.store.postgres.connection import PgConnection
from qaeval_tui.core.store.rows import (
    CaseRecord,
    CorruptRowError,
    JsonObject,
    RunOutput,
    RunRecord,
    StoredVerdict,
    VerdictRecord,
)
from qaeval_tui.core.store.runs import FINISHED_RUNS, RUN_COLUMNS, UNFINISHED_RUNS

_RUN_ORDER = "r.started_at DESC, r.rowid DESC"
_VERDICT_COLUMNS = "id, item_id, case_id, judge_name, config_hash, status, verdict_json, created_at"


def insert_sql(table: str, row: Mapping[str, Any], suffix: str = "") -> str:
    """An INSERT of `row`'s columns with named placeholders (for executemany over rows like it)."""
    columns = ", ".join(row)
    values = ", ".join(f"%({column})s" for column in row)
    return f"INSERT INTO {table} ({columns}) VALUES ({values}) {suffix}"


class PgRunTables(PgConnection):
    """The `cases`, `runs`, `run_outputs` and `judge_verdicts` tables."""

    def _insert_all(self, table: str, rows: Iterable[Mapping[str, Any]], suffix: str = "") -> int:
        """Insert rows of one shape; returns how many were written (ON CONFLICT DO NOTHING skips some)."""
        rows = list(rows)
        if not rows:
            return 0
        with self._write() as conn, conn.cursor() as cursor:
            cursor.executemany(insert_sql(table, rows[0], suffix), rows)
            return max(cursor.rowcount, 0)

    def upsert_cases(self, cases: Iterable[CaseRecord]) -> int:
        """Store golden cases; content-addressed, so re-adding one is a no-op. Returns how many were new."""
        return self._insert_all("cases", map(codec.case_row, cases), "ON CONFLICT DO NOTHING")

    def case_json(self, case_hash: str) -> JsonObject | None:
        row = self._q("SELECT case_json FROM cases WHERE case_hash = %s", (case_hash,)).fetchone()
        return None if row is None else dict(self.parsed(row[0], "cases", case_hash, "case_json"))

    def case_rows(self) -> list[CaseRecord]:
        rows = self._q("SELECT case_hash, case_id, split, case_json FROM cases ORDER BY case_id, case_hash")
        return [CaseRecord(h, c, s, self.parsed(text, "cases", h, "case_json")) for h, c, s, text in rows]

    def insert_run(self, run: RunRecord, outputs: Sequence[RunOutput], verdicts: Sequence[VerdictRecord]) -> None:
        """Store one whole run (its record, per-case outputs and judge verdicts) in one transaction."""
        with self._write():
            self._insert_all("runs", [codec.run_row(run)])
            self._insert_all("run_outputs", codec.output_rows(run.run_id, outputs))
            self._insert_all("judge_verdicts", codec.verdict_rows(run.run_id, verdicts))

    # A run streamed to the store as its cases finish (`open_run`, `append_run_rows`..., `finish_run`).

    def open_run(self, run: RunRecord) -> None:
        """Store a run's opening row: unfinished (`finished_at` empty) until `finish_run` stores its end."""
        self._insert_all("runs", [{**codec.run_row(run), "finished_at": ""}])

    def append_run_rows(self, run_id: str, outputs: Sequence[RunOutput], verdicts: Sequence[VerdictRecord]) -> None:
        """A batch of an open run's finished cases (their outputs and verdicts), in one transaction."""
        with self._write():
            self._insert_all("run_outputs", codec.output_rows(run_id, outputs))
            self._insert_all("judge_verdicts", codec.verdict_rows(run_id, verdicts))

    def finish_run(self, run: RunRecord) -> None:
        """Store an open run's end (its finish time, case count, header and scoreboard): it is finished."""
        row = codec.run_row(run)
        self._insert_all(
            "run_ends", [{key: row[key] for key in ("run_id", "finished_at", "n_cases", "data_json", "metrics_json")}]
        )

    def unfinished_runs(self) -> list[RunRecord]:
        """The streamed runs that never reached their end (interrupted), newest first."""
        return self._run_records(f"SELECT {RUN_COLUMNS} {UNFINISHED_RUNS} ORDER BY {_RUN_ORDER}", ())

    def _run_records(self, query: str, params: Sequence[str]) -> list[RunRecord]:
        cursor = self._q(query, tuple(params))
        keys = [column.name for column in cursor.description or ()]
        return [codec.run_record(self.path, dict(zip(keys, row, strict=True))) for row in cursor]

    def _runs(self, where: str = "", params: Sequence[str] = (), limit: str = "") -> list[RunRecord]:
        return self._run_records(f"SELECT {RUN_COLUMNS} {FINISHED_RUNS} {where} ORDER BY {_RUN_ORDER} {limit}", params)

    def list_runs(self) -> list[RunRecord]:
        """Every finished run, newest first (a streamed run cut short is not one: `unfinished_runs`)."""
        return self._runs()

    def get_run(self, run_id: str) -> RunRecord | None:
        runs = self._runs("AND r.run_id = %s", (run_id,))
        return runs[0] if runs else None

    def latest_run(self) -> RunRecord | None:
        runs = self._runs(limit="LIMIT 1")
        return runs[0] if runs else None

    def run_outputs(self, run_id: str) -> list[RunOutput]:
        """Per-case outputs of a run, in suite order."""
        rows = self._q(
            """SELECT position, case_id, case_hash, output_hash, output_json, result_json FROM run_outputs
               WHERE run_id = %s ORDER BY position""",
            (run_id,),
        )
        where = f"{run_id}/"
        return [
            RunOutput(
                position,
                case_id,
                case_hash,
                output_hash,
                self.parsed(output, "run_outputs", where + case_id, "output_json"),
                self.parsed(result, "run_outputs", where + case_id, "result_json"),
            )
            for position, case_id, case_hash, output_hash, output, result in rows
        ]

    def _verdict_rows(self, where: str, params: Sequence[str], columns: str = _VERDICT_COLUMNS) -> list[dict[str, Any]]:
        cursor = self._q(f"SELECT {columns} FROM judge_verdicts {where} ORDER BY id", tuple(params))
        keys = [column.name for column in cursor.description or ()]
        return [dict(zip(keys, row, strict=True)) for row in cursor]

    @staticmethod
    def _filters(run_id: str | None, config_hash: str | None, item_id: str | None) -> tuple[str, list[str]]:
        wanted = {"run_id": run_id, "config_hash": config_hash, "item_id": item_id}
        clauses = [f"{column} = %s" for column, value in wanted.items() if value is not None]
        return ("WHERE " + " AND ".join(clauses)) if clauses else "", [v for v in wanted.values() if v is not None]

    def verdicts(
        self, *, run_id: str | None = None, config_hash: str | None = None, item_id: str | None = None
    ) -> list[VerdictRecord]:
        """Stored judge verdicts, oldest first, optionally for one run, one judge config or one item."""
        where, params = self._filters(run_id, config_hash, item_id)
        return [codec.verdict_record(self.path, row) for row in self._verdict_rows(where, params)]

    def latest_verdict(self, item_id: str) -> VerdictRecord | None:
        """The most recently stored judge verdict for one item, any judge."""
        cursor = self._q(
            f"SELECT {_VERDICT_COLUMNS} FROM judge_verdicts WHERE item_id = %s ORDER BY id DESC LIMIT 1", (item_id,)
        )
        row = cursor.fetchone()
        if row is None:
            return None
        keys = [column.name for column in cursor.description or ()]
        return codec.verdict_record(self.path, dict(zip(keys, row, strict=True)))

    def verdict_scores(self, *, config_hash: str | None = None) -> list[StoredVerdict]:
        """What a calibration reads of `verdicts()`, in the same order; the mappings are shared and read-only.

        The server takes the fields out of each document (as SQLite's `json_extract` does), so the
        evidence never reaches Python and JSON is parsed once per distinct (status, judge, scores)."""
        where, params = self._filters(None, config_hash, None)
        try:
            # Inside a caller's transaction, a savepoint: a document that is not JSON fails it alone.
            with self.conn.transaction() if self._in_transaction() else contextlib.nullcontext():
                rows: list[tuple[Any, str]] | None = self._q(
                    f"""SELECT CASE WHEN json_typeof(d->'item_id') = 'string' THEN d->>'item_id' END,
                               json_build_array(d->'status', d->'judge', d->'scores')::text
                        FROM (SELECT id, verdict_json::json AS d FROM judge_verdicts {where}) v ORDER BY id""",
                    tuple(params),
                ).fetchall()
        except psycopg.errors.DataError:  # a verdict_json that is not JSON: found below
            rows = None
        fields: dict[str, tuple[str, Mapping[str, Any], Mapping[str, Any]]] = {}
        for text in {row[1] for row in rows or ()}:
            try:
                fields[text] = codec.verdict_fields(*json.loads(text))
            except (ValueError, TypeError, KeyError):
                rows = None
                break
        if rows is None or not all(type(item) is str for item, _ in rows):
            raise self._corrupt_verdict(where, params)
        return [StoredVerdict(item, *fields[text]) for item, text in rows]

    def _corrupt_verdict(self, where: str, params: Sequence[str]) -> CorruptRowError:
        return codec.corrupt_verdict(self.path, self._verdict_rows(where, params, "*"))
