"""Every table of a store, its columns and its key: what a whole-store copy reads and writes.

One list for every backend, so a copy from SQLite to PostgreSQL (or back) moves the same columns in
the same order and both sides hash alike (`copy.table_digest`). Parents come before their children
(a run before its outputs, a label before its flag resolution), the order rows are written in.
Two tables mean something by the order their rows were written in (`in_insertion_order`). A table
added by a migration is added here too: `tests/cli/test_store_copy.py` fails until it is.
"""

from __future__ import annotations

from dataclasses import dataclass

Cell = str | int | float | None
"""One stored value as every backend hands it out: text (JSON documents and timestamps as their
stored text), a whole number (flags as 0 or 1), a float, or NULL."""


@dataclass(frozen=True, slots=True)
class TableSpec:
    """One table: its name, its columns in copy order, and the columns that order its rows."""

    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]
    in_insertion_order: bool = False
    """The store reads this table in the order its rows were written (SQLite's implicit rowid, the
    PostgreSQL schema's `rowid` column): it is read, copied and hashed in that order, not by key."""


@dataclass(frozen=True, slots=True)
class TableRows:
    """Every row of one table, cells in `spec.columns` order, rows by key (or as written): its raw content."""

    spec: TableSpec
    rows: list[tuple[Cell, ...]]


def _spec(name: str, columns: str, key: str, *, in_insertion_order: bool = False) -> TableSpec:
    return TableSpec(name, tuple(columns.split()), tuple(key.split()), in_insertion_order)


TABLES: tuple[TableSpec, ...] = (
    _spec("cases", "case_hash case_id split case_json", "case_hash"),
    _spec(
        "runs",
        "run_id suite_hash adapter judge_name judge_config_hash code_version started_at finished_at n_cases "
        "data_json metrics_json",
        "run_id",
        in_insertion_order=True,  # the latest of two runs started at the same time is the later written
    ),
    _spec("run_outputs", "run_id position case_id case_hash output_hash output_json result_json", "run_id case_id"),
    _spec("run_ends", "run_id finished_at n_cases data_json metrics_json", "run_id"),
    _spec("judge_verdicts", "id run_id item_id case_id judge_name config_hash status verdict_json created_at", "id"),
    _spec("review_items", "item_id case_id case_hash output_hash run_id created_at", "item_id"),
    _spec("assignments", "reviewer item_id position seed created_at", "reviewer item_id"),
    _spec(
        "labels",
        "id item_id case_id reviewer revision scores_json note flagged skipped rubric_version revealed created_at "
        "seconds_spent origin not_blind_reason",
        "id",
    ),
    _spec("reveals", "item_id reviewer revealed_at", "item_id reviewer"),
    _spec("adjudications", "id item_id axis score reason adjudicator created_at cites", "id"),
    _spec("inbox", "trace_id miss_json source imported_at", "trace_id", in_insertion_order=True),  # listed so
    _spec("inbox_decisions", "id trace_id decision case_id reason curator decided_at", "id"),
    _spec("exposures", "item_id person view seen seen_at", "item_id person view"),
    _spec("flag_resolutions", "label_id note curator resolved_at", "label_id"),
    _spec("gold_shown", "item_id reviewer blind_scores_json shown_at", "item_id reviewer"),
    _spec(
        "judge_cache", "config_hash case_hash output_hash result_json created_at", "config_hash case_hash output_hash"
    ),
    _spec("label_quarantine", "label_id reason curator quarantined_at", "label_id"),
    _spec("rubrics", "id rubric_version rubric_json published_by published_at", "id"),
    _spec("renames", "id old_name new_name renamed_by renamed_at", "id"),
)
TABLE_SPECS = {spec.name: spec for spec in TABLES}
