"""A production miss as a file line holds it and the store keeps it (DESIGN §8.4).

Apart from the inbox's import and status logic (`core.curation.inbox`) so the store can hand a stored
miss back typed.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from qaeval_tui.core.hashing import canonical_json
from qaeval_tui.core.models.golden import IsoTimestamp, Source, StrictModel

# Typeable as a command-line argument and safe to show anywhere.
TRACE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]*$"


class MissCitation(StrictModel):
    """A citation the production system gave (it may point at a source it never had: that is a miss too)."""

    source_id: str = Field(min_length=1)
    quote: str | None = None


class MissProvenance(StrictModel):
    """Where in production's traces a miss was found: the trace export it came from and its span."""

    origin: str = Field(min_length=1, pattern=r"\S")  # the trace format: otlp, openinference, langfuse
    trace_id: str = Field(min_length=1)
    span_id: str | None = None  # the question-answering span (a Langfuse observation); None: the trace itself
    service: str | None = None
    time: IsoTimestamp

    def describe(self) -> str:
        """One line for a person: `otlp trace 5b8e… span eee1… of support-bot at 2026-…`."""
        span = f" span {self.span_id}" if self.span_id else ""
        service = f" of {self.service}" if self.service else ""
        return f"{self.origin} trace {self.trace_id}{span}{service} at {self.time}"


class ProductionMiss(StrictModel):
    """One line of a production-miss file (DESIGN §8.4); every key is required but `provenance`.

    `provenance` is set by a trace import; a hand-written line may leave it out, and then the miss
    is stored exactly as before it existed (canonical() omits it), so old inboxes re-import unchanged.
    """

    trace_id: str = Field(pattern=TRACE_ID_PATTERN, max_length=200)
    question: str = Field(min_length=1, pattern=r"\S")
    sources: list[Source]
    answer: str
    citations: list[MissCitation]
    reason: str = Field(min_length=1, pattern=r"\S")
    reported_at: IsoTimestamp
    reporter: str = Field(min_length=1, pattern=r"\S")
    provenance: MissProvenance | None = None

    @model_validator(mode="after")
    def _unique_source_ids(self) -> ProductionMiss:
        seen: set[str] = set()
        problems: list[str] = []
        for index, source in enumerate(self.sources):
            if source.id in seen:
                problems.append(f"sources[{index}].id: duplicate source id {source.id!r}")
            seen.add(source.id)
        if problems:
            raise ValueError("\n".join(problems))
        return self

    def source_ids(self) -> list[str]:
        return [source.id for source in self.sources]

    def canonical(self) -> str:
        """The canonical JSON the store keeps: equal misses give equal text."""
        return canonical_json(self.as_json())

    def as_json(self) -> dict[str, object]:
        """The miss as a file line holds it: `provenance` only when there is one."""
        return self.model_dump(mode="json", exclude={"provenance"} if self.provenance is None else None)
