"""Run the suite the config describes and store the run (`qaeval run`, `baseline`, `drift`, `gate`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from qaeval_tui.core.atomic_file import check_output_target
from qaeval_tui.core.config import Config
from qaeval_tui.core.gate.baseline import Baseline, check_settings
from qaeval_tui.core.running.configured import plan_run
from qaeval_tui.core.running.result import RunResult
from qaeval_tui.core.running.runner import store_run
from qaeval_tui.core.store.sqlite import Store

ProgressUpdate = Callable[[int, int], None]
ProgressDisplay = Callable[[], AbstractContextManager[ProgressUpdate | None]]
"""Opens a progress display around the run itself (not the loading) and yields its `update(done, total)`."""


@contextmanager
def no_progress() -> Iterator[None]:
    yield None


def check_output_targets(*paths: Path | None) -> None:
    """Refuse an output path that can never be written before the suite runs, not after."""
    for path in paths:
        if path is not None:
            check_output_target(path)


def run_from_config(
    config: Config,
    golden_paths: Sequence[Path],
    store_path: Path,
    *,
    adapter: str | None = None,
    judge: str | None = None,
    workers: int | None = None,
    against: Baseline | None = None,
    progress: ProgressDisplay = no_progress,
) -> RunResult:
    """Load, run, store. With `against`, a baseline of another judge, rubric or k is refused before the run."""
    plan = plan_run(config, golden_paths, adapter=adapter, judge=judge, workers=workers)
    if against is not None:
        check_settings(against, plan.judge_config, config.rubric.version, config.run.top_k)
    with progress() as update:
        result = plan.run(update)
    with Store.open(store_path) as store:
        store_run(store, result)
    return result
