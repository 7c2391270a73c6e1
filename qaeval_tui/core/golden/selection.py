"""Filtering golden cases (shared by `qaeval cases` and the TUI's golden browser)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.golden import LoadedCase

DIFFICULTIES = ("single_hop", "multi_hop", "aggregation")
BEHAVIORS = ("answer", "abstain")


@dataclass(frozen=True)
class CaseFilter:
    """Every set field must match; `tag='none'` selects untagged cases."""

    split: str | None = None
    difficulty: str | None = None
    behavior: str | None = None
    tag: str | None = None
    search: str | None = None

    def __post_init__(self) -> None:
        if self.difficulty is not None and self.difficulty not in DIFFICULTIES:
            raise UsageError(f"--difficulty: must be one of {', '.join(DIFFICULTIES)}, not {self.difficulty!r}")
        if self.behavior is not None and self.behavior not in BEHAVIORS:
            raise UsageError(f"--behavior: must be one of {', '.join(BEHAVIORS)}, not {self.behavior!r}")


def _haystack(loaded: LoadedCase) -> str:
    case = loaded.case
    parts = [case.id, case.question, case.gold_answer or ""]
    parts.extend(source.text for source in case.sources)
    parts.extend(source.title or "" for source in case.sources)
    return "\n".join(parts).casefold()


def matches(loaded: LoadedCase, criteria: CaseFilter) -> bool:
    case = loaded.case
    if criteria.split is not None and loaded.split != criteria.split:
        return False
    if criteria.difficulty is not None and case.difficulty != criteria.difficulty:
        return False
    if criteria.behavior is not None and case.expected_behavior != criteria.behavior:
        return False
    if criteria.tag is not None and (case.adversarial or "none") != criteria.tag:
        return False
    return not criteria.search or criteria.search.casefold() in _haystack(loaded)


def select_cases(cases: Iterable[LoadedCase], criteria: CaseFilter) -> list[LoadedCase]:
    return [loaded for loaded in cases if matches(loaded, criteria)]
