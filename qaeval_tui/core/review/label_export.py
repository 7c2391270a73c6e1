"""Writing label and judge-verdict files (DESIGN §8.2, §8.3) where they can never touch the golden set.

An export folder is refused when it is or lies inside a golden folder, or holds a golden file
(paths resolved, so a link into the golden set counts) or any file that reads as a golden split
(so a copy of the golden folder counts too), and a reviewer is refused when
`<reviewer>.jsonl` would be an unsafe file name or could be taken for something else: a golden
split (`frozen.jsonl`), the verdict export, a hidden file or a device name. All of it is checked
before the first file is written. Exports into one folder take turns on a lock file there, each
file is replaced by the one writer (its permissions kept), and the temporary files of an export
killed midway are removed by the next one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from qaeval_tui.core.atomic_file import (
    golden_split_problem,
    held_lock,
    remove_leftover_temps,
    strict_json,
    write_output,
)
from qaeval_tui.core.errors import InputError, Problem, UsageError
from qaeval_tui.core.golden.loader import split_of
from qaeval_tui.core.models.label import SPLIT_NAMES, VERDICTS_FILENAME, Label, reviewer_file_problem
from qaeval_tui.core.review.quarantine import readable_labels
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.text import one_line

if TYPE_CHECKING:
    from qaeval_tui.core.store.backend import StoreBackend
    from qaeval_tui.core.store.rows import LabelRevision

EXPORT_LOCK = ".qaeval-export.lock"
LABEL_FIELDS = (
    "item_id", "case_id", "reviewer", "scores", "note", "flagged", "skipped",
    "rubric_version", "revealed", "revision", "created_at", "seconds_spent",
)  # fmt: skip


def label_record(label: Label) -> dict[str, Any]:
    """One §8.2 export line, keys in the documented order."""
    data = label.model_dump(mode="json")
    return {key: data[key] for key in LABEL_FIELDS}


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote: revisions per reviewer, verdicts (None: not asked), leftovers removed."""

    folder: Path
    labels: dict[str, int]
    verdicts: int | None
    removed: tuple[Path, ...] = ()
    added: dict[str, int] = field(default_factory=dict)
    quarantined: int = 0
    """Label rows a curator quarantined: never exported."""


def export_folder(
    store: StoreBackend,
    folder: Path,
    *,
    reviewers: Sequence[str] | None = None,
    golden: Iterable[Path] = (),
    inputs: Iterable[Path] = (),
    verdicts: bool = False,
    config_hash: str | None = None,
    rubric: Rubric | None = None,
) -> ExportReport:
    """Write `folder/<reviewer>.jsonl` with every revision (oldest first), and with `verdicts`
    `folder/judge-verdicts.jsonl` (the verdicts of `config_hash`, or all).

    `golden`: the configured golden paths and living file; `inputs`: other files qaeval reads (the
    inbox). None is ever written, nor written beside. Raises UsageError before writing anything
    when the folder, a name or a file is refused, or (given the `rubric`) a stored row is one
    `labels import` would refuse (quarantined rows are left out and counted).
    """
    golden = tuple(golden)
    names = list(reviewers) if reviewers else store.label_reviewers()
    _check_folder(folder, (*golden, *inputs))
    splits = {name.casefold() for name in SPLIT_NAMES} | _split_names(golden)
    refused = [f"reviewer {name!r}: {problem}" for name in names if (problem := reviewer_file_problem(name, splits))]
    by_file: dict[str, str] = {}
    for name in names:
        other = by_file.setdefault(name.casefold(), name)
        if other != name:
            refused.append(f"reviewers {other!r} and {name!r} would share one file on a case-insensitive disk")
    if refused:
        raise UsageError(f"{folder}: nothing exported: {'; '.join(refused)} (name the others with --reviewer)")
    files = [folder / f"{name}.jsonl" for name in names] + ([folder / VERDICTS_FILENAME] if verdicts else [])
    for file in files:
        if file.is_symlink():  # a link could point anywhere, the golden set included
            raise UsageError(f"{file}: refused: it is a link; exports replace plain files only")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder}: cannot write: it is a file, not a folder")
    _check_no_golden_split(folder)
    with held_lock(folder / EXPORT_LOCK):
        removed = remove_leftover_temps(folder, lambda name: name.endswith(".jsonl"))
        # Every file is merged in memory and checked before the first one is written: a conflict in
        # the third reviewer's file leaves the first two as they were.
        merges = {name: merge_labels(folder / f"{name}.jsonl", [row.label for row in _stored(store, name, rubric)])
                  for name in names}  # fmt: skip
        verdict_text, count = (
            merge_verdicts(store, folder / VERDICTS_FILENAME, config_hash=config_hash) if verdicts else (None, None)
        )
        for name, merge in merges.items():
            if merge.added or not (folder / f"{name}.jsonl").exists():
                write_output(folder / f"{name}.jsonl", merge.text)
        if verdict_text is not None:
            write_output(folder / VERDICTS_FILENAME, verdict_text)
    written = {name: merge.total for name, merge in merges.items()}
    added = {name: merge.added for name, merge in merges.items()}
    return ExportReport(folder, written, count, tuple(removed), added, len(store.quarantines()))


