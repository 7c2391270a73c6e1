"""Judge verdicts as numpy columns, for one judge config (DESIGN §5: a calibration is per judge)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Protocol

import numpy as np

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.rubric_fit import check_rubric_unchanged
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.statistics.label_table import BoolArray, FloatArray, IntArray
from qaeval_tui.core.statistics.string_codes import ItemIds, first_seen_codes, padded_bytes, sorted_codes


class ScoredVerdict(Protocol):
    """What the table reads of a verdict: a `JudgeVerdict`, or a `Store.verdict_scores` row."""

    @property
    def item_id(self) -> str: ...
    @property
    def judge(self) -> Mapping[str, str | float | int]: ...
    @property
    def status(self) -> str: ...
    @property
    def scores(self) -> Mapping[str, int | None]: ...


@dataclass(frozen=True)
class VerdictTable:
    """One row per item: the judge's score per axis (NaN for can't judge or an error verdict)."""

    items: tuple[str, ...]
    axes: tuple[str, ...]
    scores: FloatArray
    config_hash: str
    judge_name: str
    counts: dict[str, int] = field(default_factory=dict)
    statuses: tuple[str, ...] = ()
    """Each item's verdict status (ok, error, skipped), in `items` order; empty: all ok."""

    def __post_init__(self) -> None:
        if self.scores.shape != (len(self.items), len(self.axes)):
            raise ValueError("scores must be items x axes")
        # Items in ascending order (as `from_verdicts` gives them) are distinct: one pass, not a set of them.
        as_bytes = padded_bytes(self.items)
        ascending = as_bytes is not None and bool(np.all(as_bytes[0][1:] > as_bytes[0][:-1]))
        if not ascending and len(set(self.items)) != len(self.items):
            raise ValueError("one verdict per item")

    def align(self, items: Sequence[str]) -> tuple[IntArray, BoolArray]:
        """Row of each of `items` in this table (vectorized), and whether it has one."""
        if not self.items or not items:
            return np.full(len(items), -1, dtype=np.int64), np.zeros(len(items), dtype=bool)
        as_bytes = padded_bytes(self.items, items)  # fixed-width bytes: sorted and searched in one array
        if as_bytes is None:  # ids numpy cannot hold as bytes (its unicode strings drop a trailing NUL)
            index = dict(zip(self.items, range(len(self.items)), strict=True))
            looked_up = np.fromiter(map(index.get, items, repeat(-1)), np.int64, len(items))
            return looked_up, looked_up >= 0
        mine, query = as_bytes
        # `from_verdicts` gives the items sorted: checked in one pass, not sorted again
        ascending = bool(np.all(mine[1:] > mine[:-1]))
        order = np.arange(mine.size) if ascending else np.argsort(mine, kind="stable")
        ordered = mine[order]
        position = np.searchsorted(ordered, query).clip(0, len(ordered) - 1)
        found: BoolArray = ordered[position] == query
        rows: IntArray = np.where(found, order[position], -1).astype(np.int64)
        return rows, found

    def scores_for(
        self, items: Sequence[str], axis: str, aligned: tuple[IntArray, BoolArray] | None = None
    ) -> FloatArray:
        """The judge's scores on `axis`, aligned to `items` (NaN where there is none)."""
        rows, found = aligned if aligned is not None else self.align(items)
        values = np.full(len(items), np.nan)
        values[found] = self.scores[rows[found], self.axes.index(axis)]
        return values

    def has_verdict(self, items: Sequence[str]) -> BoolArray:
        return self.align(items)[1]

    @classmethod
    def from_verdicts(
        cls, verdicts: Iterable[ScoredVerdict], rubric: Rubric, config_hash: str | None = None
    ) -> VerdictTable:
        """The latest verdict per item of one judge config; with no hash given there must be exactly one."""
        all_verdicts = list(verdicts)
        if not all_verdicts:
            raise UsageError("no judge verdicts to calibrate against; run `qaeval run` or pass --verdicts")
        # A store hands out one judge mapping per run: each is read once, the verdicts walked in C to
        # number them (`first_seen_codes`).
        judge_codes, judge_rows = first_seen_codes((id(v.judge) for v in all_verdicts), len(all_verdicts))
        judges = [all_verdicts[row].judge for row in judge_rows.tolist()]
        hashes = sorted({str(judge.get("config_hash", "")) for judge in judges})
        if config_hash is None:
            if len(hashes) > 1:
                raise UsageError(
                    f"verdicts of {len(hashes)} judge configs ({', '.join(hashes)}); pick one with --judge-config-hash"
                )
            config_hash = hashes[0]
        elif config_hash not in hashes:
            raise UsageError(f"no verdicts of judge config {config_hash!r}; the verdicts have {hashes}")
        is_mine = [judge.get("config_hash") == config_hash for judge in judges]
        versions = {
            str(j["rubric_version"]) for j, mine in zip(judges, is_mine, strict=True) if mine and "rubric_version" in j
        }
        fits = [
            mine and str(j.get("rubric_version", rubric.version)) == rubric.version
            for j, mine in zip(judges, is_mine, strict=True)
        ]
        mine_count = int(np.asarray(is_mine, dtype=bool)[judge_codes].sum())
        usable_rows = np.flatnonzero(np.asarray(fits, dtype=bool)[judge_codes])
        if usable_rows.size == len(all_verdicts):
            usable = all_verdicts
        else:
            usable = [all_verdicts[row] for row in usable_rows.tolist()]
        if not usable:
            raise UsageError(
                f"judge config {config_hash} scored under rubric version(s) {sorted(versions)}, "
                f"but the rubric is version {rubric.version}: a calibration binds one judge to one rubric"
            )
        rows = _checked_score_rows([v.scores for v in usable], rubric, f"judge config {config_hash}")
        # The latest (last given) verdict per item, items in sorted order. Read as columns in the order
        # given, then chosen by item code: reading verdict objects in item order waits on memory at
        # every one once there are more than the cache holds.
        names, codes = sorted_codes(ItemIds(usable))
        latest = np.full(len(names), -1, dtype=np.int64)
        np.maximum.at(latest, codes, np.arange(len(usable), dtype=np.int64))
        status_codes, status_rows = first_seen_codes((v.status for v in usable), len(usable))
        given = [usable[row].status for row in status_rows.tolist()]
        chosen_status = status_codes[latest]
        statuses = tuple(map(given.__getitem__, chosen_status.tolist()))
        failed = np.asarray([status != "ok" for status in given], dtype=bool)[chosen_status]
        axes = rubric.axis_names
        scores = rows[latest]
        scores[failed] = np.nan  # an error: no scores
        return cls(
            items=tuple(names),
            axes=axes,
            scores=scores,
            config_hash=config_hash,
            judge_name=str(usable[-1].judge.get("name", "")),
            statuses=statuses,
            counts={
                "read": len(all_verdicts),
                "used": len(names),
                "other_judge_configs": len(all_verdicts) - mine_count,
                "other_rubric_version": mine_count - len(usable),
                "errors": int(failed.sum()),
            },
        )


