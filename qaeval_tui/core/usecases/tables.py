"""Labels, judge verdicts and run results as long tables for other tools (CSV or JSONL).

One row per (item, reviewer, revision, axis), per (item, judge config, axis), and per (run, case,
check or metric): every row carries the ids that join it to the others (`item_id` is the case's
content hash plus the output's hash, `case_id` the readable id, `run_id`, `axis`, `reviewer`,
`judge_config_hash`), so a spreadsheet or a dataframe can put a reviewer's score beside the judge's
and beside the run that produced the answer. The §8.2 / §8.3 files stay the interchange formats;
these are views of the same store, columns documented in the README.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import VerdictRecord

TableFormat = Literal["csv", "jsonl"]
TABLE_FORMATS: tuple[TableFormat, ...] = ("csv", "jsonl")

LABEL_COLUMNS = (
    "item_id", "case_id", "reviewer", "revision", "latest", "axis", "score", "skipped", "flagged",
    "revealed", "rubric_version", "note", "created_at", "seconds_spent",
)  # fmt: skip
VERDICT_COLUMNS = (
    "item_id", "case_id", "judge_name", "judge_model", "judge_config_hash", "axis", "score", "status",
    "outcome", "evidence", "created_at",
)  # fmt: skip
RESULT_COLUMNS = (
    "run_id", "item_id", "case_id", "case_hash", "output_hash", "split", "case_passed", "kind", "name",
    "status", "value", "detail",
)  # fmt: skip

Row = dict[str, Any]


def parse_table_format(value: str) -> TableFormat:
    """A `--format` for a table as typed. Raises UsageError for an unknown one."""
    for fmt in TABLE_FORMATS:
        if value == fmt:
            return fmt
    raise UsageError(f"--format: must be one of {', '.join(TABLE_FORMATS)}, not {value!r}")


def label_rows(labels: Iterable[Label]) -> list[Row]:
    """One row per label revision and axis; `latest` marks the revision that counts (DESIGN §3.5).

    A skipped revision with no scores still gets one row (axis and score empty), so it is counted.
    """
    ordered = sorted(labels, key=lambda label: (label.item_id, label.reviewer, label.revision))
    newest: dict[tuple[str, str], int] = {}
    for label in ordered:
        newest[(label.item_id, label.reviewer)] = label.revision
    rows: list[Row] = []
    for label in ordered:
        common = {
            "item_id": label.item_id,
            "case_id": label.case_id,
            "reviewer": label.reviewer,
            "revision": label.revision,
            "latest": newest[(label.item_id, label.reviewer)] == label.revision,
        }
        rest = {
            "skipped": label.skipped,
            "flagged": label.flagged,
            "revealed": label.revealed,
            "rubric_version": label.rubric_version,
            "note": label.note,
            "created_at": label.created_at,
            "seconds_spent": label.seconds_spent,
        }
        for axis, score in _per_axis(label.scores):
            rows.append({**common, "axis": axis, "score": score, **rest})
    return rows


def _per_axis(scores: Mapping[str, int | None]) -> list[tuple[str | None, int | None]]:
    """(axis, score) in axis order; one empty pair when there are no scores, so the row still shows."""
    pairs: list[tuple[str | None, int | None]] = sorted(scores.items())
    return pairs or [(None, None)]


def verdict_rows(verdicts: Iterable[VerdictRecord]) -> list[Row]:
    """One row per verdict and axis, with the quoted evidence for that axis."""
    rows: list[Row] = []
    for record in sorted(verdicts, key=lambda v: (v.item_id, v.config_hash, v.created_at)):
        verdict = record.verdict
        common = {
            "item_id": record.item_id,
            "case_id": record.case_id,
            "judge_name": record.judge_name,
            "judge_model": verdict.judge.get("model"),
            "judge_config_hash": record.config_hash,
        }
        tail = {"status": verdict.status, "outcome": verdict.outcome, "created_at": verdict.created_at}
        for axis, score in _per_axis(verdict.scores):
            evidence = verdict.evidence.get(axis) if axis is not None else None
            rows.append({**common, "axis": axis, "score": score, **tail, "evidence": evidence})
    return rows


def result_rows(run_id: str, cases: Iterable[Mapping[str, Any]]) -> list[Row]:
    """One row per case and check (kind `check`: status pass/fail, its detail) and per case and
    metric value (kind `metric`: value, empty when the metric does not apply to the case).

    `cases` as a run artifact's `cases` hold them (or a stored run's outputs with their results).
    """
    rows: list[Row] = []
    for case in cases:
        common = {
            "run_id": run_id,
            "item_id": case.get("item_id"),
            "case_id": case["case_id"],
            "case_hash": case.get("case_hash"),
            "output_hash": case.get("output_hash"),
            "split": case.get("split"),
            "case_passed": case.get("passed"),
        }
        for check in case.get("checks") or []:
            rows.append(
                {**common, "kind": "check", "name": check["name"], "status": check["status"], "value": None,
                 "detail": check.get("detail")}
            )  # fmt: skip
        for name, value in (case.get("values") or {}).items():
            rows.append({**common, "kind": "metric", "name": name, "status": None, "value": value, "detail": None})
    return rows


def stored_result_rows(store: StoreBackend, run_id: str | None = None) -> tuple[str, list[Row]]:
    """The results table of a stored run (default: the latest). Raises UsageError when there is none."""
    run = store.get_run(run_id) if run_id is not None else store.latest_run()
    if run is None:
        raise UsageError(
            f"no run {run_id!r} in the store" if run_id is not None else "no run in the store yet; run `qaeval run`"
        )
    cases = [
        {"case_id": o.case_id, "case_hash": o.case_hash, "output_hash": o.output_hash, **o.result}
        for o in store.run_outputs(run.run_id)
    ]
    return run.run_id, result_rows(run.run_id, cases)


def render_table(rows: Sequence[Row], columns: Sequence[str], fmt: TableFormat) -> str:
    """The rows as CSV (a header line; empty cell for null; true/false for booleans; a text cell a
    spreadsheet would run as a formula, starting with = + - @, gets a leading ') or as JSONL (one
    object a line, keys in column order, null kept as null, text exactly as stored)."""
    if fmt == "jsonl":
        return "".join(
            json.dumps({key: row.get(key) for key in columns}, ensure_ascii=False, allow_nan=False) + "\n"
            for row in rows
        )
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(key)) for key in columns])
    return buffer.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and value[:1] in _FORMULA and not _is_number(value):
        # A spreadsheet would run it (=HYPERLINK(...), @SUM(...)): a leading ' keeps it text there.
        return "'" + value
    return str(value)


_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