def _stored(store: StoreBackend, reviewer: str, rubric: Rubric | None) -> list[LabelRevision]:
    return store.labels(reviewer=reviewer) if rubric is None else readable_labels(store, rubric, reviewer)


def export_labels(
    store: StoreBackend, folder: Path, reviewers: Sequence[str] | None = None, *, golden: Iterable[Path] = ()
) -> dict[str, int]:
    """`export_folder` without verdicts: lines written per reviewer."""
    return export_folder(store, folder, reviewers=reviewers, golden=golden).labels


def export_verdicts(
    store: StoreBackend, path: Path, *, run_id: str | None = None, config_hash: str | None = None
) -> int:
    """Merge stored judge verdicts (§8.3) into `path` (see `merge_verdicts`); returns how many lines
    the file holds."""
    text, total = merge_verdicts(store, path, run_id=run_id, config_hash=config_hash)
    if text is not None:
        write_output(path, text)
    return total


def merge_verdicts(
    store: StoreBackend, path: Path, *, run_id: str | None = None, config_hash: str | None = None
) -> tuple[str | None, int]:
    """The verdict file's new text (None: unchanged) and its line count: one line per item per
    judge config, the latest stored.

    Like a label file, the lines the file already holds are kept verbatim and in order (a
    teammate's, pulled through git), and only an (item, judge config) it lacks is appended: every
    rerun stores verdicts again, and an export per run would otherwise grow without end.
    """
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for row in store.verdicts(run_id=run_id, config_hash=config_hash):  # oldest first: the last one wins
        latest[(row.item_id, row.config_hash)] = row.verdict.to_json()
    held: set[tuple[str, str]] = set()
    kept: list[str] = []
    problems: list[Problem] = []
    if path.is_file():
        try:
            held_text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                [Problem(str(path), 1, "(file)", f"not UTF-8 (byte {exc.start})")], "verdict export"
            ) from None
        for number, raw in enumerate(held_text.splitlines(), start=1):
            if not raw.strip():
                continue
            key = _verdict_key(raw)
            if key is None:
                problems.append(Problem(str(path), number, "(line)", "not a judge verdict line; fix or move the file"))
                continue
            held.add(key)
            kept.append(raw + "\n")
    if problems:
        raise InputError(problems, "the verdict export")
    added = [record for key, record in latest.items() if key not in held]
    lines = [
        strict_json(record, f"{path}:{len(kept) + n}", ensure_ascii=False) + "\n" for n, record in enumerate(added, 1)
    ]
    merged = "".join(kept) + "".join(lines) if lines or not path.exists() else None
    return merged, len(kept) + len(lines)


def _verdict_key(raw: str) -> tuple[str, str] | None:
    """A verdict line's (item, judge config hash), or None when it is not one."""
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    judge = record.get("judge") if isinstance(record, dict) else None
    item_id = record.get("item_id") if isinstance(record, dict) else None
    config_hash = judge.get("config_hash") if isinstance(judge, dict) else None
    if not isinstance(item_id, str) or not isinstance(config_hash, str):
        return None
    return (item_id, config_hash)


