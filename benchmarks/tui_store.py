"""The store the review TUI's benches run on: 10,000 cases and 50,000 labels of deep history.

10,000 synthetic cases with a stored run and verdicts; five reviewers with every item in their queue;
four of them have labeled everything and the benchmarked reviewer has 9,700 items done plus 300
revisions (50,000 labels), so every query runs against a deep history.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.synthetic import write_synthetic_golden
from qaeval_tui.core.golden.hashing import content_hash, item_id_for
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.review.models import Label
from qaeval_tui.core.review.session import assign, build_review_items
from qaeval_tui.core.running.models import JudgeVerdict
from qaeval_tui.core.store.rows import CaseRecord, RunOutput, RunRecord, VerdictRecord
from qaeval_tui.core.store.sqlite import Store

REVIEWER = "bench"
NEWCOMER = "newcomer"
OTHERS = ("r1", "r2", "r3", "r4")
CASES, LABELS = 10_000, 50_000
SCORES = {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 2}


def _output(case: dict[str, Any]) -> dict[str, Any]:
    source = case["sources"][0]
    quote = source["text"].split(".")[0] + "."
    return {
        "answer": quote,
        "citations": [{"source_id": source["id"], "quote": quote, "claim": None}],
        "retrieved_ids": [source["id"]],
        "abstained": False,
        "model_was_called": True,
        "prompt": "",
        "computed": {},
        "error": None,
    }


def build_store(workdir: Path) -> tuple[Path, Path]:
    golden_dir = workdir / "golden"
    write_synthetic_golden(golden_dir, CASES)
    golden = load_golden([golden_dir])
    db = workdir / "bench.db"
    outputs, verdicts = [], []
    for position, loaded in enumerate(golden.cases):
        output = _output(loaded.case.model_dump(mode="json"))
        output_hash = content_hash(output)
        item_id = item_id_for(loaded.content_hash, output_hash)
        outputs.append(
            {
                "position": position,
                "case_id": loaded.case.id,
                "case_hash": loaded.content_hash,
                "output_hash": output_hash,
                "output": output,
                "result": {},
            }
        )
        verdict = {
            "item_id": item_id,
            "case_id": loaded.case.id,
            "judge": {"name": "bench", "config_hash": "b"},
            "status": "ok",
            "scores": SCORES,
            "evidence": {},
            "created_at": "2026-01-01T00:00:00Z",
        }
        verdicts.append(
            {
                "item_id": item_id,
                "case_id": loaded.case.id,
                "judge_name": "bench",
                "config_hash": "b",
                "status": "ok",
                "verdict": verdict,
                "created_at": verdict["created_at"],
            }
        )
    run = {
        "run_id": "run-bench",
        "suite_hash": golden.suite_hash,
        "adapter": "bench",
        "judge_name": "bench",
        "judge_config_hash": "b",
        "code_version": "bench",
        "started_at": "2026-01-01T00:00:00Z",
        "finished_at": "2026-01-01T00:00:00Z",
        "n_cases": CASES,
        "data": {},
        "metrics": {},
    }
    with Store.open(db) as store:
        store.upsert_cases(
            CaseRecord(c.content_hash, c.case.id, c.split, c.case.model_dump(mode="json")) for c in golden.cases
        )
        store.insert_run(
            RunRecord(**run),
            [RunOutput(**o) for o in outputs],
            [VerdictRecord(**v | {"verdict": JudgeVerdict.model_validate(v["verdict"])}) for v in verdicts],
        )
        build_review_items(store, "run-bench")
        assign(store, (REVIEWER, *OTHERS), overlap=5, seed=1)
        case_of = store.case_ids_by_item()
        rows: list[dict[str, Any]] = []

        def label(reviewer: str, item_id: str, revision: int) -> dict[str, Any]:
            return {
                "item_id": item_id,
                "case_id": case_of[item_id],
                "reviewer": reviewer,
                "scores": SCORES,
                "note": "",
                "flagged": False,
                "skipped": False,
                "rubric_version": "1",
                "revealed": False,
                "revision": revision,
                "created_at": "2026-01-01T00:00:00Z",
                "seconds_spent": 20.0,
            }

        for reviewer in OTHERS:
            rows.extend(label(reviewer, item_id, 1) for _, item_id, _ in store.assignments(reviewer))
        queue = [item_id for _, item_id, _ in store.assignments(REVIEWER)]
        done = queue[: CASES - 300]
        rows.extend(label(REVIEWER, item_id, 1) for item_id in done)
        rows.extend(label(REVIEWER, item_id, 2) for item_id in done[: LABELS - len(rows)])
        store.insert_labels((Label.model_construct(**row) for row in rows), origin="bench")
        assert store.count("labels") == LABELS and store.count("cases") == CASES
    return db, golden_dir