def _checked_score_rows(mappings: list[Mapping[str, int | None]], rubric: Rubric, source: str) -> FloatArray:
    """One row of scores per mapping, NaN where unscored or None, once every mapping is known to fit the
    rubric (`check_rubric_unchanged`).

    A judge's scores are rarely shared, so the check would read every mapping again: the cells read
    for the rows tell which mappings may not fit (a key off the rubric: fewer of its axes present
    than keys; a value off its axis's scale), and only those are checked, which names the same
    axes and values as checking all."""
    axes = rubric.axis_names
    missing = _MISSING
    cells: list[Any] = [mapping.get(axis, missing) for mapping in mappings for axis in axes]
    shape = (len(mappings), len(axes))
    unscored = np.fromiter((cell is None or cell is missing for cell in cells), bool, len(cells)).reshape(shape)
    present = np.fromiter((cell is not missing for cell in cells), bool, len(cells)).reshape(shape)
    nan = np.nan
    try:
        values = np.fromiter(
            (nan if cell is None or cell is missing else +cell for cell in cells), np.float64, len(cells)
        )
    except (TypeError, ValueError, OverflowError):  # no number (`+` refuses text numpy would read): off every scale
        check_rubric_unchanged(mappings, rubric, source, "verdicts")
        raise
    rows = values.reshape(shape)
    suspect = present.sum(axis=1) != np.fromiter(map(len, mappings), np.int64, len(mappings))
    for column, axis in enumerate(rubric.axes):
        suspect |= ~unscored[:, column] & ~np.isin(rows[:, column], np.asarray(axis.scale, dtype=np.float64))
    if suspect.any():
        check_rubric_unchanged([mappings[i] for i in np.flatnonzero(suspect).tolist()], rubric, source, "verdicts")
    return rows


_MISSING = object()
"""An axis a verdict has no score for."""
