"""One review item laid open for a curator or a lead: the case, the answer, every blind label.

Unlike the review screen's `BlindItemView`, a dossier shows who said what. It is read-only and
built for people who are not labeling the item: the adjudication screen and the dashboard's
drill-down; built for someone who is (the item is in their queue), it records their exposure.
The judge verdict is included only when asked for: adjudication leaves it out, so a consensus
is settled without the judge's score in view (calibration compares the judge with that
consensus, and a consensus nudged toward the judge would flatter it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.rulings import RulingView, ruling_views
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.review.views import CitationView, SourceView, content_views
from qaeval_tui.core.statistics.consensus import NO_HUMAN_VALUE, SOURCE_NAMES, human_consensus
from qaeval_tui.core.statistics.label_table import LabelTable, select_labels
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import LabelRevision

CONSENSUS_SOURCES: dict[int, str] = SOURCE_NAMES


@dataclass(frozen=True)
class ReviewerLabel:
    """One reviewer's latest blind label on an item (the revision agreement and calibration read)."""

    reviewer: str
    scores: dict[str, int | None]
    """Axis -> value; None is "can't judge"; an axis missing from the dict was not scored."""
    note: str
    flagged: bool
    revision: int
    created_at: str


@dataclass(frozen=True)
class AxisConsensus:
    """What the human side of calibration is for one axis of one item, and where it came from."""

    axis: str
    value: int | None
    source: str
    """One of CONSENSUS_SOURCES' values."""


@dataclass(frozen=True)
class JudgeView:
    """The judge verdict on the item (only in dossiers built with the judge)."""

    name: str
    config_hash: str
    status: str
    scores: dict[str, int | None]
    evidence: dict[str, str]


@dataclass(frozen=True)
class ItemDossier:
    item_id: str
    case_id: str
    question: str
    expected_behavior: str
    gold_answer: str | None
    gold_source_ids: tuple[str, ...]
    answer: str
    abstained: bool
    citations: tuple[CitationView, ...]
    sources: tuple[SourceView, ...]
    labels: tuple[ReviewerLabel, ...]
    consensus: tuple[AxisConsensus, ...]
    judge: JudgeView | None
    post_reveal_revisions: int
    """Revisions made after seeing the judge: kept, but not read by agreement or calibration."""
    rulings: tuple[RulingView, ...] = ()
    """The latest ruling per adjudicated axis, in rubric order, with its reason and cited section."""


def latest_blind_labels(rows: Iterable[LabelRevision], rubric_version: str) -> tuple[Label, ...]:
    """The latest blind, non-skip revision per (item, reviewer) of stored label revisions."""
    return tuple(select_labels((row.label for row in rows), rubric_version).labels)


def _judge_view(verdict: JudgeVerdict | None) -> JudgeView | None:
    if verdict is None:
        return None
    return JudgeView(
        name=str(verdict.judge.get("name", "")),
        config_hash=str(verdict.judge.get("config_hash", "")),
        status=verdict.status,
        scores=dict(verdict.scores),
        evidence=dict(verdict.evidence),
    )


def _verdict_for(store: StoreBackend, item_id: str, config_hash: str | None) -> JudgeVerdict | None:
    latest = store.latest_verdict(item_id)
    if config_hash is None or latest is None or latest.verdict.judge.get("config_hash") == config_hash:
        return None if latest is None else latest.verdict
    mine = [v.verdict for v in store.verdicts(config_hash=config_hash, item_id=item_id)]
    return mine[-1] if mine else None


def hidden_shown(dossier: ItemDossier, viewer: str) -> str:
    """What of the item's hidden information a dossier shows `viewer`, in words (DESIGN §4)."""
    shown = ["the case id", "the gold answer"] if dossier.gold_answer else ["the case id"]
    if dossier.judge is not None:
        shown.append("the judge verdict and evidence")
    if any(label.reviewer.casefold() != viewer.casefold() for label in dossier.labels):
        shown.append("other reviewers' labels")
    if any(entry.value is not None for entry in dossier.consensus):
        shown.append("the consensus")
    return ", ".join(shown)