@dataclass(frozen=True)
class LabelMerge:
    """A label file's new text: the lines it held, verbatim and in order, then the revisions it lacked."""

    text: str
    total: int
    added: int


def merge_labels(path: Path, labels: Sequence[Label]) -> LabelMerge:
    """Merge `labels` into what `path` holds, keyed by (item, reviewer, revision); nothing is lost.

    A teammate's file pulled through git keeps every line; a revision the file lacks is appended.
    The same item, reviewer and revision with other content is a conflict: InputError (exit 1)
    naming file:line, and nothing is written. So is a line that is not a label.
    """
    held: dict[tuple[str, str, int], tuple[int, dict[str, Any]]] = {}
    kept: list[str] = []
    problems: list[Problem] = []
    if path.is_file():
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                [Problem(str(path), 1, "(file)", f"not UTF-8 (byte {exc.start})")], "label export"
            ) from None
        for number, raw in enumerate(text.splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                record = label_record(Label.model_validate(json.loads(raw)))
            except (ValueError, ValidationError) as exc:
                message = one_line(str(exc).splitlines()[0]) if str(exc) else "invalid"
                problems.append(
                    Problem(str(path), number, "(line)", f"not a label line ({message}); fix or move the file")
                )
                continue
            held.setdefault(_label_key(record), (number, record))
            kept.append(raw + "\n")
    added: list[str] = []
    for label in labels:
        record = label_record(label)
        place = held.get(_label_key(record))
        if place is None:
            added.append(strict_json(record, f"{path}:{len(kept) + len(added) + 1}", ensure_ascii=False) + "\n")
            held[_label_key(record)] = (0, record)
        elif place[0] and place[1] != record:
            differs = ", ".join(key for key in LABEL_FIELDS if place[1].get(key) != record.get(key))
            problems.append(
                Problem(
                    str(path), place[0], "revision",
                    f"conflict: item {record['item_id']!r} revision {record['revision']} of {record['reviewer']!r} "
                    f"differs from the store ({differs}); the file was left as it is",
                )
            )  # fmt: skip
    if problems:
        raise InputError(problems, "the label export")
    return LabelMerge("".join(kept) + "".join(added), len(kept) + len(added), len(added))


def _label_key(record: dict[str, Any]) -> tuple[str, str, int]:
    return (str(record["item_id"]), str(record["reviewer"]).casefold(), int(record["revision"]))


def _check_folder(folder: Path, protected: Sequence[Path]) -> None:
    """UsageError when `folder` is or lies inside a golden folder, or holds a file qaeval reads."""
    real = folder.resolve()
    for path in protected:
        place = path.resolve()
        reason = None
        if _is_folder(place):
            if real == place or place in real.parents:
                reason = f"it is inside the golden folder {path}"
        elif real == place:
            reason = f"it is {path}, a file qaeval reads"
        elif real == place.parent:
            reason = f"it holds {path}"
        if reason is not None:
            raise UsageError(f"{folder}: refused: {reason}; export labels to a folder of their own (paths.labels)")


def _check_no_golden_split(folder: Path) -> None:
    """UsageError when `folder` holds a golden split the config does not name (a copy of the golden
    folder, `golden_buggy/`): writing `<reviewer>.jsonl` there would add a split to that set."""
    if not folder.is_dir():
        return
    for file in sorted(folder.glob("*.jsonl")):
        if golden_split_problem(file) is not None:
            raise UsageError(
                f"{folder}: refused: it holds {file.name}, a golden split (its first line is a golden case); "
                "export labels to a folder of their own (paths.labels)"
            )


def _is_folder(path: Path) -> bool:
    return path.is_dir() or (not path.exists() and path.suffix != ".jsonl")


def _split_names(golden: Iterable[Path]) -> set[str]:
    """The split names of the configured golden files (lower case), as far as they can be listed."""
    names: set[str] = set()
    for path in golden:
        files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
        names.update(split_of(file).casefold() for file in files if file.suffix == ".jsonl")
    return names
