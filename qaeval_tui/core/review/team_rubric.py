"""The rubric a team store records (`qaeval rubric publish`, `team init`) and the one a local config has.

On a team store everyone labels under the same rubric: the latest one published into the store, not
whatever `qaeval.toml` the folder a reviewer happens to start from holds. `differences` names what a
local rubric changes (the warning every command on the store prints); `publish` appends a version,
and refuses a changed rubric that keeps the version of the one on record (a change is a new version).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rubrics import StoredRubric

_AXIS_FIELDS = ("scale", "level", "anchors", "needs_gold", "guidelines")


def rubric_document(rubric: Rubric) -> dict[str, Any]:
    """The rubric as stored: every axis, scale, anchor and the guidelines' text."""
    return rubric.model_dump(mode="json")


def differences(stored: Rubric, local: Rubric) -> list[str]:
    """What `local` changes of `stored`, one phrase each (empty: the same rubric)."""
    found: list[str] = []
    if stored.version != local.version:
        found.append(f"version {local.version!r} here, {stored.version!r} on record")
    theirs = {axis.name: axis for axis in stored.axes}
    ours = {axis.name: axis for axis in local.axes}
    found += [f"axis {name!r} is not on record" for name in ours if name not in theirs]
    found += [f"axis {name!r} is missing here" for name in theirs if name not in ours]
    for name in (name for name in ours if name in theirs):
        changed = [field for field in _AXIS_FIELDS if _field(ours[name], field) != _field(theirs[name], field)]
        if changed:
            found.append(f"axis {name!r}: {', '.join(changed)} differ")
    if [a.name for a in stored.axes if a.name in ours] != [a.name for a in local.axes if a.name in theirs]:
        found.append("the axes are in another order")
    if stored.guidelines != local.guidelines:
        found.append("the general guidelines differ")
    return found


def _field(axis: Axis, field: str) -> object:
    return getattr(axis, field)


@dataclass(frozen=True)
class Published:
    """What `publish` did: the rubric on record now, and whether this call added it."""

    record: StoredRubric
    added: bool


def publish(store: StoreBackend, rubric: Rubric, published_by: str) -> Published:
    """Record `rubric` as the store's, unless it is the one on record already.

    A rubric that differs from the one on record under the same version is refused (UsageError):
    labels carry the version, so a change must be a new version or old and new labels would mix.
    """
    latest = store.latest_rubric()
    document = rubric_document(rubric)
    if latest is not None and latest.document == document:
        return Published(latest, False)
    if latest is not None and latest.rubric_version == rubric.version:
        changed = differences(Rubric.model_validate(latest.document), rubric)
        raise UsageError(
            f"{store.path}: the rubric differs from version {rubric.version!r} on record ({'; '.join(changed)}): "
            "a changed rubric is a new version; bump [rubric] version and publish again"
        )
    store.publish_rubric(rubric.version, document, published_by)
    record = store.latest_rubric()
    assert record is not None  # just written
    return Published(record, True)


def on_record(record: StoredRubric | None, config: Config, where: str) -> tuple[Config, str | None]:
    """`config` with the rubric on record (unchanged when none is), and a warning naming every
    difference of the local rubric, or None when they agree."""
    if record is None:
        return config, None
    stored = Rubric.model_validate(record.document)
    changed = differences(stored, config.rubric)
    if not changed:
        return config, None
    warning = (
        f"{where}: using the team's rubric version {stored.version!r} (published by {record.published_by} at "
        f"{record.published_at}), not this config's: {'; '.join(changed)}"
    )
    return config.model_copy(update={"rubric": stored}), warning