def item_dossier(
    store: StoreBackend,
    config: Config,
    item_id: str,
    *,
    with_judge: bool,
    judge_config_hash: str | None = None,
    viewer: str | None = None,
    view: str = "item dossier",
) -> ItemDossier:
    """The dossier of one review item. Raises UsageError when the item or its content is not stored.

    `judge_config_hash` picks which judge's verdict to show (default: the latest verdict stored).
    Built for a named `viewer`, it records an exposure when the item is theirs (in their queue or
    labelled by them): their later labels on it are not blind (DESIGN §4). `view` names the screen.
    """
    dossier = _dossier(store, config, item_id, with_judge=with_judge, judge_config_hash=judge_config_hash)
    if viewer:
        store.record_exposure(viewer, [item_id], view, hidden_shown(dossier, viewer))
    return dossier


def _dossier(
    store: StoreBackend, config: Config, item_id: str, *, with_judge: bool, judge_config_hash: str | None
) -> ItemDossier:
    item = store.review_item(item_id)
    if item is None:
        raise UsageError(f"no review item {item_id!r} in {store.path}")
    case, output = item.case, item.output
    if case is None or output is None:
        raise UsageError(f"review item {item_id!r} has lost its case or output in {store.path}")
    rubric = config.rubric
    rows = store.labels(item_id=item_id)
    blind = latest_blind_labels(rows, rubric.version)
    consensus: list[AxisConsensus] = []
    rulings = ruling_views(rubric, store.rulings(item_id))
    if blind:
        table = LabelTable.from_labels(blind, rubric)
        adjudicated = {key: ruling.score for key, ruling in rulings.items()}
        for axis in rubric.axes:
            found = human_consensus(table, axis, adjudicated, config.calibration.min_reviewers)
            value = float(found.values[0])
            consensus.append(
                AxisConsensus(
                    axis.name, None if math.isnan(value) else int(value), CONSENSUS_SOURCES[int(found.source[0])]
                )
            )
    else:
        consensus = [AxisConsensus(axis.name, None, CONSENSUS_SOURCES[NO_HUMAN_VALUE]) for axis in rubric.axes]
    citations, sources = content_views(case, output)
    return ItemDossier(
        item_id=item_id,
        case_id=item.item.case_id,
        question=str(case.get("question", "")),
        expected_behavior=str(case.get("expected_behavior", "")),
        gold_answer=case.get("gold_answer"),
        gold_source_ids=tuple(str(s) for s in case.get("gold_source_ids", [])),
        answer=str(output.get("answer") or ""),
        abstained=bool(output.get("abstained", False)),
        citations=citations,
        sources=sources,
        labels=tuple(
            ReviewerLabel(
                label.reviewer, dict(label.scores), label.note, label.flagged, label.revision, label.created_at
            )
            for label in blind
        ),
        consensus=tuple(consensus),
        judge=_judge_view(_verdict_for(store, item_id, judge_config_hash)) if with_judge else None,
        post_reveal_revisions=sum(1 for row in rows if row.label.revealed and not row.label.skipped),
        rulings=tuple(ruling for axis in rubric.axes for key, ruling in rulings.items() if key.axis == axis.name),
    )


def record_case_view(store: StoreBackend, viewer: str, case_id: str) -> int:
    """Record that `viewer` opened golden case `case_id` whole (the golden browser's case view): its
    id, gold answer and gold sources, hidden from them on their own items of that case (DESIGN §4).

    The case view is built from the golden file, not the store, so its screen calls this; returns
    how many exposures were new."""
    items = [item_id for item_id, case in store.case_ids_by_item().items() if case == case_id]
    return store.record_exposure(viewer, items, "golden browser", "the case id, the gold answer and gold sources")
