"""Issue 24: 10,000 spans of an OTLP JSON export import into the inbox in at most 5 s.

The export is written by the OpenTelemetry SDK and its OTLP encoder (as the tests' fixtures are):
2,500 requests of four spans each (the request, a retrieval, a chat call, a health check beside
it), half of them with negative feedback. The floor, timed in the same run, is `json.loads` of the
same file: the least any reader of it must spend.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from benchmarks import Figure
from qaeval_tui.core.curation.traces.importer import import_traces
from qaeval_tui.core.curation.traces.model import parse_conditions
from qaeval_tui.core.store.sqlite import Store
from tests.traces.exports import Recorder, genai_trace, health_check, otlp_json

REQUESTS = 2_500
TARGET_S = 5.0


def write_export(path: Path) -> int:
    """Write the export; returns how many spans it holds."""
    rec = Recorder(seed=24)
    for number in range(REQUESTS):
        genai_trace(rec, feedback="negative" if number % 2 else "positive", question=f"Question {number}?")
        health_check(rec)
    spans = rec.spans()
    path.write_text(otlp_json(spans), encoding="utf-8")
    return len(spans)


def run(workdir: Path) -> list[Figure]:
    export = workdir / "traces.json"
    count = write_export(export)
    started = time.perf_counter()
    json.loads(export.read_bytes())
    floor = time.perf_counter() - started

    where = parse_conditions(["user.feedback=negative"])
    with Store.open(workdir / "store.db") as store:
        started = time.perf_counter()
        report = import_traces(store, export, "otlp", where)
        first = time.perf_counter() - started
        started = time.perf_counter()
        again = import_traces(store, export, "otlp", where)
        second = time.perf_counter() - started
    if len(report.stored.added) != REQUESTS // 2 or len(again.stored.unchanged) != REQUESTS // 2:
        raise RuntimeError(f"expected {REQUESTS // 2} misses, got {report.stored.added[:3]}...")
    label = f"{count:,} spans"
    return [
        Figure(f"floor: json.loads of the export ({label})", floor, "s", "(reference)", True),
        Figure(f"inbox import --format otlp --where, {label}", first, "s", f"<= {TARGET_S:g} s", first <= TARGET_S),
        Figure(
            f"the same import again (all unchanged), {label}", second, "s", f"<= {TARGET_S:g} s", second <= TARGET_S
        ),
    ]
