"""Issue 15: 2,000 judged cases against a loopback judge server answering each call after 100 ms, at
concurrency 32, and the unchanged rerun that the verdict cache answers without a call.

The floor is 2,000 x 0.1 s / 32 = 6.25 s; the target is 1.5 times that. The rerun must make zero
calls (the server's own count) and finish within 2 s. Both runs go through `run_from_config`, the
use case `qaeval run` calls (the suite loaded, the bundled hub answering, the judge asked or the
cache read, the run stored); the server runs in a child process, so its threads do not share this
interpreter's lock with the judge's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import Figure
from benchmarks.synthetic import write_synthetic_golden
from qaeval_tui.core.config import Config
from qaeval_tui.core.usecases.run import run_from_config

CASES = 2_000
LATENCY_S = 0.1
CONCURRENCY = 32
FLOOR_S = CASES * LATENCY_S / CONCURRENCY
WALL_TARGET_S = 1.5 * FLOOR_S
RERUN_TARGET_S = 2.0
JUDGE = "tests.judgeops.loopback_judge:make_loopback_judge"


def _server(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    ready = workdir / "server.url"
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.judgeops.sut_server", "--judge-scores", "--delay", str(LATENCY_S), str(ready)],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while not ready.exists() or not ready.read_text(encoding="utf-8").strip():
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError("the loopback judge server did not start")
        time.sleep(0.05)
    return process, ready.read_text(encoding="utf-8").strip()


def _calls(url: str) -> int:
    import httpx

    return int(httpx.get(url.rsplit("/", 1)[0] + "/calls", timeout=5).json()["calls"])


def run(workdir: Path) -> list[Figure]:
    folder = write_synthetic_golden(workdir / "golden", CASES).parent
    config = Config(base_dir=str(workdir))
    process, url = _server(workdir)
    os.environ["QAEVAL_TEST_JUDGE_URL"] = url
    try:

        def timed() -> tuple[float, int]:
            before = _calls(url)
            started = time.perf_counter()
            run_from_config(config, [folder], workdir / "bench.db", judge=JUDGE, workers=CONCURRENCY)
            return time.perf_counter() - started, _calls(url) - before

        first, first_calls = timed()
        rerun, rerun_calls = timed()
    finally:
        os.environ.pop("QAEVAL_TEST_JUDGE_URL", None)
        process.terminate()
        process.wait(timeout=10)
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
