"""What crosses the boundary to the system under test and to the judge: the case view, the system's
output and its citations, the pinned judge config and a judge's verdict (DESIGN §3.2, §3.3, §8.3)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from qaeval_tui.core.models.golden import Source


class CaseView(BaseModel):
    """What crosses the boundary to the system under test: nothing that gives the answer away.

    No gold answer, gold sources, expected behaviour, tags, or readable case id.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    opaque_id: str
    question: str
    sources: tuple[Source, ...]


class Citation(BaseModel):
    """A pointer from the system's answer into one source."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    source_id: str
    quote: str | None = None
    claim: str | None = None


class SUTOutput(BaseModel):
    """What the system under test returned for one case (DESIGN §3.2)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    answer: str = ""
    citations: tuple[Citation, ...] = ()
    retrieved_ids: tuple[str, ...] = ()
    abstained: bool = False
    model_was_called: bool = False
    prompt: str = ""
    computed: dict[str, str | int | float] = Field(default_factory=dict)
    error: str | None = None


class JudgeConfig(BaseModel):
    """Pinned judge settings; its hash binds verdicts and calibrations to one judge.

    The optional fields are set by configured model judges (`[judge]`): what else changes a verdict
    (the judge kind, the hash of the prompt template's text and of the rubric's scales and anchors,
    the output-token cap, the shortest evidence a reply may quote). Unset, they stay out of the
    hash, so a judge that predates them keeps its hash (and the baselines and calibrations bound to
    it).
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    model: str
    temperature: float = 0.0
    seed: int = 0
    prompt_version: str = "1"
    rubric_version: str = "1"
    kind: str | None = None
    prompt_hash: str | None = None
    rubric_hash: str | None = None
    max_tokens: int | None = None
    min_evidence_chars: int | None = None

    def config_hash(self) -> str:
        from qaeval_tui.core.hashing import content_hash

        return content_hash(self.model_dump(mode="json", exclude_none=True))


Outcome = Literal["faithful", "unfaithful", "abstained", "error", "skipped"]
"""The faithfulness outcome of a verdict (the howdah verdict contract):

faithful / unfaithful: the judge scored faithfulness (its top scale point is faithful);
abstained: the judge said it cannot judge, or there was nothing to judge (reason given);
error: the request failed, the judge refused, its output was truncated or invalid;
skipped: a checks-only run, no judge was asked."""

OUTCOMES: tuple[Outcome, ...] = ("faithful", "unfaithful", "abstained", "error", "skipped")


class Attempt(BaseModel):
    """One request to a model judge: how long it took and, when it failed, a sanitized error code."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    latency_s: float
    error: str | None = None


class TokenUsage(BaseModel):
    """Tokens a verdict cost over all its attempts; None is unknown (never reported as 0)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    input_tokens: int | None = None
    output_tokens: int | None = None


class JudgeVerdict(BaseModel):
    """One judge's scores for one (case, output) pair (DESIGN §8.3): what a run carries and a verdict file holds."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    item_id: str
    case_id: str
    judge: dict[str, str | float | int]
    status: Literal["ok", "error", "skipped"]
    """ok: the judge answered (outcome faithful, unfaithful or abstained); error; skipped (checks-only)."""
    scores: dict[str, int | None]
    evidence: dict[str, str]
    created_at: str
    error: str | None = None
    outcome: Outcome | None = None
    """None only on a verdict stored before the outcome was recorded."""
    reason: str | None = None
    """Why an abstained or skipped verdict has no faithfulness outcome (one line)."""
    requested_model: str | None = None
    returned_model: str | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    attempts: list[Attempt] = Field(default_factory=list)
    """One per request to a model judge, retries included; empty for a judge that makes none."""
    retries: int = 0
    stages: list[dict[str, Any]] | None = None
    """A cascade's stages: the screening judge's result, then the stronger judge's when it escalated."""

    def to_json(self) -> dict[str, Any]:
        """The §8.3 export shape, key order included: `error` only on an error verdict; the contract's
        fields (outcome, reason, models, usage, attempts, retries) after it."""
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
        if self.outcome is not None:
            document["outcome"] = self.outcome
            document["reason"] = self.reason
            document["requested_model"] = self.requested_model
            document["returned_model"] = self.returned_model
            document["usage"] = self.usage.model_dump()
            document["attempts"] = [attempt.model_dump() for attempt in self.attempts]
            document["retries"] = self.retries
        if self.stages is not None:
            document["stages"] = self.stages
        return document
