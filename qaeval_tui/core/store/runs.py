"""Golden cases, runs, their per-case outputs and the judge verdicts.

Rows go in through the driver's bulk insert (sqlite-utils' `insert_all` on SQLite; content-addressed
cases with `ignore`). Raw SQL for the reads: what the review TUI reads while it starts or reveals
a verdict (the runs, one case, an item's latest verdict; sqlite-utils stays unimported there), and
the statistics' bulk read of verdict fields, which the database takes out of each document (the
driver's `_verdict_fields`: SQLite's `json_extract`, PostgreSQL's json operators), so the evidence
never reaches Python.

A verdict comes back as the runner's `JudgeVerdict`, validated from its stored text; the bulk read
checks each distinct text of fields once. A JSON column no qaeval wrote is a `CorruptRowError`
naming the table, the row and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from qaeval_tui.core.store import codec
from qaeval_tui.core.store.rows import (
    CaseRecord,
    CorruptRowError,
    JsonObject,
    RunOutput,
    RunRecord,
    StoredVerdict,
    VerdictRecord,
)
from qaeval_tui.core.store.seam import Driver

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
_VERDICT_COLUMNS = "id, item_id, case_id, judge_name, config_hash, status, verdict_json, created_at"


class RunTables(Driver):
    """The `cases`, `runs`, `run_outputs` and `judge_verdicts` tables."""

    def upsert_cases(self, cases: Iterable[CaseRecord]) -> int:
        """Store golden cases; content-addressed, so re-adding one is a no-op. Returns how many were new."""
        return self._insert_all("cases", map(codec.case_row, cases), ignore=True)

    def case_json(self, case_hash: str) -> JsonObject | None:
        row = self._row("SELECT case_json FROM cases WHERE case_hash = ?", (case_hash,))
        return None if row is None else dict(self.parsed(row[0], "cases", case_hash, "case_json"))

    def case_rows(self) -> list[CaseRecord]:
        rows = self._rows("SELECT case_hash, case_id, split, case_json FROM cases ORDER BY case_id, case_hash")
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
        end = {key: row[key] for key in ("run_id", "finished_at", "n_cases", "data_json", "metrics_json")}
        self._insert_all("run_ends", [end])

    def unfinished_runs(self) -> list[RunRecord]:
        """The streamed runs that never reached their end (interrupted), newest first; each one's
        `n_cases` is how many cases it stored before it stopped."""
        stored = "(SELECT COUNT(*) FROM run_outputs o WHERE o.run_id = r.run_id) AS n_cases"
        columns = RUN_COLUMNS.replace("COALESCE(e.n_cases, r.n_cases) AS n_cases", stored)
        rows = self._keyed_rows(f"SELECT {columns} {UNFINISHED_RUNS} ORDER BY {_RUN_ORDER}", ())
        return [codec.run_record(self.path, row) for row in rows]

    def _runs(self, where: str = "", params: Sequence[str] = (), limit: str = "") -> list[RunRecord]:
        rows = self._keyed_rows(f"SELECT {RUN_COLUMNS} {FINISHED_RUNS} {where} ORDER BY {_RUN_ORDER} {limit}", params)
        return [codec.run_record(self.path, row) for row in rows]

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
        rows = self._rows(
            """SELECT position, case_id, case_hash, output_hash, output_json, result_json FROM run_outputs
               WHERE run_id = ? ORDER BY position""",
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

    @staticmethod
    def _filters(run_id: str | None, config_hash: str | None, item_id: str | None) -> tuple[str, list[str]]:
        wanted = {"run_id": run_id, "config_hash": config_hash, "item_id": item_id}
        clauses = [f"{column} = ?" for column, value in wanted.items() if value is not None]
        return ("WHERE " + " AND ".join(clauses)) if clauses else "", [v for v in wanted.values() if v is not None]

    def verdicts(
        self, *, run_id: str | None = None, config_hash: str | None = None, item_id: str | None = None
    ) -> list[VerdictRecord]:
        """Stored judge verdicts, oldest first, optionally for one run, one judge config or one item."""
        where, params = self._filters(run_id, config_hash, item_id)
        rows = self._keyed_rows(f"SELECT {_VERDICT_COLUMNS} FROM judge_verdicts {where} ORDER BY id", params)
        return [codec.verdict_record(self.path, row) for row in rows]

    def latest_verdict(self, item_id: str) -> VerdictRecord | None:
        """The most recently stored judge verdict for one item, any judge."""
        rows = self._keyed_rows(
            f"SELECT {_VERDICT_COLUMNS} FROM judge_verdicts WHERE item_id = ? ORDER BY id DESC LIMIT 1", (item_id,)
        )
        return codec.verdict_record(self.path, rows[0]) if rows else None

    def verdict_scores(self, *, config_hash: str | None = None) -> list[StoredVerdict]:
        """What a calibration reads of `verdicts()`, in the same order; the evidence never reaches Python.

        JSON is parsed once per distinct text, so the mappings handed out are shared and read-only.
        """
        where, params = self._filters(None, config_hash, None)
        rows = self._verdict_fields(where, params)
        fields: dict[str, tuple[str, Mapping[str, Any], Mapping[str, Any]]] = {}
        # The integrity check stays cheap: the fields once per distinct text, the item ids once each.
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
        """The first verdict among `where` that fails validation, located (called once one is known to)."""
        return codec.corrupt_verdict(
            self.path, self._keyed_rows(f"SELECT * FROM judge_verdicts {where} ORDER BY id", params)
        )
