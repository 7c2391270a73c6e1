"""Promotion and rejection: loader rules, provenance, atomic append, and nothing written on any failure."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.core.curation.draft import checkpoint_spec, parse_checkpoint
from qaeval_tui.core.curation.inbox import import_misses, inbox_entry
from qaeval_tui.core.curation.promotion import (
    CurationError,
    GoldenSnapshot,
    GoldenTarget,
    PromotionDraft,
    draft_from_miss,
    promote,
    promotion_context,
    validate_promotion,
)
from qaeval_tui.core.curation.rejection import reject
from qaeval_tui.core.errors import InputError, Problem, UsageError
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import write_jsonl
from tests.curation_fixtures import BEDROOM, DEMO_INBOX, FAN_LABOR, NOISE, RESTOCKING, demo_copy, make_miss

NOW = "2026-10-12T09:30:00Z"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return demo_copy(tmp_path)


@pytest.fixture
def target(root: Path) -> GoldenTarget:
    return GoldenTarget(golden=(root / "golden",), living=root / "golden" / "living.jsonl")


@pytest.fixture
def store(root: Path) -> Iterator[Store]:
    with Store.open(root / "q.db") as opened:
        import_misses(opened, DEMO_INBOX)
        yield opened


def bedroom_draft(**changes: Any) -> PromotionDraft:
    draft = PromotionDraft(
        trace_id=BEDROOM,
        case_id="install-bedroom-01",
        question="Can I install the HB-10 in a bedroom?",
        gold_answer="No: the HB-10 must not be installed in sleeping areas.",
        gold_source_ids=("s2",),
        adversarial="decoy",
        curator="Mara Okafor",
        reason="Allowed a bedroom install because of the IP65 rating.",
    )
    return draft.with_changes(**changes)


def snapshot_of(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "golden").glob("*.jsonl"))}


def test_valid_promotion_appends_one_line_with_provenance(root: Path, target: GoldenTarget, store: Store) -> None:
    before = snapshot_of(root)
    result = promote(store, bedroom_draft(), target, now=NOW)

    living = (root / "golden" / "living.jsonl").read_bytes()
    assert living.startswith(before["living.jsonl"])
    added = living[len(before["living.jsonl"]) :]
    assert added.count(b"\n") == 1 and added.endswith(b"\n")
    line = json.loads(added)
    assert line["id"] == "install-bedroom-01" and line["question"] == "Can I install the HB-10 in a bedroom?"
    assert line["provenance"] == {
        "origin": "production_miss",
        "trace_id": BEDROOM,
        "promoted_by": "Mara Okafor",
        "promoted_at": NOW,
        "reason": "Allowed a bedroom install because of the IP65 rating.",
    }
    assert [s["id"] for s in line["sources"]] == ["s1", "s2", "s3", "s4"]  # the miss's sources, decoys included
    assert (root / "golden" / "frozen.jsonl").read_bytes() == before["frozen.jsonl"]

    golden = load_golden([root / "golden"])
    assert golden.by_id()["install-bedroom-01"].split == "living" and len(golden.cases) == 40
    assert result.loaded.line == 10 and result.loaded.path.endswith("living.jsonl")
    entry = inbox_entry(store, BEDROOM)
    assert entry.status == "promoted" and entry.decision is not None
    assert (entry.decision.case_id, entry.decision.curator, entry.decision.decided_at) == (
        "install-bedroom-01",
        "Mara Okafor",
        NOW,
    )


def test_multi_hop_promotion_with_checkpoints(root: Path, target: GoldenTarget, store: Store) -> None:
    draft = PromotionDraft(
        trace_id=FAN_LABOR,
        case_id="fan-repair-year3-labor-01",
        question="Our HB-10 is three years old and shows E517. Will Tidewell pay the installer to fix it?",
        gold_answer="Yes: in the first 5 years Tidewell reimburses installer labor up to $300 per claim.",
        gold_source_ids=("s1", "s2"),
        difficulty="multi_hop",
        checkpoints=("retrieve:s1", "retrieve:s2", "value:labor_cap_usd=300", "value:deadline=2026-09-10"),
        curator="Mara Okafor",
        reason="Denied labor coverage that the standard warranty gives.",
    )
    promote(store, draft, target, now=NOW)
    case = load_golden([root / "golden"]).by_id()["fan-repair-year3-labor-01"].case
    assert [checkpoint_spec(cp.model_dump()) for cp in case.checkpoints] == [
        "retrieve:s1",
        "retrieve:s2",
        "value:labor_cap_usd=300",
        'value:deadline="2026-09-10"',
    ]


def test_must_abstain_promotion_has_no_gold_answer(root: Path, target: GoldenTarget, store: Store) -> None:
    draft = PromotionDraft(
        trace_id=NOISE, case_id="noise-level-01", question="How loud is the HB-10?", expected_behavior="abstain",
        adversarial="unanswerable_lookalike", curator="Mara", reason="Invented a 30 dB figure.",
    )  # fmt: skip
    promote(store, draft, target, now=NOW)
    line = json.loads((root / "golden" / "living.jsonl").read_text().splitlines()[-1])
    assert line["expected_behavior"] == "abstain" and "gold_answer" not in line


def test_invalid_promotion_names_every_field_and_writes_nothing(root: Path, target: GoldenTarget, store: Store) -> None:
    before = snapshot_of(root)
    draft = bedroom_draft(
        case_id="spec-usable-capacity-01",
        gold_answer="",
        gold_source_ids=("s9", "s2", "s2"),
        difficulty="multi_hop",
        checkpoints=("retrieve:s2", "look at s3", "retrieve:s7"),
        curator="  ",
    )
    with pytest.raises(CurationError) as caught:
        promote(store, draft, target, now=NOW)
    assert [(e.field, e.index) for e in caught.value.errors] == [
        ("case_id", None),
        ("gold_answer", None),
        ("gold_source_ids", 0),
        ("gold_source_ids", 2),
        ("checkpoints", 1),
        ("checkpoints", 2),
        ("curator", None),
    ]
    messages = {e.path: e.message for e in caught.value.errors}
    assert "already exists (" in messages["case_id"] and "frozen.jsonl:1)" in messages["case_id"]
    assert messages["gold_source_ids[0]"] == "'s9' is not one of this miss's sources (s1, s2, s3, s4)"
    assert messages["checkpoints[2]"] == "'s7' is not a source id of this case"
    assert snapshot_of(root) == before
    assert store.count("inbox_decisions") == 0 and inbox_entry(store, BEDROOM).status == "pending"


def test_inline_validation_follows_the_form_as_it_is_filled(root: Path, target: GoldenTarget, store: Store) -> None:
    context = promotion_context(store, target, BEDROOM)
    draft = draft_from_miss(context.entry.miss, taken=context.snapshot.where)
    assert draft.question == context.entry.miss.question and draft.reason == context.entry.miss.reason
    assert draft.case_id == "install-hb-10-bedroom-01"
    assert {e.field for e in validate_promotion(draft, context)} == {"gold_answer", "gold_source_ids", "curator"}
    draft = draft.with_changes(gold_answer="No.", gold_source_ids=("s2",), curator="Mara")
    assert validate_promotion(draft, context) == []
    wrong = validate_promotion(draft.with_changes(expected_behavior="abstain"), context)
    assert [(e.field, e.message) for e in wrong] == [
        ("gold_answer", "must be null or absent when expected_behavior is 'abstain'")
    ]
    assert [e.field for e in validate_promotion(draft.with_changes(difficulty="hard"), context)] == ["difficulty"]
    assert [e.field for e in validate_promotion(draft.with_changes(case_id="has space"), context)] == ["case_id"]


def test_a_rejected_miss_cannot_be_promoted_and_vice_versa(root: Path, target: GoldenTarget, store: Store) -> None:
    reject(store, BEDROOM, reason="Covered elsewhere.", curator="Mara", now=NOW)
    before = snapshot_of(root)
    with pytest.raises(CurationError) as caught:
        promote(store, bedroom_draft(), target)
    assert caught.value.errors[0].field == "trace_id"
    assert caught.value.errors[0].message.startswith("already rejected by Mara at 2026-10-12T09:30:00Z")
    assert snapshot_of(root) == before

    promote(
        store,
        bedroom_draft(trace_id=NOISE, case_id="x-01", expected_behavior="abstain", gold_answer="", gold_source_ids=()),
        target,
    )
    with pytest.raises(CurationError, match="already promoted as 'x-01'"):
        reject(store, NOISE, reason="changed my mind", curator="Mara")
    assert store.count("inbox_decisions") == 2


def test_a_decision_made_elsewhere_after_the_form_opened_wins(root: Path, target: GoldenTarget, store: Store) -> None:
    snapshot = GoldenSnapshot.load(target)
    with Store.open(root / "q.db") as other:
        reject(other, BEDROOM, reason="duplicate", curator="Ben")
    before = snapshot_of(root)
    with pytest.raises(CurationError, match="already rejected by Ben"):
        promote(store, bedroom_draft(), target, snapshot=snapshot)
    assert snapshot_of(root) == before


def test_a_set_that_fails_to_reload_is_restored(
    root: Path, target: GoldenTarget, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_load = load_golden
    calls: list[int] = []

    def load_then_fail(paths: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            return real_load(paths)
        raise InputError([Problem("golden/living.jsonl", 10, "id", "simulated")], what="golden set")

    monkeypatch.setattr("qaeval_tui.core.curation.target.load_golden", load_then_fail)  # the snapshot
    monkeypatch.setattr("qaeval_tui.core.curation.promotion.load_golden", load_then_fail)  # the re-load
    before = snapshot_of(root)
    with pytest.raises(InputError):
        promote(store, bedroom_draft(), target)
    assert snapshot_of(root) == before and store.count("inbox_decisions") == 0


def test_a_store_failure_after_the_append_restores_the_file(
    root: Path, target: GoldenTarget, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = store.record_inbox_decision

    def fail_after_effect(*args: Any, effect: Callable[[], None] | None = None, **kwargs: Any) -> Any:
        def effect_then_fail() -> None:
            assert effect is not None
            effect()
            raise OSError("disk full")

        return real(*args, effect=effect_then_fail, **kwargs)

    monkeypatch.setattr(store, "record_inbox_decision", fail_after_effect)
    before = snapshot_of(root)
    with pytest.raises(OSError, match="disk full"):
        promote(store, bedroom_draft(), target)
    assert snapshot_of(root) == before and store.count("inbox_decisions") == 0
    assert not [p for p in (root / "golden").iterdir() if p.name.endswith(".tmp")]


def test_a_miss_already_in_the_living_split_is_refused_even_on_a_fresh_store(root: Path, target: GoldenTarget) -> None:
    # gateway-price-current-01 was promoted from this trace; a new store does not know that.
    path = write_jsonl(root / "old.jsonl", [make_miss("tr-20260914-8c41f2")])
    with Store.open(root / "fresh.db") as fresh:
        import_misses(fresh, path)
        context = promotion_context(fresh, target, "tr-20260914-8c41f2")
        errors = validate_promotion(bedroom_draft(trace_id="tr-20260914-8c41f2", gold_source_ids=("s1",)), context)
        assert fresh.count("inbox_decisions") == 0  # opening a miss writes nothing
    assert (
        errors[0].path == "trace_id" and "already in the golden set as 'gateway-price-current-01'" in errors[0].message
    )


KILLED_MID_PROMOTION = """
import os, sys
from pathlib import Path
import qaeval_tui.core.curation.promotion as curation
from qaeval_tui.core.store.sqlite import Store
from tests.core.test_curation import bedroom_draft

