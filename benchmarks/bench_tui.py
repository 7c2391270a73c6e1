"""Issue 5: the review TUI on a store with 10,000 cases and 50,000 labels.

- cold start: a fresh `python` process builds the app through the CLI's factory and runs it
  headless; measured from spawning the process to the first item rendered on screen, beside a bare
  Textual app showing one static screen timed the same way, interleaved (target: at most 2x it).
- submit-to-next: in process, over 200 items, from pressing enter to the next item on screen; for
  the benchmarked reviewer (10,000 labels of their own; p95 target 10 ms) and for a newcomer (none yet).

The store: 10,000 synthetic cases with a stored run and verdicts; five reviewers with every item
in their queue; four of them have labeled everything and the benchmarked reviewer has 9,700 items
done plus 300 revisions (50,000 labels), so every query runs against a deep history.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import Figure
from benchmarks.synthetic import write_synthetic_golden
from qaeval_tui.core.config import Config
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.hashing import content_hash, item_id_for
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.review.session import assign, build_review_items
from qaeval_tui.core.store.rows import CaseRecord, RunOutput, RunRecord, VerdictRecord
from qaeval_tui.core.store.sqlite import Store

REVIEWER = "bench"
NEWCOMER = "newcomer"
OTHERS = ("r1", "r2", "r3", "r4")
CASES, LABELS, MEASURED = 10_000, 50_000, 200
SCORES = {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 2}

_COLD_START = """
import asyncio, sys, time
from pathlib import Path
from qaeval_tui.core.config import Config
from qaeval_tui.tui.app import create_app

app = create_app(Config(), db_path=Path(sys.argv[1]), data_paths=[Path(sys.argv[2])], reviewer=sys.argv[3])

def review_ready():  # as tests/tui/scenes/review.py has it, without that module's imports
    screen = app.screen
    shown = type(screen).__name__ == "ReviewScreen" and screen.item is not None
    return shown and not screen.busy and not screen.pending

async def first_item(pilot):
    while not review_ready():
        await asyncio.sleep(0.002)
    await pilot.pause()
    print(time.time(), flush=True)
    app.exit()

app.run(headless=True, auto_pilot=first_item, size=(100, 32))
app.context.services.close()
"""


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


_BARE_START = """
import time
from textual.app import App
from textual.widgets import Static

class Bare(App[None]):
    def compose(self):
        yield Static("one static screen")

async def shown(pilot):
    await pilot.pause()
    print(time.time(), flush=True)
    pilot.app.exit()

Bare().run(headless=True, auto_pilot=shown, size=(100, 32))
"""
"""The floor of a cold start: a bare Textual app showing one static screen, timed the same way."""


def bare_start() -> float:
    started = time.time()
    result = subprocess.run([sys.executable, "-c", _BARE_START], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"bare start failed: {result.stderr}")
    return float(result.stdout.split()[0]) - started


def cold_start(db: Path, golden: Path) -> float:
    started = time.time()
    result = subprocess.run(
        [sys.executable, "-c", _COLD_START, str(db), str(golden), REVIEWER], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"cold start failed: {result.stderr}")
    return float(result.stdout.split()[0]) - started


async def _latencies(db: Path, golden: Path, reviewer: str, measured: int = MEASURED) -> list[float]:
    """Keys go in as the terminal driver sends them (Key events), not through Pilot.press, whose
    wait-for-idle would be measured instead of the app."""
    from textual import events

    from qaeval_tui.tui.app import create_app
    from tests.tui.scenes.review import idle, review_ready, wait_until

    app = create_app(Config(), db_path=db, data_paths=[golden], reviewer=reviewer, deterministic=True)
    latencies: list[float] = []
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: idle(app), timeout=60)
        for _ in range(measured):
            before = getattr(app.screen, "item", None)
            for key in ("2", "1", "2"):
                app.post_message(events.Key(key, key))
            await pilot.pause()
            started = time.perf_counter()
            app.post_message(events.Key("enter", None))
            while not (review_ready(app) and getattr(app.screen, "item", None) is not before):
                await asyncio.sleep(0.0005)
            latencies.append(time.perf_counter() - started)
            await wait_until(pilot, lambda: idle(app))  # progress follows the item; let it land
    app.context.services.close()
    return latencies


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(0.95 * len(ordered)) - 1)]


def compile_bytecode() -> None:
    """Write the package's bytecode, as an installed wheel has it, before timing cold starts.

    Textual's bytecode is in site-packages already; without ours (PYTHONDONTWRITEBYTECODE, a fresh
    checkout) every start would compile a hundred modules from source and the ratio would measure that.
    """
    import compileall

    import qaeval_tui

    compileall.compile_dir(Path(qaeval_tui.__file__).parent, quiet=1)


def run(workdir: Path) -> list[Figure]:
    db, golden = build_store(workdir)
    compile_bytecode()
    starts: list[float] = []
    bares: list[float] = []
    for _ in range(3):  # interleaved, so both see the same machine
        starts.append(cold_start(db, golden))
        bares.append(bare_start())
    deep = asyncio.run(_latencies(db, golden, REVIEWER))
    fresh = asyncio.run(_latencies(db, golden, NEWCOMER))  # joins the queue on start, no history yet
    with Store.open(db) as store:
        saved = len(store.labels(reviewer=REVIEWER)) - (LABELS - len(OTHERS) * CASES)
        if saved != MEASURED or len(store.labels(reviewer=NEWCOMER)) != MEASURED:
            raise RuntimeError(f"expected {MEASURED} new labels per measured reviewer")
    medians = {"deep_ms": 1000 * statistics.median(deep), "newcomer_ms": 1000 * statistics.median(fresh)}
    print(json.dumps({"cold_start_s": starts, "latency_median": medians}), flush=True)
    start, bare = statistics.median(starts), statistics.median(bares)
    ratio = start / bare
    return [
        Figure("review TUI: cold start to first item (median of 3)", start, "s", "<= 1.5 s", start <= 1.5),
        Figure(
            f"  as a ratio to a bare Textual app's first screen ({bare:.2f} s)",
            ratio,
            "x",
            "<= 2" + ("" if ratio <= 2 else f" (misses by {ratio / 2 - 1:.0%})"),
            ratio <= 2,
        ),
        Figure(
            f"review TUI: submit to next item, p95 of {MEASURED}, 10,000-label history",
            1000 * _p95(deep),
            "ms",
            "<= 10 ms" + ("" if _p95(deep) <= 0.010 else f" (misses by {_p95(deep) / 0.010 - 1:.0%})"),
            _p95(deep) <= 0.010,
        ),
        Figure(
            f"review TUI: submit to next item, p95 of {MEASURED}, new reviewer",
            1000 * _p95(fresh),
            "ms",
            "<= 50 ms",
            _p95(fresh) <= 0.050,
        ),
    ]
