"""What crosses the boundary to the system under test and to the judge: the case view, the system's
output and its citations, the pinned judge config and a judge's verdict (DESIGN §3.2, §3.3, §8.3)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from qaeval_tui.core.golden.models import Source


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
    """One judge's scores for one (case, output) pair (DESIGN §8.3): what a run carries and a verdict file holds."""

    model_config = ConfigDict(frozen=True)

    item_id: str
    case_id: str
    judge: dict[str, str | float | int]
    status: Literal["ok", "error"]
    scores: dict[str, int | None]
    evidence: dict[str, str]
    created_at: str
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The §8.3 export shape, key order included: `error` only on an error verdict."""
        document: dict[str, Any] = {
            "item_id": self.item_id,
            "case_id": self.case_id,
            "judge": dict(self.judge),
            "status": self.status,
            "scores": dict(self.scores),
            "evidence": dict(self.evidence),
            "created_at": self.created_at,
        }
        if self.status == "error":
            document["error"] = self.error
        return document
