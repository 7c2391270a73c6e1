"""Label and judge-verdict files (DESIGN §8.2, §8.3): strict reading and idempotent import (export: label_export).

Reading is all-or-nothing: every problem is reported as `path:line: field: message` and nothing
is imported when any exists. Import is idempotent: a native line whose (item, reviewer, revision)
is already stored with the same content changes nothing; a line from another tool (no revision)
is matched on its content, so importing the same file twice adds nothing the second time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from qaeval_tui.core.errors import InputError, Problem, UsageError
from qaeval_tui.core.golden.loader import problems_from_validation
from qaeval_tui.core.hashing import canonical_json
from qaeval_tui.core.jsonl import json_object_lines
from qaeval_tui.core.models.label import VERDICTS_FILENAME, Label
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.review.label_export import (
    LABEL_FIELDS,
    export_labels,
    export_verdicts,
    label_record,
)
from qaeval_tui.core.review.label_rows import label_problems
from qaeval_tui.core.review.labels_foreign import FieldMapping, read_foreign_file
from qaeval_tui.core.review.rubric_fit import score_misfits
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.rows import StoreConflictError

__all__ = [
    "LABEL_FIELDS",
    "VERDICTS_FILENAME",
    "FieldMapping",
    "Format",
    "ImportReport",
    "expand_label_paths",
    "export_labels",
    "export_verdicts",
    "import_labels",
    "label_record",
    "read_labels",
    "read_verdicts",
]

Format = Literal["jsonl", "csv"]


def expand_label_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given; a folder as its `*.jsonl` label files (the judge-verdict export left out)."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(p for p in sorted(path.glob("*.jsonl")) if p.name != VERDICTS_FILENAME)
        elif path.is_file():
            found.append(path)
        else:
            raise UsageError(f"{path}: no such file or folder")
    return found


def _json_lines(path: Path, problems: list[Problem]) -> Iterable[tuple[int, dict[str, Any]]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(str(path), 0, "(file)", f"cannot read: {exc}"))
        return
    yield from json_object_lines(text, path, problems)


def _validation_problems(path: Path, line: int, exc: ValidationError) -> list[Problem]:
    # The golden loader's wording: one problem per field, union members' names left out of the field.
    return problems_from_validation(exc, str(path), line)


@dataclass(frozen=True)
class _Located:
    label: Label
    path: str
    line: int


def _read_native(paths: Sequence[Path], rubric: Rubric | None) -> list[_Located]:
    problems: list[Problem] = []
    seen: dict[tuple[str, str, int], _Located] = {}
    for path in paths:
        for line, data in _json_lines(path, problems):
            try:
                label = Label.model_validate(data, strict=True)
            except ValidationError as exc:
                problems.extend(_validation_problems(path, line, exc))
                continue
            problems += [Problem(str(path), line, name, message) for name, message in label_problems(label, rubric)]
            key = (label.item_id, label.reviewer, label.revision)
            earlier = seen.get(key)
            if earlier is not None and _fingerprint(earlier.label) != _fingerprint(label):
                problems.append(
                    Problem(
                        str(path), line, "revision",
                        f"revision {label.revision} of {label.reviewer} on {label.item_id} differs from "
                        f"{earlier.path}:{earlier.line}",
                    )
                )  # fmt: skip
                continue
            seen.setdefault(key, _Located(label, str(path), line))
    if problems:
        raise InputError(problems, "label files")
    return list(seen.values())


def read_labels(paths: Iterable[str | Path], rubric: Rubric | None = None) -> list[Label]:
    """Strictly read §8.2 label files or folders; scores are checked against `rubric` when its version matches."""
    return [located.label for located in _read_native(expand_label_paths(paths), rubric)]


def read_verdicts(paths: Iterable[str | Path], rubric: Rubric | None = None) -> list[JudgeVerdict]:
    """Strictly read §8.3 judge-verdict files (a folder means its `judge-verdicts.jsonl`); scores are
    checked against `rubric` when the verdict's rubric version (none given: the current one) is its version."""
    problems: list[Problem] = []
    verdicts: list[JudgeVerdict] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            path = path / VERDICTS_FILENAME
        if not path.is_file():
            raise UsageError(f"{path}: no such verdict file")
        for line, data in _json_lines(path, problems):
            try:
                verdict = JudgeVerdict.model_validate(data, strict=True)
            except ValidationError as exc:
                problems.extend(_validation_problems(path, line, exc))
                continue
            found = _verdict_problems(verdict, rubric)
            problems.extend(Problem(str(path), line, name, message) for name, message in found)
            if not found:
                verdicts.append(verdict)
    if problems:
        raise InputError(problems, "verdict files")
    return verdicts


