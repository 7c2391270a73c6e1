"""A small stored run (cases, outputs, judge verdicts) to review, shared by the label/agreement tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qaeval_tui.core.hashing import content_hash, item_id_for
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.store.rows import CaseRecord, RunOutput, RunRecord, VerdictRecord
from qaeval_tui.core.store.sqlite import Store

ADAPTER_NAME = "SecretHubAdapter"
JUDGE_NAME = "mechanical-judge"
JUDGE_HASH = "judgehash0001"


def demo_case(index: int) -> dict[str, Any]:
    abstain = index % 4 == 3
    return {
        "id": f"readable-case-{index:03d}",
        "question": f"How long is the warranty of model {index}?",
        "sources": [
            {"id": "s1", "title": "Warranty", "text": f"The warranty of model {index} lasts ten years from install."},
            {"id": "s2", "title": "Shipping", "text": "Shipping takes five days."},
        ],
        "expected_behavior": "abstain" if abstain else "answer",
        "gold_answer": None if abstain else f"Ten years (model {index}).",
        "gold_source_ids": [] if abstain else ["s1"],
        "difficulty": "single_hop",
        "adversarial": None,
        "checkpoints": [],
        "provenance": None,
    }


def demo_output(index: int) -> dict[str, Any]:
    return {
        "answer": f"Model {index} is covered for ten years [1].",
        "citations": [
            {"source_id": "s1", "quote": "lasts   TEN years", "claim": None},
            {"source_id": "s9", "quote": "nowhere", "claim": None},
        ],
        "retrieved_ids": ["s1"],
        "abstained": False,
        "model_was_called": True,
        "prompt": "secret prompt",
        "computed": {},
        "error": None,
    }


def store_with_run(
    path: Path, n_items: int = 6, run_id: str = "run-1", *, store_cases: bool = True, judge_scores: int = 2
) -> tuple[Store, list[str]]:
    """A store holding one run of `n_items` cases with judge verdicts; returns it and the item ids."""
    store = Store.open(path)
    cases = [demo_case(i) for i in range(n_items)]
    hashes = [content_hash(case) for case in cases]
    if store_cases:
        store.upsert_cases(CaseRecord(h, c["id"], "frozen", c) for h, c in zip(hashes, cases, strict=True))
    outputs, verdicts, items = [], [], []
    for i, (case, case_hash) in enumerate(zip(cases, hashes, strict=True)):
        output = demo_output(i)
        output_hash = content_hash(output)
        item_id = item_id_for(case_hash, output_hash)
        items.append(item_id)
        outputs.append(
            {
                "position": i,
                "case_id": case["id"],
                "case_hash": case_hash,
                "output_hash": output_hash,
                "output": output,
                "result": {},
            }
        )
        verdict = {
            "item_id": item_id,
            "case_id": case["id"],
            "judge": {"name": JUDGE_NAME, "model": "token-overlap", "config_hash": JUDGE_HASH, "rubric_version": "1"},
            "status": "ok",
            "scores": {"faithfulness": judge_scores, "citation_correctness": 1, "answer_correctness": 2},
            "evidence": {"faithfulness": "lasts ten years"},
            "created_at": "2026-01-01T00:00:00Z",
        }
        verdicts.append(
            {
                "item_id": item_id,
                "case_id": case["id"],
                "judge_name": JUDGE_NAME,
                "config_hash": JUDGE_HASH,
                "status": "ok",
                "verdict": verdict,
                "created_at": verdict["created_at"],
            }
        )
    run = {
        "run_id": run_id,
        "suite_hash": "suite",
        "adapter": ADAPTER_NAME,
        "judge_name": JUDGE_NAME,
        "judge_config_hash": JUDGE_HASH,
        "code_version": "0.1.0",
        "started_at": "2026-01-01T00:00:00Z",
        "finished_at": "2026-01-01T00:00:01Z",
        "n_cases": n_items,
        "data": {},
        "metrics": {},
    }
    store.insert_run(
        RunRecord(**run),
        [RunOutput(**o) for o in outputs],
        [VerdictRecord(**v | {"verdict": JudgeVerdict.model_validate(v["verdict"])}) for v in verdicts],
    )
    return store, items


FULL: dict[str, int | None] = {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 2}
