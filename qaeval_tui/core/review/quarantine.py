"""Quarantine: a curator's recorded decision to leave one bad label row out of everything (DESIGN §4).

A bad row is one a reader would refuse (`label_rows.label_problems`, or a column the store's checks
refuse): an off-scale score, a `created_at` that is no date, an oversized note, a document that is no
JSON, a claim to be blind made after its reviewer's reveal on record. Only such a row may be
quarantined: a label a curator disagrees with is adjudicated, not set aside. The decision is
appended (`label_quarantine`), never changed nor undone; from then on every figure, export and
screen leaves the row out and counts it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.label_rows import LabelRowsError, blind_claim_problem, label_problems
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import BadRow, LabelRevision, Quarantine
from qaeval_tui.core.text import one_line

MAX_REASON_CHARS = 2_000


@dataclass(frozen=True)
class LabelCheck:
    """The store's bad label rows (quarantined ones left out) and the quarantines on record."""

    bad: tuple[BadRow, ...]
    quarantined: tuple[Quarantine, ...]


def _problems(
    rubric: Rubric, unblinded: Mapping[tuple[str, str], str], revision: LabelRevision
) -> list[tuple[str, str]]:
    """What `labels import` would refuse of one stored revision (its blind claim included)."""
    found = label_problems(revision.label, rubric, advice=False)
    blind = blind_claim_problem(revision.label, unblinded)
    return found if blind is None else [*found, ("revealed", blind)]


def check_labels(store: StoreBackend, rubric: Rubric) -> LabelCheck:
    """Every stored label row a reader would refuse, located, and what was quarantined."""
    # A read: no write transaction (on SQLite it would hold off every reviewer's submit meanwhile).
    bad = store.bad_label_rows(partial(_problems, rubric, store.unblinded_at()))
    return LabelCheck(tuple(bad), tuple(store.quarantines()))


def readable_labels(store: StoreBackend, rubric: Rubric, reviewer: str) -> list[LabelRevision]:
    """`reviewer`'s stored revisions, quarantined rows left out; one a reader would refuse is a
    LabelRowsError naming every such row (an export never writes a line an import would refuse)."""
    revisions = store.labels(reviewer=reviewer)
    unblinded = store.unblinded_at()
    bad = [
        BadRow("labels", revision.id, name, problem)
        for revision in revisions
        for name, problem in _problems(rubric, unblinded, revision)
    ]
    if bad:
        raise LabelRowsError(store.path, bad, "that `labels import` would refuse; nothing was exported")
    return revisions


def quarantine_label(store: StoreBackend, label_id: int, *, reason: str, curator: str, rubric: Rubric) -> Quarantine:
    """Record the quarantine of one bad label row. UsageError (exit 2, nothing written): a blank or
    oversized reason, no curator, an unknown row, a row with nothing wrong, one quarantined before."""
    reason, curator = reason.strip(), curator.strip()
    if not reason:
        raise UsageError("--reason: a quarantine needs a non-blank reason (it is recorded, never changed)")
    if len(reason) > MAX_REASON_CHARS:
        raise UsageError(f"--reason: {len(reason)} characters, more than a reason may hold ({MAX_REASON_CHARS})")
    if not curator:
        raise UsageError("--curator: name who quarantines the row (or set QAEVAL_CURATOR)")
    with store.transaction():
        done = {entry.label_id: entry for entry in store.quarantines()}
        if label_id in done:
            earlier = done[label_id]
            raise UsageError(
                f"label row {label_id}: already quarantined by {one_line(earlier.curator)} at "
                f"{earlier.quarantined_at}; nothing was changed"
            )
        bad = _rows_of(store.bad_label_rows(partial(_problems, rubric, store.unblinded_at())), label_id)
        if not bad:
            raise UsageError(
                f"label row {label_id}: no such row, or nothing is wrong with it (`qaeval labels check` lists the rows "
                "that may be quarantined; a label you disagree with is adjudicated, not set aside); nothing was changed"
            )
        try:
            recorded = store.quarantine_label(label_id, reason, curator)
        except KeyError:
            recorded = None
        if recorded is None:  # another curator was first
            raise UsageError(f"label row {label_id}: already quarantined; nothing was changed")
    return recorded


def _rows_of(rows: Sequence[BadRow], label_id: int) -> list[BadRow]:
    return [row for row in rows if row.row_id == label_id]
