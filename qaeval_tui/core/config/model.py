"""The whole configuration model and the default rubric's axes."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from qaeval_tui.core.config.cascade import CascadeConfig
from qaeval_tui.core.config.judge import JudgeSection
from qaeval_tui.core.config.sections import CalibrationConfig, GateConfig, PathsConfig, RunConfig, Section
from qaeval_tui.core.config.team import ReviewConfig
from qaeval_tui.core.default_guidelines import AXIS_GUIDELINES, GENERAL_GUIDELINES
from qaeval_tui.core.rubric import Axis, Rubric

# Constants, built without validation (tests/core/test_config.py validates them): reading the
# defaults builds no pydantic schema (config/sections.py: Section).
DEFAULT_AXES: tuple[Axis, ...] = (
    Axis.model_construct(
        name="faithfulness",
        guidelines=AXIS_GUIDELINES["faithfulness"],
        anchors=(
            "The answer states something its sources contradict or do not contain.",
            "Mostly supported, but at least one detail goes beyond what the sources say.",
            "Every claim in the answer is supported by the sources.",
        ),
    ),
    Axis.model_construct(
        name="citation_correctness",
        guidelines=AXIS_GUIDELINES["citation_correctness"],
        anchors=(
            "A citation points to a source that does not support its claim, or a needed citation is missing.",
            "Citations are relevant, but at least one points to a weaker source than the one that supports it.",
            "Every citation points to the passage that supports its claim.",
        ),
    ),
    Axis.model_construct(
        name="answer_correctness",
        needs_gold=True,
        guidelines=AXIS_GUIDELINES["answer_correctness"],
        anchors=(
            "Wrong, missing, or it refused a question it should have answered (or answered one it should refuse).",
            "Partly right: the key fact is there but incomplete, or mixed with an error.",
            "Right in substance: matches the gold answer, or correctly abstains.",
        ),
    ),
)


class Config(Section):
    """The whole configuration; every field has a default."""

    rubric: Rubric = Field(
        default_factory=lambda: Rubric.model_construct(version="1", axes=DEFAULT_AXES, guidelines=GENERAL_GUIDELINES)
    )
    paths: PathsConfig = Field(default_factory=PathsConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    gate: GateConfig = Field(default_factory=GateConfig)
    calibration: CalibrationConfig = Field(default_factory=CalibrationConfig)
    review: ReviewConfig = Field(default_factory=ReviewConfig)
    judge: JudgeSection = Field(default_factory=JudgeSection)
    cascade: CascadeConfig | None = Field(
        default=None, description="A stronger judge the [judge] screen escalates to (unset: no cascade)."
    )
    base_dir: str = Field(default=".", description="Folder relative paths are resolved against (set by the loader).")

    @classmethod
    def defaults_at(cls, base_dir: str) -> Config:
        """The defaults, relative paths resolved against `base_dir`: what validating only `base_dir` makes."""
        return cls().model_copy(update={"base_dir": base_dir})

    def path(self, value: str) -> Path:
        """Resolve a configured path against the config file's folder."""
        candidate = Path(value)
        return candidate if candidate.is_absolute() else Path(self.base_dir) / candidate
