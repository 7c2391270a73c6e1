"""Where blind reviewers disagree, per axis, worst first: the adjudication screen's list.

A disagreement is an (item, axis) on which at least two blind reviewers gave different scale
values ("can't judge" is not a value, so it never disagrees with one). Kept apart from them,
`too_few_reviewers` lists the (item, axis) pairs with fewer blind values than a consensus needs
(one reviewer only, by default): unresolved too, offered for more labels or a ruling. Labels are
the revisions agreement and calibration read: the latest blind, non-skip revision per (item,
reviewer).

Worst first means: open before adjudicated; then the widest spread in scale steps (a 0 against a
2 is a worse split than a 1 against a 2); then unresolved before median-resolved (an unresolved
item is left out of calibration until someone rules on it); then more distinct values; then case
id and axis order, so the list is stable. The consensus shown beside each entry is exactly the
one calibration uses (`calibration.human_consensus`), adjudications included.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.dossier import CONSENSUS_SOURCES, latest_blind_labels
from qaeval_tui.core.curation.rulings import RulingView, ruling_views
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.review.label_rows import misfit_error
from qaeval_tui.core.review.rubric_fit import score_misfits
from qaeval_tui.core.rubric import Axis
from qaeval_tui.core.statistics.calibration import adjudicate, human_consensus
from qaeval_tui.core.statistics.label_table import LabelTable
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import BadRow, ItemAxis, LabelRevision

__all__ = ["AdjudicationQueue", "BlindScore", "Disagreement", "adjudication_queue", "record_consensus"]


@dataclass(frozen=True)
class BlindScore:
    """One reviewer's blind score on the disagreement's axis, with the note of that label."""

    reviewer: str
    value: int | None
    """None: "can't judge" (or the reviewer left the axis unscored)."""
    note: str
    flagged: bool


@dataclass(frozen=True)
class Disagreement:
    item_id: str
    case_id: str
    axis: str
    scores: tuple[BlindScore, ...]
    """Every blind reviewer of the item, by name."""
    spread: int
    """Scale steps between the lowest and highest value (nominal axes: distinct values - 1)."""
    distinct: int
    consensus: int | None
    consensus_source: str
    """As calibration sees it now: median, unresolved, or adjudicated."""
    adjudicated: bool
    labelled_by: frozenset[str] = frozenset()
    """Everyone with a (non-skip) label on the item, blind or not, casefolded: none of them may rule on it."""
    ruling: RulingView | None = None
    """The latest ruling (its reason and cited guideline section), when a curator ruled."""

    @property
    def open(self) -> bool:
        return not self.adjudicated

    def ruling_refused(self, curator: str) -> str | None:
        """Why `curator` may not rule on this disagreement (they labelled the item), or None."""
        if curator.strip().casefold() not in self.labelled_by:
            return None
        return _self_ruling(curator, self.case_id)


def _self_ruling(curator: str, case_id: str) -> str:
    return (
        f"{curator.strip()} labelled {case_id}, so cannot rule on it: a curator never adjudicates "
        "a disagreement they labelled; another curator rules"
    )


@dataclass(frozen=True)
class AdjudicationQueue:
    entries: tuple[Disagreement, ...]
    """Worst first; adjudicated entries after every open one."""
    too_few_reviewers: tuple[Disagreement, ...] = ()
    """(item, axis) pairs with fewer blind values than a consensus needs (`calibration.min_reviewers`)
    and no ruling: unresolved, offered for more labels or a ruling; by case id and axis."""

    @property
    def open_count(self) -> int:
        return sum(1 for entry in self.entries if entry.open)

    @property
    def adjudicated_count(self) -> int:
        return len(self.entries) - self.open_count

    def open_per_axis(self) -> dict[str, int]:
        return dict(Counter(entry.axis for entry in self.entries if entry.open))


def _spread(axis: Axis, values: list[int]) -> int:
    if axis.level == "nominal":
        return len(set(values)) - 1
    positions = [axis.scale.index(value) for value in values if value in axis.scale]
    return max(positions) - min(positions) if positions else 0


def _by_item(labels: tuple[Label, ...]) -> dict[str, list[Label]]:
    grouped: dict[str, list[Label]] = {}
    for label in labels:
        grouped.setdefault(label.item_id, []).append(label)
    return grouped


def _labellers(rows: list[LabelRevision]) -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for row in rows:
        if not row.label.skipped:
            found.setdefault(row.label.item_id, set()).add(row.label.reviewer.casefold())
    return {item_id: frozenset(names) for item_id, names in found.items()}


def adjudication_queue(store: StoreBackend, config: Config, *, viewer: str | None = None) -> AdjudicationQueue:
    """Every (item, axis) where blind reviewers disagree, worst first.

    Built for a named `viewer`, it records an exposure for each listed item that is theirs (in their
    queue or labelled by them): the list shows the other reviewers' labels (DESIGN §4)."""
    queue = _queue(store, config)
    if viewer:
        items = {entry.item_id for entry in (*queue.entries, *queue.too_few_reviewers)}
        store.record_exposure(viewer, items, "adjudication list", "the case id, other reviewers' labels, the consensus")
    return queue


