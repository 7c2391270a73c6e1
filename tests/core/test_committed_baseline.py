"""The committed baselines name systems that exist: every `module:factory` spec in a run header imports
and builds the adapter or judge the header records (a module that moved leaves a stale spec behind)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.core.running.adapters import adapter_label, load_adapter
from qaeval_tui.core.running.judge import load_judge
from tests.conftest import REPO

BASELINES = sorted(
    path
    for path in (REPO / "baselines").glob("*.json")
    if json.loads(path.read_text(encoding="utf-8")).get("format") == "qaeval-baseline"
)


def _specs(node: Any, path: str = "") -> list[tuple[str, str]]:
    """(where, spec) of every string under a key ending in `_spec`, at any depth."""
    found: list[tuple[str, str]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}.{key}" if path else key
            if key.endswith("_spec") and isinstance(value, str):
                found.append((where, value))
            found.extend(_specs(value, where))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_specs(value, f"{path}[{index}]"))
    return found


@pytest.mark.parametrize("baseline", BASELINES, ids=lambda path: path.name)
def test_every_spec_in_a_committed_baseline_builds_the_system_it_records(baseline: Path) -> None:
    document = json.loads(baseline.read_text(encoding="utf-8"))
    specs = dict(_specs(document))
    assert {"run.adapter_spec", "run.judge_spec"} <= specs.keys(), f"{baseline.name}: no specs recorded"
    assert set(specs) == {"run.adapter_spec", "run.judge_spec"}, f"{baseline.name}: a spec this test does not load"
    run = document["run"]
    adapter_spec, judge_spec = specs["run.adapter_spec"], specs["run.judge_spec"]
    assert adapter_label(load_adapter(adapter_spec), adapter_spec) == run["adapter"]
    assert load_judge(judge_spec).config.config_hash() == run["judge"]["config_hash"]


def test_the_demo_baseline_is_among_those_checked() -> None:
    assert "demo.json" in [path.name for path in BASELINES]