real_append = curation.append_line_atomically

def append_then_die(path, line):
    before = real_append(path, line)
    os._exit(9)  # like kill -9: no exception handler, no rollback code, no commit

curation.append_line_atomically = append_then_die
root = Path(sys.argv[1])
target = curation.GoldenTarget(golden=(root / "golden",), living=root / "golden" / "living.jsonl")
with Store.open(root / "q.db") as store:
    curation.promote(store, bedroom_draft(), target, now="2026-10-12T09:30:00Z")
"""


def test_a_promotion_killed_after_the_append_is_completed_when_the_miss_is_next_opened(
    root: Path, target: GoldenTarget, store: Store
) -> None:
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_MID_PROMOTION, str(root)], cwd=repo, capture_output=True, text=True
    )
    assert killed.returncode == 9, killed.stderr
    # The case landed, the decision's transaction never committed: the miss still looks pending.
    assert "install-bedroom-01" in load_golden([root / "golden"]).by_id()
    assert inbox_entry(store, BEDROOM).status == "pending"

    # Opening it writes nothing; rejecting it would contradict the golden set: the promotion is
    # recorded instead, from the case's provenance, and the rejection refused.
    assert promotion_context(store, target, BEDROOM).entry.decision is None
    with pytest.raises(CurationError) as caught:
        reject(store, BEDROOM, reason="changed my mind", curator="Ben", target=target)
    assert caught.value.recorded and caught.value.errors[0].message == (
        "already in the golden set as 'install-bedroom-01': that promotion "
        "(by Mara Okafor at 2026-10-12T09:30:00Z) had not been recorded, and now is"
    )
    entry = inbox_entry(store, BEDROOM)
    assert entry.decision is not None
    assert (entry.status, entry.decision.reason) == ("promoted", bedroom_draft().reason)
    # Promoting it again changes nothing more.
    before = snapshot_of(root)
    with pytest.raises(CurationError, match="already promoted as 'install-bedroom-01'") as again:
        promote(store, bedroom_draft(case_id="install-bedroom-02"), target)
    assert not again.value.recorded
    assert snapshot_of(root) == before and store.count("inbox_decisions") == 1


def test_promoting_a_miss_whose_case_is_already_in_the_set_records_that_promotion(
    root: Path, target: GoldenTarget, store: Store
) -> None:
    case = bedroom_draft()
    promote(store, case, target, now=NOW)
    with Store.open(root / "other.db") as other:  # a store that never saw the decision
        import_misses(other, DEMO_INBOX)
        with pytest.raises(CurationError) as caught:
            promote(other, bedroom_draft(case_id="install-bedroom-02"), target)
        assert caught.value.recorded and "now is" in caught.value.errors[0].message
        decision = inbox_entry(other, BEDROOM).decision
    assert decision is not None and (decision.case_id, decision.curator) == ("install-bedroom-01", "Mara Okafor")
    assert [c.case.id for c in load_golden([root / "golden"]).cases].count("install-bedroom-02") == 0


def test_a_golden_set_that_does_not_load_does_not_block_a_rejection(
    root: Path, target: GoldenTarget, store: Store
) -> None:
    frozen = root / "golden" / "frozen.jsonl"
    frozen.write_text(frozen.read_text(encoding="utf-8") + '{"id": "broken"}\n', encoding="utf-8")
    decision = reject(store, RESTOCKING, reason="The answer was right.", curator="Mara", target=target)
    assert decision.decision == "rejected"


def test_living_file_without_final_newline_or_missing_entirely(root: Path, target: GoldenTarget, store: Store) -> None:
    living = root / "golden" / "living.jsonl"
    living.write_bytes(living.read_bytes().rstrip(b"\n"))
    promote(store, bedroom_draft(), target)
    assert len(load_golden([root / "golden"]).cases) == 40

    living.unlink()
    promote(
        store,
        bedroom_draft(
            trace_id=NOISE, case_id="noise-01", expected_behavior="abstain", gold_answer="", gold_source_ids=()
        ),
        target,
    )
    assert [c.case.id for c in load_golden([root / "golden"]).cases if c.split == "living"] == ["noise-01"]


def test_promotions_only_go_to_a_file_named_living(root: Path, store: Store) -> None:
    frozen = GoldenTarget(golden=(root / "golden",), living=root / "golden" / "frozen.jsonl")
    with pytest.raises(UsageError, match=r"must be named living\.jsonl"):
        promote(store, bedroom_draft(), frozen)


def test_reject_needs_a_reason_and_a_curator(store: Store) -> None:
    with pytest.raises(CurationError) as caught:
        reject(store, RESTOCKING, reason="  ", curator="")
    assert [e.field for e in caught.value.errors] == ["reason", "curator"]
    assert store.count("inbox_decisions") == 0
    decision = reject(store, RESTOCKING, reason=" Answer was right. ", curator="Mara", now=NOW)
    assert (decision.decision, decision.reason, decision.case_id) == ("rejected", "Answer was right.", None)
    assert inbox_entry(store, RESTOCKING).status == "rejected"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("retrieve:s2", {"kind": "retrieve", "source_id": "s2"}),
        ("value:total=16528", {"kind": "value", "name": "total", "value": 16528}),
        ("value:share=0.15", {"kind": "value", "name": "share", "value": 0.15}),
        ("value:deadline=2026-09-10", {"kind": "value", "name": "deadline", "value": "2026-09-10"}),
        ('value:code="1"', {"kind": "value", "name": "code", "value": "1"}),
        ("value:flag=true", {"kind": "value", "name": "flag", "value": "true"}),
    ],
)
def test_checkpoint_specs(spec: str, expected: dict[str, Any]) -> None:
    assert parse_checkpoint(spec) == expected
    assert parse_checkpoint(checkpoint_spec(expected)) == expected


@pytest.mark.parametrize("spec", ["s2", "retrieve:", "value:total", "value:=3", "fetch:s1"])
def test_bad_checkpoint_specs_say_what_to_write(spec: str) -> None:
    with pytest.raises(ValueError, match=r"retrieve|value"):
        parse_checkpoint(spec)


def test_a_case_gone_from_the_file_by_the_time_of_the_decision_is_not_taken_for_a_promotion(
    root: Path, target: GoldenTarget, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another process's failing promotion appended its line and removed it on rollback; this
    # process read the set in between. Under the write lock the line is gone: reject as usual.
    living = root / "golden" / "living.jsonl"
    before = living.read_bytes()
    with Store.open(root / "other.db") as other:
        import_misses(other, DEMO_INBOX)
        promote(other, bedroom_draft(), target, now=NOW)
    seen_with_the_line = GoldenSnapshot.load(target)
    living.write_bytes(before)
    real_load = GoldenSnapshot.load
    loads = iter([seen_with_the_line])
    monkeypatch.setattr(GoldenSnapshot, "load", classmethod(lambda cls, t: next(loads, None) or real_load(t)))
    decision = reject(store, BEDROOM, reason="Not a miss.", curator="Ben", target=target)
    assert (decision.decision, inbox_entry(store, BEDROOM).status) == ("rejected", "rejected")


def test_a_stale_snapshot_cannot_let_a_second_case_in_for_one_miss(
    root: Path, target: GoldenTarget, store: Store
) -> None:
    # The form opened before a cut-short promotion of the same miss landed in the living file.
    stale = GoldenSnapshot.load(target)
    with Store.open(root / "other.db") as other:
        import_misses(other, DEMO_INBOX)
        promote(other, bedroom_draft(), target, now=NOW)
    before = snapshot_of(root)
    with pytest.raises(CurationError, match="already in the golden set as 'install-bedroom-01'"):
        promote(store, bedroom_draft(case_id="install-bedroom-02"), target, snapshot=stale)
    assert snapshot_of(root) == before and inbox_entry(store, BEDROOM).status == "pending"
