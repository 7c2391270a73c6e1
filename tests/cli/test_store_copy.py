"""`qaeval store copy`: a whole store moved into an empty one loses nothing, proves it, and refuses
to copy into a store that holds anything. SQLite to SQLite here; tests/pg covers PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.rows import LabelDraft
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.store.tables import TABLES
from tests.full_store import add_history, assert_every_table_filled, build_full_store

runner = CliRunner()


def copy(source: Path | str, target: Path | str, *extra: str) -> Result:
    return runner.invoke(app, ["store", "copy", "--from", str(source), "--to", str(target), *extra])


def contents(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table's rows, read straight from the file (not through the code under test)."""
    with sqlite3.connect(db) as conn:
        return {
            spec.name: conn.execute(f"SELECT * FROM {spec.name} ORDER BY {', '.join(spec.key)}").fetchall()
            for spec in TABLES
        }


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with rows in every table (built once: the tests copy it, never change it)."""
    root = tmp_path_factory.mktemp("full")
    build_full_store(root / "project", str(root / "source.db"))
    with Store.open(root / "source.db") as store:
        add_history(store)
        assert_every_table_filled(store)
    return root / "source.db"


def test_every_table_of_a_fresh_store_is_one_the_copy_moves() -> None:
    # A migration adding a table must add it to tables.TABLES too, or `store copy` would lose it.
    with sqlite3.connect(":memory:") as conn:
        Store(conn, ":memory:").migrate()
        found = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        columns = {
            name: [row[1] for row in conn.execute(f"PRAGMA table_info({name})")] for name in found - {"sqlite_sequence"}
        }
    assert {spec.name: sorted(spec.columns) for spec in TABLES} == {name: sorted(c) for name, c in columns.items()}


def test_a_copy_holds_every_row_of_every_table_ids_and_history_included(full: Path, tmp_path: Path) -> None:
    result = copy(full, tmp_path / "copy.db")
    assert result.exit_code == 0, result.output
    assert contents(tmp_path / "copy.db") == contents(full)
    assert "row counts and content hashes equal in every table" in result.stdout
    for spec in TABLES:
        assert f"{spec.name} " in result.stdout


def test_a_copy_goes_on_with_the_history_after_the_last_copied_revision(full: Path, tmp_path: Path) -> None:
    assert copy(full, tmp_path / "copy.db").exit_code == 0
    with Store.open(tmp_path / "copy.db") as store:
        before = store.labels()
        item = before[-1].label
        draft = LabelDraft(
            item_id=item.item_id, case_id=item.case_id, reviewer=item.reviewer, scores={}, rubric_version="1"
        )
        added = store.append_label(draft)
    assert added.id > max(row.id for row in before)
    assert (
        added.label.revision
        == max(
            row.label.revision
            for row in before
            if row.label.item_id == item.item_id and row.label.reviewer == item.reviewer
        )
        + 1
    )


def test_runs_and_the_inbox_keep_the_order_they_were_written_in(full: Path, tmp_path: Path) -> None:
    assert copy(full, tmp_path / "copy.db").exit_code == 0
    listed = []
    for db in (full, tmp_path / "copy.db"):
        with Store.open(db) as store:
            listed.append(([e.trace_id for e in store.inbox_entries()], [r.run_id for r in store.list_runs()]))
    assert listed[0][0][-2:] == ["zz-came-first", "aa-came-last"]
    assert listed[1] == listed[0]


def test_the_json_report_names_every_table_with_its_count_and_hash(full: Path, tmp_path: Path) -> None:
    result = copy(full, tmp_path / "copy.db", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["equal"] is True
    expected = {name: len(rows) for name, rows in contents(full).items()}
    assert {entry["table"]: entry["rows"] for entry in report["tables"]} == expected
    assert all(len(entry["sha256"]) == 64 for entry in report["tables"])


def test_exports_agreement_and_calibration_of_a_copy_are_byte_for_byte_the_sources(full: Path, tmp_path: Path) -> None:
    assert copy(full, tmp_path / "copy.db").exit_code == 0
    outputs = {}
    for name in ("source", "copy"):
        db = full if name == "source" else tmp_path / "copy.db"
        export = runner.invoke(app, ["labels", "export", "--db", str(db), "--out", str(tmp_path / name), "--verdicts"])
        assert export.exit_code == 0, export.output
        agreement = runner.invoke(app, ["agreement", "--db", str(db), "--json"])
        calibrate = runner.invoke(app, ["calibrate", "--db", str(db), "--json"])
        files = {p.name: p.read_bytes() for p in sorted((tmp_path / name).iterdir())}
        reports = [result.stdout.replace(str(db), "STORE") for result in (agreement, calibrate)]  # names its store
        outputs[name] = (files, *reports)
    assert len(outputs["source"][0]) >= 4  # ana, ben, chloe, dora and the verdicts
    assert outputs["copy"] == outputs["source"]


def test_a_target_that_holds_anything_is_refused_and_left_as_it_was(full: Path, tmp_path: Path) -> None:
    target = tmp_path / "busy.db"
    with Store.open(target) as store:
        store.record_reveal("some-item", "ana")
    before = target.read_bytes(), contents(target)
    result = copy(full, target)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        f"error: {target}: the target store is not empty (reveals (1)); copy into an empty store; nothing was changed"
    )
    assert (target.read_bytes(), contents(target)) == before


def test_a_missing_source_or_the_same_store_twice_is_refused(full: Path, tmp_path: Path) -> None:
    missing = copy(tmp_path / "nothing.db", tmp_path / "copy.db")
    assert missing.exit_code == 2 and "nothing.db: no such store" in missing.stderr
    assert not (tmp_path / "nothing.db").exists() and not (tmp_path / "copy.db").exists()
    same = copy(full, full)
    assert same.exit_code == 2 and "the source and the target are the same store" in same.stderr


def _target_with_trigger(path: Path, trigger: str) -> None:
    with Store.open(path):
        pass
    with sqlite3.connect(path) as conn:
        conn.execute(trigger)


@pytest.mark.parametrize(
    ("trigger", "problem"),
    [
        (  # a target that silently drops a row: the count differs
            "CREATE TRIGGER drop_one BEFORE INSERT ON inbox WHEN NEW.trace_id LIKE '%3f9a61' "
            "BEGIN SELECT RAISE(IGNORE); END",
            "inbox: 12 row(s) hashing",
        ),
        (  # a target that rewrites a value: same count, another hash
            "CREATE TRIGGER rewrite AFTER INSERT ON cases "
            "BEGIN UPDATE cases SET split = 'x' WHERE case_hash = NEW.case_hash; END",
            "cases: 39 row(s) hashing",
        ),
    ],
)
def test_a_target_that_does_not_read_back_the_source_is_exit_1_and_keeps_nothing(
    full: Path, tmp_path: Path, trigger: str, problem: str
) -> None:
    target = tmp_path / "odd.db"
    _target_with_trigger(target, trigger)
    result = copy(full, target)
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {target}: the copy does not match {full} (") and problem in line
    assert line.endswith("; nothing was kept")
    assert all(not rows for rows in contents(target).values())


@pytest.mark.parametrize("target", ["", "  ", ":memory:", "file::memory:?cache=shared"])
def test_a_target_sqlite_would_discard_is_refused_not_claimed_copied(full: Path, tmp_path: Path, target: str) -> None:
    result = copy(full, target)
    assert result.exit_code == 2, result.output
    assert "copied" not in result.stdout and "not a store that outlives the copy" in result.stderr
    assert "--to" in result.stderr
