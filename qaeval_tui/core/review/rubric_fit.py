"""Labels and verdicts made under the current rubric version must fit the current rubric.

The version is what keeps labels of different rubrics apart. A rubric whose scale or axis names
changed while its version stayed the same breaks that quietly: a renamed axis leaves n = 0, a
value off the new scale falls outside the confusion matrix. Both are refused, naming the axis, and
the fix is always the same: bump `rubric.version`, so the old labels are kept apart as history.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.rubric import Rubric

BUMP = "if the rubric changed, bump rubric.version in the config"


def score_misfits(rubric: Rubric, scores: Mapping[str, int | None], *, advice: bool = True) -> list[tuple[str, str]]:
    """(field, message) for each score, made under this rubric's version, that does not fit the rubric;
    `advice`: each message ends saying to bump the version if the rubric changed (a stored row's
    error gives its own advice instead)."""
    version = rubric.version
    bump = f"; {BUMP}" if advice else ""
    misfits: list[tuple[str, str]] = []
    scales = {axis.name: axis.scale for axis in rubric.axes}
    for axis, value in scores.items():
        scale = scales.get(axis)
        if scale is None:
            message = f"rubric version {version!r} has no axis {axis!r} ({_axes(rubric)})" + (
                f": a typo, or {BUMP}" if advice else ""
            )
            misfits.append((f"scores.{axis}", message))
        elif value is not None and value not in scale:
            message = f"{value!r} is not on the {axis} scale {_scale(rubric, axis)} of rubric version {version!r}{bump}"
            misfits.append((f"scores.{axis}", message))
    return misfits


def check_rubric_unchanged(scored: Iterable[Mapping[str, int | None]], rubric: Rubric, source: str, what: str) -> None:
    """Raise a UsageError when scores made under `rubric.version` use an axis it lacks or a value off a scale.

    `scored` are the score mappings of the labels or verdicts (`what`) made under this rubric
    version; a mapping shared by many (the store reuses one per distinct text) is checked once.
    """
    unknown: set[str] = set()
    off_scale: dict[str, set[int]] = {}
    seen: set[int] = set()
    scales = {axis.name: axis.scale for axis in rubric.axes}  # once, not per label: a million labels pass here
    for scores in scored:
        if id(scores) in seen:
            continue
        seen.add(id(scores))
        for axis, value in scores.items():
            scale = scales.get(axis)
            if scale is None:
                unknown.add(axis)
            elif value is not None and value not in scale:
                off_scale.setdefault(axis, set()).add(value)
    reasons = [f"score axis {axis!r}, which it does not have ({_axes(rubric)})" for axis in sorted(unknown)]
    reasons += [
        f"give {axis} {' and '.join(map(str, sorted(values)))}, off its {axis} scale {_scale(rubric, axis)}"
        for axis, values in sorted(off_scale.items())
    ]
    if reasons:
        raise UsageError(
            f"{source}: {what} made under rubric version {rubric.version!r} {'; they '.join(reasons)}. "
            f"The rubric changed without a version bump: bump rubric.version in the config, and these {what} "
            "are kept apart as history"
        )


def _axes(rubric: Rubric) -> str:
    return f"its axes: {', '.join(rubric.axis_names)}"


def _scale(rubric: Rubric, axis: str) -> str:
    return str(list(rubric.axis(axis).scale))
