"""The models of a golden file: cases, their sources, checkpoints and provenance.

They are strict (`extra="forbid"`, no type coercion) because a silently
accepted typo in a golden case is a silently wrong measurement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Literal

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


@dataclass(frozen=True)
class LoadedCase:
    """A validated case plus where it came from and its content hash."""

    case: GoldenCase
    split: str
    path: str
    line: int
    content_hash: str
