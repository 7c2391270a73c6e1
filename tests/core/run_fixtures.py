"""Small hand-made cases and outputs for the run / check / judge / gate tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from qaeval_tui.core.config import Config
from qaeval_tui.core.golden.loader import case_content_hash
from qaeval_tui.core.models.golden import GoldenCase, LoadedCase
from qaeval_tui.core.models.run import CaseView, Citation, SUTOutput

FIXED_TIME = "2026-10-01T09:00:00.000Z"
RUBRIC = Config().rubric

WARRANTY = "The Tidewell HB-10 is covered by a limited warranty of 10 years from the date of installation."
SHIPPING = "Orders ship within 5 business days from the Tidewell warehouse in Leeds."
HB5_WARRANTY = "The Tidewell HB-5 is covered by a limited warranty of 7 years from the date of installation."
PRICES = "Price list: TW-FAN-10 fan module costs $89. FS-10 floor stand costs $129."
FAN = "E517 indicates an internal fan fault. The replacement part is the TW-FAN-10 fan module."


def case(case_id: str = "warranty-01", **overrides: Any) -> GoldenCase:
    """An answerable single-hop case about the HB-10 warranty; override any field."""
    data: dict[str, Any] = {
        "id": case_id,
        "question": "How long is the HB-10 warranty?",
        "sources": [
            {"id": "s1", "title": "Warranty HB-10", "text": WARRANTY},
            {"id": "s2", "title": "Shipping", "text": SHIPPING},
            {"id": "s3", "title": "Warranty HB-5", "text": HB5_WARRANTY},
        ],
        "expected_behavior": "answer",
        "gold_answer": "10 years from installation",
        "gold_source_ids": ["s1"],
        "difficulty": "single_hop",
        "adversarial": None,
        "checkpoints": [],
        "provenance": None,
    }
    data.update(overrides)
    return GoldenCase.model_validate(data)


def abstain_case(case_id: str = "abstain-01", **overrides: Any) -> GoldenCase:
    data: dict[str, Any] = {
        "question": "Does Tidewell offer monthly financing plans?",
        "expected_behavior": "abstain",
        "gold_answer": None,
        "gold_source_ids": [],
        "adversarial": "unanswerable_lookalike",
    }
    data.update(overrides)
    return case(case_id, **data)


def multi_hop_case(case_id: str = "fan-price-01", **overrides: Any) -> GoldenCase:
    data: dict[str, Any] = {
        "question": "My HB-10 shows E517. Which part does it need and what does that part cost?",
        "sources": [
            {"id": "s1", "title": "Error codes", "text": FAN},
            {"id": "s2", "title": "Prices", "text": PRICES},
            {"id": "s3", "title": "Shipping", "text": SHIPPING},
        ],
        "gold_answer": "The TW-FAN-10 fan module, which costs $89.",
        "gold_source_ids": ["s1", "s2"],
        "difficulty": "multi_hop",
        "checkpoints": [{"kind": "retrieve", "source_id": "s1"}, {"kind": "retrieve", "source_id": "s2"}],
    }
    data.update(overrides)
    return case(case_id, **data)


def loaded(golden: GoldenCase, split: str = "frozen", line: int = 1) -> LoadedCase:
    return LoadedCase(golden, split, f"golden/{split}.jsonl", line, case_content_hash(golden))


def quoting_output(golden: GoldenCase, source_id: str = "s1", **overrides: Any) -> SUTOutput:
    """What a well-behaved system returns: it retrieved `source_id`, quoted it and cited it."""
    source = golden.source_by_id(source_id)
    assert source is not None
    data: dict[str, Any] = {
        "answer": source.text,
        "citations": (Citation(source_id=source_id, quote=source.text, claim=source.text),),
        "retrieved_ids": (source_id,),
        "abstained": False,
        "model_was_called": True,
        "prompt": f"Question: {golden.question}\n\n[{source_id}] {source.text}",
    }
    data.update(overrides)
    return SUTOutput(**data)


def refusal() -> SUTOutput:
    return SUTOutput(answer="I cannot answer that.", abstained=True, model_was_called=False)


class ScriptedAdapter:
    """Answers each question with a scripted function of the view; records every view it saw."""

    name = "scripted"

    def __init__(self, respond: Callable[[CaseView], SUTOutput]) -> None:
        self.respond = respond
        self.seen: list[object] = []

    def answer(self, view: CaseView) -> SUTOutput:
        self.seen.append(view)
        return self.respond(view)
