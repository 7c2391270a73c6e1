"""A run's results, case by case and whole, and its versioned JSON artifact (`qaeval run --out`)."""

from __future__ import annotations

import json
import threading
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any, overload

from qaeval_tui import __version__
from qaeval_tui.core.batch import collector_paused
from qaeval_tui.core.hashing import item_id_for
from qaeval_tui.core.models.golden import LoadedCase
from qaeval_tui.core.models.run import JudgeConfig, JudgeVerdict, SUTOutput, TokenUsage
from qaeval_tui.core.running.checks import CheckResult
from qaeval_tui.core.running.judge import judge_descriptor
from qaeval_tui.core.running.metrics import METRIC_NAMES, Scoreboard
from qaeval_tui.core.running.trajectory import TrajectoryResult

RUN_FORMAT = "qaeval-run"
ARTIFACT_VERSION = 1
CODE_VERSION = f"qaeval_tui {__version__}"


@dataclass(frozen=True)
class SampleRecord:
    """One of a sampled case's k runs (`[run] samples`): its output's hash, item, values and failures."""

    sample: int
    output_hash: str
    item_id: str
    values: dict[str, float | None]
    failures: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "sample": self.sample,
            "output_hash": self.output_hash,
            "item_id": self.item_id,
            "values": self.values,
            "failures": list(self.failures),
        }


@dataclass(frozen=True, slots=True)
class CaseResult:
    """Everything measured for one case of a run. A sampled case (k > 1) shows one of its samples (the
    first that failed, else the first) and its `values` are the means over the samples (`samples`)."""

    position: int
    loaded: LoadedCase
    output: SUTOutput
    output_json: dict[str, Any]
    output_hash: str
    item_id: str
    checks: tuple[CheckResult, ...]
    verdict: JudgeVerdict
    trajectory: TrajectoryResult | None
    values: dict[str, float | None]
    failures: tuple[str, ...]
    seconds: float
    samples: tuple[SampleRecord, ...] = ()
    compacted: bool = False
    """Kept compact once stored (`compact`): its output, checks, trajectory and evidence are in the store."""

    @property
    def case_id(self) -> str:
        return self.loaded.case_id

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def judge_error(self) -> str | None:
        """The judge's failure on this case (an error verdict), or None when it returned a verdict.

        A skipped verdict (checks-only run) counts too: its judge metrics are missing just the same,
        so the gate blocks on it and no baseline is written from it, never a pass by accident."""
        if self.verdict.status == "skipped":
            return f"not judged: {self.verdict.reason or 'checks-only run'}"
        if self.verdict.status != "error":
            return None
        return self.verdict.error or "the judge failed"

    def slice_keys(self) -> dict[str, str]:
        loaded = self.loaded
        return {"split": loaded.split, "difficulty": loaded.difficulty, "adversarial": loaded.adversarial or "none"}

    def result_json(self) -> dict[str, Any]:
        """What a run stores beside the raw output: checks, verdict, trajectory, values, pass/fail."""
        return {
            "item_id": self.item_id,
            "split": self.loaded.split,
            "difficulty": self.loaded.difficulty,
            "adversarial": self.loaded.adversarial,
            "expected_behavior": self.loaded.expected_behavior,
            "passed": self.passed,
            "failures": list(self.failures),
            "checks": [check.to_json() for check in self.checks],
            "trajectory": None if self.trajectory is None else self.trajectory.to_json(),
            "values": self.values,
            "verdict": self.verdict.to_json(),
            "seconds": round(self.seconds, 6),
            **({"samples": [sample.to_json() for sample in self.samples]} if self.samples else {}),
        }

    def compact(self) -> CaseResult:
        """What a run streamed to the store keeps of this case once it is written: what the gate, the
        scoreboard, the baseline and the console read (position, case, hashes, values, failures, the failed
        checks, the verdict's status, scores and error, the output's error). The output, every check, the
        trajectory and the verdict's evidence and attempts are read back from the store when wanted
        (`RunResult.stored_cases`; `expanded` rebuilds the case from its stored output)."""
        output = self.output
        kept = (
            _NO_ERROR
            if output.error is None and not output.abstained
            else SUTOutput(abstained=output.abstained, error=output.error)
        )
        return replace(
            self,
            loaded=self.loaded.released(),
            output=kept,
            output_json=_NOTHING,
            checks=tuple(check for check in self.checks if check.failed),
            verdict=_compact_verdict(self.verdict),
            trajectory=None,
            compacted=True,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "case_id": self.case_id,
            "case_hash": self.loaded.content_hash,
            "output_hash": self.output_hash,
            "output": self.output_json,
            **self.result_json(),
        }


