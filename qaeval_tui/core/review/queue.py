"""Review items from runs, and their seeded, balanced assignment to reviewers (DESIGN §3.5, §4).

Re-exported by `qaeval_tui.core.review.session`; kept apart so the session code stays small.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import combinations

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.golden.loader import GoldenSet
from qaeval_tui.core.hashing import item_id_for
from qaeval_tui.core.models.golden import CASE_ID_PATTERN
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import CaseRecord, QueueEntry, ReviewItemRecord


@dataclass(frozen=True)
class AssignmentReport:
    """What `assign` did: the resulting load per reviewer and how often each pair shares an item."""

    reviewers: tuple[str, ...]
    overlap: int
    seed: int
    items: int
    newly_assigned_items: int
    replaced: bool
    load: dict[str, int]
    pair_overlap: dict[tuple[str, str], int]

    def to_json(self) -> dict[str, object]:
        return {
            "reviewers": list(self.reviewers),
            "overlap": self.overlap,
            "seed": self.seed,
            "items": self.items,
            "newly_assigned_items": self.newly_assigned_items,
            "replaced": self.replaced,
            "load": self.load,
            "pair_overlap": [{"reviewers": list(pair), "items": n} for pair, n in sorted(self.pair_overlap.items())],
        }


def build_review_items(
    store: StoreBackend, run_id: str, golden: GoldenSet | None = None, *, only_cases: AbstractSet[str] | None = None
) -> int:
    """One review item per (case, output) of the run (only the case hashes in `only_cases`, if
    given); returns how many were new.

    The blind view reads each case's content from the store. A case the runner did not store is
    taken from `golden` (matched by content hash); if it is missing there too, nothing is written
    and the error names the cases.
    """
    if store.get_run(run_id) is None:
        raise UsageError(f"no run {run_id!r} in {store.path}; list runs with `qaeval run --json` output or the store")
    outputs = store.run_outputs(run_id)
    if not outputs:
        raise UsageError(f"run {run_id!r} has no outputs to review")
    if only_cases is not None:
        outputs = [o for o in outputs if o.case_hash in only_cases]
    missing = [o for o in outputs if store.case_json(o.case_hash) is None]
    if missing:
        by_hash = golden.by_hash() if golden is not None else {}
        found = [by_hash[o.case_hash] for o in missing if o.case_hash in by_hash]
        if len(found) < len(missing):
            absent = sorted(o.case_id for o in missing if o.case_hash not in by_hash)
            raise UsageError(
                f"run {run_id!r}: the content of {len(absent)} case(s) is not in the store or the golden data "
                f"({', '.join(absent[:5])}{', ...' if len(absent) > 5 else ''}); "
                "pass the golden files the run used (--data)"
            )
        store.upsert_cases(
            CaseRecord(lc.content_hash, lc.case.id, lc.split, lc.case.model_dump(mode="json")) for lc in found
        )
    rows = [
        ReviewItemRecord(item_id_for(o.case_hash, o.output_hash), o.case_id, o.case_hash, o.output_hash, run_id)
        for o in outputs
    ]
    return store.insert_review_items(rows)


def _check_reviewers(reviewers: Sequence[str], overlap: int) -> tuple[str, ...]:
    names = tuple(name.strip() for name in reviewers)
    if not names:
        raise UsageError("no reviewers given; pass --reviewers a,b,c")
    bad = [name for name in names if not CASE_ID_PATTERN.match(name)]
    if bad:
        raise UsageError(f"reviewer names may use letters, digits, '.', '_' and '-' only: {bad}")
    if len(set(names)) != len(names):
        raise UsageError(f"reviewer names must be distinct: {list(names)}")
    if not 1 <= overlap <= len(names):
        raise UsageError(f"overlap must be between 1 and the number of reviewers ({len(names)}), got {overlap}")
    return names


def assign(
    store: StoreBackend, reviewers: Sequence[str], overlap: int, seed: int, *, replace: bool = False
) -> AssignmentReport:
    """Give each review item to `overlap` reviewers, balancing load and pair overlap, in seeded order.

    Items that already have reviewers keep them (a reviewer's queue never reshuffles under them)
    unless `replace`; only new items are assigned, appended to each queue in a per-reviewer seeded
    order. Labels are never touched.
    """
    names = _check_reviewers(reviewers, overlap)
    items = [row.item_id for row in store.review_items()]
    if not items:
        raise UsageError("no review items; create them from a run first (`qaeval queue` does, given a run)")
    existing = [] if replace else store.assignments()
    assigned_items = {item_id for _, item_id, _ in existing}
    load: Counter[str] = Counter({name: 0 for name in names})
    pair_count: Counter[tuple[str, str]] = Counter()
    positions: Counter[str] = Counter()
    by_item: dict[str, list[str]] = {}
    for reviewer, item_id, position in existing:
        load[reviewer] += 1
        positions[reviewer] = max(positions[reviewer], position)
        by_item.setdefault(item_id, []).append(reviewer)
    for sharing in by_item.values():
        for pair in combinations(sorted(sharing), 2):
            pair_count[pair] += 1

    rng = random.Random(seed)
    new_items = [item_id for item_id in items if item_id not in assigned_items]
    rng.shuffle(new_items)
    chosen_for: dict[str, list[str]] = {name: [] for name in names}
    for item_id in new_items:
        group: list[str] = []
        tie_break = {name: rng.random() for name in names}
        for _ in range(overlap):
            # Least loaded first, then the reviewer who has shared fewest items with the group so far.
            best = min(
                (name for name in names if name not in group),
                key=lambda name: (
                    load[name],
                    sum(pair_count[(min(name, other), max(name, other))] for other in group),
                    tie_break[name],
                ),
            )
            for other in group:
                pair_count[(min(best, other), max(best, other))] += 1
            group.append(best)
            load[best] += 1
            chosen_for[best].append(item_id)

    store.write_assignments(queued_after(names, chosen_for, positions, seed, ""), replace=replace)
    return AssignmentReport(
        reviewers=names,
        overlap=overlap,
        seed=seed,
        items=len(items),
        newly_assigned_items=len(new_items),
        replaced=replace,
        load={name: load[name] for name in sorted(load)},
        pair_overlap={pair: n for pair, n in sorted(pair_count.items()) if n},
    )


@dataclass(frozen=True)
class MoreLabelsReport:
    """What `assign_more_labels` did: who got which under-reviewed items, and what is still short."""

    reviewers: tuple[str, ...]
    min_reviewers: int
    seed: int
    short_items: int
    """Items with fewer than `min_reviewers` blind reviewers and no ruling, before this call."""
    already_offered: int
    """Of those, items whose missing labels are already in someone's queue (nothing added)."""
    assigned: dict[str, tuple[str, ...]]
    """Per reviewer, the item ids appended to their queue."""
    no_reviewer_left: tuple[str, ...]
    """Items still short: every other team member has labelled or is already assigned to them."""

    def to_json(self) -> dict[str, object]:
        return {
            "more_labels": True,
            "reviewers": list(self.reviewers),
            "min_reviewers": self.min_reviewers,
            "seed": self.seed,
            "short_items": self.short_items,
            "already_offered": self.already_offered,
            "newly_assigned_items": sum(len(items) for items in self.assigned.values()),
            "load": {name: len(items) for name, items in sorted(self.assigned.items())},
            "no_reviewer_left": list(self.no_reviewer_left),
        }


def assign_more_labels(
    store: StoreBackend,
    reviewers: Sequence[str],
    short: dict[str, frozenset[str]],
    min_reviewers: int,
    seed: int,
) -> MoreLabelsReport:
    """Offer each under-reviewed item to other reviewers until `min_reviewers` could label it blind.

    `short` maps an item with fewer than `min_reviewers` blind reviewers (and no ruling) to those
    reviewers. An item is never offered to anyone who has any label revision on it (blind or
    exposed: they cannot label it blind again) nor to anyone whose queue already holds it; a queued
    but unlabelled reviewer counts as an offer already made. Least loaded first, seeded tie-break;
    new items go to the end of each queue in a per-reviewer seeded order, so nothing reshuffles.
    """
    names = _check_reviewers(reviewers, 1)
    queued = store.queued_items()
    touched: dict[str, set[str]] = {}
    for row in store.labels():
        touched.setdefault(row.label.item_id, set()).add(row.label.reviewer)
    load: Counter[str] = Counter({name: len(queued.get(name, frozenset())) for name in names})
    positions: Counter[str] = Counter()
    for reviewer, _, position in store.assignments():
        positions[reviewer] = max(positions[reviewer], position)
    rng = random.Random(seed)
    chosen_for: dict[str, list[str]] = {name: [] for name in names}
    already, stuck = 0, []
    for item_id in sorted(short):
        done = short[item_id] | touched.get(item_id, set())
        pending = {name for name, items in queued.items() if item_id in items} - done
        need = min_reviewers - len(short[item_id]) - len(pending)
        if need <= 0:
            already += 1
            continue
        tie_break = {name: rng.random() for name in names}
        eligible = sorted(
            (name for name in names if name not in done and name not in pending),
            key=lambda name: (load[name], tie_break[name]),
        )
        for name in eligible[:need]:
            chosen_for[name].append(item_id)
            load[name] += 1
        if len(eligible) < need:
            stuck.append(item_id)
    store.write_assignments(queued_after(names, chosen_for, positions, seed, ":more"), replace=False)
    return MoreLabelsReport(
        reviewers=names,
        min_reviewers=min_reviewers,
        seed=seed,
        short_items=len(short),
        already_offered=already,
        assigned={name: tuple(chosen_for[name]) for name in names if chosen_for[name]},
        no_reviewer_left=tuple(stuck),
    )


@dataclass(frozen=True)
class UnreviewedCases:
    """Golden cases that cannot reach a reviewer yet: no run has answered them, or no queue holds them."""

    not_run: tuple[str, ...]
    not_queued: tuple[str, ...]

    @property
    def notice(self) -> str | None:
        """Home's one line about them, or None when every case is run and queued."""
        parts = []
        if self.not_run:
            parts.append(f"{len(self.not_run)} golden case(s) not yet run ({_some(self.not_run)}): `qaeval run`")
        if self.not_queued:
            parts.append(
                f"{len(self.not_queued)} run case(s) not yet queued ({_some(self.not_queued)}): `qaeval queue`"
            )
        return "; ".join(parts) or None


def _some(case_ids: Sequence[str]) -> str:
    return ", ".join(case_ids[:3]) + (", ..." if len(case_ids) > 3 else "")


def unreviewed_cases(store: StoreBackend, golden: GoldenSet) -> UnreviewedCases:
    """Which of `golden`'s cases (matched by content hash, so an edited case counts as new) no run
    answered, and which a run answered but no reviewer's queue holds."""
    run_hashes: set[str] = set()
    for run in store.list_runs():
        run_hashes.update(output.case_hash for output in store.run_outputs(run.run_id))
    queued_ids = set().union(*store.queued_items().values())
    queued_hashes = {item.case_hash for item in store.review_items() if item.item_id in queued_ids}
    not_run, not_queued = [], []
    for loaded in golden.cases:
        if loaded.content_hash not in run_hashes:
            not_run.append(loaded.case_id)
        elif loaded.content_hash not in queued_hashes:
            not_queued.append(loaded.case_id)
    return UnreviewedCases(tuple(not_run), tuple(not_queued))


def queued_after(
    names: Sequence[str], chosen_for: Mapping[str, list[str]], positions: Mapping[str, int], seed: int, salt: str
) -> list[QueueEntry]:
    """Each reviewer's new items after their current last position, in an order of their own that the
    seed (and `salt`, which keeps a later offer from repeating the first order) reproduces."""
    entries: list[QueueEntry] = []
    for name in names:
        queue = sorted(chosen_for[name])
        random.Random(f"{seed}:{name}{salt}").shuffle(queue)
        entries.extend(
            QueueEntry(name, item_id, positions[name] + offset, seed) for offset, item_id in enumerate(queue, start=1)
        )
    return entries
