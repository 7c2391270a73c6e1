"""`qaeval verdicts import`: another judge's scores, read strictly, as a §8.3 verdict file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from qaeval_tui.core.atomic_file import check_output_target, strict_json, write_output
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.labels_io import FieldMapping
from qaeval_tui.core.review.verdicts_import import ValueMap, foreign_judge, read_foreign_verdicts
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.store.codec import utc_now


@dataclass(frozen=True)
class ImportedVerdicts:
    """What an import read (and wrote, unless a dry run): counts and the foreign judge it is bound to."""

    count: int
    judge_name: str
    judge_model: str
    config_hash: str
    mapped: int
    rounded: int
    unknown_items: int


@dataclass(frozen=True)
class VerdictImport:
    """The options of one import, as the command was given them."""

    paths: Sequence[Path]
    judge: str
    out: Path
    model: str | None = None
    fmt: str | None = None
    mapping: Sequence[str] = ()
    values: Sequence[str] = ()
    rounding: bool = False
    dry_run: bool = False


def check_import(request: VerdictImport, rubric: Rubric) -> None:
    """Refuse bad options before any file or store is read (UsageError, exit 2)."""
    if request.fmt is not None and request.fmt not in ("jsonl", "csv"):
        raise UsageError(f"--format must be jsonl or csv, not {request.fmt!r}")
    for path in request.paths:
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
    if str(request.out) == "-":
        raise UsageError("--out -: a verdict file is written to a path (calibrate reads it from there)")
    check_output_target(request.out)
    foreign_judge(request.judge, request.model, rubric)
    ValueMap.parse(list(request.values), rubric)


def import_verdicts(request: VerdictImport, rubric: Rubric, case_ids: Mapping[str, str]) -> ImportedVerdicts:
    """Read the files against the rubric and the store's review items (`case_ids`), then write the
    verdict file unless a dry run. Every problem is an InputError and nothing is written."""
    judge_config = foreign_judge(request.judge, request.model, rubric)
    fmt = request.fmt
    formats = {path: fmt or ("csv" if path.suffix.lower() == ".csv" else "jsonl") for path in request.paths}
    imported = read_foreign_verdicts(
        list(request.paths),
        formats,
        FieldMapping.parse(list(request.mapping)),
        rubric,
        judge_config,
        case_ids,
        values=ValueMap.parse(list(request.values), rubric),
        rounding=request.rounding,
        now=utc_now(),
    )
    out = request.out
    lines = [
        strict_json(verdict.to_json(), f"{out}:{n}", ensure_ascii=False) + "\n"
        for n, verdict in enumerate(imported.verdicts, 1)
    ]
    if not request.dry_run:
        write_output(out, "".join(lines))
    unknown = sum(1 for verdict in imported.verdicts if verdict.item_id not in case_ids)
    return ImportedVerdicts(
        len(imported.verdicts),
        judge_config.name,
        judge_config.model,
        judge_config.config_hash(),
        imported.mapped,
        imported.rounded,
        unknown,
    )
