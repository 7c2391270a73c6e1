"""Issues 15 and 26: judged runs against a loopback judge server answering each call after 100 ms, every
figure read against a floor timed in the same run.

- 2,000 judged cases at concurrency 32: the floor is N x latency / concurrency (6.25 s); the target is
  1.2 times that. Beside it, a raw aiohttp client (one session, a semaphore, the same request and reply
  sizes) asks the same server the same 2,000 times: what a hand-written client gets on this machine now.
- CPU per judge call: the judged run's CPU minus the CPU of the same suite run `--checks-only` (the
  system and the checks, no judge), over the calls; target 1 ms.
- The unchanged rerun the verdict cache answers: zero calls, within 2 s.
- With `QAEVAL_BENCH_BIG=1` (about four minutes on a quiet machine; `only`: these alone, with the
  2,000-case checks-only run they read): 20,000 cases at concurrency 64
  (`[run] processes` left to the run: one worker process a core) beside the same run in one process and
  the raw client at 20,000, 1.2 x the floor, peak memory at most 600 MB, and the growth in memory
  from 2,000 to 20,000 cases extrapolated to 100,000; beside it the growth of the suite loaded alone
  (a run's suite is held by line, each case read again as it is asked), so what the run itself keeps a
  case reads apart. The bundled system's per-text caches (the matcher's, `core/running/matching.py`) are
  full within a few hundred cases, so neither size reads them filling.

Each run goes through `run_from_config`, the use case `qaeval run` calls (the suite loaded, the bundled
hub answering on 2 workers, the `[judge]` OpenAI-compatible judge asked `concurrency` at a time, the run
stored), in a child process of its own so its CPU time and peak memory are its own (the modules a run
imports are imported before its clock starts, as the raw client's are; the rerun follows the first run
in the same process); the server
(`tests/llm_server.py`, `SpawnedLLMServer`) runs in another, so its threads do not share the judge's
interpreter lock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import Figure
from benchmarks.synthetic import write_synthetic_golden
from tests.llm_server import SpawnedLLMServer

CASES = 2_000
BIG_CASES = 20_000
LATENCY_S = 0.1
CONCURRENCY = 32
BIG_CONCURRENCY = 64
WALL_RATIO = 1.2
CPU_PER_CALL_MS = 1.0
RERUN_TARGET_S = 2.0
MEMORY_MB = 600.0
KEY_ENV = "QAEVAL_BENCH_JUDGE_KEY"
ROOT = Path(__file__).resolve().parent.parent


def floor_s(cases: int, concurrency: int) -> float:
    return cases * LATENCY_S / concurrency


def run(workdir: Path) -> list[Figure]:
    scale = os.environ.get("QAEVAL_BENCH_BIG", "")
    big = scale in {"1", "only"}
    suite = write_synthetic_golden(workdir / "golden", CASES).parent
    with SpawnedLLMServer(latency_s=LATENCY_S) as server:
        figures: list[Figure] = []
        if scale != "only":
            raw = _child("raw", server.openai_base_url, CASES, CONCURRENCY)
            judged = _child("twice", server.openai_base_url, CASES, CONCURRENCY, suite, workdir / "bench.db")
            rerun = judged["rerun"]  # the same process again, as the run it follows left it
        checks = _child("checks", server.openai_base_url, CASES, CONCURRENCY, suite, workdir / "checks.db")
        if scale != "only":
            figures = _figures(raw, judged, rerun, checks)
        if big:
            large = write_synthetic_golden(workdir / "big", BIG_CASES).parent
            big_raw = _child("raw", server.openai_base_url, BIG_CASES, BIG_CONCURRENCY)
            small = _child("run", server.openai_base_url, CASES, BIG_CONCURRENCY, suite, workdir / "small.db")
            grown = _child("run", server.openai_base_url, BIG_CASES, BIG_CONCURRENCY, large, workdir / "big.db")
            one = _child("run", server.openai_base_url, BIG_CASES, BIG_CONCURRENCY, large, workdir / "one.db", 1)
            suites = (  # the suite's own memory, loaded and nothing run: what a run adds is read beside it
                _child("load", server.openai_base_url, CASES, BIG_CONCURRENCY, suite, workdir / "load.db"),
                _child("load", server.openai_base_url, BIG_CASES, BIG_CONCURRENCY, large, workdir / "load.db"),
            )
            figures += _big_figures(big_raw, small, grown, one, suites, checks["cpu"] / CASES)
    return figures


def _figures(
    raw: dict[str, Any], judged: dict[str, Any], rerun: dict[str, Any], checks: dict[str, Any]
) -> list[Figure]:
    floor = floor_s(CASES, CONCURRENCY)
    ratio = judged["wall"] / floor
    cpu_per_call = (judged["cpu"] - checks["cpu"]) / max(judged["calls"], 1) * 1000
    return [
        Figure(
            f"{CASES} judged cases, 100 ms, c={CONCURRENCY}, {_workers(judged)}: wall / floor "
            f"({judged['wall']:.2f} s / {floor:.2f} s)",
            ratio,
            "x",
            f"<= {WALL_RATIO}" + ("" if ratio <= WALL_RATIO else f" (misses by {ratio / WALL_RATIO - 1:.0%})"),
            ratio <= WALL_RATIO and judged["calls"] == CASES,
        ),
        Figure(
            f"  the same calls by raw aiohttp, same server, same run ({raw['wall']:.2f} s)",
            raw["wall"] / floor,
            "x",
            "reference: what the machine allows now",
            True,
        ),
        Figure(
            f"  CPU per judge call (run {judged['cpu']:.2f} s - checks only {checks['cpu']:.2f} s)",
            cpu_per_call,
            "ms",
            f"<= {CPU_PER_CALL_MS} (raw aiohttp: {raw['cpu'] / CASES * 1000:.2f} ms)",
            cpu_per_call <= CPU_PER_CALL_MS,
        ),
        Figure("  judge calls of that run", judged["calls"], "", f"= {CASES}", judged["calls"] == CASES),
        Figure("the unchanged rerun (verdict cache)", rerun["wall"], "s", f"<= {RERUN_TARGET_S}", rerun["wall"] <= 2.0),
        Figure("  judge calls of the rerun", rerun["calls"], "", "= 0", rerun["calls"] == 0),
    ]


def _big_figures(
    raw: dict[str, Any],
    small: dict[str, Any],
    grown: dict[str, Any],
    one: dict[str, Any],
    suites: tuple[dict[str, Any], dict[str, Any]],
    checks_cpu_per_case: float,
) -> list[Figure]:
    floor = floor_s(BIG_CASES, BIG_CONCURRENCY)
    ratio = grown["wall"] / floor
    # Growth read in one process at both sizes (the 2,000-case run stays in one): a sharded run's parent
    # holds none of its workers' memory, so its peak beside the smaller run's would read as a shrink.
    per_case_kb = (one["rss_mb"] - small["rss_mb"]) * 1024 / (BIG_CASES - CASES)
    suite_kb = (suites[1]["rss_mb"] - suites[0]["rss_mb"]) * 1024 / (BIG_CASES - CASES)
    run_kb = per_case_kb - suite_kb
    peak = max(grown["rss_mb"], one["rss_mb"])  # the parent of the sharded run, or the run in one process
    at_100k = one["rss_mb"] + per_case_kb * (100_000 - BIG_CASES) / 1024
    seconds_per_case = grown["wall"] / BIG_CASES
    cpu_per_call = (grown["cpu"] / BIG_CASES - checks_cpu_per_case) * 1000
    return [
        Figure(
            f"{BIG_CASES} judged cases, c={BIG_CONCURRENCY}, {_workers(grown)}: wall / floor "
            f"({grown['wall']:.1f} s / {floor:.1f} s)",
            ratio,
            "x",
            f"<= {WALL_RATIO}" + ("" if ratio <= WALL_RATIO else f" (misses by {ratio / WALL_RATIO - 1:.0%})"),
            ratio <= WALL_RATIO and grown["calls"] == BIG_CASES,
        ),
        Figure(
            f"  the same run, {_workers(one)} ({one['wall']:.1f} s)",
            one["wall"] / floor,
            "x",
            "reference: [run] processes = 1",
            one["calls"] == BIG_CASES,
        ),
        Figure(
            f"  the same calls by raw aiohttp, same server, same run ({raw['wall']:.1f} s)",
            raw["wall"] / floor,
            "x",
            "reference: what the machine allows now",
            True,
        ),
        Figure(
            f"  CPU per case (run {grown['cpu']:.1f} s; floor {floor / BIG_CASES * 1000:.2f} ms a case)",
            grown["cpu"] / BIG_CASES * 1000,
            "ms",
            f"judge's share ~{cpu_per_call:.2f} ms a call (the 2,000-case checks-only CPU a case taken off)",
            True,
        ),
        Figure(
            f"  peak memory ({CASES} cases: {small['rss_mb']:.0f} MB; {BIG_CASES} in one process: "
            f"{one['rss_mb']:.0f} MB; each worker process: at most {grown['workers_rss_mb']:.0f} MB, much of it "
            "shared with the parent)",
            peak,
            "MB",
            f"<= {MEMORY_MB:.0f}" + ("" if peak <= MEMORY_MB else f" (misses by {peak / MEMORY_MB - 1:.0%})"),
            peak <= MEMORY_MB,
        ),
        Figure(
            f"  memory growth per case in one process; at 100,000 cases ~{at_100k:.0f} MB, "
            f"~{seconds_per_case * 100_000:.0f} s",
            per_case_kb,
            "KB",
            f"the suite loaded alone grows {suite_kb:.1f} KB a case",
            True,
        ),
        Figure(
            "  of which the run (growth less the suite's own)",
            run_kb,
            "KB",
            "flat: <= 1 KB a case" + ("" if run_kb <= 1.0 else f" (misses by {run_kb - 1:.1f} KB)"),
            run_kb <= 1.0,
        ),
    ]


def _workers(measured: dict[str, Any]) -> str:
    processes = int(measured.get("processes", 1))
    return "in one process" if processes == 1 else f"{processes} worker processes"


def _child(
    mode: str,
    url: str,
    cases: int,
    concurrency: int,
    suite: Path | None = None,
    db: Path | None = None,
    processes: int = 0,
) -> dict[str, Any]:
    """One measured run in a child process: its wall time, CPU time (its worker processes' included), peak
    RSS (its own; its workers' apart), the server's call count and the worker processes the run used
    (`[run] processes`: 0 lets the run choose, 1 keeps it in one process)."""
    command = [sys.executable, "-m", "benchmarks.bench_judges", mode, url, str(cases), str(concurrency)]
    if suite is not None and db is not None:
        command += [str(suite), str(db), str(processes)]
    environment = {**os.environ, KEY_ENV: "sk-bench-local", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the bench child {mode} failed: {done.stderr[-2000:]}")
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


def _calls(url: str) -> int:
    import urllib.request

    root = url.rsplit("/v1", 1)[0]
    with urllib.request.urlopen(f"{root}/_stats", timeout=10) as response:
        return int(json.loads(response.read())["calls"])


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _measure_run(
    mode: str, url: str, cases: int, concurrency: int, suite: Path, db: Path, processes: int
) -> dict[str, Any]:
    import sqlite_utils  # noqa: F401  # imported before the clock starts, as the raw client's aiohttp is

    import qaeval_tui.core.judges.client
    import qaeval_tui.core.running.runner  # noqa: F401
    from qaeval_tui.core.config import Config, JudgeSection, RunConfig
    from qaeval_tui.core.running import shards
    from qaeval_tui.core.running.result import CaseResult
    from qaeval_tui.core.running.runner import CaseWork, Progress
    from qaeval_tui.core.store.opening import open_store
    from qaeval_tui.core.usecases.run import run_from_config

    judge = JudgeSection(kind="openai", model="bench-judge", base_url=url, api_key_env=KEY_ENV, concurrency=concurrency)
    config = Config(base_dir=str(db.parent), judge=judge, run=RunConfig(processes=processes))
    used = [1]
    sharded = shards.run_sharded

    def recording(
        work: CaseWork,
        processes: int,
        add: Callable[[int, CaseResult], None],
        progress: Progress | None,
        started: Callable[[], None] = lambda: None,
    ) -> None:  # the worker processes the run chose, for the figure's label
        used[0] = processes
        sharded(work, processes, add, progress, started)

    shards.run_sharded = recording

    def measured() -> dict[str, Any]:
        before = _calls(url)
        started, cpu = time.perf_counter(), time.process_time() + _children_cpu()
        with open_store(db) as store:  # opened inside the clock, as `qaeval run` opens it
            run_from_config(config, [suite], store, workers=2, checks_only=mode == "checks")
        return {
            "wall": time.perf_counter() - started,
            "cpu": time.process_time() + _children_cpu() - cpu,
            "calls": _calls(url) - before,
            "processes": used[0],
        }

    first = measured()
    if mode == "twice":  # then the unchanged rerun, which the verdict cache answers
        first["rerun"] = measured()
    return first


def _measure_load(suite: Path) -> dict[str, Any]:
    """The suite loaded as a run loads it (`plan_suite`), nothing run: the suite's own memory."""
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.usecases.run import plan_suite

    started = time.perf_counter()
    plan = plan_suite(Config(base_dir=str(suite.parent)), [suite], checks_only=True)
    return {"wall": time.perf_counter() - started, "cpu": time.process_time(), "calls": len(plan.golden.cases)}


def _measure_raw(url: str, cases: int, concurrency: int) -> dict[str, Any]:
    """A hand-written client: one aiohttp session, a semaphore, the judge's request size, each reply parsed."""
    import asyncio

    import aiohttp

    source = "The Tidewell HB-10 is covered by a limited warranty of 10 years. " * 6
    user = json.dumps({"question": "q?", "sources": [{"id": "s1", "title": "t", "text": source}] * 3, "answer": "a"})
    body = json.dumps(
        {"model": "raw", "messages": [{"role": "system", "content": "- faithfulness (scale 0, 1, 2):\n" * 20},
                                      {"role": "user", "content": user}]}
    ).encode()  # fmt: skip

    async def main() -> None:
        gate = asyncio.Semaphore(concurrency)
        connector = aiohttp.TCPConnector(limit=concurrency)
        async with aiohttp.ClientSession(connector=connector, headers={"content-type": "application/json"}) as session:

            async def one() -> None:
                async with gate, session.post(f"{url}/chat/completions", data=body) as response:
                    json.loads(await response.read())

            await asyncio.gather(*(one() for _ in range(cases)))

    before = _calls(url)
    started, cpu = time.perf_counter(), time.process_time()
    asyncio.run(main())
    return {"wall": time.perf_counter() - started, "cpu": time.process_time() - cpu, "calls": _calls(url) - before}


def _peak_rss_mb(fallback: float) -> float:
    """This process's own peak resident memory (Linux `VmHWM`). Not `ru_maxrss`: Linux carries that
    over from the process that forked and exec'd this one, so a measuring child started from a
    `make bench` that had grown to 335 MB read 335 MB whatever it ran."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return fallback
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return fallback


def _main(argv: list[str]) -> None:
    import resource

    mode, url, cases, concurrency = argv[0], argv[1], int(argv[2]), int(argv[3])
    if mode == "raw":
        measured = _measure_raw(url, cases, concurrency)
    elif mode == "load":
        measured = _measure_load(Path(argv[4]))
    else:
        measured = _measure_run(mode, url, cases, concurrency, Path(argv[4]), Path(argv[5]), int(argv[6]))
    measured["rss_mb"] = _peak_rss_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    measured["workers_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps(measured))


if __name__ == "__main__":
    _main(sys.argv[1:])
