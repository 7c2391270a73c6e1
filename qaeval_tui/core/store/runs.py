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
from dataclasses import asdict
from types import MappingProxyType
from typing import Any

from pydantic import ValidationError

from qaeval_tui.core.running.models import JudgeVerdict
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

_RUN_ORDER = "started_at DESC, rowid DESC"


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _scores_ok(scores: object) -> bool:
    """Scores as the store writes them: whole numbers (not true/false) or null, by axis name."""
    return isinstance(scores, dict) and all(value is None or type(value) is int for value in scores.values())


class RunTables(SQLiteConnection):
    """The `cases`, `runs`, `run_outputs` and `judge_verdicts` tables."""

    def _run(self, row: Mapping[str, Any]) -> RunRecord:
        fields = {key: value for key, value in row.items() if not key.endswith("_json")}
        run_id = row["run_id"]
        return RunRecord(
            **fields,
            data=self.parsed(row["data_json"], "runs", run_id, "data_json"),
            metrics=self.parsed(row["metrics_json"], "runs", run_id, "metrics_json"),
        )

    def _verdict(self, row: Mapping[str, Any]) -> VerdictRecord:
        """A judge_verdicts row, its §8.3 document validated: a hand-edited one is located, never half-read."""
        fields = {key: value for key, value in row.items() if key not in {"verdict_json", "id", "run_id"}}
        try:
            verdict = JudgeVerdict.model_validate_json(row["verdict_json"])
        except (TypeError, ValueError) as exc:  # a pydantic ValidationError is a ValueError
            if not isinstance(exc, ValidationError):
                raise CorruptRowError(self.path, "judge_verdicts", row["id"], "verdict_json", str(exc)) from None
            error = exc.errors()[0]
            where = ".".join(["verdict_json", *map(str, error["loc"])])
            raise CorruptRowError(self.path, "judge_verdicts", row["id"], where, error["msg"]) from None
        return VerdictRecord(**fields, verdict=verdict)

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
                    "verdict_json": _dumps(v.verdict.to_json()),
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
        return [self._run(dict(zip(keys, row, strict=True))) for row in cursor]

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
            status, judge, scores = json.loads(text)
            if status not in ("ok", "error", "skipped") or not isinstance(judge, dict) or not _scores_ok(scores):
                rows = None
                break
            fields[text] = (status, MappingProxyType(judge), MappingProxyType(scores))
        if rows is None or not all(type(item) is str for item, _ in rows):
            raise self._corrupt_verdict(where, params)
        return [StoredVerdict(item, *fields[text]) for item, text in rows]

    def _corrupt_verdict(self, where: str, params: Sequence[str]) -> CorruptRowError:
        """The first verdict among `where` that fails validation, located (called once one is known to)."""
        cursor = self.conn.execute(f"SELECT * FROM judge_verdicts {where} ORDER BY id", params)
        keys = [column[0] for column in cursor.description]
        for values in cursor:
            row = dict(zip(keys, values, strict=True))
            verdict = self._verdict(row).verdict
            if not _scores_ok(verdict.scores):
                return CorruptRowError(
                    self.path,
                    "judge_verdicts",
                    row["id"],
                    "verdict_json.scores",
                    "a score that is not a whole number or null",
                )
        return CorruptRowError(self.path, "judge_verdicts", "?", "verdict_json", "a verdict calibration cannot read")
