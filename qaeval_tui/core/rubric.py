"""The rubric: the versioned set of labeling axes every label and verdict is made under (DESIGN §3.4, §8.1)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Level = Literal["nominal", "ordinal", "interval"]


def guidelines_path(value: str) -> str | None:
    """The file a `guidelines` value names (one line ending in .md), or None when it is Markdown text itself."""
    stripped = value.strip()
    if stripped and "\n" not in stripped and stripped.lower().endswith(".md"):
        return stripped
    return None


class Axis(BaseModel):
    """One labeling axis of the rubric (DESIGN §3.4, §8.1)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    name: str = Field(min_length=1, description="Axis name used in labels, verdicts and reports.")
    scale: tuple[int, ...] = Field(default=(0, 1, 2), description="Distinct integer scale points, in order.")
    level: Level = Field(default="ordinal", description="Level of measurement for agreement statistics.")
    anchors: tuple[str, ...] = Field(description="One anchor sentence per scale point.")
    needs_gold: bool = Field(default=False, description="Show the gold answer for this axis (after the blind axes).")
    guidelines: str = Field(
        default="", description="Markdown shown with `g` while labeling, or the path of a .md file (from the config)."
    )

    @model_validator(mode="after")
    def _scale_and_anchors(self) -> Axis:
        if len(self.scale) < 2:
            raise ValueError("scale: needs at least two points")
        if len(set(self.scale)) != len(self.scale):
            raise ValueError("scale: points must be distinct")
        if list(self.scale) != sorted(self.scale):
            raise ValueError("scale: points must be in increasing order")
        if len(self.anchors) != len(self.scale):
            raise ValueError(f"anchors: need one per scale point ({len(self.scale)}), got {len(self.anchors)}")
        return self

    def anchor_for(self, value: int) -> str:
        return self.anchors[self.scale.index(value)]


class Rubric(BaseModel):
    """The versioned set of axes every label and verdict is made under."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    version: str = Field(
        default="1", description="Recorded with every label; bump when anchors, a scale or an axis name change."
    )
    axes: tuple[Axis, ...]
    guidelines: str = Field(
        default="", description="General guidelines: Markdown, or the path of a .md file (from the config)."
    )

    @model_validator(mode="after")
    def _unique_axes(self) -> Rubric:
        names = [axis.name for axis in self.axes]
        if not names:
            raise ValueError("axes: at least one axis is required")
        if len(set(names)) != len(names):
            raise ValueError("axes: axis names must be unique")
        return self

    def axis(self, name: str) -> Axis:
        for axis in self.axes:
            if axis.name == name:
                return axis
        raise KeyError(name)

    @property
    def axis_names(self) -> tuple[str, ...]:
        return tuple(axis.name for axis in self.axes)
