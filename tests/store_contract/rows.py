"""Small typed rows for the contract tests."""

from __future__ import annotations

from qaeval_tui.core.models.label import Label
from qaeval_tui.core.models.miss import ProductionMiss
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import (
    CaseRecord,
    InboxMiss,
    LabelDraft,
    ReviewItemRecord,
    RunOutput,
    RunRecord,
    VerdictRecord,
)
from tests.curation_fixtures import make_miss


def a_miss(trace_id: str, source: str = "misses.jsonl", answer: str = "Five days.") -> InboxMiss:
    """A valid production miss (§8.4) as the inbox import hands it to the store."""
    miss = ProductionMiss.model_validate(make_miss(trace_id, answer=answer))
    return InboxMiss(trace_id, miss.canonical(), source)


SCORES: dict[str, int | None] = {"faithfulness": 2, "citation_correctness": None}


def a_run(run_id: str = "r1", started_at: str = "2026-11-01T00:00:00Z", judge: str | None = "j1") -> RunRecord:
    return RunRecord(
        run_id=run_id,
        suite_hash="suite",
        adapter="hub",
        judge_name="mech" if judge else None,
        judge_config_hash=judge,
        code_version="0.1.0",
        started_at=started_at,
        finished_at=started_at,
        n_cases=2,
        data={"paths": ["golden"], "note": "é ✓"},
        metrics={"overall": {"faithfulness_rate": 0.5}},
    )


def an_output(position: int, case_id: str) -> RunOutput:
    return RunOutput(
        position=position,
        case_id=case_id,
        case_hash=f"h-{case_id}",
        output_hash=f"o-{case_id}",
        output={"answer": f"answer to {case_id}", "citations": []},
        result={"checks": [{"name": "adapter_ok", "passed": True}]},
    )


def a_verdict(item_id: str, case_id: str, judge: str = "j1", faithfulness: int | None = 1) -> VerdictRecord:
    document: dict[str, object] = {
        "item_id": item_id,
        "case_id": case_id,
        "status": "ok",
        "judge": {"name": "mech", "model": "m", "config_hash": judge},
        "scores": {"faithfulness": faithfulness},
        "evidence": {"faithfulness": "a quote"},
        "created_at": "2026-11-01T00:00:00Z",
    }
    return VerdictRecord(
        item_id, case_id, "mech", judge, "ok", JudgeVerdict.model_validate(document), "2026-11-01T00:00:00Z"
    )


def seeded(store: StoreBackend, n_items: int = 3) -> list[str]:
    """A run of `n_items` cases with one verdict each, its cases and review items; returns the item ids."""
    case_ids = [f"c{i}" for i in range(n_items)]
    items = [f"item-{case_id}" for case_id in case_ids]
    store.upsert_cases(CaseRecord(f"h-{c}", c, "frozen", {"id": c, "question": f"q {c}?"}) for c in case_ids)
    store.insert_run(
        a_run(),
        [an_output(i, c) for i, c in enumerate(case_ids)],
        [a_verdict(item, c) for item, c in zip(items, case_ids, strict=True)],
    )
    store.insert_review_items(
        ReviewItemRecord(item, c, f"h-{c}", f"o-{c}", "r1") for item, c in zip(items, case_ids, strict=True)
    )
    return items


def a_draft(item_id: str, reviewer: str = "ana", note: str = "", **fields: object) -> LabelDraft:
    return LabelDraft(item_id, "c0", reviewer, SCORES, "1", note=note, **fields)  # type: ignore[arg-type]


def a_label(item_id: str, reviewer: str, revision: int, note: str = "") -> Label:
    return Label(
        item_id=item_id,
        case_id="c0",
        reviewer=reviewer,
        scores=SCORES,
        note=note,
        rubric_version="1",
        revision=revision,
        created_at="2026-11-02T00:00:00Z",
        seconds_spent=3.5,
    )
