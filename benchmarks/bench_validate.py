"""Issue 2: `qaeval validate` on 10,000 synthetic cases versus a bare json.loads of the same lines."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import Figure
from benchmarks.synthetic import write_synthetic_golden
from qaeval_tui.core.golden import load_golden


def run(workdir: Path) -> list[Figure]:
    folder = workdir / "golden"
    path = write_synthetic_golden(folder, 10_000)
    lines = path.read_bytes().split(b"\n")

    started = time.perf_counter()
    for line in lines:
        if line.strip():
            json.loads(line)
    bare = time.perf_counter() - started

    started = time.perf_counter()
    golden = load_golden([folder])
    load = time.perf_counter() - started
    assert len(golden.cases) == 10_000

    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "qaeval_tui.cli", "validate", str(folder)], capture_output=True, text=True, check=False
    )
    command = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"qaeval validate failed: {result.stderr}")
    return [
        Figure("bare json.loads of 10,000 lines", bare, "s", "(reference)", True),
        Figure(
            "load_golden of 10,000 cases (in process)", load, "s", f"<= 3x bare ({3 * bare:.3f} s)", load <= 3 * bare
        ),
        Figure("qaeval validate, 10,000 cases (whole process)", command, "s", "<= 2 s", command <= 2.0),
    ]
