"""Labels written by other tools (CSV or JSONL), mapped onto §8.2 labels with a field mapping.

A mapping names, for a label field or an axis, the column (CSV) or key (JSONL; dotted for nested
objects) that holds it; unmapped fields are looked up under their own name, and axis scores also
under a `scores` object. In a score cell, empty means "not scored on this axis" and one of
`null, none, na, n/a, cant_judge` means "can't judge". Columns nobody maps are ignored.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from qaeval_tui.core.errors import Problem, UsageError
from qaeval_tui.core.jsonl import json_object_lines
from qaeval_tui.core.models.golden import CASE_ID_PATTERN
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.review.label_rows import label_problems
from qaeval_tui.core.review.session import score_problems
from qaeval_tui.core.rubric import Rubric

TEXT_FIELDS = ("item_id", "case_id", "reviewer", "note", "created_at", "rubric_version")
BOOL_FIELDS = ("flagged", "skipped", "revealed")
CANT_JUDGE = frozenset({"null", "none", "na", "n/a", "cant_judge", "can't judge"})
_TRUE = frozenset({"true", "yes", "y", "1"})
_FALSE = frozenset({"false", "no", "n", "0", ""})


@dataclass(frozen=True)
class FieldMapping:
    """Label field or axis name -> the other tool's column or key."""

    columns: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, pairs: Sequence[str]) -> FieldMapping:
        """From `field=column` strings (each may also be a comma-separated list of pairs)."""
        columns: dict[str, str] = {}
        for raw in pairs:
            for pair in filter(None, (part.strip() for part in raw.split(","))):
                target, sep, source = pair.partition("=")
                if not sep or not target.strip() or not source.strip():
                    raise UsageError(f"--map {pair!r}: write it as field=column, e.g. reviewer=annotator")
                columns[target.strip().removeprefix("scores.")] = source.strip()
        return cls(columns)

    def check(self, rubric: Rubric) -> None:
        known = {*TEXT_FIELDS, *BOOL_FIELDS, "seconds_spent", *rubric.axis_names}
        unknown = sorted(set(self.columns) - known)
        if unknown:
            raise UsageError(f"--map: unknown field(s) {unknown}; map onto one of {sorted(known)}")


def clipped(raw: object) -> str:
    """A value as a problem line shows it: its repr, cut short (a file's value may be any size)."""
    shown = repr(raw)
    return shown if len(shown) <= 40 else f"{shown[:37]}..."


def _lookup(record: Mapping[str, Any], key: str) -> tuple[bool, Any]:
    value: Any = record
    if key in record:
        return True, record[key]
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return False, None
        value = value[part]
    return True, value