@dataclass(frozen=True)
class RunResult:
    """One run of a suite through one adapter and one judge."""

    run_id: str
    suite_hash: str
    adapter: str
    adapter_spec: str
    judge_spec: str
    judge_config: JudgeConfig
    rubric_version: str
    top_k: int
    workers: int
    started_at: str
    finished_at: str
    cases: Sequence[CaseResult]
    """In suite order: a tuple, or for a run streamed to the store its `CompactCases` (each case built as read)."""
    board: Scoreboard
    code_version: str = CODE_VERSION
    judge_calls: dict[str, Any] | None = None
    """What a model judge cost (calls, cached, errors, tokens, estimated cost); None when none was asked."""
    samples: int = 1
    """Runs of each case (`[run] samples`): per-case values are means over them."""
    stored_cases: Callable[[], Iterator[dict[str, Any]]] | None = field(default=None, compare=False, repr=False)
    """A run streamed to the store keeps its cases compact: its artifact's cases are read back from the
    store by this (the store must still be open); None when the run holds its cases whole."""

    @property
    def judge_errors(self) -> Sequence[CaseResult]:
        """The cases whose verdict is an error: their judge metrics are missing, never zero or skipped."""
        if isinstance(self.cases, CompactCases):
            return self.cases.judge_errors()
        return tuple(result for result in self.cases if result.judge_error is not None)

    @property
    def judge_error_count(self) -> int:
        """How many `judge_errors` there are, counted without building them (a checks-only run's are all its cases)."""
        if isinstance(self.cases, CompactCases):
            return self.cases.judge_error_count()
        return sum(1 for result in self.cases if result.judge_error is not None)

    def header(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "suite_hash": self.suite_hash,
            "adapter": self.adapter,
            "adapter_spec": self.adapter_spec,
            "judge": judge_descriptor(self.judge_config),
            "judge_spec": self.judge_spec,
            "rubric_version": self.rubric_version,
            "top_k": self.top_k,
            "workers": self.workers,
            "code_version": self.code_version,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "n_cases": len(self.cases),
            "judge_errors": self.judge_error_count,
            **({} if self.judge_calls is None else {"judge_calls": self.judge_calls}),
            **({"samples": self.samples} if self.samples > 1 else {}),
        }

    def artifact(self) -> dict[str, Any]:
        """The versioned JSON artifact of `qaeval run --out`."""
        with collector_paused():  # a batch step (core/batch.py): about a second of 10,000 cases otherwise
            return {
                "format": RUN_FORMAT,
                "version": ARTIFACT_VERSION,
                "run": self.header(),
                "metrics": self.board.to_json(),
                "cases": list(self.stored_cases())
                if self.stored_cases is not None
                else [result.to_json() for result in self.cases],
            }


_NO_ERROR = SUTOutput()
_NO_USAGE = TokenUsage()
_NOTHING: dict[str, Any] = {}
_NO_EVIDENCE: dict[str, str] = {}
_NO_ATTEMPTS: list[Any] = []
_ALL_FIELDS = set(JudgeVerdict.model_fields)
_JUDGES: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}


