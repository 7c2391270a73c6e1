"""Golden cases, runs, their per-case outputs and the judge verdicts.

sqlite-utils writes the rows (`insert_all`, with `ignore` for content-addressed cases) and reads
whole tables for exports (`rows_where`). Raw SQL where it does better: a review item's verdict is
read on the review TUI's path (sqlite-utils stays unimported there), and the statistics read
verdict fields with `json_extract` so the evidence never reaches Python.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from types import MappingProxyType
from typing import Any

from qaeval_tui.core.store.connection import SQLiteConnection
from qaeval_tui.core.store.rows import CaseRecord, JsonObject, RunOutput, RunRecord, StoredVerdict, VerdictRecord

_RUN_ORDER = "started_at DESC, rowid DESC"


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _run(row: Mapping[str, Any]) -> RunRecord:
    fields = {key: value for key, value in row.items() if not key.endswith("_json")}
    return RunRecord(**fields, data=json.loads(row["data_json"]), metrics=json.loads(row["metrics_json"]))


def _verdict(row: Mapping[str, Any]) -> VerdictRecord:
    fields = {key: value for key, value in row.items() if key not in {"verdict_json", "id", "run_id"}}
    return VerdictRecord(**fields, verdict=json.loads(row["verdict_json"]))


class RunTables(SQLiteConnection):
    """The `cases`, `runs`, `run_outputs` and `judge_verdicts` tables."""

    def upsert_cases(self, cases: Iterable[CaseRecord]) -> int:
        """Store golden cases; content-addressed, so re-adding one is a no-op. Returns how many were new."""
        with self._write() as conn:
            before = conn.total_changes
            self.db.table("cases").insert_all(
                (
                    {"case_hash": c.case_hash, "case_id": c.case_id, "split": c.split, "case_json": _dumps(c.case)}
                    for c in cases
                ),
                ignore=True,
            )
            return conn.total_changes - before

    def case_json(self, case_hash: str) -> JsonObject | None:
        row = self.conn.execute("SELECT case_json FROM cases WHERE case_hash = ?", (case_hash,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def case_rows(self) -> list[CaseRecord]:
        rows = self.conn.execute("SELECT case_hash, case_id, split, case_json FROM cases ORDER BY case_id")
        return [CaseRecord(h, cid, split, json.loads(data)) for h, cid, split, data in rows]

    def insert_run(self, run: RunRecord, outputs: Sequence[RunOutput], verdicts: Sequence[VerdictRecord]) -> None:
        """Store one whole run (its record, per-case outputs and judge verdicts) in one transaction."""
        with self._write():
            header = {key: value for key, value in asdict(run).items() if key not in {"data", "metrics"}}
            self.db.table("runs").insert({**header, "data_json": _dumps(run.data), "metrics_json": _dumps(run.metrics)})
            self.db.table("run_outputs").insert_all(
                {
                    "run_id": run.run_id,
                    "position": o.position,
                    "case_id": o.case_id,
                    "case_hash": o.case_hash,
                    "output_hash": o.output_hash,
                    "output_json": _dumps(o.output),
                    "result_json": _dumps(o.result),
                }
                for o in outputs
            )
            self.db.table("judge_verdicts").insert_all(
                {
                    "run_id": run.run_id,
                    "item_id": v.item_id,
                    "case_id": v.case_id,
                    "judge_name": v.judge_name,
                    "config_hash": v.config_hash,
                    "status": v.status,
                    "verdict_json": _dumps(v.verdict),
                    "created_at": v.created_at,
                }
                for v in verdicts
            )

    _RUN_COLUMNS = (
        "run_id, suite_hash, adapter, judge_name, judge_config_hash, code_version, started_at, finished_at, "
        "n_cases, data_json, metrics_json"
    )

    def _runs(self, where: str = "", params: Sequence[str] = (), limit: str = "") -> list[RunRecord]:
        # Raw SQL: `qaeval review` reads the runs while it starts, before sqlite-utils is needed.
        cursor = self.conn.execute(
            f"SELECT {self._RUN_COLUMNS} FROM runs {where} ORDER BY {_RUN_ORDER} {limit}", tuple(params)
        )
        keys = [column[0] for column in cursor.description]
        return [_run(dict(zip(keys, row, strict=True))) for row in cursor]

    def list_runs(self) -> list[RunRecord]:
        """Every run, newest first."""
        return self._runs()

    def get_run(self, run_id: str) -> RunRecord | None:
        runs = self._runs("WHERE run_id = ?", (run_id,))
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
        return [
            RunOutput(
                r["position"],
                r["case_id"],
                r["case_hash"],
                r["output_hash"],
                json.loads(r["output_json"]),
                json.loads(r["result_json"]),
            )
            for r in rows
        ]

    def verdicts(self, *, run_id: str | None = None, config_hash: str | None = None) -> list[VerdictRecord]:
        """Stored judge verdicts, oldest first, optionally for one run or one judge config."""
        wanted = {"run_id": run_id, "config_hash": config_hash}
        clauses = [f"{column} = :{column}" for column, value in wanted.items() if value is not None]
        rows = self.db.table("judge_verdicts").rows_where(
            " AND ".join(clauses) or None,
            {column: value for column, value in wanted.items() if value is not None},
            order_by="id",
        )
        return [_verdict(row) for row in rows]

    def latest_verdict(self, item_id: str) -> VerdictRecord | None:
        """The most recently stored judge verdict for one item, any judge."""
        cursor = self.conn.execute(
            """SELECT item_id, case_id, judge_name, config_hash, status, verdict_json, created_at
               FROM judge_verdicts WHERE item_id = ? ORDER BY id DESC LIMIT 1""",
            (item_id,),
        )
        row = cursor.fetchone()
        if row is None:
            return None
        return _verdict(dict(zip([column[0] for column in cursor.description], row, strict=True)))

    def verdict_scores(self, *, config_hash: str | None = None) -> list[StoredVerdict]:
        """What a calibration reads of `verdicts()`, in the same order; the evidence never reaches Python.

        JSON is parsed once per distinct text, so the mappings handed out are shared and read-only.
        """
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
