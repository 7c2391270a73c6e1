"""Strict golden-set loading (DESIGN §3.1).

Every problem in every file is collected and reported as `path:line: field: message`;
when any exists nothing is loaded, because a half-loaded suite gives a wrong number
that looks right.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from qaeval_tui.core.batch import collector_paused
from qaeval_tui.core.errors import InputError, Problem, UsageError
from qaeval_tui.core.hashing import suite_hash
from qaeval_tui.core.jsonl import first_refusal, json_problem, loads, lone_surrogate_column, lone_surrogate_message
from qaeval_tui.core.models.golden import LIVING_SPLIT, GoldenCase, LoadedCase, consistency_problems

_BOM = b"\xef\xbb\xbf"
_UNION_TAGS = {"str", "int", "float", "bool", "none", "retrieve", "value"}


@dataclass(frozen=True)
class GoldenSet:
    """A fully validated suite: cases in file order, with a stable suite hash."""

    cases: tuple[LoadedCase, ...]
    files: tuple[str, ...]

    @property
    def suite_hash(self) -> str:
        return suite_hash(case.content_hash for case in self.cases)

    def by_id(self) -> dict[str, LoadedCase]:
        return {loaded.case_id: loaded for loaded in self.cases}

    def by_hash(self) -> dict[str, LoadedCase]:
        return {loaded.content_hash: loaded for loaded in self.cases}

    def summary(self) -> dict[str, dict[str, int]]:
        """Counts per split, difficulty, behaviour and adversarial tag."""
        counts: dict[str, Counter[str]] = {
            "split": Counter(),
            "difficulty": Counter(),
            "behavior": Counter(),
            "adversarial": Counter(),
        }
        for loaded in self.cases:
            counts["split"][loaded.split] += 1
            counts["difficulty"][loaded.difficulty] += 1
            counts["behavior"][loaded.expected_behavior] += 1
            counts["adversarial"][loaded.adversarial or "none"] += 1
        return {key: dict(sorted(counter.items())) for key, counter in counts.items()}


def case_content_hash(case: GoldenCase) -> str:
    """sha256 of the case's canonical JSON (model field order, no whitespace).

    Independent of the key order and spacing of the line it was read from.
    """
    return hashlib.sha256(case.__pydantic_serializer__.to_json(case)).hexdigest()


def split_of(path: Path) -> str:
    """The split is the file: `golden/living.jsonl` is the living split."""
    return path.stem


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given, folders as their `*.jsonl` files in name order."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(path.glob("*.jsonl"))
            if not files:
                raise UsageError(f"{path}: no .jsonl files in this folder")
            found.extend(files)
        elif path.is_file():
            found.append(path)
        else:
            raise UsageError(f"{path}: no such file or folder")
    if not found:
        raise UsageError("no golden files given")
    return found


def _field_path(loc: Sequence[int | str]) -> str:
    parts: list[str] = []
    previous: int | str | None = None
    for element in loc:
        if isinstance(element, int):
            parts.append(f"[{element}]")
        elif element in _UNION_TAGS or "[" in element:
            # Union member names (e.g. 'str', a checkpoint kind) right after an index or field
            # are pydantic's bookkeeping, not fields; 'value' as a real field follows a tag.
            if not (element == "value" and previous in ("value", "retrieve")):
                previous = element
                continue
            parts.append(f".{element}")
        else:
            parts.append(f".{element}" if parts else element)
        previous = element
    return "".join(parts) or "(line)"


def problems_from_validation(exc: ValidationError, path: str, line: int) -> list[Problem]:
    """Turn a pydantic error into one Problem per field, with readable field paths."""
    problems: dict[str, str] = {}
    for error in exc.errors(include_url=False):
        kind = error.get("type", "")
        message = str(error.get("msg", "invalid"))
        if kind == "json_invalid":
            problems.setdefault("(line)", f"invalid JSON: {error.get('ctx', {}).get('error', message)}")
            continue
        if kind == "model_type" and not error.get("loc"):
            problems.setdefault("(line)", "each line must be a JSON object")
            continue
        if kind == "value_error" and not error.get("loc"):
            for part in message.removeprefix("Value error, ").split("\n"):
                field, _, text = part.partition(": ")
                problems.setdefault(field, text or part)
            continue
        if kind == "extra_forbidden":
            message = "unknown field"
        field = _field_path(error.get("loc", ()))
        problems.setdefault(field, message.removeprefix("Value error, "))
    return [Problem(path, line, field, message) for field, message in problems.items()]


def parse_case_line(raw: bytes, path: str, line: int) -> tuple[GoldenCase | None, list[Problem]]:
    """Validate one raw line; returns the case or the problems found in it."""
    if line == 1 and raw.startswith(_BOM):
        return None, [Problem(path, line, "(file)", "starts with a UTF-8 byte order mark; save without BOM")]
    try:
        # Fast path: pydantic parses and validates the bytes in one pass, about twice as fast as
        # json.loads followed by validating the dict. A failing line takes the careful path
        # below, which names every problem in the words of the Python parser.
        case = GoldenCase.model_validate_json(raw)
    except ValidationError as fast_error:
        return None, _line_problems(raw, path, line, fast_error)
    # pydantic keeps the last of a repeated key silently. Every object of a valid case is one of
    # its models, so the line had exactly as many keys as the models have fields set unless one was
    # repeated; `_KEY_END` over-counts only on an escaped quote before a colon inside some text.
    if len(_KEY_END.findall(raw)) != _keys_read(case):
        refused = first_refusal(raw.decode("utf-8", "replace"))
        if refused is not None:
            return None, [json_problem(refused, path, line)]
    return case, []


_KEY_END = re.compile(rb'"[ \t\r]*:')


def _keys_read(case: GoldenCase) -> int:
    # The attribute behind `model_fields_set`: half the time, on a path every line takes.
    count = len(case.__pydantic_fields_set__)
    if case.provenance is not None:
        count += len(case.provenance.__pydantic_fields_set__)
    for source in case.sources:
        count += len(source.__pydantic_fields_set__)
    for checkpoint in case.checkpoints:
        count += len(checkpoint.__pydantic_fields_set__)
    return count


def _line_problems(raw: bytes, path: str, line: int, fast_error: ValidationError) -> list[Problem]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [Problem(path, line, "(line)", f"invalid UTF-8 at byte {exc.start}")]
    try:
        obj = loads(text)
    except json.JSONDecodeError as exc:
        return [json_problem(exc, path, line)]
    if not isinstance(obj, dict):
        return [Problem(path, line, "(line)", "each line must be a JSON object")]
    column = lone_surrogate_column(text)
    if column is not None:  # in any field or key: one message, as every reader words it
        return [Problem(path, line, "(line)", lone_surrogate_message(column))]
    try:
        GoldenCase.model_validate(obj)
    except ValidationError as exc:
        problems = problems_from_validation(exc, path, line)
        return problems + _raw_consistency(obj, path, line, {p.field for p in problems})
    # Python's parser accepted what the strict one refused (nothing known but a lone surrogate,
    # handled above): report the strict parser's reason rather than pass the line.
    return [_strict_json_problem(fast_error, path, line)]


def _strict_json_problem(error: ValidationError, path: str, line: int) -> Problem:
    details = error.errors(include_url=False)
    context = details[0].get("ctx", {}) if details else {}
    reason = str(context.get("error", details[0]["msg"] if details else "invalid"))
    # The strict parser sees one line at a time and calls it line 1; the file line is ours.
    return Problem(path, line, "(line)", f"invalid JSON: {reason.replace(' at line 1 column ', ' at column ')}")


def _raw_fields(raw: bytes) -> dict[str, object]:
    """Best-effort JSON object of an invalid line ({} when it is not one)."""
    try:
        obj = loads(raw)
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}


def _raw_consistency(obj: dict[str, Any], path: str, line: int, reported: set[str]) -> list[Problem]:
    """Cross-field rules on a line whose fields failed, so one pass reports everything."""

    def as_list(value: object) -> list[object]:
        return value if isinstance(value, list) else []

    sources = as_list(obj.get("sources"))
    checkpoints = as_list(obj.get("checkpoints"))
    found = consistency_problems(
        source_ids=[s.get("id") for s in sources if isinstance(s, dict)],
        expected_behavior=obj.get("expected_behavior"),
        gold_answer=obj.get("gold_answer"),
        gold_source_ids=as_list(obj.get("gold_source_ids")),
        difficulty=obj.get("difficulty"),
        checkpoint_source_ids=[
            c.get("source_id") if isinstance(c, dict) and c.get("kind") == "retrieve" else None for c in checkpoints
        ],
    )
    return [Problem(path, line, field, message) for field, message in found if field not in reported]


def iter_lines(lines: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) for every non-blank line of `lines`, split on \\n only, never on U+2028:
    a file opened in binary mode (which splits so) or `data.split(b"\\n")`."""
    for number, stripped, _offset in _lines_at(lines):
        yield number, stripped


