"""Turning a production miss into a golden case (DESIGN §3.6; rejecting one: `rejection`).

The promote form and `qaeval promote` share this module. A `PromotionDraft` (`draft`)
holds the form's fields as typed; `validate_promotion` is cheap enough to run on every keystroke
and names each problem by draft field. Validation is the loader's own (the same model, the same cross-field
rules, run through `parse_case_line`) plus what only curation knows: the id must be new to the
whole golden set, gold sources come from the miss's sources, and a miss is decided once.

`promote` appends one line to the living file and records the decision under one store write
lock, inside a lock on the living file that promotions through other stores take too: the file is
replaced atomically, the whole golden set is re-loaded to prove it still
validates, and any failure restores the file and rolls the decision back. A failed promotion
writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from qaeval_tui.core.atomic_file import append_line_atomically, restore_file
from qaeval_tui.core.curation.draft import (
    BEHAVIORS,
    DIFFICULTIES,
    KNOWN_TAGS,
    ORIGIN,
    FieldError,
    PromotionDraft,
    case_line,
    checkpoint_spec,
    draft_candidate,
    draft_from_miss,
    loader_errors,
    parse_checkpoint,
    suggest_case_id,
)
from qaeval_tui.core.curation.inbox import InboxEntry, inbox_entry
from qaeval_tui.core.curation.target import GoldenSnapshot, GoldenTarget, living_file_lock
from qaeval_tui.core.errors import QaevalError
from qaeval_tui.core.golden.loader import GoldenSet, case_content_hash, load_golden
from qaeval_tui.core.models.golden import CASE_ID_PATTERN, GoldenCase, LoadedCase
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.rows import InboxDecision

if TYPE_CHECKING:  # neardup brings numpy; only a promotion needs it
    from qaeval_tui.core.golden.neardup import SimilarCase

__all__ = [
    "BEHAVIORS",
    "DIFFICULTIES",
    "KNOWN_TAGS",
    "ORIGIN",
    "CurationError",
    "FieldError",
    "GoldenSnapshot",
    "GoldenTarget",
    "PromotionContext",
    "PromotionDraft",
    "PromotionResult",
    "case_from_draft",
    "case_line",
    "checkpoint_spec",
    "complete_interrupted_promotion",
    "draft_from_miss",
    "parse_checkpoint",
    "promote",
    "promotion_context",
    "suggest_case_id",
    "validate_promotion",
]


class CurationError(QaevalError):
    """A promotion or rejection that is invalid (exit 1). Nothing was written, unless `recorded`:
    then the miss was found already promoted in the golden set and only that decision was recorded."""

    exit_code = 1

    def __init__(
        self, trace_id: str, errors: list[FieldError], action: str = "promotion", *, recorded: bool = False
    ) -> None:
        self.trace_id = trace_id
        self.errors = tuple(errors)
        self.recorded = recorded
        lines = "\n".join(f"  {error}" for error in self.errors)
        super().__init__(f"{action} of {trace_id} refused, {self.written}:\n{lines}")

    @property
    def written(self) -> str:
        """What the refused action still wrote, in words."""
        if self.recorded:
            return "only the promotion already in the golden set was recorded"
        return "nothing was written"


@dataclass(frozen=True)
class PromotionContext:
    """Everything `validate_promotion` checks a draft against: the miss and the current golden set."""

    entry: InboxEntry
    snapshot: GoldenSnapshot

    @property
    def unrecorded_promotion(self) -> str | None:
        """The id of this pending miss's case when it is already in the set (a promotion cut short).

        Promoting or rejecting the miss then records that promotion (complete_interrupted_promotion).
        """
        if self.entry.decision is not None:
            return None
        return self.snapshot.promoted_traces.get(self.entry.trace_id)

    def near_duplicates(self, question: str) -> list[SimilarCase]:
        return self.snapshot.index.near_duplicates(question)


@dataclass(frozen=True)
class PromotionResult:
    """A done promotion: the case as written, where it landed, and the recorded decision."""

    case: GoldenCase
    loaded: LoadedCase
    decision: InboxDecision
    near_duplicates: tuple[SimilarCase, ...]
    golden: GoldenSet = field(repr=False)


def already_decided(done: InboxDecision) -> FieldError:
    what = f"promoted as {done.case_id!r}" if done.decision == "promoted" else "rejected"
    return FieldError("trace_id", f"already {what} by {done.curator} at {done.decided_at}; a miss is decided once")


def _curation_errors(draft: PromotionDraft, context: PromotionContext) -> list[FieldError]:
    """The rules only curation knows, with messages that say what to do."""
    errors: list[FieldError] = []
    entry, snapshot = context.entry, context.snapshot
    if entry.decision is not None:
        errors.append(already_decided(entry.decision))
    elif context.unrecorded_promotion is not None:
        errors.append(
            FieldError(
                "trace_id",
                f"already in the golden set as {context.unrecorded_promotion!r}, not yet recorded as promoted: "
                "promoting or rejecting it records that",
            )
        )
    case_id = draft.case_id.strip()
    if not case_id:
        errors.append(FieldError("case_id", "required: a new id of letters, digits, '.', '_' or '-'"))
    elif not CASE_ID_PATTERN.match(case_id):
        errors.append(FieldError("case_id", "use only letters, digits, '.', '_' and '-'"))
    elif case_id in snapshot.where:
        errors.append(FieldError("case_id", f"{case_id!r} already exists ({snapshot.where[case_id]}); choose a new id"))
    if not draft.question.strip():
        errors.append(FieldError("question", "required"))
    available = entry.miss.source_ids()
    seen: set[str] = set()
    for index, source_id in enumerate(draft.gold_source_ids):
        if source_id not in available:
            listed = ", ".join(available) or "none"
            errors.append(
                FieldError("gold_source_ids", f"{source_id!r} is not one of this miss's sources ({listed})", index)
            )
        elif source_id in seen:
            errors.append(FieldError("gold_source_ids", f"{source_id!r} is picked twice", index))
        seen.add(source_id)
    if not draft.curator.strip():
        errors.append(FieldError("curator", "required: who is promoting this case"))
    if not draft.reason.strip():
        errors.append(FieldError("reason", "required: why this miss belongs in the golden set"))
    return errors


def validate_promotion(draft: PromotionDraft, context: PromotionContext) -> list[FieldError]:
    """Every problem with the draft (empty: it can be promoted). Fast enough for every keystroke."""
    candidate, positions, errors = draft_candidate(draft, context.entry.miss, utc_now())
    errors += _curation_errors(draft, context)
    reported = {(error.field, error.index) for error in errors}
    for error in loader_errors(candidate, positions):
        # One message per field: the curation wording says more than the loader's for the same rule.
        if (error.field, error.index) not in reported and (error.field, None) not in reported:
            errors.append(error)
            reported.add((error.field, error.index))
    order = {name: i for i, name in enumerate(f.name for f in fields(PromotionDraft))}
    return sorted(errors, key=lambda e: (order.get(e.field, len(order)), -1 if e.index is None else e.index))


def case_from_draft(draft: PromotionDraft, context: PromotionContext, promoted_at: str | None = None) -> GoldenCase:
    """The golden case the draft describes, with provenance. Raises CurationError when invalid."""
    errors = validate_promotion(draft, context)
    if errors:
        raise CurationError(draft.trace_id, errors)
    candidate, _, _ = draft_candidate(draft, context.entry.miss, promoted_at or utc_now())
    return GoldenCase.model_validate(candidate)


def complete_interrupted_promotion(
    store: StoreBackend, entry: InboxEntry, snapshot: GoldenSnapshot, target: GoldenTarget, action: str
) -> None:
    """Before deciding a pending miss whose case is already in the set: record that promotion, refuse.

    `promote` appends the case and records the decision in one store transaction, but a `kill -9`
    between the append and the commit leaves the case in the living file and the miss undecided.
    The file is the record that the miss was promoted (the case's provenance names the curator,
    the reason and the time), so when someone next tries to promote or reject the miss, that
    decision is recorded from it, once, and the new one is refused (CurationError, `recorded`).
    A case added by hand with the miss's trace id counts the same way. Opening a miss writes
    nothing: its form shows that it is already in the golden set.

    The case is looked for again under the store's write lock before the decision commits: a
    promotion failing in another process appends its line, then removes it on rollback, and its
    passing line must not be taken for a promotion.
    """
    if entry.decision is not None or entry.trace_id not in snapshot.promoted_traces:
        return
    case_id = snapshot.promoted_traces[entry.trace_id]
    provenance = snapshot.golden.by_id()[case_id].case.provenance
    if provenance is None:  # promoted_traces holds only cases with provenance
        return

    def still_in_the_set() -> None:
        try:
            now_in_set = GoldenSnapshot.load(target).promoted_traces.get(entry.trace_id)
        except QaevalError:  # the set broke meanwhile: nothing to go on, record nothing
            now_in_set = None
        if now_in_set != case_id:
            raise _GoneMeanwhile

    try:
        earlier = store.record_inbox_decision(
            entry.trace_id,
            InboxDecision("promoted", case_id, provenance.reason, provenance.promoted_by, provenance.promoted_at),
            effect=still_in_the_set,
        )
    except _GoneMeanwhile:
        return  # nothing recorded: the decision at hand goes ahead as for any pending miss
    if earlier is not None:  # decided elsewhere meanwhile: that decision stands
        raise CurationError(entry.trace_id, [already_decided(earlier)], action=action)
    message = (
        f"already in the golden set as {case_id!r}: that promotion (by {provenance.promoted_by} at "
        f"{provenance.promoted_at}) had not been recorded, and now is"
    )
    raise CurationError(entry.trace_id, [FieldError("trace_id", message)], action=action, recorded=True)


def _from_trace(loaded: LoadedCase, trace_id: str) -> bool:
    provenance = loaded.case.provenance
    return provenance is not None and provenance.trace_id == trace_id


class _GoneMeanwhile(Exception):
    """The case seen in the golden set was no longer there under the write lock."""


def promotion_context(store: StoreBackend, target: GoldenTarget, trace_id: str) -> PromotionContext:
    """Load the miss and the current golden set (UsageError: unknown trace id; InputError: invalid set)."""
    return PromotionContext(inbox_entry(store, trace_id), GoldenSnapshot.load(target))


def promote(
    store: StoreBackend,
    draft: PromotionDraft,
    target: GoldenTarget,
    *,
    snapshot: GoldenSnapshot | None = None,
    now: str | None = None,
) -> PromotionResult:
    """Append the draft's case to the living file and mark the miss promoted, both or neither.

    `snapshot` saves re-loading the set when the caller has a fresh one; the set is re-loaded after
    the append either way, so a stale snapshot can only make the promotion fail, never corrupt.
    """
    snapshot = snapshot or GoldenSnapshot.load(target)
    entry = inbox_entry(store, draft.trace_id)
    with living_file_lock(target):
        return _promote_locked(store, draft, target, snapshot, entry, now)


def _promote_locked(
    store: StoreBackend,
    draft: PromotionDraft,
    target: GoldenTarget,
    snapshot: GoldenSnapshot,
    entry: InboxEntry,
    now: str | None,
) -> PromotionResult:
    complete_interrupted_promotion(store, entry, snapshot, target, "promotion")
    context = PromotionContext(entry, snapshot)
    promoted_at = now or utc_now()
    case = case_from_draft(draft, context, promoted_at=promoted_at)
    decision = InboxDecision("promoted", case.id, draft.reason.strip(), draft.curator.strip(), promoted_at)
    line = case_line(case)
    files = target.files()
    if target.living.resolve() not in {file.resolve() for file in files}:
        files.append(target.living)
    landed: dict[str, Any] = {}

    def append_and_verify() -> None:
        landed["before"] = append_line_atomically(target.living, line)
        try:
            reloaded = load_golden(files)
            loaded = reloaded.by_id().get(case.id)
            if loaded is None or loaded.content_hash != case_content_hash(case):
                raise QaevalError(f"{target.living}: the appended case did not read back as written")
            twin = next((c.case.id for c in reloaded.cases if _from_trace(c, draft.trace_id) and c is not loaded), None)
            if twin is not None:  # the caller's snapshot predates it (a promotion cut short, or by hand)
                raise CurationError(draft.trace_id, [FieldError("trace_id", f"already in the golden set as {twin!r}")])
        except BaseException:
            restore_file(target.living, landed.pop("before"))
            raise
        landed["golden"], landed["loaded"] = reloaded, loaded

    try:
        earlier = store.record_inbox_decision(draft.trace_id, decision, effect=append_and_verify)
    except BaseException:
        if "before" in landed:  # the decision did not commit after the file was written
            restore_file(target.living, landed["before"])
        raise
    if earlier is not None:
        raise CurationError(draft.trace_id, [already_decided(earlier)])
    return PromotionResult(
        case=case,
        loaded=landed["loaded"],
        decision=decision,
        near_duplicates=tuple(context.near_duplicates(case.question)),
        golden=landed["golden"],
    )
