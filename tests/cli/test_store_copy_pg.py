"""`qaeval store copy` to and from PostgreSQL (a real throwaway server): SQLite -> PostgreSQL -> SQLite
gives back every table and, byte for byte, every exported label file and the agreement and
calibration reports; a PostgreSQL target holding anything is refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.postgres.store import PgStore
from qaeval_tui.core.store.rows import LabelDraft
from qaeval_tui.core.store.sqlite import Store
from tests.cli.test_store_copy import contents, copy
from tests.full_store import add_history, assert_every_table_filled, build_full_store
from tests.pg.server import PgServer
from tests.pg.team_helpers import secured_store, seed

runner = CliRunner()


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("full-pg")
    build_full_store(root / "project", str(root / "source.db"))
    with Store.open(root / "source.db") as store:
        add_history(store)
        assert_every_table_filled(store)
    return root / "source.db"


def outputs(db: str, out: Path) -> tuple[dict[str, bytes], str, str]:
    """Every exported label file (verdicts included) and the agreement and calibration JSON of a store."""
    export = runner.invoke(app, ["labels", "export", "--db", db, "--out", str(out), "--verdicts"])
    assert export.exit_code == 0, export.output
    reports = [runner.invoke(app, [command, "--db", db, "--json"]) for command in ("agreement", "calibrate")]
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    return files, *(result.stdout.replace(db, "STORE") for result in reports)  # type: ignore[return-value]


def test_sqlite_to_postgresql_and_back_gives_back_every_row_and_every_export(
    full: Path, pg_url: str, tmp_path: Path
) -> None:
    up = copy(full, pg_url)
    assert up.exit_code == 0, up.output
    assert "row counts and content hashes equal in every table" in up.stdout
    assert "***" in up.stdout and pg_url.split("@")[0].split(":")[-1] not in up.stdout  # no password shown
    down = copy(pg_url, tmp_path / "back.db")
    assert down.exit_code == 0, down.output
    assert contents(tmp_path / "back.db") == contents(full)
    assert outputs(str(tmp_path / "back.db"), tmp_path / "from-back") == outputs(str(full), tmp_path / "from-source")
    with sqlite3.connect(tmp_path / "back.db") as conn:  # the counters go on after the copied ids
        counters = dict(conn.execute("SELECT name, seq FROM sqlite_sequence").fetchall())
        assert counters["labels"] == max(row[0] for row in contents(full)["labels"])


def test_postgresql_numbers_new_history_after_the_copied_ids_and_keeps_the_inbox_order(full: Path, pg_url: str) -> None:
    assert copy(full, pg_url).exit_code == 0
    with PgStore.open(pg_url) as pg, Store.open(full) as sqlite:
        assert [e.trace_id for e in pg.inbox_entries()] == [e.trace_id for e in sqlite.inbox_entries()]
        assert [r.run_id for r in pg.list_runs()] == [r.run_id for r in sqlite.list_runs()]
        last = sqlite.labels()[-1]
        item = last.label
        added = pg.append_label(LabelDraft(item.item_id, item.case_id, item.reviewer, {}, "1", skipped=True))
        last_id = max(int(str(row[0])) for row in sqlite.table_rows("labels").rows)  # a quarantined row included
        assert added.id == last_id + 1 and added.label.revision == item.revision + 1
        pg.insert_adjudication(item.item_id, "faithfulness", 1, "later", "ben")  # no id clash either


def test_a_postgresql_target_that_holds_anything_is_refused_and_left_as_it_was(full: Path, pg_url: str) -> None:
    with PgStore.open(pg_url) as store:
        store.record_reveal("some-item", "ana")
    result = copy(full, pg_url)
    assert result.exit_code == 2, result.output
    assert "the target store is not empty (reveals (1))" in result.stderr and "nothing was changed" in result.stderr
    with PgStore.open(pg_url) as store:
        assert store.count("reveals") == 1 and store.count("labels") == 0


def test_text_postgresql_cannot_hold_is_a_located_error_and_the_target_stays_empty(
    full: Path, pg_url: str, tmp_path: Path
) -> None:
    """SQLite keeps a NUL character in text (a system's answer, a case may carry one); PostgreSQL's text
    cannot: the copy names the table, row and column, exits 2 without a traceback, and writes nothing."""
    source = tmp_path / "nul.db"
    source.write_bytes(full.read_bytes())
    with sqlite3.connect(source) as conn:
        (case_hash,) = conn.execute("SELECT min(case_hash) FROM cases").fetchone()
        conn.execute("UPDATE cases SET case_json = case_json || char(0) WHERE case_hash = ?", (case_hash,))
    result = copy(source, pg_url)
    assert result.exit_code == 2, result.output
    assert f"cases {case_hash}: case_json holds a NUL character" in result.stderr
    assert "nothing was changed" in result.stderr and "Traceback" not in result.output
    with PgStore.open(pg_url) as store:
        assert all(store.count(table) == 0 for table in ("cases", "runs", "labels"))


def test_a_copy_that_fails_leaves_no_new_sqlite_file_behind(pg_server: PgServer, pg_url: str, tmp_path: Path) -> None:
    """A reviewer's login may not read the whole store: the copy stops, and the file it would have
    created is not left behind as an empty store that looks like a finished copy."""
    for store in secured_store(pg_server, pg_url):
        reviewer_url = store.login("ana")
        seed(store, store.name("ana"), store.name("ben"))
        result = copy(reviewer_url, tmp_path / "mine.db")
        assert result.exit_code == 2, result.output
        assert "may not do that" in result.stderr and "nothing was changed" in result.stderr
        assert not (tmp_path / "mine.db").exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == []
