"""A bad label row (an old store, a hand edit) is named by every statistic that meets it, never a
stop with advice that would set every legitimate label aside; a curator's recorded quarantine then
leaves it out of every figure, export and screen, and the figures say how many were left out.

Each case writes the bad row with raw SQL beside good ones, as a psql session or a hand edit would.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.adjudication import adjudication_queue
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.label_export import export_folder
from qaeval_tui.core.review.label_rows import LabelRowsError
from qaeval_tui.core.review.labels_io import import_labels
from qaeval_tui.core.review.quarantine import check_labels, quarantine_label
from qaeval_tui.core.statistics.sources import agreement_from_store
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import CorruptRowError
from qaeval_tui.core.usecases.dashboard import compute_dashboard
from tests.store_contract.conftest import Backend
from tests.store_contract.rows import a_draft, seeded

CONFIG = Config()
RUBRIC = CONFIG.rubric
_GOOD = {
    "item_id": "'item-c0'",
    "case_id": "'c0'",
    "reviewer": "'zed'",
    "revision": "1",
    "scores_json": """'{"faithfulness": 2}'""",
    "note": "''",
    "flagged": "0",
    "skipped": "0",
    "rubric_version": "'1'",
    "revealed": "0",
    "created_at": "'2026-11-02T00:00:00Z'",
    "seconds_spent": "3.5",
    "origin": "'hand'",
}


def _insert(backend: Backend, store: StoreBackend, row_id: int, **changed: str) -> None:
    """A row written by hand, or kept from a store older than the team store's checks (schema migration 9)."""
    values = {**_GOOD, **changed}
    columns = ", ".join(["id", *values])
    insert = f"INSERT INTO labels ({columns}) VALUES ({row_id}, {', '.join(values.values())})"
    try:
        backend.execute_raw(store, insert)
    except backend.bad_value_refused:  # PostgreSQL's checks refuse it now; an upgraded store may still hold one
        for check in ("labels_scores_shape", "labels_note_size", "labels_names_size"):
            backend.execute_raw(store, f"ALTER TABLE labels DROP CONSTRAINT IF EXISTS {check}")
        backend.execute_raw(store, insert)


def _team(store: StoreBackend, n_items: int = 3) -> list[str]:
    """Two blind reviewers agreeing on every item: agreement has something to compute."""
    items = seeded(store, n_items=n_items)
    for item in items:
        for reviewer in ("ana", "ben"):
            store.append_label(replace(a_draft(item, reviewer=reviewer), case_id=item.removeprefix("item-")))
    return items


def test_an_off_scale_score_is_named_then_quarantined_and_counted(backend: Backend) -> None:
    store = backend.open()
    _team(store)
    _insert(backend, store, 901, scores_json="""'{"faithfulness": 7}'""")
    with pytest.raises(LabelRowsError) as caught:
        agreement_from_store(store, CONFIG)
    message = str(caught.value)
    assert "labels row 901: scores.faithfulness: 7 is not on the faithfulness scale [0, 1, 2]" in message
    assert "qaeval labels quarantine ID --reason TEXT" in message
    assert "bump" not in message  # one stray row among many: the rubric did not change
    assert [(row.row_id, row.field) for row in check_labels(store, RUBRIC).bad] == [(901, "scores.faithfulness")]

    entry = quarantine_label(store, 901, reason="typed by hand", curator="dana", rubric=RUBRIC)
    assert (entry.label_id, entry.reason, entry.curator) == (901, "typed by hand", "dana")
    report = agreement_from_store(store, CONFIG)
    assert report.selection["quarantined_excluded"] == 1 and report.selection["used"] == 6
    assert check_labels(store, RUBRIC).bad == ()
    assert [q.label_id for q in check_labels(store, RUBRIC).quarantined] == [901]
    assert 901 not in {row.id for row in store.labels()} | {row.id for row in store.label_revisions()}
    dashboard = compute_dashboard(store, CONFIG)
    assert dashboard.agreement is not None and dashboard.agreement.selection["quarantined_excluded"] == 1
    assert adjudication_queue(store, CONFIG).entries == ()


def test_every_bad_row_is_named_at_once(backend: Backend) -> None:
    store = backend.open()
    _team(store)
    _insert(backend, store, 901, scores_json="""'{"faithfulness": 7}'""")
    _insert(backend, store, 902, scores_json="""'{"faithfulness": -1}'""", reviewer="'yan'")
    with pytest.raises(LabelRowsError) as caught:
        agreement_from_store(store, CONFIG)
    assert {row.row_id for row in caught.value.rows} == {901, 902}
    assert "labels row 901" in str(caught.value) and "labels row 902" in str(caught.value)
    with pytest.raises(LabelRowsError, match="labels row 902"):
        adjudication_queue(store, CONFIG)  # the adjudication list never computes on one either


def test_a_row_no_reader_can_parse_is_named_then_left_out(backend: Backend) -> None:
    store = backend.open()
    _team(store)
    _insert(backend, store, 903, scores_json="'not json'")
    with pytest.raises(CorruptRowError) as caught:
        store.label_revisions()
    assert caught.value.rows[0][:3] == ("labels", 903, "scores_json")
    assert "qaeval labels quarantine" in str(caught.value)
    quarantine_label(store, 903, reason="damaged", curator="dana", rubric=RUBRIC)
    assert agreement_from_store(store, CONFIG).selection["quarantined_excluded"] == 1


@pytest.mark.parametrize(
    ("column", "literal", "field"),
    [("created_at", "'yesterday'", "created_at"), ("note", "'" + "x" * 20_001 + "'", "note")],
    ids=["no-date", "oversized-note"],
)
def test_export_never_writes_a_row_import_would_refuse(
    backend: Backend, tmp_path: Path, column: str, literal: str, field: str
) -> None:
    store = backend.open()
    _team(store)
    _insert(backend, store, 904, **{column: literal})
    with pytest.raises(LabelRowsError, match=rf"labels row 904: {field}:"):
        export_folder(store, tmp_path / "out", rubric=RUBRIC)
    assert not (tmp_path / "out" / "zed.jsonl").exists()
    quarantine_label(store, 904, reason="a bad hand edit", curator="dana", rubric=RUBRIC)
    report = export_folder(store, tmp_path / "out", rubric=RUBRIC)
    assert report.quarantined == 1 and "zed" not in report.labels
    again = import_labels(store, [tmp_path / "out"], RUBRIC)  # every exported line is one import takes
    assert (again.lines, again.unchanged, again.added) == (6, 6, 0)


def test_a_good_row_or_a_second_quarantine_is_refused_and_the_record_is_append_only(backend: Backend) -> None:
    store = backend.open()
    _team(store)
    good = store.labels()[0].id
    with pytest.raises(UsageError, match="nothing is wrong with it"):
        quarantine_label(store, good, reason="I disagree", curator="dana", rubric=RUBRIC)
    with pytest.raises(UsageError, match="no such row"):
        quarantine_label(store, 123456, reason="gone", curator="dana", rubric=RUBRIC)
    _insert(backend, store, 905, created_at="'soon'")
    with pytest.raises(UsageError, match="non-blank reason"):
        quarantine_label(store, 905, reason="  ", curator="dana", rubric=RUBRIC)
    quarantine_label(store, 905, reason="no date", curator="dana", rubric=RUBRIC)
    with pytest.raises(UsageError, match="already quarantined by dana"):
        quarantine_label(store, 905, reason="again", curator="eve", rubric=RUBRIC)
    assert store.quarantine_label(905, "again", "eve") is None  # the store keeps the first decision
    for statement in ("UPDATE label_quarantine SET reason = 'x'", "DELETE FROM label_quarantine"):
        with pytest.raises(backend.rewrite_refused):
            backend.execute_raw(store, statement)
    assert [(q.label_id, q.reason) for q in store.quarantines()] == [(905, "no date")]


def test_a_blind_claim_made_after_the_reveal_is_never_exported(backend: Backend, tmp_path: Path) -> None:
    store = backend.open()
    (item, *_) = _team(store)
    store.record_reveal(item, "ana")  # ana revealed the verdict (after her submit) ...
    _insert(
        backend, store, 906, item_id=f"'{item}'", reviewer="'ana'", revision="2", created_at="'2999-01-01T00:00:00Z'"
    )
    # ... and a later row, written by hand, claims to be blind
    with pytest.raises(LabelRowsError, match=r"labels row 906: revealed: false, but ana saw hidden information"):
        export_folder(store, tmp_path / "out", rubric=RUBRIC)
    assert [(row.row_id, row.field) for row in check_labels(store, RUBRIC).bad] == [(906, "revealed")]
    quarantine_label(store, 906, reason="a blind claim after the reveal", curator="dana", rubric=RUBRIC)
    assert export_folder(store, tmp_path / "out", rubric=RUBRIC).quarantined == 1
    assert import_labels(store, [tmp_path / "out"], RUBRIC).added == 0  # nothing exported is refused
