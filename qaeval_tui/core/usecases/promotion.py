"""Promote a production miss to a golden case (`qaeval promote`), or (a dry run) show the line it would append.

The miss's question and reason stand in for those not given; the near-duplicate cases of the
question are found first, so they can be shown whether the promotion then succeeds or not: an
error of the promotion itself (a curation error: an invalid draft, a miss already decided; or any
other, nothing written either way) is part of the outcome, for the caller to show after them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.promotion import (
    GoldenTarget,
    PromotionDraft,
    PromotionResult,
    case_from_draft,
    case_line,
    promote,
    promotion_context,
)
from qaeval_tui.core.errors import QaevalError
from qaeval_tui.core.models.miss import ProductionMiss
from qaeval_tui.core.store.backend import StoreBackend

if TYPE_CHECKING:  # neardup brings numpy
    from qaeval_tui.core.golden.neardup import SimilarCase


@dataclass(frozen=True)
class PromoteRequest:
    """The case a curator asks for, as typed; `question` and `reason` None: the miss's own."""

    trace_id: str
    case_id: str
    curator: str
    question: str | None = None
    expected_behavior: str = "answer"
    gold_answer: str = ""
    gold_source_ids: tuple[str, ...] = ()
    difficulty: str = "single_hop"
    adversarial: str = ""
    checkpoints: tuple[str, ...] = ()
    reason: str | None = None

    def draft(self, miss: ProductionMiss) -> PromotionDraft:
        """The promotion draft of `miss`: this request, with the miss's question and reason where not given."""
        return PromotionDraft(
            trace_id=self.trace_id,
            case_id=self.case_id,
            question=miss.question if self.question is None else self.question,
            expected_behavior=self.expected_behavior,
            gold_answer=self.gold_answer,
            gold_source_ids=self.gold_source_ids,
            difficulty=self.difficulty,
            adversarial=self.adversarial,
            checkpoints=self.checkpoints,
            curator=self.curator,
            reason=miss.reason if self.reason is None else self.reason,
        )


@dataclass(frozen=True)
class PromotionOutcome:
    """A promotion done, a dry run's line, or the curation error that stopped it; and the near duplicates."""

    near_duplicates: list[SimilarCase] = field(default_factory=list)
    result: PromotionResult | None = None
    """The promotion done (None: a dry run, or an error)."""
    line: str | None = None
    """A valid dry run: the line it would append."""
    error: QaevalError | None = None
    """Why nothing was written: a `CurationError` lists each problem of the draft."""


def promote_miss(
    config: Config, store: StoreBackend, request: PromoteRequest, *, dry_run: bool = False
) -> PromotionOutcome:
    """Promote the request's miss into the configured living split of the open `store`'s golden set (a dry run
    validates and writes nothing). UsageError: unknown trace id; InputError: an invalid golden set."""
    target = GoldenTarget.from_config(config)
    context = promotion_context(store, target, request.trace_id)
    draft = request.draft(context.entry.miss)
    similar = context.near_duplicates(draft.question)
    try:
        if dry_run:
            return PromotionOutcome(similar, line=case_line(case_from_draft(draft, context)))
        return PromotionOutcome(similar, result=promote(store, draft, target, snapshot=context.snapshot))
    except QaevalError as exc:
        return PromotionOutcome(similar, error=exc)
