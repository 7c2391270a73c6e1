"""Run a suite and store the run (`run_and_store`: every path that runs one comes here), and write its
documents and reports to files or stdout."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from qaeval_tui.core.atomic_file import check_output_target, require_finite, write_output
from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate.baseline import Baseline, check_settings
from qaeval_tui.core.judges.cache import SAVE_EVERY, VerdictCache
from qaeval_tui.core.running.result import CaseResult, CompactCases, RunResult, dumps_document, write_json
from qaeval_tui.core.running.runner import (
    expanded,
    run_output,
    run_record,
    run_verdict,
    store_cases,
    stored_case_documents,
)
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.text import json_visible
from qaeval_tui.core.usecases.configured import RunPlan, plan_run
from qaeval_tui.core.usecases.judge_ops import StoreWriter, cached_judge, judge_progress, with_judge_calls

if TYPE_CHECKING:
    from qaeval_tui.core.statistics.run_ppi import RunPPI

ProgressUpdate = Callable[[int, int], None]
ProgressDisplay = Callable[[], AbstractContextManager[ProgressUpdate | None]]
"""Opens a progress display around the run itself (not the loading) and yields its `update(done, total)`."""


@contextmanager
def no_progress() -> Iterator[None]:
    yield None


STDOUT = "-"
"""An output path of `-` means stdout, for every report and document option."""


def check_output_targets(as_json: bool, *options: tuple[str, Path | None]) -> bool:
    """Refuse, before the suite runs, an output path that can never be written (or a golden split), and
    two outputs that both claim stdout (`-`, or one and `--json`). True when stdout is free for the tables."""
    to_stdout = [f"{name} -" for name, path in options if path is not None and str(path) == STDOUT]
    if as_json:
        to_stdout.insert(0, "--json")
    if len(to_stdout) > 1:
        raise UsageError(f"{' and '.join(to_stdout)} all write to stdout; send all but one to a file")
    for _, path in options:
        if path is not None and str(path) != STDOUT:
            check_output_target(path)
    return not to_stdout


def print_document(document: dict[str, Any], stdout: TextIO | None = None) -> None:
    """A run or baseline document on stdout: refused whole, naming the field, if it holds NaN."""
    require_finite(document, "stdout")
    (stdout or sys.stdout).write(json_visible(dumps_document(document)))  # hidden characters as \u escapes


def write_document(path: Path | None, document: dict[str, Any], stdout: TextIO | None = None) -> None:
    """A run artifact or baseline to `path`, or to stdout for `-`."""
    if path is None:
        return
    if str(path) == STDOUT:
        print_document(document, stdout)
    else:
        write_json(path, document)


def write_report(path: Path | None, text: str, stdout: TextIO | None = None) -> None:
    """A report (Markdown, JUnit: data already escaped for the format) to `path`, or to stdout for `-`."""
    if path is None:
        return
    if str(path) == STDOUT:
        (stdout or sys.stdout).write(text)
    else:
        write_output(path, text)


def plan_suite(
    config: Config,
    golden_paths: Sequence[Path],
    *,
    adapter: str | None = None,
    judge: str | None = None,
    workers: int | None = None,
    against: Baseline | None = None,
    checks_only: bool = False,
    samples: int | None = None,
) -> RunPlan:
    """Load the suite, the system and the judge, before any store is opened; with `against`, a baseline of
    another judge, rubric or k is refused here. `checks_only`: no judge is asked, every verdict is skipped."""
    plan = plan_run(
        config, golden_paths, adapter=adapter, judge=judge, workers=workers, checks_only=checks_only, samples=samples
    )
    if against is not None:
        check_settings(against, plan.judge_config, config.rubric.version, config.run.top_k)
    return plan


def run_and_store(
    store: StoreBackend,
    plan: RunPlan,
    *,
    update: ProgressUpdate | None = None,
    no_cache: bool = False,
    checks_only: bool = False,
    write_on_a_thread: bool = True,
    only_cases: Collection[str] | None = None,
) -> RunResult:
    """Run the plan's suite (or the cases with the ids in `only_cases`) and store the run: the one runner of
    suites, whatever asked for it (`qaeval run`, `baseline`, `gate`, `drift`, the review app's first start,
    the run after a promotion).

    The run is streamed to the store (`RunStream`): opened before its first case, its finished cases
    written in batches as they come (with their golden cases and the verdict cache's new entries), finished
    once the last is in.
    A run stopped before its end keeps every batch written and stays unfinished, never read as a run.
    The result keeps its cases compact; its artifact's cases are read back from `store`.

    The judge answers from the store's verdict cache where it can (`no_cache`: every case is asked afresh;
    `checks_only`: no judge, no cache). `write_on_a_thread`: the store is written by a thread of its own
    while the judge's calls are out; without it (a store pinned to its opening thread) the writes happen on
    the thread that finished the case."""
    if only_cases is not None:
        wanted = set(only_cases)
        plan = replace(
            plan, golden=replace(plan.golden, cases=tuple(c for c in plan.golden.cases if c.case_id in wanted))
        )
    cached = None if checks_only else cached_judge(plan, store, fresh=no_cache)
    if cached is not None:
        plan = replace(plan, judge=cached)
    with StoreWriter(store, on_a_thread=write_on_a_thread) as writer:
        stream = RunStream(store, writer, None if cached is None else cached.cache)
        try:
            # A store pinned to its thread is an in-process app's (the review app): its run stays in-process too.
            processes = None if write_on_a_thread else 1
            result = plan.run(stream.flushing(judge_progress(update, cached)), stream, processes=processes)
        finally:
            stream.flush()  # a run stopped halfway keeps every case it finished
    if cached is not None:
        result = with_judge_calls(result, cached)
    with store.transaction():
        store.finish_run(run_record(result))
        if cached is not None:
            cached.cache.save(store)
    return replace(result, stored_cases=lambda: stored_case_documents(store, result.run_id))


class RunStream:
    """A run's cases to the store as they finish: a batch of `BATCH` cases (or what came in `BATCH_SECONDS`)
    handed to the store's writer at a time, with the verdict cache's new entries; each case kept compact.

    Cases come from the threads that finish them (several at once); a batch is handed over from the thread
    that reports progress (`flushing`), the one thread a store pinned to it may be written from."""

    BATCH = SAVE_EVERY
    BATCH_SECONDS = 1.0

    def __init__(self, store: StoreBackend, writer: StoreWriter, cache: VerdictCache | None) -> None:
        self.store = store
        self.writer = writer
        self.cache = cache
        self.batch: list[CaseResult] = []
        self.lock = threading.Lock()
        self.flushed = time.monotonic()
        self.judge_name = ""
        self.config_hash = ""
        self.run_id = ""

    def opened(self, run: RunResult) -> None:
        record = run_record(run)
        self.run_id, self.judge_name, self.config_hash = (
            run.run_id,
            record.judge_name or "",
            record.judge_config_hash or "",
        )
        self.writer.submit(lambda: self.store.open_run(record))

    def __call__(self, case: CaseResult) -> CaseResult:
        with self.lock:
            self.batch.append(case)
        return case.compact()

    def flushing(self, update: ProgressUpdate | None) -> ProgressUpdate:
        """`update(done, total)`, handing a batch to the writer first when one is due."""

        def reporting(done: int, total: int) -> None:
            if len(self.batch) >= self.BATCH or time.monotonic() - self.flushed >= self.BATCH_SECONDS:
                self.flush()
            if update is not None:
                update(done, total)

        return reporting

    def flush(self) -> None:
        """Hand the cases not yet written to the writer (nothing when every one is)."""
        with self.lock:
            batch, self.batch = self.batch, []
            self.flushed = time.monotonic()
        if batch and self.run_id:
            self.writer.submit(lambda: self._write(batch))

    def _write(self, batch: list[CaseResult]) -> None:
        with self.store.transaction():
            store_cases(self.store, [case.loaded for case in batch])  # the golden cases of the batch, beside it
            self.store.append_run_rows(
                self.run_id,
                [run_output(case) for case in batch],
                [run_verdict(case, self.judge_name, self.config_hash) for case in batch],
            )
            if self.cache is not None:
                self.cache.save(self.store)


def run_from_config(
    config: Config,
    golden_paths: Sequence[Path],
    store: StoreBackend,
    *,
    adapter: str | None = None,
    judge: str | None = None,
    workers: int | None = None,
    against: Baseline | None = None,
    progress: ProgressDisplay = no_progress,
    checks_only: bool = False,
    no_cache: bool = False,
    samples: int | None = None,
) -> RunResult:
    """`plan_suite` then `run_and_store` into the open `store`, with a progress display around the run."""
    plan = plan_suite(
        config,
        golden_paths,
        adapter=adapter,
        judge=judge,
        workers=workers,
        against=against,
        checks_only=checks_only,
        samples=samples,
    )
    with progress() as update:
        return run_and_store(store, plan, update=update, no_cache=no_cache, checks_only=checks_only)


def run_ppi_for(config: Config, result: RunResult, store: StoreBackend) -> RunPPI:
    """PPI estimates of the run's judge metrics from the labels on its cases in the store it went to."""
    from qaeval_tui.core.statistics.run_ppi import run_ppi_from_store  # numpy and the statistics: only here

    return run_ppi_from_store(
        whole_labelled_cases(result, store), config.rubric, store, min_reviewers=config.calibration.min_reviewers
    )


