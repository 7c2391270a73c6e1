"""Issue 15: 2,000 judged cases against a loopback judge server answering each call after 100 ms, at
concurrency 32, and the unchanged rerun that the verdict cache answers without a call.

The floor is 2,000 x 0.1 s / 32 = 6.25 s; the target is 1.5 times that. The rerun must make zero
calls (the server's own count) and finish within 2 s. Both runs go through `run_from_config`, the
use case `qaeval run` calls (the suite loaded, the bundled hub answering on 2 workers, the `[judge]`
OpenAI-compatible judge asked through the SDK `concurrency` at a time, or the cache read, the run
stored); the server (`tests/llm_server.py`, `SpawnedLLMServer`) runs in a child process, so its
threads do not share this interpreter's lock with the judge's.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from benchmarks import Figure
from benchmarks.synthetic import write_synthetic_golden
from qaeval_tui.core.config import Config, JudgeSection
from qaeval_tui.core.usecases.run import run_from_config
from tests.llm_server import SpawnedLLMServer

CASES = 2_000
LATENCY_S = 0.1
CONCURRENCY = 32
FLOOR_S = CASES * LATENCY_S / CONCURRENCY
WALL_TARGET_S = 1.5 * FLOOR_S
RERUN_TARGET_S = 2.0
KEY_ENV = "QAEVAL_BENCH_JUDGE_KEY"


def run(workdir: Path) -> list[Figure]:
    folder = write_synthetic_golden(workdir / "golden", CASES).parent
    server = SpawnedLLMServer(latency_s=LATENCY_S)
    os.environ[KEY_ENV] = "sk-bench-local"
    try:
        judge = JudgeSection(
            kind="openai",
            model="bench-judge",
            base_url=server.openai_base_url,
            api_key_env=KEY_ENV,
            concurrency=CONCURRENCY,
        )
        config = Config(base_dir=str(workdir), judge=judge)

        def timed() -> tuple[float, int]:
            before = server.calls
            started = time.perf_counter()
            run_from_config(config, [folder], workdir / "bench.db", workers=2)
            return time.perf_counter() - started, server.calls - before

        first, first_calls = timed()
        rerun, rerun_calls = timed()
    finally:
        os.environ.pop(KEY_ENV, None)
        server.stop()
    return [
        Figure(
            f"{CASES} judged cases, {LATENCY_S * 1000:.0f} ms a call, concurrency {CONCURRENCY}",
            first,
            "s",
            f"<= {WALL_TARGET_S:.2f} (1.5 x {FLOOR_S:.2f})",
            first <= WALL_TARGET_S and first_calls == CASES,
        ),
        Figure("judge calls of that run", first_calls, "", f"= {CASES}", first_calls == CASES),
        Figure("the unchanged rerun (verdict cache)", rerun, "s", f"<= {RERUN_TARGET_S:.1f}", rerun <= RERUN_TARGET_S),
        Figure("judge calls of the rerun", rerun_calls, "", "= 0", rerun_calls == 0),
    ]
