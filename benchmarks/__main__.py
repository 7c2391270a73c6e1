"""Run every benchmark module and print each figure beside its target."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import tempfile
import time
from pathlib import Path

import benchmarks


def main() -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    only = sys.argv[1:]
    missed = 0
    for name in names:
        if only and not any(part in name for part in only):
            continue
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="qaeval-bench-") as tmp:
            for figure in module.run(Path(tmp)):
                print(figure.line(), flush=True)
                missed += 0 if figure.ok else 1
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
    print(f"{missed} figure(s) missed their target" if missed else "every figure within its target")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