def _verdict_problems(verdict: JudgeVerdict, rubric: Rubric | None) -> list[tuple[str, str]]:
    judge = verdict.judge
    if "config_hash" not in judge:
        return [("judge.config_hash", "required: binds the verdict to one judge")]
    for key in ("config_hash", "rubric_version"):
        if key in judge and not isinstance(judge[key], str):
            return [(f"judge.{key}", f"must be text, not {judge[key]!r}")]
    if rubric is None or judge.get("rubric_version", rubric.version) != rubric.version:
        return []
    return score_misfits(rubric, verdict.scores)


def _fingerprint(label: Label | Mapping[str, Any], *, with_revision: bool = True) -> str:
    data = label.model_dump(mode="json") if isinstance(label, Label) else dict(label)
    keys = ["item_id", "reviewer", "scores", "note", "flagged", "skipped", "rubric_version", "revealed"]
    return canonical_json({key: data[key] for key in [*keys, "revision"] if with_revision or key != "revision"})


def _blind_after_exposure(added: Iterable[_Located], unblinded: Mapping[tuple[str, str], str]) -> list[Problem]:
    """A revision the store does not hold yet, claiming to be blind though its reviewer's seeing the item's
    hidden information (a reveal or an exposure) is on record: it comes after that in the store's order,
    so it is not blind (DESIGN §4), whatever its `created_at` says (a client writes that)."""
    problems: list[Problem] = []
    for entry in added:
        label = entry.label
        since = None if label.revealed else unblinded.get((label.item_id, label.reviewer))
        if since is None:
            continue
        problems.append(
            Problem(
                entry.path, entry.line, "revealed",
                f"false, but the store records that {label.reviewer} saw hidden information on {label.item_id} "
                f"(a reveal or a curator view, at {since}), and a revision it does not hold yet comes after that, "
                f"whatever its created_at ({label.created_at}) says: set revealed to true",
            )
        )  # fmt: skip
    return problems


@dataclass(frozen=True)
class ImportReport:
    """What an import did (or, with dry_run, would do)."""

    files: tuple[str, ...]
    lines: int
    added: int
    unchanged: int
    added_by_reviewer: dict[str, int] = field(default_factory=dict)
    unknown_items: int = 0
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "files": list(self.files), "lines": self.lines, "added": self.added, "unchanged": self.unchanged,
            "added_by_reviewer": self.added_by_reviewer, "unknown_items": self.unknown_items, "dry_run": self.dry_run,
        }  # fmt: skip


def _format_of(path: Path, fmt: Format | None) -> Format:
    if fmt is not None:
        return fmt
    if path.suffix.lower() == ".csv":
        return "csv"
    return "jsonl"


