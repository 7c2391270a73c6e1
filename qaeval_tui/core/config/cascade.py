"""`[cascade]`: a cheap judge (`[judge]`) screens every case; the ones it finds low, borderline or
cannot judge, or fails on, go to a stronger judge (`[cascade.judge]`, the keys of `[judge]`), whose
valid result is final."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from qaeval_tui.core.config.judge import JudgeSection
from qaeval_tui.core.config.judge_providers import kinds_in_words
from qaeval_tui.core.config.sections import Section

Trigger = Literal["low", "borderline", "unfaithful", "abstained", "error"]
TRIGGERS: tuple[Trigger, ...] = ("low", "borderline", "unfaithful", "abstained", "error")
DEFAULT_TRIGGERS: tuple[Trigger, ...] = ("low", "borderline", "abstained", "error")


class CascadeConfig(Section):
    judge: JudgeSection = Field(description="The stronger judge, with the keys of [judge] (a model judge).")
    escalate: tuple[Trigger, ...] = Field(
        default=DEFAULT_TRIGGERS,
        min_length=1,
        description="What sends a case on: low (an axis at the bottom of its scale), borderline (an axis between "
        "bottom and top), unfaithful (faithfulness below the top), abstained (the screen cannot judge), error.",
    )

    @model_validator(mode="after")
    def _a_model_judge(self) -> CascadeConfig:
        if not self.judge.is_model:
            raise ValueError(f"judge.kind: the stronger judge is a model judge ({kinds_in_words()})")
        return self