def load_golden(paths: Iterable[str | Path], *, by_reference: bool = False) -> GoldenSet:
    """Load golden files or folders strictly. Raises InputError listing every problem.

    `by_reference`: each case is validated whole, then kept by its line only (`LoadedCase.by_reference`),
    read again when a run asks for it: a suite's memory then stays flat in its texts (a run's suite)."""
    files = expand_paths(paths)
    with collector_paused():  # see core/batch.py: about a third of the load time on 10,000 cases
        return _load_files(files, by_reference)


class _LineSource:
    """A golden file its cases loaded by reference are read again from, one line at a time (`os.pread`:
    no shared position, so any thread or forked worker may read). A line no longer as it was loaded (the
    file edited during the run) stops the run rather than measure another case under the first one's hash."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._lock = threading.Lock()

    def read(self, offset: int, length: int, check: int, line: int) -> GoldenCase:
        raw = os.pread(self._descriptor(), length, offset)
        if len(raw) != length or zlib.crc32(raw) != check:
            raise UsageError(f"{self.path}:{line}: the golden file changed while the suite was running; run it again")
        return GoldenCase.model_validate_json(raw)

    def _descriptor(self) -> int:
        with self._lock:
            if self._fd is None:
                try:
                    self._fd = os.open(self.path, os.O_RDONLY)
                except OSError as exc:
                    raise UsageError(f"{self.path}: cannot read again while the suite runs: {exc.strerror}") from exc
            return self._fd

    def __del__(self) -> None:
        if self._fd is not None:
            os.close(self._fd)


def _load_files(files: list[Path], by_reference: bool = False) -> GoldenSet:
    problems: list[Problem] = []
    loaded: list[LoadedCase] = []
    first_seen: dict[str, tuple[str, int]] = {}
    for file in files:
        display = str(file)
        split = split_of(file)
        try:
            source = _LineSource(file.resolve()) if by_reference else None
            _load_file(file, display, split, problems, loaded, first_seen, source)
        except OSError as exc:
            raise UsageError(f"{display}: cannot read: {exc.strerror}") from exc
    if problems:
        raise InputError(problems, what="golden set")
    return GoldenSet(cases=tuple(loaded), files=tuple(str(f) for f in files))


def _load_file(
    file: Path,
    display: str,
    split: str,
    problems: list[Problem],
    loaded: list[LoadedCase],
    first_seen: dict[str, tuple[str, int]],
    source: _LineSource | None = None,
) -> None:
    living = split == LIVING_SPLIT
    # Streamed: no whole-file copy to split; the large buffer keeps reads few.
    with file.open("rb", buffering=1 << 20) as handle:
        for number, raw, offset in _lines_at(handle):
            case, line_problems = parse_case_line(raw, display, number)
            if case is None:
                problems.extend(line_problems)
                _file_rules_of_invalid_line(raw, display, number, living, problems, first_seen)
                continue
            if living and case.provenance is None:
                problems.append(Problem(display, number, "provenance", "required in the living split"))
            if case.id in first_seen:
                problems.append(_duplicate(case.id, display, number, first_seen))
                continue
            first_seen[case.id] = (display, number)
            content_hash = case_content_hash(case)
            if source is None:
                loaded.append(LoadedCase(case, split, display, number, content_hash))
            else:
                where = (offset, len(raw), zlib.crc32(raw))
                loaded.append(LoadedCase.by_reference(case, split, display, number, content_hash, source, where))


def _lines_at(handle: Iterable[bytes]) -> Iterator[tuple[int, bytes, int]]:
    """`iter_lines`, with each stripped line's offset from the start of `handle` (a file read in binary
    mode: its lines keep their newline)."""
    offset = 0
    for number, raw in enumerate(handle, start=1):
        start, offset = offset, offset + len(raw)
        stripped = raw.strip(b" \t\r\n")
        if stripped:
            yield number, stripped, start + len(raw) - len(raw.lstrip(b" \t\r\n"))


def _file_rules_of_invalid_line(
    raw: bytes,
    display: str,
    number: int,
    living: bool,
    problems: list[Problem],
    first_seen: dict[str, tuple[str, int]],
) -> None:
    """The rules across lines (provenance in the living split, duplicate ids) that a failed line's raw fields
    still allow checking, so one pass reports everything."""
    fields = _raw_fields(raw)
    if fields and living and fields.get("provenance") is None:
        problems.append(Problem(display, number, "provenance", "required in the living split"))
    case_id = fields.get("id")
    if isinstance(case_id, str):
        if case_id in first_seen:
            problems.append(_duplicate(case_id, display, number, first_seen))
        else:
            first_seen[case_id] = (display, number)


def _duplicate(case_id: str, display: str, number: int, first_seen: dict[str, tuple[str, int]]) -> Problem:
    where = "{}:{}".format(*first_seen[case_id])
    return Problem(display, number, "id", f"duplicate case id {case_id!r} (first at {where})")


def case_to_json_dict(case: GoldenCase) -> dict[str, Any]:
    """The case as it is written to a golden file (absent optional fields dropped)."""
    return case.model_dump(mode="json", exclude_none=True)