def import_labels(
    store: StoreBackend,
    paths: Iterable[str | Path],
    rubric: Rubric,
    *,
    fmt: Format | None = None,
    mapping: FieldMapping | None = None,
    reviewer: str | None = None,
    dry_run: bool = False,
) -> ImportReport:
    """Bring label files into the store in one transaction, or nothing at all (InputError).

    Native §8.2 JSONL (no mapping) keeps its revision numbers. CSV, or any file read with a
    field mapping, is "foreign": columns are mapped onto label fields, and a line whose content is
    already stored for that item and reviewer is skipped; others become new revisions.
    """
    files = expand_label_paths(paths)
    if not files:
        raise UsageError("no label files to import")
    foreign = mapping is not None or any(_format_of(p, fmt) == "csv" for p in files)
    case_ids = store.case_ids_by_item()
    items_by_case: dict[str, list[str]] = {}
    for item_id, case_id in case_ids.items():
        items_by_case.setdefault(case_id, []).append(item_id)
    problems: list[Problem] = []
    located: list[_Located] = []
    if foreign:
        for path in files:
            located.extend(
                _Located(label, str(path), line)
                for line, label in read_foreign_file(
                    path, _format_of(path, fmt), mapping or FieldMapping(), rubric, items_by_case, case_ids,
                    default_reviewer=reviewer, now=utc_now(), problems=problems,
                )
            )  # fmt: skip
    else:
        try:
            located = _read_native(files, rubric)
        except InputError as exc:
            problems.extend(exc.problems)
    for entry in located:
        known = case_ids.get(entry.label.item_id)
        if known is not None and known != entry.label.case_id:
            problems.append(
                Problem(entry.path, entry.line, "case_id", f"item {entry.label.item_id} is case {known!r} in the store")
            )
    if problems:
        raise InputError(problems, "label import")

    people = store.person_names()  # a renamed person's lines, written under a former name, are theirs now
    if people:
        located = [
            _Located(e.label.model_copy(update={"reviewer": people.current(e.label.reviewer)}), e.path, e.line)
            if people.current(e.label.reviewer) != e.label.reviewer
            else e
            for e in located
        ]
    existing = [row.label for row in store.labels()]
    by_key = {(r.item_id, r.reviewer, r.revision): r for r in existing}
    contents = {_fingerprint(r, with_revision=False) for r in existing}
    next_revision: dict[tuple[str, str], int] = {}
    for r in existing:
        pair = (r.item_id, r.reviewer)
        next_revision[pair] = max(next_revision.get(pair, 1), r.revision + 1)
    to_add: list[Label] = []
    added: list[_Located] = []
    unchanged = 0
    for entry in located:
        label = entry.label
        if foreign:
            content = _fingerprint(label, with_revision=False)
            if content in contents:
                unchanged += 1
                continue
            contents.add(content)
            pair = (label.item_id, label.reviewer)
            label = label.model_copy(update={"revision": next_revision.get(pair, 1)})
            next_revision[pair] = label.revision + 1
        else:
            stored = by_key.get((label.item_id, label.reviewer, label.revision))
            if stored is not None:
                if _fingerprint(stored) == _fingerprint(label):
                    unchanged += 1
                    continue
                problems.append(
                    Problem(
                        entry.path, entry.line, "revision",
                        f"the store already holds a different revision {label.revision} of {label.reviewer} on "
                        f"{label.item_id}; labels are append-only, so give this change a new revision",
                    )
                )  # fmt: skip
                continue
        to_add.append(label)
        added.append(entry)
    problems.extend(_blind_after_exposure(added, store.unblinded_at()))
    if problems:
        raise InputError(problems, "label import")
    added_by: dict[str, int] = {}
    for row in to_add:
        added_by[row.reviewer] = added_by.get(row.reviewer, 0) + 1
    if to_add and not dry_run:
        try:
            store.insert_labels(to_add, origin="import")
        except StoreConflictError as exc:
            raise UsageError(
                f"labels changed in {store.path} while importing, or a line repeats the revision of a quarantined "
                f"row ({exc}); run the import again, or give that line a new revision"
            ) from exc
    return ImportReport(
        files=tuple(str(p) for p in files),
        lines=len(located),
        added=len(to_add),
        unchanged=unchanged,
        added_by_reviewer=dict(sorted(added_by.items())),
        unknown_items=len({e.label.item_id for e in located if e.label.item_id not in case_ids}),
        dry_run=dry_run,
    )
