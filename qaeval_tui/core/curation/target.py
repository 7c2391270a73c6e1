"""The golden set a promotion writes into: its files, a snapshot of it as loaded, and the lock on its
living file that promotions through every store take."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from qaeval_tui.core.atomic_file import held_lock, remove_leftover_temps
from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.golden.loader import GoldenSet, expand_paths, load_golden
from qaeval_tui.core.models.golden import LIVING_SPLIT

if TYPE_CHECKING:  # neardup brings numpy; only a promotion needs it
    from qaeval_tui.core.golden.neardup import QuestionIndex


@dataclass(frozen=True)
class GoldenTarget:
    """What promotions must stay consistent with (the golden paths) and where they go (the living file)."""

    golden: tuple[Path, ...]
    living: Path

    @classmethod
    def from_config(cls, config: Config) -> GoldenTarget:
        return cls(golden=(config.path(config.paths.golden),), living=config.path(config.paths.living))

    def files(self) -> list[Path]:
        """Every golden file, the living file included once when it exists."""
        if self.living.stem != LIVING_SPLIT:
            raise UsageError(
                f"{self.living}: promotions go to the living split, so the file must be named living.jsonl"
            )
        files = expand_paths(self.golden) if self.golden else []
        seen = {file.resolve() for file in files}
        if self.living.is_file() and self.living.resolve() not in seen:
            files.append(self.living)
        if not files:
            raise UsageError("no golden files to check a promotion against")
        return files


@dataclass(frozen=True)
class GoldenSnapshot:
    """The golden set as loaded once, with what validation and the near-duplicate check need."""

    golden: GoldenSet

    @classmethod
    def load(cls, target: GoldenTarget) -> GoldenSnapshot:
        """Strict-load the current set; an invalid set raises InputError (nothing can be promoted into it)."""
        return cls(load_golden(target.files()))

    @cached_property
    def where(self) -> dict[str, str]:
        """Case id -> 'path:line' of every existing case."""
        return {loaded.case.id: f"{loaded.path}:{loaded.line}" for loaded in self.golden.cases}

    @cached_property
    def promoted_traces(self) -> dict[str, str]:
        """Trace id -> case id of every case already promoted from a production miss."""
        return {c.case.provenance.trace_id: c.case.id for c in self.golden.cases if c.case.provenance is not None}

    @cached_property
    def index(self) -> QuestionIndex:
        from qaeval_tui.core.golden.neardup import QuestionIndex

        return QuestionIndex((loaded.case.id, loaded.case.question) for loaded in self.golden.cases)


@contextmanager
def living_file_lock(target: GoldenTarget, *, optional: bool = False) -> Iterator[None]:
    """Held by every promotion into `target.living`, from reading the file to recording the decision.

    The store's write lock serializes the promotions of one store only; two stores (two curators'
    databases) on one golden folder take turns on `.living.jsonl.lock` beside the file, so neither
    can drop the other's line. Under it, temporary files of a promotion killed midway are removed.
    """
    living = target.living.resolve()
    with held_lock(living.parent / f".{living.name}.lock", optional=optional) as held:
        if held:
            remove_leftover_temps(living.parent, lambda name: name == living.name)
        yield
