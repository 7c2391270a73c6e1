"""What every backend does alike in Python: rows to write built from the typed records, stored rows
read back into them, and the integrity checks on JSON columns (a located `CorruptRowError`).

No SQL and no database type here: the SQLite and PostgreSQL modules differ only in their statements.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from operator import attrgetter
from types import MappingProxyType
from typing import Any, TypeVar

from pydantic import ValidationError

from qaeval_tui.core.models.label import Label
from qaeval_tui.core.models.miss import ProductionMiss
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.store.rows import (
    BadRow,
    CaseRecord,
    CorruptRowError,
    LabelRevision,
    ReviewItemRecord,
    RowCheck,
    RunOutput,
    RunRecord,
    VerdictRecord,
    checked_revision,
)

Row = dict[str, Any]
_R = TypeVar("_R")


def utc_now() -> str:
    """The store's timestamps: ISO-8601 UTC text to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def parse_object(path: str, text: object, table: str, row_id: object, field: str) -> Any:
    """A JSON column's document; text that is not a JSON object is a CorruptRowError naming the row."""
    try:
        value = json.loads(text)  # type: ignore[arg-type]  # anything but text is caught below
    except (TypeError, ValueError) as exc:
        raise CorruptRowError(path, table, row_id, field, f"not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise CorruptRowError(path, table, row_id, field, f"not a JSON object: {str(text)[:60]}")
    return value


# -- rows to write -----------------------------------------------------------------------------


def case_row(case: CaseRecord) -> Row:
    return {"case_hash": case.case_hash, "case_id": case.case_id, "split": case.split, "case_json": dumps(case.case)}


def run_row(run: RunRecord) -> Row:
    header = {key: value for key, value in asdict(run).items() if key not in {"data", "metrics"}}
    return {**header, "data_json": dumps(run.data), "metrics_json": dumps(run.metrics)}


def _run_rows(
    run_id: str, records: Iterable[_R], fields: tuple[str, ...], documents: Mapping[str, Callable[[_R], object]]
) -> Iterator[Row]:
    """A row per record of one of a run's tables: the run's id, `fields` as the record holds them, and
    each document (column: what the record holds) as JSON text."""
    values = attrgetter(*fields)
    for record in records:
        row = dict(zip(fields, values(record), strict=True))
        row["run_id"] = run_id
        for column, document in documents.items():
            row[column] = dumps(document(record))
        yield row


def output_rows(run_id: str, outputs: Iterable[RunOutput]) -> Iterator[Row]:
    documents = {"output_json": attrgetter("output"), "result_json": attrgetter("result")}
    return _run_rows(run_id, outputs, ("position", "case_id", "case_hash", "output_hash"), documents)


def verdict_rows(run_id: str, verdicts: Iterable[VerdictRecord]) -> Iterator[Row]:
    fields = ("item_id", "case_id", "judge_name", "config_hash", "status", "created_at")
    return _run_rows(run_id, verdicts, fields, {"verdict_json": lambda v: v.verdict.to_json()})


def review_item_row(item: ReviewItemRecord, now: str) -> Row:
    return {
        "item_id": item.item_id,
        "case_id": item.case_id,
        "case_hash": item.case_hash,
        "output_hash": item.output_hash,
        "run_id": item.run_id,
        "created_at": now,
    }


def scores_json(scores: object) -> str:
    return json.dumps(scores, ensure_ascii=False, sort_keys=True)


def label_row(label: Label, origin: str) -> Row:
    """A fully specified label revision (its number given, as a file carries it) as a labels row."""
    return {
        "item_id": label.item_id,
        "case_id": label.case_id,
        "reviewer": label.reviewer,
        "scores_json": scores_json(label.scores),
        "note": label.note,
        "flagged": int(label.flagged),
        "skipped": int(label.skipped),
        "rubric_version": label.rubric_version,
        "revealed": int(label.revealed),
        "revision": checked_revision(label.revision, label.item_id, label.reviewer),
        "created_at": label.created_at,
        "seconds_spent": float(label.seconds_spent),
        "origin": origin,
    }


# -- rows read back ----------------------------------------------------------------------------


def run_record(path: str, row: Mapping[str, Any]) -> RunRecord:
    fields = {key: value for key, value in row.items() if not key.endswith("_json")}
    run_id = row["run_id"]
    return RunRecord(
        **fields,
        data=parse_object(path, row["data_json"], "runs", run_id, "data_json"),
        metrics=parse_object(path, row["metrics_json"], "runs", run_id, "metrics_json"),
    )


def verdict_record(path: str, row: Mapping[str, Any]) -> VerdictRecord:
    """A judge_verdicts row, its §8.3 document validated: a hand-edited one is located, never half-read."""
    fields = {key: value for key, value in row.items() if key not in {"verdict_json", "id", "run_id"}}
    try:
        verdict = JudgeVerdict.model_validate_json(row["verdict_json"])
    except (TypeError, ValueError) as exc:  # a pydantic ValidationError is a ValueError
        if not isinstance(exc, ValidationError):
            raise CorruptRowError(path, "judge_verdicts", row["id"], "verdict_json", str(exc)) from None
        error = exc.errors()[0]
        where = ".".join(["verdict_json", *map(str, error["loc"])])
        raise CorruptRowError(path, "judge_verdicts", row["id"], where, error["msg"]) from None
    return VerdictRecord(**fields, verdict=verdict)


def verdict_scores_ok(scores: object) -> bool:
    """Verdict scores as the store writes them: whole numbers (not true/false) or null, by axis name."""
    return isinstance(scores, dict) and all(value is None or type(value) is int for value in scores.values())


def verdict_fields(status: object, judge: object, scores: object) -> tuple[str, Mapping[str, Any], Mapping[str, Any]]:
    """What a calibration reads of one verdict, as read-only mappings; ValueError when qaeval did not write it."""
    if status not in ("ok", "error", "skipped") or not isinstance(judge, dict) or not verdict_scores_ok(scores):
        raise ValueError("a verdict calibration cannot read")
    return str(status), MappingProxyType(judge), MappingProxyType(scores)  # type: ignore[arg-type]


def corrupt_verdict(path: str, rows: Iterable[Mapping[str, Any]]) -> CorruptRowError:
    """The first verdict row that fails validation, located (called once one is known to)."""
    for row in rows:
        verdict = verdict_record(path, row).verdict
        if not verdict_scores_ok(verdict.scores):
            return CorruptRowError(
                path, "judge_verdicts", row["id"], "verdict_json.scores", "a score that is not a whole number or null"
            )
    return CorruptRowError(path, "judge_verdicts", "?", "verdict_json", "a verdict calibration cannot read")


def label_scores_ok(scores: object) -> bool:
    """A scores document as the store writes it: axis name to a whole number (not true/false) or null."""
    return isinstance(scores, dict) and all(
        type(name) is str and (value is None or type(value) is int) for name, value in scores.items()
    )


def bad_scores_text(texts: Iterable[str]) -> tuple[dict[str, dict[str, int | None]], list[str]]:
    """Each distinct scores text parsed and checked once: the parsed ones, and the bad texts (none: all good)."""
    parsed: dict[str, dict[str, int | None]] = {}
    bad: list[str] = []
    for text in set(texts):
        try:
            scores = json.loads(text)
        except ValueError:
            scores = None
        if label_scores_ok(scores):
            parsed[text] = scores
        else:
            bad.append(text)
    return parsed, bad


def bad_scores_rows(rows: Iterable[tuple[int, str]]) -> list[BadRow]:
    """The label rows (id, scores text) holding a bad scores text, located."""
    return [
        BadRow(
            "labels",
            row_id,
            "scores_json",
            f"holds {text[:60]!r}, not a JSON object of axis name to a whole number or null",
        )
        for row_id, text in rows
    ]


LABEL_COLUMNS = (
    "item_id, case_id, reviewer, scores_json, note, flagged, skipped, rubric_version, revealed, revision, "
    "created_at, seconds_spent, origin, id"
)


def label_revision(row: Sequence[Any], scores: dict[str, int | None]) -> LabelRevision:
    """A labels row (in `LABEL_COLUMNS` order) as the §8.2 label, its origin and its id; checked, not revalidated."""
    item_id, case_id, reviewer, _, note, flagged, skipped, version, revealed, revision, created, secs = row[:12]
    label = Label.model_construct(
        item_id=item_id,
        case_id=case_id,
        reviewer=reviewer,
        scores=scores,
        note=note,
        flagged=bool(flagged),
        skipped=bool(skipped),
        rubric_version=version,
        revealed=bool(revealed),
        revision=revision,
        created_at=created,
        seconds_spent=secs,
    )
    return LabelRevision(id=row[13], origin=row[12], label=label)


def checked_rows(
    rows: Iterable[Sequence[Any]], parsed: Mapping[str, dict[str, int | None]], check: RowCheck
) -> list[BadRow]:
    """The problems `check` finds in label rows (in `LABEL_COLUMNS` order) whose scores parsed, located."""
    found: list[BadRow] = []
    for row in rows:
        scores = parsed.get(row[3])
        if scores is None:
            continue  # a bad scores document: named already
        revision = label_revision(row, dict(scores))
        found += [BadRow("labels", revision.id, name, problem) for name, problem in check(revision)]
    return found


def production_miss(path: str, trace_id: str, text: object) -> ProductionMiss:
    """A stored miss, validated as an import validates it: a hand-edited one is located, not half-read."""
    try:
        return ProductionMiss.model_validate_json(text)  # type: ignore[arg-type]  # not text: caught below
    except (TypeError, ValueError) as exc:  # a pydantic ValidationError is a ValueError
        if isinstance(exc, ValidationError):
            error = exc.errors()[0]
            field = ".".join(["miss_json", *map(str, error["loc"])])
            raise CorruptRowError(path, "inbox", trace_id, field, error["msg"]) from None
        raise CorruptRowError(path, "inbox", trace_id, "miss_json", str(exc)) from None


def reveal_reason(revealed_at: str) -> str:
    """Why a label is not blind: its reviewer revealed the judge verdict."""
    return f"revealed the judge verdict at {revealed_at}"


def exposure_reason(view: str, seen: str, seen_at: str) -> str:
    """Why a label is not blind: its reviewer saw hidden information in a curator view."""
    return f"exposed: saw {seen} in the {view} at {seen_at}"


def gold_lock_json(blind_scores: Mapping[str, int | None]) -> str:
    """The blind scores a showing of the gold answer locked, as the `gold_shown` row keeps them."""
    return json.dumps(dict(blind_scores), sort_keys=True)


def gold_lock(path: str, where: str, scores: Mapping[str, Any]) -> dict[str, int | None]:
    """A `gold_shown` row's locked scores, each a whole number or None; anything else is a corrupt row."""
    for name, value in scores.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise CorruptRowError(path, "gold_shown", where, f"blind_scores_json.{name}", f"holds {value!r}")
    return dict(scores)
