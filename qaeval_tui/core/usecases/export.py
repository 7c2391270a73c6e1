"""Export labels, and judge verdicts on request, to files (`qaeval labels export`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.label_export import ExportReport, export_folder
from qaeval_tui.core.store.backend import StoreBackend


def export_labels(
    config: Config,
    store: StoreBackend,
    out: Path | None = None,
    *,
    reviewers: Sequence[str] | None = None,
    verdicts: bool = False,
    judge_config_hash: str | None = None,
) -> ExportReport:
    """One JSONL file per reviewer in `out` (default: the configured labels folder), never near the golden set.

    With `verdicts`, also the verdicts of `judge_config_hash`, else of the latest run's judge.
    """
    folder = out or config.path(config.paths.labels)
    chosen = None
    if verdicts:
        run = store.latest_run()
        chosen = judge_config_hash or (run.judge_config_hash if run else None)
    return export_folder(
        store,
        folder,
        reviewers=reviewers,
        golden=(config.path(config.paths.golden), config.path(config.paths.living)),
        inputs=(config.path(config.paths.inbox),),
        verdicts=verdicts,
        config_hash=chosen,
        rubric=config.rubric,
    )
