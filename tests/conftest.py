"""Shared fixtures: small golden files written per test, and the repo's demo set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

# The throwaway PostgreSQL server (session) and a fresh migrated database per test, for every test folder.
from tests.pg.server import pg_server, pg_url  # noqa: F401

REPO = Path(__file__).resolve().parent.parent
DEMO_GOLDEN = REPO / "golden"


def make_case(case_id: str = "c1", **overrides: Any) -> dict[str, Any]:
    """A valid answerable single-hop case; override any field."""
    case: dict[str, Any] = {
        "id": case_id,
        "question": "How long is the warranty?",
        "sources": [
            {"id": "s1", "title": "Warranty", "text": "The warranty lasts ten years."},
            {"id": "s2", "title": "Shipping", "text": "Shipping takes five days."},
        ],
        "expected_behavior": "answer",
        "gold_answer": "Ten years.",
        "gold_source_ids": ["s1"],
        "difficulty": "single_hop",
        "adversarial": None,
        "checkpoints": [],
        "provenance": None,
    }
    case.update(overrides)
    return case


def provenance() -> dict[str, str]:
    return {
        "origin": "production_miss",
        "trace_id": "tr-1",
        "promoted_by": "dana",
        "promoted_at": "2026-10-01T10:00:00Z",
        "reason": "answered from the wrong model's manual",
    }


def write_jsonl(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    """Write rows (dicts as JSON, strings verbatim) one per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows), encoding="utf-8"
    )
    return path


@pytest.fixture
def golden_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "golden"
    write_jsonl(
        folder / "frozen.jsonl",
        [make_case("c1"), make_case("c2", question="Shipping time?", gold_answer="Five days.", gold_source_ids=["s2"])],
    )
    write_jsonl(folder / "living.jsonl", [make_case("c3", provenance=provenance())])
    return folder


@pytest.fixture(autouse=True)
def private_state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The remembered last reviewer goes to a folder of the test's own, never the user's config folder."""
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("QAEVAL_STATE_DIR", str(folder))
    return folder