def _compact_verdict(verdict: JudgeVerdict) -> JudgeVerdict:
    """The verdict without its evidence, attempts, stages and usage (kept in the store), built so that what
    every compact case shares (the judge's descriptor, the empty parts, the set of its fields) is one object
    for all of them, not a copy each: a compact case stays a few hundred bytes at any suite size. Nothing
    mutates a verdict (frozen)."""
    fields = dict(verdict.__dict__)
    fields["judge"] = _shared_judge(fields["judge"])
    fields.update(evidence=_NO_EVIDENCE, attempts=_NO_ATTEMPTS, stages=None, usage=_NO_USAGE)
    return JudgeVerdict.model_construct(_ALL_FIELDS, **fields)


def _shared_judge(judge: dict[str, Any]) -> dict[str, Any]:
    """One descriptor object for every verdict of the same judge (a run has one or two)."""
    try:
        key = tuple(judge.items())
        shared = _JUDGES.get(key)
    except TypeError:  # a setting that does not hash (a list): kept as it is
        return judge
    if shared is None and len(_JUDGES) < 64:
        shared = _JUDGES[key] = judge
    return judge if shared is None else shared


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)
_NO_SCORE = -128
_VERDICT_KEYS = frozenset(JudgeVerdict.model_fields)
_PER_CASE = frozenset({"item_id", "case_id", "scores", "created_at"})
"""A compact verdict's fields kept for each case; the rest are its `_Shape`'s."""


def _millis(stamp: object) -> int | None:
    """`utc_now`'s text as whole milliseconds since 1970, when it reads back exactly; else None."""
    if not isinstance(stamp, str) or len(stamp) != 24 or not stamp.endswith("Z"):
        return None
    try:
        millis = (datetime.fromisoformat(stamp) - _EPOCH) // _MILLISECOND
    except (ValueError, TypeError):  # no time, or one without its zone
        return None
    return millis if _stamp(millis) == stamp else None


def _stamp(millis: int) -> str:
    """`utc_now`'s text for a time in milliseconds (`_millis` keeps only a time that reads back so)."""
    minutes, rest = divmod(millis, 60_000)
    seconds, millisecond = divmod(rest, 1000)
    return f"{_minute(minutes)}:{seconds:02d}.{millisecond:03d}Z"


