"""Issue 26: `qaeval --help` beside its floor, `import typer` and a bare typer app printing its help, each a
fresh process, interleaved, median of 7 (target: at most 2x the floor). The bare app has the settings qaeval's has
(no rich markup), so the floor is typer's own start, not rich's."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import Figure

ROUNDS = 7
QAEVAL_HELP = "import sys; sys.argv = ['qaeval', '--help']; from qaeval_tui.cli.main import run; run()"
BARE_HELP = (
    "import sys, typer; app = typer.Typer(add_completion=False, rich_markup_mode=None); app.command()(lambda: None); "
    "sys.argv = ['bare', '--help']; app()"
)


def _seconds(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def run(workdir: Path) -> list[Figure]:
    ours: list[float] = []
    bare: list[float] = []
    for _ in range(ROUNDS):
        ours.append(_seconds(QAEVAL_HELP))
        bare.append(_seconds(BARE_HELP))
    help_s, floor_s = statistics.median(ours), statistics.median(bare)
    ratio = help_s / floor_s
    return [
        Figure(
            f"qaeval --help ({help_s:.2f} s) / import typer + a bare app ({floor_s:.2f} s)",
            ratio,
            "x",
            "<= 2" + ("" if ratio <= 2 else f" (misses by {ratio / 2 - 1:.0%})"),
            ratio <= 2,
        )
    ]
