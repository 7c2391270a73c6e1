"""Golden cases, runs, their per-case outputs and the judge verdicts.

sqlite-utils writes the rows (`insert`, `insert_all`, with `ignore` for content-addressed cases)
and reads whole tables (`rows_where`: every case, a run's outputs, the verdicts). Raw SQL where it
does better: what the review TUI reads while it starts or reveals a verdict (the runs, one case,
an item's latest verdict; sqlite-utils stays unimported there), and the statistics' bulk read of
verdict fields with `json_extract`, so the evidence never reaches Python.

A verdict comes back as the runner's `JudgeVerdict`, validated from its stored text; the bulk read
checks each distinct text of fields once. A JSON column no qaeval wrote is a `CorruptRowError`
naming the table, the row and the field.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from qaeval_tui.core.store import codec
from qaeval_tui.core.store.connection import SQLiteConnection
from qaeval_tui.core.store.rows import (
    CaseRecord,
    CorruptRowError,
    JsonObject,
    RunOutput,
    RunRecord,
    StoredVerdict,
    VerdictRecord,
)

_RUN_ORDER = "r.started_at DESC, r.rowid DESC"
RUN_COLUMNS = (
    "r.run_id, r.suite_hash, r.adapter, r.judge_name, r.judge_config_hash, r.code_version, r.started_at, "
    "COALESCE(e.finished_at, r.finished_at) AS finished_at, COALESCE(e.n_cases, r.n_cases) AS n_cases, "
    "COALESCE(e.data_json, r.data_json) AS data_json, COALESCE(e.metrics_json, r.metrics_json) AS metrics_json"
)
"""A run's columns, a streamed run's end (`run_ends`) standing in for what its opening row could not know."""
FINISHED_RUNS = (
    "FROM runs r LEFT JOIN run_ends e ON e.run_id = r.run_id WHERE (r.finished_at <> '' OR e.run_id IS NOT NULL)"
)
"""The runs stored whole (`finished_at` set) and the streamed runs that reached their end."""
UNFINISHED_RUNS = (
    "FROM runs r LEFT JOIN run_ends e ON e.run_id = r.run_id WHERE r.finished_at = '' AND e.run_id IS NULL"
)


class RunTables(SQLiteConnection):
    """The `cases`, `runs`, `run_outputs` and `judge_verdicts` tables."""

    def _run(self, row: Mapping[str, Any]) -> RunRecord:
        return codec.run_record(self.path, row)

    def _verdict(self, row: Mapping[str, Any]) -> VerdictRecord:
        return codec.verdict_record(self.path, row)

    def upsert_cases(self, cases: Iterable[CaseRecord]) -> int:
        """Store golden cases; content-addressed, so re-adding one is a no-op. Returns how many were new."""
        with self._write() as conn:
            before = conn.total_changes
            self.db.table("cases").insert_all(map(codec.case_row, cases), ignore=True)
            return conn.total_changes - before

    def case_json(self, case_hash: str) -> JsonObject | None:
        row = self.conn.execute("SELECT case_json FROM cases WHERE case_hash = ?", (case_hash,)).fetchone()
        return None if row is None else dict(self.parsed(row[0], "cases", case_hash, "case_json"))

    def case_rows(self) -> list[CaseRecord]:
        rows = self.db.table("cases").rows_where(select="case_hash, case_id, split, case_json", order_by="case_id")
        return [
            CaseRecord(
                r["case_hash"],
                r["case_id"],
                r["split"],
                self.parsed(r["case_json"], "cases", r["case_hash"], "case_json"),
            )
            for r in rows
        ]

    def insert_run(self, run: RunRecord, outputs: Sequence[RunOutput], verdicts: Sequence[VerdictRecord]) -> None:
        """Store one whole run (its record, per-case outputs and judge verdicts) in one transaction."""
        with self._write():
            self.db.table("runs").insert(codec.run_row(run))
            self.db.table("run_outputs").insert_all(codec.output_rows(run.run_id, outputs))
            self.db.table("judge_verdicts").insert_all(codec.verdict_rows(run.run_id, verdicts))

    # A run streamed to the store as its cases finish (`open_run`, `append_run_rows`..., `finish_run`).

    def open_run(self, run: RunRecord) -> None:
        """Store a run's opening row: unfinished (`finished_at` empty) until `finish_run` stores its end."""
        row = {**codec.run_row(run), "finished_at": ""}
        with self._write() as conn:
            conn.execute(_insert_sql("runs", row), tuple(row.values()))

    def append_run_rows(self, run_id: str, outputs: Sequence[RunOutput], verdicts: Sequence[VerdictRecord]) -> None:
        """A batch of an open run's finished cases (their outputs and verdicts), in one transaction."""
        with self._write() as conn:
            rows = list(codec.output_rows(run_id, outputs))
            if rows:
                conn.executemany(_insert_sql("run_outputs", rows[0]), [tuple(row.values()) for row in rows])
            judged = list(codec.verdict_rows(run_id, verdicts))
            if judged:
                conn.executemany(_insert_sql("judge_verdicts", judged[0]), [tuple(row.values()) for row in judged])

    def finish_run(self, run: RunRecord) -> None:
        """Store an open run's end (its finish time, case count, header and scoreboard): it is finished."""
        row = codec.run_row(run)
        end = {key: row[key] for key in ("run_id", "finished_at", "n_cases", "data_json", "metrics_json")}
        with self._write() as conn:
            conn.execute(_insert_sql("run_ends", end), tuple(end.values()))

    def unfinished_runs(self) -> list[RunRecord]:
        """The streamed runs that never reached their end (interrupted), newest first."""
        cursor = self.conn.execute(f"SELECT {RUN_COLUMNS} {UNFINISHED_RUNS} ORDER BY {_RUN_ORDER}")
        keys = [column[0] for column in cursor.description]
        return [self._run(dict(zip(keys, row, strict=True))) for row in cursor]

    def _runs(self, where: str = "", params: Sequence[str] = (), limit: str = "") -> list[RunRecord]:
        # Raw SQL: `qaeval review` reads the runs while it starts, before sqlite-utils is needed.
        cursor = self.conn.execute(
            f"SELECT {RUN_COLUMNS} {FINISHED_RUNS} {where} ORDER BY {_RUN_ORDER} {limit}", tuple(params)
        )
        keys = [column[0] for column in cursor.description]
        return [self._run(dict(zip(keys, row, strict=True))) for row in cursor]

    def list_runs(self) -> list[RunRecord]:
        """Every finished run, newest first (a streamed run cut short is not one: `unfinished_runs`)."""
        return self._runs()

    def get_run(self, run_id: str) -> RunRecord | None:
        runs = self._runs("AND r.run_id = ?", (run_id,))
        return runs[0] if runs else None

    def latest_run(self) -> RunRecord | None:
        runs = self._runs(limit="LIMIT 1")
        return runs[0] if runs else None

    def run_outputs(self, run_id: str) -> list[RunOutput]:
        """Per-case outputs of a run, in suite order."""
        rows = self.db.table("run_outputs").rows_where(
            "run_id = ?",
            [run_id],
            select="position, case_id, case_hash, output_hash, output_json, result_json",
            order_by="position",
        )
        where = f"{run_id}/"
        return [
            RunOutput(
                r["position"],
                r["case_id"],
                r["case_hash"],
                r["output_hash"],
                self.parsed(r["output_json"], "run_outputs", where + r["case_id"], "output_json"),
                self.parsed(r["result_json"], "run_outputs", where + r["case_id"], "result_json"),
            )
            for r in rows
        ]

    def verdicts(
        self, *, run_id: str | None = None, config_hash: str | None = None, item_id: str | None = None
    ) -> list[VerdictRecord]:
        """Stored judge verdicts, oldest first, optionally for one run, one judge config or one item."""
        wanted = {"run_id": run_id, "config_hash": config_hash, "item_id": item_id}
        clauses = [f"{column} = :{column}" for column, value in wanted.items() if value is not None]
        rows = self.db.table("judge_verdicts").rows_where(
            " AND ".join(clauses) or None,
            {column: value for column, value in wanted.items() if value is not None},
            order_by="id",
        )
        return [self._verdict(row) for row in rows]

    def latest_verdict(self, item_id: str) -> VerdictRecord | None:
        """The most recently stored judge verdict for one item, any judge."""
        cursor = self.conn.execute(
            """SELECT id, item_id, case_id, judge_name, config_hash, status, verdict_json, created_at
               FROM judge_verdicts WHERE item_id = ? ORDER BY id DESC LIMIT 1""",
            (item_id,),
        )
        row = cursor.fetchone()
        if row is None:
            return None
        return self._verdict(dict(zip([column[0] for column in cursor.description], row, strict=True)))

    def verdict_scores(self, *, config_hash: str | None = None) -> list[StoredVerdict]:
        """What a calibration reads of `verdicts()`, in the same order; the evidence never reaches Python.

        JSON is parsed once per distinct text, so the mappings handed out are shared and read-only.
        """
        where, params = ("WHERE config_hash = ?", (config_hash,)) if config_hash is not None else ("", ())
        try:
            rows = self.conn.execute(
                f"""SELECT json_extract(verdict_json, '$.item_id'),
                           json_extract(verdict_json, '$.status', '$.judge', '$.scores')
                    FROM judge_verdicts {where} ORDER BY id""",
                params,
            ).fetchall()
        except sqlite3.OperationalError:  # a verdict_json that is not JSON: find it below
            rows = None
        fields: dict[str, tuple[str, Mapping[str, Any], Mapping[str, Any]]] = {}
        # The integrity check stays cheap: the fields once per distinct text, the item ids once each.
        for text in {row[1] for row in rows or ()}:
            try:
                fields[text] = codec.verdict_fields(*json.loads(text))
            except ValueError:
                rows = None
                break
        if rows is None or not all(type(item) is str for item, _ in rows):
            raise self._corrupt_verdict(where, params)
        return [StoredVerdict(item, *fields[text]) for item, text in rows]

    def _corrupt_verdict(self, where: str, params: Sequence[str]) -> CorruptRowError:
        """The first verdict among `where` that fails validation, located (called once one is known to)."""
        cursor = self.conn.execute(f"SELECT * FROM judge_verdicts {where} ORDER BY id", params)
        keys = [column[0] for column in cursor.description]
        return codec.corrupt_verdict(self.path, (dict(zip(keys, values, strict=True)) for values in cursor))


def _insert_sql(table: str, row: Mapping[str, Any]) -> str:
    return f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})"
