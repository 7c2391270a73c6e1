"""Shared set-up for the curation tests: a private copy of the demo set and inbox, and miss lines."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.conftest import DEMO_GOLDEN

DEMO_INBOX = DEMO_GOLDEN / "inbox" / "misses.jsonl"

# Trace ids in the demo inbox, by the role each plays in the demo.
BEDROOM = "tr-20261002-3f9a61"  # obvious promote
RESTOCKING = "tr-20261003-b27c04"  # obvious reject: the answer was right
GATEWAY = "tr-20261004-5d1e88"  # near-duplicate of gateway-price-current-01
FAN_LABOR = "tr-20261005-91b3d2"  # multi-hop promote
NOISE = "tr-20261006-7ae210"  # must-abstain promote


def demo_copy(root: Path) -> Path:
    """Copy the demo golden folder (inbox included) under `root`, with an empty qaeval.toml; returns root.

    Tests never touch the repository's own golden files.
    """
    shutil.copytree(DEMO_GOLDEN, root / "golden")
    (root / "qaeval.toml").write_text("", encoding="utf-8")
    return root


def make_miss(trace_id: str = "tr-1", **overrides: Any) -> dict[str, Any]:
    """A valid production miss (DESIGN §8.4); override any field."""
    miss: dict[str, Any] = {
        "trace_id": trace_id,
        "question": "How long is the warranty?",
        "sources": [
            {"id": "s1", "title": "Warranty", "text": "The warranty lasts ten years."},
            {"id": "s2", "title": "Shipping", "text": "Shipping takes five days."},
        ],
        "answer": "Five days.",
        "citations": [{"source_id": "s2", "quote": "Shipping takes five days."}],
        "reason": "Answered from the shipping page.",
        "reported_at": "2026-10-01T12:00:00Z",
        "reporter": "support",
    }
    miss.update(overrides)
    return miss
