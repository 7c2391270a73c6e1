"""Issues 5, 21 and 26: the review TUI on a store with 10,000 cases and 50,000 labels.

- cold start: a fresh `python` process builds the app through the CLI's factory and runs it
  headless; measured from spawning the process to the first item rendered on screen, beside a bare
  Textual app showing one static screen timed the same way, interleaved (target: at most 2x it).
- submit-to-next: in process, over 200 items, from pressing enter to the next item on screen
  (tui_latency.py); for the benchmarked reviewer (10,000 labels of their own; p95 target 10 ms on
  SQLite, 20 ms on PostgreSQL), for a newcomer (none yet), and while the dashboard recomputes
  without pause on the app's reader connection (p95 target 50 ms on both backends), each beside the
  floor of a bare Textual app answering the same key by changing one line.

The store: 10,000 synthetic cases with a stored run and verdicts; five reviewers with every item
in their queue; four of them have labeled everything and the benchmarked reviewer has 9,700 items
done plus 300 revisions (50,000 labels), so every query runs against a deep history. PostgreSQL
runs on a throwaway server (tests/pg/server.py) holding a copy of it; without the server binaries
those figures are skipped with the reason printed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import Figure, tui_latency
from benchmarks.synthetic import write_synthetic_golden
from benchmarks.tui_latency import MEASURED, floor_latencies, latencies, latency_figure
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
CASES, LABELS = 10_000, 50_000
SCORES = {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 2}

_COLD_START = """
import gc
gc.disable()  # as `qaeval review` starts (cli/review_cmd.py): no collection until the app runs
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

gc.freeze()
gc.enable()
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


def compile_bytecode() -> None:
    """Write the package's bytecode, as an installed wheel has it, before timing cold starts.

    Textual's bytecode is in site-packages already; without ours (PYTHONDONTWRITEBYTECODE, a fresh
    checkout) every start would compile a hundred modules from source and the ratio would measure that.
    """
    import compileall

    import qaeval_tui

    compileall.compile_dir(Path(qaeval_tui.__file__).parent, quiet=1)


def _postgres_figures(db: Path, golden: Path, floor_ms: float) -> list[Figure]:
    """The deep reviewer's submit-to-next on PostgreSQL, quiet and beside the dashboard; skipped without a server."""
    from qaeval_tui.core.store.copy import copy_store
    from qaeval_tui.core.store.opening import open_store
    from tests.pg.server import PgServer, PgServerError

    try:
        server = PgServer()
        server.start()
    except PgServerError as exc:
        print(f"   (PostgreSQL figures skipped: {exc})", flush=True)
        return []
    try:
        server.make_template()
        pristine = server.new_database()
        with open_store(db) as source, open_store(pristine) as target:
            copy_store(source, target)
        name = pristine.rsplit("/", 1)[1]
        quiet = asyncio.run(latencies(server.new_database(template=name), golden, REVIEWER))
        busy = asyncio.run(latencies(server.new_database(template=name), golden, REVIEWER, busy=True))
    finally:
        server.remove()
    return [
        latency_figure(f"PostgreSQL: submit to next, p95 of {MEASURED}, 10,000-label history", quiet, 20, floor_ms),
        latency_figure("PostgreSQL: the same while the dashboard recomputes", busy, 50, floor_ms),
    ]


def run(workdir: Path) -> list[Figure]:
    db, golden = build_store(workdir)
    pristine, busy_db = workdir / "pristine.db", workdir / "busy.db"
    shutil.copyfile(db, pristine)  # each measured run starts from the same 300 items left
    shutil.copyfile(db, busy_db)
    compile_bytecode()
    starts: list[float] = []
    bares: list[float] = []
    for _ in range(5):  # interleaved, so both see the same machine
        starts.append(cold_start(db, golden))
        bares.append(bare_start())
    floor_ms = 1000 * tui_latency.p95(asyncio.run(floor_latencies()))
    deep = asyncio.run(latencies(db, golden, REVIEWER))
    fresh = asyncio.run(latencies(db, golden, NEWCOMER))  # joins the queue on start, no history yet
    busy = asyncio.run(latencies(busy_db, golden, REVIEWER, busy=True))
    with Store.open(db) as store:
        saved = len(store.labels(reviewer=REVIEWER)) - (LABELS - len(OTHERS) * CASES)
        if saved != MEASURED or len(store.labels(reviewer=NEWCOMER)) != MEASURED:
            raise RuntimeError(f"expected {MEASURED} new labels per measured reviewer")
    medians = {"deep_ms": 1000 * statistics.median(deep), "newcomer_ms": 1000 * statistics.median(fresh)}
    print(json.dumps({"cold_start_s": starts, "bare_start_s": bares, "latency_median": medians}), flush=True)
    start, bare = statistics.median(starts), statistics.median(bares)
    ratio = start / bare
    history = f"p95 of {MEASURED}, 10,000-label history"
    return [
        Figure(
            f"review TUI: cold start to first item (median of 5; load average {os.getloadavg()[0]:.1f})",
            start,
            "s",
            "<= 0.5 on a quiet machine" + ("" if start <= 0.5 else f" (misses by {start / 0.5 - 1:.0%})"),
            start <= 0.5,
        ),
        Figure(
            f"  as a ratio to a bare Textual app's first screen ({bare:.2f} s)",
            ratio,
            "x",
            "<= 2" + ("" if ratio <= 2 else f" (misses by {ratio / 2 - 1:.0%})"),
            ratio <= 2,
        ),
        latency_figure(f"review TUI: submit to next item, {history}", deep, 10, floor_ms),
        latency_figure(f"review TUI: submit to next item, p95 of {MEASURED}, new reviewer", fresh, 50, floor_ms),
        latency_figure("review TUI: submit to next while the dashboard recomputes", busy, 50, floor_ms),
        *_postgres_figures(pristine, golden, floor_ms),
    ]
