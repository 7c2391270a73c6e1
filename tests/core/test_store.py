"""The store: schema migrations, WAL, busy timeout, append-only runs and labels, reopen."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.rows import CaseRecord, RunOutput, RunRecord, StoreConflictError
from qaeval_tui.core.store.sqlite import APPEND_ONLY, SCHEMA_VERSION, Store


def a_run(run_id: str = "r1") -> RunRecord:
    return RunRecord(
        run_id=run_id,
        suite_hash="s",
        adapter="hub",
        judge_name="mech",
        judge_config_hash="j",
        code_version="0.1.0",
        started_at="2026-11-01T00:00:00Z",
        finished_at="2026-11-01T00:00:01Z",
        n_cases=1,
        data={"paths": ["golden"]},
        metrics={"faithfulness_rate": 1.0},
    )


def an_output(case_id: str = "c1") -> RunOutput:
    return RunOutput(position=0, case_id=case_id, case_hash="ch", output_hash="oh", output={"answer": "x"}, result={})


def test_new_store_is_migrated_in_wal_mode(tmp_path: Path) -> None:
    with Store.open(tmp_path / "deep" / "q.db") as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.journal_mode() == "wal"
        assert {"cases", "runs", "run_outputs", "labels", "assignments", "adjudications", "inbox"} <= set(
            store.table_names()
        )
        assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000


def test_reopen_keeps_data_and_does_not_remigrate(tmp_path: Path) -> None:
    path = tmp_path / "q.db"
    with Store.open(path) as store:
        store.insert_run(a_run(), [an_output()], [])
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert [run.run_id for run in store.list_runs()] == ["r1"]
        assert store.run_outputs("r1")[0].output == {"answer": "x"}


@pytest.mark.parametrize("table", APPEND_ONLY)
def test_append_only_tables_refuse_update_and_delete(tmp_path: Path, table: str) -> None:
    with Store.open(tmp_path / "q.db") as store:
        store.insert_run(a_run(), [an_output()], [])
        store.conn.execute("INSERT INTO inbox VALUES ('t1', '{}', 'f', 'now')")
        rows = {
            "labels": "INSERT INTO labels (item_id, case_id, reviewer, revision, scores_json, note, flagged, skipped, "
            "rubric_version, revealed, created_at, seconds_spent, origin) "
            "VALUES ('i','c','ana',1,'{}','',0,0,'1',0,'now',1.0,'tui')",
            "judge_verdicts": "INSERT INTO judge_verdicts (run_id, item_id, case_id, judge_name, config_hash, status, "
            "verdict_json, created_at) VALUES ('r1','i','c','m','h','ok','{}','now')",
            "adjudications": "INSERT INTO adjudications (item_id, axis, score, reason, adjudicator, created_at) "
            "VALUES ('i','faithfulness',2,'r','lead','now')",
            "inbox_decisions": "INSERT INTO inbox_decisions (trace_id, decision, case_id, reason, curator, decided_at) "
            "VALUES ('t1','rejected',NULL,'dup','dana','now')",
        }
        if table in rows:
            store.conn.execute(rows[table])
        assert store.count(table) == 1
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.conn.execute(f"UPDATE {table} SET rowid = rowid")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.conn.execute(f"DELETE FROM {table}")
        assert store.count(table) == 1


def test_failed_run_insert_writes_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path / "q.db") as store:
        with pytest.raises(StoreConflictError):
            store.insert_run(a_run(), [an_output("c1"), an_output("c1")], [])  # duplicate (run, case)
        assert store.count("runs") == 0 and store.count("run_outputs") == 0


def test_cases_are_content_addressed(tmp_path: Path) -> None:
    with Store.open(tmp_path / "q.db") as store:
        assert store.upsert_cases([CaseRecord("h1", "c1", "frozen", {"id": "c1"})]) == 1
        assert store.upsert_cases([CaseRecord("h1", "c1", "frozen", {"id": "c1"})]) == 0
        assert store.case_json("h1") == {"id": "c1"}


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "q.db"
    with Store.open(path) as store:
        store.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(UsageError, match="newer than this qaeval"):
        Store.open(path)


def test_a_file_that_is_not_sqlite_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "q.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(UsageError, match="not a usable SQLite database"):
        Store.open(path)