@lru_cache(maxsize=64)  # a run's cases finish within a few minutes of each other
def _minute(minutes: int) -> str:
    return (_EPOCH + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M")


@dataclass(frozen=True, slots=True)
class _Shape:
    """What compact cases of a run have in common, kept once for all of them: the output kept, the failed
    checks, the failures, a verdict with its fields but the per-case ones (the first case's: each case's is a
    copy of it with its own), its score axes (their scores are columns), each sample's failures and a time that
    is no `utc_now` text."""

    output: SUTOutput
    checks: tuple[CheckResult, ...]
    failures: tuple[str, ...]
    verdict: JudgeVerdict
    axes: tuple[str, ...]
    sample_failures: tuple[tuple[str, ...], ...]
    created_at: str | None
    judge_error: bool


class _BuiltCases(Sequence[CaseResult]):
    """Cases built as they are read, by index: a subclass says how many (`__len__`) and builds one (`_built`)."""

    def _built(self, index: int) -> CaseResult:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> CaseResult: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[CaseResult, ...]: ...

    def __getitem__(self, index: int | slice) -> CaseResult | tuple[CaseResult, ...]:
        if isinstance(index, slice):
            return tuple(map(self._built, range(*index.indices(len(self)))))
        position = index + len(self) if index < 0 else index
        if not 0 <= position < len(self):
            raise IndexError("case position out of range")
        return self._built(position)

    def __iter__(self) -> Iterator[CaseResult]:
        return map(self._built, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(mine == theirs for mine, theirs in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # a tuple of cases does not hash either (their values are dicts)


class CompactCases(_BuiltCases):
    """A run's compact cases (`CaseResult.compact`) kept column by column, so a run's memory stays flat in its
    cases: for each case its output hash (32 bytes), its metric values and seconds (8 bytes each), its verdict's
    scores (a byte an axis) and time (8 bytes), and the index of its `_Shape` (what it shares with other cases:
    the output kept, the failed checks, the failures, the verdict's status, outcome, reason and models); its
    golden case is the suite's, its item id follows from the two hashes; a sampled case's records, their hashes
    and values likewise (k rows a case). Each case is built again as it is read, equal to the compact case put
    in. A case the columns cannot hold (not compact, a value that is no float, more score axes than
    `SCORE_AXES`) is kept whole.

    Cases are `put` from the threads that finish them, each at its suite position; the run reads them once every
    position is filled."""

    SCORE_AXES = 8
    """Score axes held in columns; a verdict with more is kept whole."""

    def __init__(self, suite: Sequence[LoadedCase], samples: int = 1) -> None:
        size = len(suite)
        self._suite = suite
        self._samples = samples if samples > 1 else 0  # a sampled case's k records: their hashes and values too
        self._names = tuple(METRIC_NAMES)
        self._width = len(self._names)
        self._filled = bytearray(size)  # 0: not yet; 1: in the columns; 2: kept whole
        self._shape_of = array("I", bytes(4 * size))
        self._hashes = bytearray(32 * size)
        self._seconds = array("d", bytes(8 * size))
        self._created = array("q", bytes(8 * size))
        self._scores = array("b", bytes(self.SCORE_AXES * size))
        self._values = array("d", bytes(8 * self._width * size))
        self._sample_hashes = bytearray(32 * self._samples * size)
        self._sample_values = array("d", bytes(8 * self._width * self._samples * size))
        self._whole: dict[int, CaseResult] = {}
        self._shapes: list[_Shape] = []
        self._known: dict[tuple[Any, ...], int] = {}
        self._lock = threading.Lock()

    def put(self, position: int, case: CaseResult) -> None:
        """The case at `position`, in the columns when it is compact and fits them, else kept whole."""
        with self._lock:
            if not self._into_columns(position, case):
                self._whole[position] = case
                self._filled[position] = 2

    @property
    def complete(self) -> bool:
        """Every position has its case."""
        return 0 not in self._filled

    def _into_columns(self, position: int, case: CaseResult) -> bool:
        loaded = self._suite[position]
        if not case.compacted or case.trajectory is not None or case.position != position:
            return False
        if case.loaded is not loaded and (case.loaded != loaded or case.loaded.by_line != loaded.by_line):
            return False
        numbers = self._numbers(case.values)
        digest = _digest(case.output_hash)
        if numbers is None or digest is None or case.item_id != item_id_for(loaded.content_hash, case.output_hash):
            return False
        records = case.samples
        if len(records) != self._samples:
            return False
        sampled: list[tuple[bytes, list[float]]] = []
        for sample, record in enumerate(records):
            record_numbers = self._numbers(record.values)
            record_digest = _digest(record.output_hash)
            if (
                record.sample != sample
                or record_numbers is None
                or record_digest is None
                or record.item_id != item_id_for(loaded.content_hash, record.output_hash)
            ):
                return False
            sampled.append((record_digest, record_numbers))
        verdict = case.verdict.__dict__
        if (
            verdict.keys() != _VERDICT_KEYS
            or verdict["item_id"] != case.item_id
            or verdict["case_id"] != loaded.case_id
        ):
            return False
        if not (
            verdict["evidence"] is _NO_EVIDENCE
            and verdict["attempts"] is _NO_ATTEMPTS
            and verdict["usage"] is _NO_USAGE
            and verdict["stages"] is None
        ):
            return False
        scores = verdict["scores"]
        if len(scores) > self.SCORE_AXES or not all(
            score is None or (type(score) is int and -127 <= score <= 127) for score in scores.values()
        ):
            return False
        millis = _millis(verdict["created_at"])
        output = case.output
        if output is not _NO_ERROR and output != SUTOutput(abstained=output.abstained, error=output.error):
            return False
        rest = {name: value for name, value in verdict.items() if name not in _PER_CASE}
        key = (
            None if output is _NO_ERROR else (output.abstained, output.error),
            case.checks,
            case.failures,
            id(rest["judge"]),
            *(value for name, value in rest.items() if name not in {"judge", "evidence", "attempts", "usage"}),
            tuple(scores),
            tuple(record.failures for record in records),
            None if millis is not None else verdict["created_at"],
        )
        try:
            index = self._known.get(key)
        except TypeError:  # a field that does not hash: the case is kept whole
            return False
        if index is None:
            index = self._known[key] = len(self._shapes)
            self._shapes.append(
                _Shape(
                    output,
                    case.checks,
                    case.failures,
                    case.verdict,
                    tuple(scores),
                    key[-2],
                    key[-1],
                    case.judge_error is not None,
                )
            )
        width = self._width
        self._values[position * width : (position + 1) * width] = array("d", numbers)
        axes = self.SCORE_AXES
        row = [_NO_SCORE if score is None else score for score in scores.values()]
        self._scores[position * axes : position * axes + len(row)] = array("b", row)
        self._hashes[position * 32 : (position + 1) * 32] = digest
        self._seconds[position] = case.seconds
        self._created[position] = 0 if millis is None else millis
        for sample, (record_digest, record_numbers) in enumerate(sampled):
            at = position * self._samples + sample
            self._sample_hashes[at * 32 : (at + 1) * 32] = record_digest
            self._sample_values[at * width : (at + 1) * width] = array("d", record_numbers)
        self._shape_of[position] = index
        self._filled[position] = 1
        return True

    def _numbers(self, values: Mapping[str, float | None]) -> list[float] | None:
        """The values as a column row (NaN where None), when they are the run's metrics, each a float or None."""
        if len(values) != self._width or list(values) != list(self._names):
            return None
        if not all(value is None or (type(value) is float and value == value) for value in values.values()):
            return None  # NaN marks a missing value in the column: a NaN value (none is computed) is kept whole
        return [_NAN if value is None else value for value in values.values()]

    def __len__(self) -> int:
        return len(self._filled)

    def __repr__(self) -> str:
        return f"CompactCases({len(self)} cases)"

    def _built(self, position: int) -> CaseResult:
        kept = self._filled[position]
        if kept != 1:
            if kept == 2:
                return self._whole[position]
            raise LookupError(f"no case at position {position} yet")
        shape = self._shapes[self._shape_of[position]]
        loaded = self._suite[position]
        output_hash = self._hashes[position * 32 : (position + 1) * 32].hex()
        item_id = item_id_for(loaded.content_hash, output_hash)
        axes = self.SCORE_AXES
        row = self._scores[position * axes : position * axes + len(shape.axes)]
        scores = {axis: None if score == _NO_SCORE else score for axis, score in zip(shape.axes, row, strict=True)}
        stamp = shape.created_at if shape.created_at is not None else _stamp(self._created[position])
        verdict = shape.verdict.model_copy(
            update={"item_id": item_id, "case_id": loaded.case_id, "scores": scores, "created_at": stamp}
        )
        return CaseResult(
            position,
            loaded,
            shape.output,
            _NOTHING,
            output_hash,
            item_id,
            shape.checks,
            verdict,
            None,
            self._values_at(self._values, position),
            shape.failures,
            self._seconds[position],
            self._records(position, loaded, shape.sample_failures),
            True,
        )

    def _records(
        self, position: int, loaded: LoadedCase, failures: tuple[tuple[str, ...], ...]
    ) -> tuple[SampleRecord, ...]:
        records = []
        for sample, failed in enumerate(failures):
            at = position * self._samples + sample
            output_hash = self._sample_hashes[at * 32 : (at + 1) * 32].hex()
            item_id = item_id_for(loaded.content_hash, output_hash)
            records.append(SampleRecord(sample, output_hash, item_id, self._values_at(self._sample_values, at), failed))
        return tuple(records)

    def _values_at(self, column: array[float], row: int) -> dict[str, float | None]:
        width = self._width
        numbers = column[row * width : (row + 1) * width]
        return {name: None if number != number else number for name, number in zip(self._names, numbers, strict=True)}

    def board_rows(self) -> Iterator[tuple[dict[str, str], Mapping[str, float | None]]]:
        """Each case's slice keys and metric values (what the scoreboard reads), no whole case built for them."""
        for position in range(len(self)):
            if self._filled[position] == 2:
                case = self._whole[position]
                yield case.slice_keys(), case.values
                continue
            loaded = self._suite[position]
            keys = {"split": loaded.split, "difficulty": loaded.difficulty, "adversarial": loaded.adversarial or "none"}
            yield keys, self._values_at(self._values, position)

    def filled(self) -> tuple[CaseResult, ...]:
        """The cases put so far, in suite order (a run that did not fill every position)."""
        return tuple(self._built(position) for position, kept in enumerate(self._filled) if kept)

    def judge_error_count(self) -> int:
        """How many cases `judge_errors` has."""
        shapes = [shape.judge_error for shape in self._shapes]
        return sum(
            shapes[self._shape_of[position]]
            if kept == 1
            else kept == 2 and self._whole[position].judge_error is not None
            for position, kept in enumerate(self._filled)
        )

    def judge_errors(self) -> Sequence[CaseResult]:
        """The cases whose verdict is an error or skipped (`CaseResult.judge_error`), each built as it is read (a
        checks-only run's are all its cases)."""
        shapes = [shape.judge_error for shape in self._shapes]
        whole = self._whole
        return _Picked(
            self,
            array(
                "I",
                (
                    position
                    for position, kept in enumerate(self._filled)
                    if (shapes[self._shape_of[position]] if kept == 1 else whole[position].judge_error is not None)
                ),
            ),
        )

    def replaced(self, cases: Mapping[int, CaseResult]) -> CompactCases:
        """These cases with those at the positions in `cases` replaced (kept whole); the columns are shared."""
        copy = CompactCases.__new__(CompactCases)
        copy.__dict__.update(self.__dict__)
        copy._filled = bytearray(self._filled)
        copy._whole = {**self._whole, **cases}
        copy._lock = threading.Lock()
        for position in cases:
            copy._filled[position] = 2
        return copy


class _Picked(_BuiltCases):
    """Some of a `CompactCases`' cases, by position, each built as it is read."""

    def __init__(self, cases: CompactCases, positions: array[int]) -> None:
        self._cases = cases
        self._positions = positions

    def __len__(self) -> int:
        return len(self._positions)

    def _built(self, index: int) -> CaseResult:
        return self._cases._built(self._positions[index])

    def __repr__(self) -> str:
        return f"<{len(self)} of {self._cases!r}>"


_NAN = float("nan")


def _digest(output_hash: str) -> bytes | None:
    """A sha256 hex digest as its 32 bytes, when it reads back as the same text."""
    try:
        digest = bytes.fromhex(output_hash)
    except ValueError:
        return None
    return digest if len(digest) == 32 and digest.hex() == output_hash else None


def dumps_document(document: dict[str, Any]) -> str:
    """JSON with the header indented and one compact line per case: diffs stay readable, 10k cases stay fast.

    NaN and infinities are refused (ValueError), never written: strict JSON parsers reject them.
    """
    parts = []
    for key, value in document.items():
        if key == "cases" and isinstance(value, list) and value:
            rows = ",\n".join("    " + json.dumps(row, ensure_ascii=False, allow_nan=False) for row in value)
            parts.append(f'  "cases": [\n{rows}\n  ]')
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False).replace("\n", "\n  ")
            parts.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_json(path: str | Path, document: dict[str, Any]) -> None:
    """Write a JSON document through the one output writer: whole or not at all, never NaN (UsageError)."""
    from qaeval_tui.core.atomic_file import require_finite, write_output

    require_finite(document, str(path))
    write_output(Path(path), dumps_document(document))
