"""`make bench`: every figure printed beside its target.

Each module `benchmarks/bench_*.py` exposes `run(workdir: Path) -> list[Figure]`; this package
runs them all in name order. Timings are wall-clock on this machine, measured, never asserted.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """One measured figure and the target it is read against."""

    name: str
    value: float
    unit: str
    target: str
    ok: bool

    def line(self) -> str:
        mark = "ok  " if self.ok else "MISS"
        return f"{mark} {self.name:<58} {self.value:>10.3f} {self.unit:<4} target {self.target}"
