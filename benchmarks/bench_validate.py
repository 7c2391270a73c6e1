"""Issue 2: `qaeval validate` on 10,000 synthetic cases versus a bare json.loads of the same lines.

Targets: the whole `qaeval validate` process within 2 s, and the loader within 3x of the bare
parse. The reference parse keeps what it parses, as the loader must, and runs with the cyclic
collector paused, as the loader does: a loop that throws each object away reuses the memory it
just freed and runs faster still, so it is printed too, for information, with the loader's
ratio to it. So is a whole Python process that only
parses the file: the command's start-up (pydantic, typer and rich imports, about 0.4 s) is the
gap between the two whole-process figures. Every timing is the best of five, interleaved: the
machine is shared and the minimum is the least noisy estimate.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import Figure
from benchmarks.synthetic import write_synthetic_golden
from qaeval_tui.core.batch import collector_paused
from qaeval_tui.core.golden.loader import load_golden

ROUNDS = 5
CASES = 10_000

BARE_PROCESS = """
import json, sys
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        if line.strip():
            json.loads(line)
"""


def _seconds(action: Callable[[], None]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def run(workdir: Path) -> list[Figure]:
    folder = workdir / "golden"
    path = write_synthetic_golden(folder, CASES)
    lines = [line for line in path.read_bytes().split(b"\n") if line.strip()]

    def bare() -> None:
        with collector_paused():  # as the loader runs: like for like
            parsed = [json.loads(line) for line in lines]
        assert len(parsed) == CASES

    def bare_discarding() -> None:
        for line in lines:
            json.loads(line)

    def load() -> None:
        assert len(load_golden([folder]).cases) == CASES

    def command() -> None:
        result = subprocess.run(
            [sys.executable, "-m", "qaeval_tui.cli", "validate", str(folder)],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"qaeval validate failed: {result.stderr}")

    def bare_process() -> None:
        subprocess.run([sys.executable, "-c", BARE_PROCESS, str(path)], check=True)

    actions = {
        "bare": bare,
        "bare_discarding": bare_discarding,
        "load": load,
        "bare_process": bare_process,
        "command": command,
    }
    timings: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(ROUNDS):
        for name, action in actions.items():
            timings[name].append(_seconds(action))
    best = {name: min(values) for name, values in timings.items()}
    load_ratio = best["load"] / best["bare"]
    return [
        Figure("bare json.loads of 10,000 lines, kept (in process)", best["bare"], "s", "(reference)", True),
        Figure(
            "load_golden of 10,000 cases (in process)",
            best["load"],
            "s",
            f"<= 3x bare ({3 * best['bare']:.3f} s; now {load_ratio:.1f}x)",
            best["load"] <= 3 * best["bare"],
        ),
        Figure(
            "bare json.loads, each object discarded (information)",
            best["bare_discarding"],
            "s",
            f"(loader is {best['load'] / best['bare_discarding']:.1f}x this)",
            True,
        ),
        Figure(
            "python process json.loads-ing the file (information)",
            best["bare_process"],
            "s",
            f"(validate is {best['command'] / best['bare_process']:.1f}x this)",
            True,
        ),
        Figure("qaeval validate, 10,000 cases (whole process)", best["command"], "s", "<= 2 s", best["command"] <= 2.0),
    ]