def _score(value: Any) -> tuple[str, int | None]:
    """("absent" | "ok" | "bad", value)."""
    if value is None:
        return "ok", None
    if isinstance(value, bool):
        return "bad", None
    if isinstance(value, int):
        return "ok", value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return "ok", int(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return "absent", None
        if text.lower() in CANT_JUDGE:
            return "ok", None
        try:
            number = float(text)
        except ValueError:
            return "bad", None
        if math.isfinite(number) and number.is_integer():
            return "ok", int(number)
    return "bad", None


def _boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if value is None:
        return False
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


def _records(
    path: Path, fmt: str, problems: list[Problem]
) -> tuple[list[str] | None, list[tuple[int, dict[str, Any]]]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(str(path), 0, "(file)", f"cannot read: {exc}"))
        return None, []
    if fmt == "csv":
        return _csv_records(text, str(path), problems)
    records = list(json_object_lines(text, path, problems))
    return None, records


def _csv_records(text: str, path: str, problems: list[Problem]) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    """The header and each row as {column: cell}. A row with more or fewer cells than the header is
    a problem: its cells no longer line up with their columns (a missing score cell would read as
    "not scored"), and a column named twice would keep only one of its cells."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header: list[str] = []
    rows: list[tuple[int, dict[str, Any]]] = []
    try:
        header = next(reader, [])
        for column in sorted({name for name in header if header.count(name) > 1}):
            problems.append(Problem(path, 1, "(header)", f"column {column!r} appears more than once"))
        for cells in reader:
            if not cells:
                continue  # a blank line
            if len(cells) != len(header):
                what = "missing" if len(cells) < len(header) else "extra"
                problems.append(
                    Problem(
                        path, reader.line_num, "(line)",
                        f"{len(cells)} cells, but the header has {len(header)} columns ({what} cells, or a "
                        "separator in an unquoted cell)",
                    )
                )  # fmt: skip
                continue
            rows.append((reader.line_num, dict(zip(header, cells, strict=True))))
    except csv.Error as exc:
        problems.append(Problem(path, reader.line_num, "(line)", f"invalid CSV: {exc}"))
    return header, rows


def read_foreign_file(
    path: Path,
    fmt: str,
    mapping: FieldMapping,
    rubric: Rubric,
    items_by_case: Mapping[str, list[str]],
    case_ids: Mapping[str, str],
    *,
    default_reviewer: str | None,
    now: str,
    problems: list[Problem],
) -> list[tuple[int, Label]]:
    """Labels (revision 1 as a placeholder) from one foreign file; problems are appended, not raised."""
    mapping.check(rubric)
    where = str(path)
    header, records = _records(path, fmt, problems)
    if header is not None:
        for target, source in mapping.columns.items():
            if source not in header:
                problems.append(Problem(where, 1, f"--map {target}", f"no column {source!r} (columns: {header})"))
    labels: list[tuple[int, Label]] = []
    for line, record in records:
        before = len(problems)

        def problem(name: str, message: str, line: int = line) -> None:
            problems.append(Problem(where, line, name, message))

        def get(name: str, record: dict[str, Any] = record) -> tuple[bool, Any]:
            return _lookup(record, mapping.columns.get(name, name))

        data: dict[str, Any] = {}
        for name in TEXT_FIELDS:
            found, value = get(name)
            if found and value not in (None, ""):
                data[name] = value if isinstance(value, str) else json.dumps(value)
        for name in BOOL_FIELDS:
            found, value = get(name)
            flag = _boolean(value) if found else False
            if flag is None:
                problem(name, f"{value!r} is not true/false")
            data[name] = bool(flag)
        found, seconds = get("seconds_spent")
        try:
            if isinstance(seconds, bool):
                raise TypeError(seconds)
            data["seconds_spent"] = float(seconds) if found and seconds not in (None, "") else 0.0
        except (TypeError, ValueError):
            problem("seconds_spent", f"{seconds!r} is not a number")
        scores: dict[str, int | None] = {}
        _, nested = _lookup(record, "scores")
        for axis in rubric.axis_names:
            found, raw = get(axis)
            in_scores = axis not in mapping.columns and isinstance(nested, Mapping) and axis in nested
            if found and in_scores:  # which one the file meant is not ours to guess
                problem(
                    axis,
                    f"given twice: at the top level and under scores "
                    f"({clipped(raw)} and {clipped(nested[axis])}); keep one",
                )
                continue
            if not found and in_scores:
                found, raw = True, nested[axis]
            if not found:
                continue
            state, value = _score(raw)
            if state == "bad":
                problem(axis, f"{raw!r} is not a score (an integer, or null for can't judge)")
            elif state == "ok":
                scores[axis] = value
        for name, message in score_problems(rubric, scores, require_all=False):
            problem(name, message)
        if not scores and not data["skipped"]:
            problem(
                "scores", f"no axis scores found; map columns onto {list(rubric.axis_names)} with --map axis=column"
            )
        data.setdefault("reviewer", default_reviewer)
        if not data["reviewer"]:
            problem("reviewer", "missing: map a reviewer column or pass --reviewer")
        elif not CASE_ID_PATTERN.match(data["reviewer"]):
            problem("reviewer", "use letters, digits, '.', '_' and '-' only")
        if "item_id" not in data:
            candidates = items_by_case.get(data.get("case_id", ""), [])
            if "case_id" not in data:
                problem("item_id", "missing: map an item_id or a case_id column")
            elif len(candidates) != 1:
                why = "no review item" if not candidates else f"{len(candidates)} review items (several outputs)"
                problem("case_id", f"case {data['case_id']!r} has {why} in the store; give item_id instead")
            else:
                data["item_id"] = candidates[0]
        if "case_id" not in data and "item_id" in data:
            if data["item_id"] in case_ids:
                data["case_id"] = case_ids[data["item_id"]]
            else:
                problem("case_id", f"missing, and item {data['item_id']!r} is not in the store")
        if len(problems) > before:
            continue
        data.setdefault("rubric_version", rubric.version)
        data.setdefault("created_at", now)
        data.setdefault("note", "")
        try:
            label = Label.model_validate({**data, "scores": scores, "revision": 1})
        except ValidationError as exc:
            for error in exc.errors(include_url=False):
                problem(".".join(str(part) for part in error["loc"]), error["msg"])
            continue
        refused = label_problems(label, None)  # the date and the note (the reviewer and scores: above)
        for name, message in refused:
            problem(name, message)
        if not refused:
            labels.append((line, label))
    return labels
