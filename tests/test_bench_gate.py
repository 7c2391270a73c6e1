"""The "gate beyond the run" benchmark times the gate itself: a slower gate or report shows in its
figure (the whole-process difference it replaced could print less than nothing)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from benchmarks import bench_run_gate
from qaeval_tui.core.config import Config
from qaeval_tui.core.gate.baseline import baseline_document
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases import gate as gate_use_case
from qaeval_tui.core.usecases.configured import plan_run
from qaeval_tui.core.usecases.run import write_document
from tests.conftest import DEMO_GOLDEN

DELAY_S = 0.3


def test_the_figure_grows_with_the_gate_and_its_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = Config(base_dir=str(tmp_path))
    result = plan_run(config, [DEMO_GOLDEN / "frozen.jsonl"]).run()
    baseline = tmp_path / "baseline.json"
    write_document(baseline, baseline_document(result))
    with Store.open(tmp_path / "store.db") as store:
        quick = bench_run_gate.gate_beyond_the_run(config, result, baseline, store, tmp_path)
        assert quick > 0
        for name in ("run_gate", "gate_junit"):  # the steps `qaeval gate` itself takes
            real = getattr(gate_use_case, name)

            def slow(*args: Any, real: Any = real, **kwargs: Any) -> Any:
                time.sleep(DELAY_S)
                return real(*args, **kwargs)

            monkeypatch.setattr(gate_use_case, name, slow)
            assert bench_run_gate.gate_beyond_the_run(config, result, baseline, store, tmp_path) >= DELAY_S
            monkeypatch.setattr(gate_use_case, name, real)
    assert {"gate.json", "gate.md", "gate.xml"} <= {path.name for path in tmp_path.iterdir()}
