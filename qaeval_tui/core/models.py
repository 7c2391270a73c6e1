"""Pydantic models for everything qaeval_tui reads, stores and scores.

Golden-set models are strict (`extra="forbid"`, no type coercion) because a silently
accepted typo in a golden case is a silently wrong measurement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

CASE_ID_PATTERN = re.compile(r"^[A-Za-z0-9._-]+$")
SQLITE_MAX_INTEGER = 2**63 - 1  # the store's INTEGER columns hold signed 64-bit values

Difficulty = Literal["single_hop", "multi_hop", "aggregation"]
Behavior = Literal["answer", "abstain"]
Level = Literal["nominal", "ordinal", "interval"]


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

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


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


@dataclass(frozen=True)
class LoadedCase:
    """A validated case plus where it came from and its content hash."""

    case: GoldenCase
    split: str
    path: str
    line: int
    content_hash: str


class CaseView(BaseModel):
    """What crosses the boundary to the system under test: nothing that gives the answer away.

    No gold answer, gold sources, expected behaviour, tags, or readable case id.
    """

    model_config = ConfigDict(frozen=True)

    opaque_id: str
    question: str
    sources: tuple[Source, ...]


class Citation(BaseModel):
    """A pointer from the system's answer into one source."""

    model_config = ConfigDict(frozen=True)

    source_id: str
    quote: str | None = None
    claim: str | None = None


class SUTOutput(BaseModel):
    """What the system under test returned for one case (DESIGN §3.2)."""

    model_config = ConfigDict(frozen=True)

    answer: str = ""
    citations: tuple[Citation, ...] = ()
    retrieved_ids: tuple[str, ...] = ()
    abstained: bool = False
    model_was_called: bool = False
    prompt: str = ""
    computed: dict[str, str | int | float] = Field(default_factory=dict)
    error: str | None = None


class Axis(BaseModel):
    """One labeling axis of the rubric (DESIGN §3.4, §8.1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, description="Axis name used in labels, verdicts and reports.")
    scale: tuple[int, ...] = Field(default=(0, 1, 2), description="Distinct integer scale points, in order.")
    level: Level = Field(default="ordinal", description="Level of measurement for agreement statistics.")
    anchors: tuple[str, ...] = Field(description="One anchor sentence per scale point.")
    needs_gold: bool = Field(default=False, description="Show the gold answer for this axis (after the blind axes).")

    @model_validator(mode="after")
    def _scale_and_anchors(self) -> Axis:
        if len(self.scale) < 2:
            raise ValueError("scale: needs at least two points")
        if len(set(self.scale)) != len(self.scale):
            raise ValueError("scale: points must be distinct")
        if list(self.scale) != sorted(self.scale):
            raise ValueError("scale: points must be in increasing order")
        if len(self.anchors) != len(self.scale):
            raise ValueError(f"anchors: need one per scale point ({len(self.scale)}), got {len(self.anchors)}")
        return self

    def anchor_for(self, value: int) -> str:
        return self.anchors[self.scale.index(value)]


class Rubric(BaseModel):
    """The versioned set of axes every label and verdict is made under."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(
        default="1", description="Recorded with every label; bump when anchors, a scale or an axis name change."
    )
    axes: tuple[Axis, ...]

    @model_validator(mode="after")
    def _unique_axes(self) -> Rubric:
        names = [axis.name for axis in self.axes]
        if not names:
            raise ValueError("axes: at least one axis is required")
        if len(set(names)) != len(names):
            raise ValueError("axes: axis names must be unique")
        return self

    def axis(self, name: str) -> Axis:
        for axis in self.axes:
            if axis.name == name:
                return axis
        raise KeyError(name)

    @property
    def axis_names(self) -> tuple[str, ...]:
        return tuple(axis.name for axis in self.axes)


class JudgeConfig(BaseModel):
    """Pinned judge settings; its hash binds verdicts and calibrations to one judge."""

    model_config = ConfigDict(frozen=True)

    name: str
    model: str
    temperature: float = 0.0
    seed: int = 0
    prompt_version: str = "1"
    rubric_version: str = "1"

    def config_hash(self) -> str:
        from qaeval_tui.core.golden.hashing import content_hash

        return content_hash(self.model_dump(mode="json"))


class JudgeVerdict(BaseModel):
    """One judge's scores for one (case, output) pair (DESIGN §8.3)."""

    model_config = ConfigDict(frozen=True)

    item_id: str
    case_id: str
    judge: dict[str, str | float | int]
    status: Literal["ok", "error"]
    scores: dict[str, int | None]
    evidence: dict[str, str]
    created_at: str
    error: str | None = None


class ReviewItem(BaseModel):
    """One (case, system output) pair to be labeled, id = case hash + output hash."""

    model_config = ConfigDict(frozen=True)

    item_id: str
    case_id: str
    case_hash: str
    output_hash: str
    run_id: str


class Label(BaseModel):
    """One revision of one reviewer's label on one item (DESIGN §3.5, §8.2)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str = Field(min_length=1)
    case_id: str
    reviewer: str = Field(min_length=1)
    scores: dict[str, int | None]
    note: str = ""
    flagged: bool = False
    skipped: bool = False
    rubric_version: str
    revealed: bool = False
    revision: int = Field(ge=1, le=SQLITE_MAX_INTEGER)
    created_at: str
    seconds_spent: float = Field(default=0.0, ge=0, allow_inf_nan=False)
