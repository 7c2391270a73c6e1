"""Rejecting a production miss, with a reason (DESIGN §3.6): the miss is decided once, like a promotion."""

from __future__ import annotations

from qaeval_tui.core.curation.draft import FieldError
from qaeval_tui.core.curation.inbox import InboxEntry, inbox_entry
from qaeval_tui.core.curation.promotion import CurationError, already_decided, complete_interrupted_promotion
from qaeval_tui.core.curation.target import GoldenSnapshot, GoldenTarget, living_file_lock
from qaeval_tui.core.errors import QaevalError
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.rows import InboxDecision


def validate_rejection(entry: InboxEntry, reason: str, curator: str) -> list[FieldError]:
    """Every problem with rejecting `entry` (empty: it can be rejected)."""
    errors = []
    if entry.decision is not None:
        errors.append(already_decided(entry.decision))
    if not reason.strip():
        errors.append(FieldError("reason", "required: why this miss does not become a golden case"))
    if not curator.strip():
        errors.append(FieldError("curator", "required: who is rejecting it"))
    return errors


def reject(
    store: StoreBackend,
    trace_id: str,
    *,
    reason: str,
    curator: str,
    now: str | None = None,
    target: GoldenTarget | None = None,
) -> InboxDecision:
    """Mark a miss rejected with a reason. Raises CurationError when invalid or already decided.

    With `target`, a pending miss whose case is already in that golden set cannot be rejected: its
    promotion is recorded instead (see complete_interrupted_promotion). A golden set that does not
    load skips that check: a broken set must not stop a curator from rejecting a miss.
    """
    entry = inbox_entry(store, trace_id)
    if target is not None and entry.decision is None:
        try:
            snapshot = GoldenSnapshot.load(target)
        except QaevalError:
            snapshot = None
        if snapshot is not None:
            # A golden folder no one can write holds no promotion to wait for: look unlocked.
            with living_file_lock(target, optional=True):
                complete_interrupted_promotion(store, entry, snapshot, target, "rejection")
    errors = validate_rejection(entry, reason, curator)
    if errors:
        raise CurationError(trace_id, errors, action="rejection")
    decision = InboxDecision("rejected", None, reason.strip(), curator.strip(), now or utc_now())
    earlier = store.record_inbox_decision(trace_id, decision)
    if earlier is not None:
        raise CurationError(trace_id, [already_decided(earlier)], action="rejection")
    return decision