def whole_labelled_cases(result: RunResult, store: StoreBackend) -> RunResult:
    """The run with its labelled cases whole again (PPI recomputes their values with the human scores as the
    verdict), their outputs read back from the store; the run as it is when none is compact or labelled."""
    if not any(case.compacted for case in result.cases) or not store.count("labels"):
        return result
    labelled = {label.item_id for label in store.label_revisions()}
    wanted = {case.case_id for case in result.cases if case.compacted and case.item_id in labelled}
    if not wanted:
        return result
    outputs = {row.case_id: row.output for row in store.run_outputs(result.run_id) if row.case_id in wanted}
    whole = {
        position: expanded(case, outputs[case.case_id])
        for position, case in enumerate(result.cases)
        if case.case_id in outputs
    }
    if isinstance(result.cases, CompactCases):  # the rest stay in their columns
        return replace(result, cases=result.cases.replaced(whole))
    return replace(result, cases=tuple(whole.get(position, case) for position, case in enumerate(result.cases)))


def with_ppi(document: dict[str, Any], ppi: RunPPI) -> dict[str, Any]:
    """A run artifact or baseline with its `ppi` block, placed before the cases."""
    placed = {key: value for key, value in document.items() if key != "cases"}
    placed["ppi"] = ppi.to_json()
    if "cases" in document:
        placed["cases"] = document["cases"]
    return placed
