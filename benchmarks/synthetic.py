"""Synthetic golden sets for benchmarks (deterministic for a seed)."""

from __future__ import annotations

import json
import random
from pathlib import Path

_WORDS = [
    "battery",
    "inverter",
    "warranty",
    "firmware",
    "cell",
    "module",
    "breaker",
    "panel",
    "install",
    "clearance",
    "voltage",
    "amp",
    "hour",
    "cycle",
    "charge",
    "discharge",
    "export",
    "import",
    "grid",
    "outage",
    "backup",
    "reserve",
    "schedule",
    "tariff",
    "peak",
    "solar",
    "meter",
    "app",
    "alert",
    "fault",
    "code",
    "reset",
    "service",
    "technician",
    "return",
    "refund",
    "shipping",
    "register",
    "serial",
    "model",
    "capacity",
    "torque",
    "bracket",
]


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


def _source_text(rng: random.Random, size: int = 1000) -> str:
    parts: list[str] = []
    while sum(len(p) + 1 for p in parts) < size:
        parts.append(_sentence(rng, rng.randint(8, 16)))
    return " ".join(parts)[:size]


def synthetic_case(rng: random.Random, index: int) -> dict[str, object]:
    sources = [{"id": f"s{j}", "title": f"Section {index}.{j}", "text": _source_text(rng)} for j in range(1, 6)]
    gold = rng.choice(sources)
    if index % 10 == 9:
        return {
            "id": f"syn-{index:06d}",
            "question": f"Case {index}: what is the {rng.choice(_WORDS)} of the lunar rover?",
            "sources": sources,
            "expected_behavior": "abstain",
            "gold_answer": None,
            "gold_source_ids": [],
            "difficulty": "single_hop",
            "adversarial": "unanswerable_lookalike",
            "checkpoints": [],
            "provenance": None,
        }
    first_sentence = str(gold["text"]).split(".")[0]
    question_words = first_sentence.split()[:6]
    return {
        "id": f"syn-{index:06d}",
        "question": f"Case {index}: what about {' '.join(question_words)}?",
        "sources": sources,
        "expected_behavior": "answer",
        "gold_answer": first_sentence + ".",
        "gold_source_ids": [gold["id"]],
        "difficulty": "single_hop",
        "adversarial": None,
        "checkpoints": [],
        "provenance": None,
    }


def write_synthetic_golden(folder: Path, cases: int, seed: int = 0) -> Path:
    """Write `cases` synthetic cases (5 sources of about 1 KB each) to folder/frozen.jsonl."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    path = folder / "frozen.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for index in range(cases):
            handle.write(json.dumps(synthetic_case(rng, index)) + "\n")
    return path
