"""The models of a golden file: cases, their sources, checkpoints and provenance.

They are strict (`extra="forbid"`, no type coercion) because a silently
accepted typo in a golden case is a silently wrong measurement.
"""

from __future__ import annotations

import re
import sys
from datetime import datetime
from typing import Annotated, Literal, Protocol, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

CASE_ID_PATTERN = re.compile(r"^[A-Za-z0-9._-]+$")
LIVING_SPLIT = "living"  # the split promoted production misses join (`golden/living.jsonl`)

Difficulty = Literal["single_hop", "multi_hop", "aggregation"]
Behavior = Literal["answer", "abstain"]


def parse_timestamp(value: str) -> datetime:
    """An ISO 8601 timestamp as written in our files (a trailing Z means UTC)."""
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _iso_timestamp(value: str) -> str:
    try:
        parse_timestamp(value)
    except ValueError as exc:
        raise ValueError(f"not an ISO 8601 timestamp: {value!r}") from exc
    return value


IsoTimestamp = Annotated[str, AfterValidator(_iso_timestamp)]
"""Text that must read as an ISO 8601 timestamp; kept as written."""


class StrictModel(BaseModel):
    """Base for file formats: unknown fields, type coercion and NaN or infinite numbers are errors."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False, defer_build=True)


class Source(StrictModel):
    """One passage of the frozen fixture a system retrieves over."""

    id: str = Field(min_length=1)
    title: str | None = None
    text: str


class RetrieveCheckpoint(StrictModel):
    """The system must retrieve this source on its way to the answer."""

    kind: Literal["retrieve"]
    source_id: str = Field(min_length=1)


class ValueCheckpoint(StrictModel):
    """The system must compute this intermediate or final value (aggregation)."""

    kind: Literal["value"]
    name: str = Field(min_length=1)
    value: str | int | float


Checkpoint = Annotated[RetrieveCheckpoint | ValueCheckpoint, Field(discriminator="kind")]


class Provenance(StrictModel):
    """Where a living-split case came from; required so every promotion is traceable."""

    origin: str = Field(min_length=1)
    trace_id: str = Field(min_length=1)
    promoted_by: str = Field(min_length=1)
    promoted_at: IsoTimestamp = Field(min_length=1)
    reason: str = Field(min_length=1)


def consistency_problems(
    *,
    source_ids: list[object],
    expected_behavior: object,
    gold_answer: object,
    gold_source_ids: list[object],
    difficulty: object,
    checkpoint_source_ids: list[object],
) -> list[tuple[str, str]]:
    """Cross-field rules of a golden case, as (field, message) pairs.

    Written over plain values so the loader can also run it on a line whose fields failed
    type validation, and report every problem of that line at once.
    """
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()
    for index, source_id in enumerate(source_ids):
        if not isinstance(source_id, str):
            continue  # its type error is reported by field validation
        if source_id in seen:
            problems.append((f"sources[{index}].id", f"duplicate source id {source_id!r}"))
        seen.add(source_id)
    if expected_behavior == "answer":
        if not isinstance(gold_answer, str) or not gold_answer.strip():
            problems.append(("gold_answer", "required (non-empty) when expected_behavior is 'answer'"))
        if not gold_source_ids:
            problems.append(("gold_source_ids", "must be non-empty when expected_behavior is 'answer'"))
    elif expected_behavior == "abstain" and gold_answer is not None:
        problems.append(("gold_answer", "must be null or absent when expected_behavior is 'abstain'"))
    for index, gold_id in enumerate(gold_source_ids):
        if isinstance(gold_id, str) and gold_id not in seen:
            problems.append((f"gold_source_ids[{index}]", f"{gold_id!r} is not a source id of this case"))
    for index, source_id in enumerate(checkpoint_source_ids):
        if isinstance(source_id, str) and source_id not in seen:
            problems.append((f"checkpoints[{index}].source_id", f"{source_id!r} is not a source id of this case"))
    if difficulty in ("multi_hop", "aggregation") and not checkpoint_source_ids:
        problems.append(("checkpoints", f"required for a {difficulty} case"))
    return problems


class GoldenCase(StrictModel):
    """One line of a golden JSONL file (DESIGN §3.1)."""

    id: str = Field(pattern=CASE_ID_PATTERN.pattern)
    question: str = Field(min_length=1, pattern=r"\S")
    sources: list[Source] = Field(default_factory=list)
    expected_behavior: Behavior
    gold_answer: str | None = None
    gold_source_ids: list[str] = Field(default_factory=list)
    difficulty: Difficulty
    adversarial: str | None = None
    checkpoints: list[Checkpoint] = Field(default_factory=list)
    provenance: Provenance | None = None

    @model_validator(mode="after")
    def _consistent(self) -> GoldenCase:
        # Fast path for the common valid case; the full rule set below names every problem.
        source_ids = {source.id for source in self.sources}
        answer = self.expected_behavior == "answer"
        if (
            len(source_ids) == len(self.sources)
            and (
                bool(self.gold_answer and self.gold_answer.strip()) and bool(self.gold_source_ids)
                if answer
                else self.gold_answer is None
            )
            and source_ids.issuperset(self.gold_source_ids)
            and all(cp.source_id in source_ids for cp in self.checkpoints if isinstance(cp, RetrieveCheckpoint))
            and (self.checkpoints or self.difficulty == "single_hop")
        ):
            return self
        problems = consistency_problems(
            source_ids=[source.id for source in self.sources],
            expected_behavior=self.expected_behavior,
            gold_answer=self.gold_answer,
            gold_source_ids=list(self.gold_source_ids),
            difficulty=self.difficulty,
            checkpoint_source_ids=[
                cp.source_id if isinstance(cp, RetrieveCheckpoint) else None for cp in self.checkpoints
            ],
        )
        if problems:
            # One "field: message" per line; the loader splits them back into fields.
            raise ValueError("\n".join(f"{field}: {message}" for field, message in problems))
        return self

    def source_by_id(self, source_id: str) -> Source | None:
        for source in self.sources:
            if source.id == source_id:
                return source
        return None


class LineSource(Protocol):
    """Where a case loaded by reference is read again from (`golden.loader`): its file."""

    def read(self, offset: int, length: int, check: int, line: int) -> GoldenCase:
        """The case on the `length` bytes at `offset` (`line`), which must still have the checksum `check`."""


class LoadedCase:
    """A validated case plus where it came from and its content hash.

    Loaded by reference (a run's suite: `load_golden(..., by_reference=True)`), it keeps only what a run's
    summary reads (id, difficulty, adversarial tag, expected behaviour) and where its line is, so a suite's
    memory does not grow with its texts: `case` reads the line again (`held` keeps it read for a while)."""

    __slots__ = (
        "_case",
        "_source",
        "_where",
        "adversarial",
        "case_id",
        "content_hash",
        "difficulty",
        "expected_behavior",
        "line",
        "path",
        "split",
    )

    def __init__(self, case: GoldenCase | None, split: str, path: str, line: int, content_hash: str) -> None:
        self._case = case
        self.split = split
        self.path = path
        self.line = line
        self.content_hash = content_hash
        self._source: LineSource | None = None
        self._where: tuple[int, int, int] | None = None
        if case is not None:
            self.case_id: str = case.id
            self.difficulty: Difficulty = case.difficulty
            self.adversarial: str | None = case.adversarial
            self.expected_behavior: Behavior = case.expected_behavior

    @classmethod
    def by_reference(
        cls,
        case: GoldenCase,
        split: str,
        path: str,
        line: int,
        content_hash: str,
        source: LineSource,
        where: tuple[int, int, int],
    ) -> LoadedCase:
        """`case` known by its line only: `where` is the line's (offset, length, checksum) in `source`."""
        loaded = cls(case, split, path, line, content_hash)
        loaded._case, loaded._source, loaded._where = None, source, where
        # The few distinct tags and kinds, shared by every case rather than a copy each.
        loaded.difficulty = cast(Difficulty, sys.intern(case.difficulty))
        loaded.expected_behavior = cast(Behavior, sys.intern(case.expected_behavior))
        loaded.adversarial = None if case.adversarial is None else sys.intern(case.adversarial)
        return loaded

    @property
    def case(self) -> GoldenCase:
        if self._case is not None:
            return self._case
        assert self._source is not None and self._where is not None  # a case is held or known by reference
        return self._source.read(*self._where, self.line)

    @property
    def by_line(self) -> bool:
        """Known by its line only: each `case` reads it again."""
        return self._case is None

    def held(self) -> LoadedCase:
        """This case with its `case` read once and kept (itself when it is held already)."""
        if self._case is not None:
            return self
        held = LoadedCase(self.case, self.split, self.path, self.line, self.content_hash)
        held._source, held._where = self._source, self._where
        return held

    def released(self) -> LoadedCase:
        """This case known by its line only again, when it was loaded so (else itself)."""
        if self._case is None or self._source is None:
            return self
        released = LoadedCase(None, self.split, self.path, self.line, self.content_hash)
        released._source, released._where = self._source, self._where
        released.case_id, released.difficulty = self.case_id, self.difficulty
        released.adversarial, released.expected_behavior = self.adversarial, self.expected_behavior
        return released

    def _key(self) -> tuple[str, str, str, int]:
        return (self.content_hash, self.split, self.path, self.line)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LoadedCase) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"LoadedCase(id={self.case_id!r}, split={self.split!r}, path={self.path!r}, line={self.line})"