def _queue(store: StoreBackend, config: Config) -> AdjudicationQueue:
    rubric = config.rubric
    rows = store.labels()  # quarantined rows left out; a row no reader could read is named
    misfits = [
        BadRow("labels", row.id, name, problem)
        for row in rows
        if row.label.rubric_version == rubric.version
        for name, problem in score_misfits(rubric, row.label.scores, advice=False)
    ]
    if misfits:  # never computed on: a curator quarantines each
        under_version = sum(row.label.rubric_version == rubric.version for row in rows)
        current = (row.label.scores for row in rows if row.label.rubric_version == rubric.version)
        raise misfit_error(f"store {store.path}", misfits, under_version, rubric, current)
    blind = latest_blind_labels(rows, rubric.version)
    if not blind:
        return AdjudicationQueue(())
    labellers = _labellers(rows)
    rulings = ruling_views(rubric, store.rulings())
    adjudicated = {key: ruling.score for key, ruling in rulings.items()}
    table = LabelTable.from_labels(blind, rubric)
    position = {item: i for i, item in enumerate(table.items)}
    grouped = _by_item(blind)
    entries: list[Disagreement] = []
    too_few: list[Disagreement] = []
    for axis in rubric.axes:
        consensus = human_consensus(table, axis, adjudicated, config.calibration.min_reviewers)
        for item_id, labels in grouped.items():
            values = [v for v in (label.scores.get(axis.name) for label in labels) if v is not None]
            i = position[item_id]
            value = float(consensus.values[i])
            entry = Disagreement(
                item_id=item_id,
                case_id=labels[0].case_id,
                axis=axis.name,
                scores=tuple(
                    BlindScore(label.reviewer, label.scores.get(axis.name), label.note, label.flagged)
                    for label in sorted(labels, key=lambda label: label.reviewer)
                ),
                spread=_spread(axis, values),
                distinct=len(set(values)),
                consensus=None if math.isnan(value) else int(value),
                consensus_source=CONSENSUS_SOURCES[int(consensus.source[i])],
                adjudicated=(item_id, axis.name) in adjudicated,
                labelled_by=labellers.get(item_id, frozenset()),
                ruling=rulings.get(ItemAxis(item_id, axis.name)),
            )
            if len(set(values)) >= 2:
                entries.append(entry)
            elif values and len(values) < config.calibration.min_reviewers and not entry.adjudicated:
                too_few.append(entry)
    order = {axis.name: index for index, axis in enumerate(rubric.axes)}
    entries.sort(
        key=lambda e: (
            e.adjudicated,
            -e.spread,
            e.consensus_source != "unresolved",
            -e.distinct,
            e.case_id,
            order[e.axis],
            e.item_id,
        )
    )
    too_few.sort(key=lambda e: (e.case_id, order[e.axis], e.item_id))
    return AdjudicationQueue(tuple(entries), tuple(too_few))


def record_consensus(
    store: StoreBackend,
    config: Config,
    item_id: str,
    axis: str,
    score: int | None,
    reason: str,
    adjudicator: str,
    cites: str | None = None,
) -> None:
    """Record a curator's consensus label (append-only; the latest ruling counts), citing the guideline
    section `cites` (an id of `core.guideline_sections`) or none. Raises UsageError, nothing written:
    a bad value, reason or section, or a curator who labelled the item (a curator never rules on a
    disagreement they labelled)."""
    labelled = _labellers(store.labels(item_id=item_id)).get(item_id, frozenset())
    if adjudicator.strip().casefold() in labelled:
        case_id = store.case_ids_by_item().get(item_id, item_id)
        raise UsageError(_self_ruling(adjudicator, case_id))
    adjudicate(store, config.rubric, item_id, axis, score, reason.strip(), adjudicator.strip(), cites)
