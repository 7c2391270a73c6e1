"""Fixtures the judge tests share (the CLI tests' four-case suite)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import write_jsonl
from tests.core.run_fixtures import abstain_case, case, multi_hop_case


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A four-case golden folder: two answerable cases, one must-abstain, one multi-hop."""
    folder = tmp_path / "golden"
    cases = [
        case("warranty-01"),
        case("warranty-02", question="What warranty term applies to the HB-10?"),
        abstain_case("financing-01"),
        multi_hop_case("fan-price-01"),
    ]
    write_jsonl(folder / "frozen.jsonl", [c.model_dump(mode="json") for c in cases])
    return folder
