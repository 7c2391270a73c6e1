"""Run a suite: case views to the adapter, then checks, judge, trajectory and metrics; store the run.

The adapter may run on several threads; results come back in suite order whatever the
finishing order, so two runs of a deterministic system produce the same artifact. An adapter
that raises, calls sys.exit(), returns something that is not a SUTOutput, or computes a NaN or
infinite value yields a failed case, not a crash (only KeyboardInterrupt stops the run).
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import ValidationError

from qaeval_tui.core.batch import collector_paused
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.golden.loader import case_to_json_dict
from qaeval_tui.core.hashing import content_hash, item_id_for, suite_hash
from qaeval_tui.core.models.golden import LoadedCase
from qaeval_tui.core.models.run import CaseView, Citation, JudgeConfig, JudgeVerdict, SUTOutput
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.adapters import SystemAdapter, adapter_label, case_view, describe_failure
from qaeval_tui.core.running.checks import CheckResult, run_checks
from qaeval_tui.core.running.judge import (
    ITEM_HASHES,
    SAMPLE,
    JudgeClient,
    ajudge_verdict,
    close_judge,
    effective_config,
    is_asynchronous,
    judge_verdict,
)
from qaeval_tui.core.running.metrics import case_values, scoreboard
from qaeval_tui.core.running.pipeline import pipelined
from qaeval_tui.core.running.result import CaseResult, CompactCases, RunResult, SampleRecord
from qaeval_tui.core.running.trajectory import TrajectoryResult, score_trajectory
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.rows import CaseRecord, RunOutput, RunRecord, VerdictRecord

Progress = Callable[[int, int], None]
Executor = Callable[["CaseWork", Callable[[int, CaseResult], None], Progress | None, Callable[[], None]], None]
"""Runs a run's `CaseWork` elsewhere than in this process, handing each finished case to `add` (`shards.sharded`);
it calls its last argument once its workers are started, before the first case comes back."""


def call_adapter(adapter: SystemAdapter, view: CaseView) -> SUTOutput:
    """The adapter's output; a raise, an exit or a malformed return becomes an output with `error` set."""
    try:
        raw = adapter.answer(view)
        output = _as_output(raw)
    except KeyboardInterrupt:  # the person running qaeval stopping it is not a failed case
        raise
    except BaseException as exc:  # a crash or sys.exit() is a failed case, never the end of the harness
        return SUTOutput(error=describe_failure(exc))
    problem = _number_problem(output)
    return output if problem is None else SUTOutput(error=problem)


def _as_output(raw: object) -> SUTOutput:
    if isinstance(raw, SUTOutput):
        if _well_formed(raw):
            return raw
        # Built with model_copy(update=...) or model_construct, which skip validation: validate it now.
        raw = raw.model_dump(warnings=False)
    if isinstance(raw, dict):
        try:
            return SUTOutput.model_validate(raw)
        except ValidationError as exc:
            error = exc.errors(include_url=False)[0]
            where = ".".join(str(part) for part in error["loc"])
            return SUTOutput(error=f"the adapter returned an invalid output: {where}: {error['msg']}")
    return SUTOutput(error=f"the adapter returned {type(raw).__name__}, not a SUTOutput")


def _well_formed(output: SUTOutput) -> bool:
    """Every field of the type the checks read (a few isinstance calls: the common case stays cheap)."""
    return (
        isinstance(output.answer, str)
        and isinstance(output.prompt, str)
        and isinstance(output.abstained, bool)
        and isinstance(output.model_was_called, bool)
        and (output.error is None or isinstance(output.error, str))
        and isinstance(output.citations, tuple)
        and all(isinstance(citation, Citation) for citation in output.citations)
        and isinstance(output.retrieved_ids, tuple)
        and all(isinstance(source_id, str) for source_id in output.retrieved_ids)
        and isinstance(output.computed, dict)
        and all(isinstance(key, str) and isinstance(value, str | int | float) for key, value in output.computed.items())
    )


def _number_problem(output: SUTOutput) -> str | None:
    """Why a computed value is no usable number: NaN, an infinity, or an int no float can hold."""
    for name, value in output.computed.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        try:
            finite = math.isfinite(value)
        except OverflowError:
            finite = False
        if not finite:
            shown = repr(value) if isinstance(value, float) else "an integer too large for a float"
            return f"the adapter computed {name!r} = {shown}, which is not a finite number"
    return None


def case_failures(
    result_checks: Sequence[CheckResult], loaded: LoadedCase, output: SUTOutput, trajectory: TrajectoryResult | None
) -> tuple[str, ...]:
    """Why a case does not pass. Deterministic only, so a case's pass never hangs on judge trust."""
    reasons = [f"check:{check.name}" for check in result_checks if check.failed]
    if loaded.case.expected_behavior == "answer" and output.abstained and output.error is None:
        reasons.append("over_refusal")
    if trajectory is not None and not trajectory.success and output.error is None:
        reasons.append("trajectory")
    return tuple(reasons)


@dataclass(frozen=True)
class Answered:
    """A case the system has answered, with its checks: what the judge stage takes."""

    position: int
    loaded: LoadedCase
    output: SUTOutput
    output_json: dict[str, Any]
    output_hash: str
    item_id: str
    checks: tuple[CheckResult, ...]
    seconds: float


def answer_case(position: int, loaded: LoadedCase, adapter: SystemAdapter) -> Answered:
    """The adapter's output for one case (timed), its hashes and its deterministic checks."""
    loaded = loaded.held()  # a case loaded by reference is read once here, for its answer, checks and judge
    started = time.perf_counter()
    output = call_adapter(adapter, case_view(loaded))
    seconds = time.perf_counter() - started
    try:
        output_json = output.model_dump(mode="json")
        output_hash = content_hash(output_json)
    except UnicodeEncodeError:  # half a UTF-16 pair: no UTF-8 writer, hash or store can take it
        output = SUTOutput(error="the adapter returned text that is not valid Unicode (a lone surrogate)")
        output_json = output.model_dump(mode="json")
        output_hash = content_hash(output_json)
    item_id = item_id_for(loaded.content_hash, output_hash)
    checks = run_checks(loaded.case, output)
    return Answered(position, loaded, output, output_json, output_hash, item_id, checks, seconds)


def judge_sample(
    answered: Answered,
    sample: int,
    judge: JudgeClient,
    config: JudgeConfig,
    rubric: Rubric,
    top_k: int,
    clock: Callable[[], str] = utc_now,
) -> CaseResult:
    """`judge_case` for sample `sample` of a case: the verdict cache keys it by the sample, so k samples are
    k judgements even when the outputs are the same."""
    token = SAMPLE.set(sample)
    try:
        return judge_case(answered, judge, config, rubric, top_k, clock)
    finally:
        SAMPLE.reset(token)


def merge_samples(position: int, runs: Sequence[CaseResult]) -> CaseResult:
    """One case from its k samples: each metric the mean over the samples that have it (the case is the
    unit of every interval and test downstream), every check that fired in any sample, every failure; the
    output and verdict shown are those of the first sample with a judge error, else with a failure, else
    the first, so a judge error or a fired check in any sample still blocks."""
    shown = next(
        (run for run in runs if run.judge_error is not None), next((run for run in runs if run.failures), runs[0])
    )
    values: dict[str, float | None] = {}
    for name in shown.values:
        seen = [value for run in runs if (value := run.values.get(name)) is not None]
        values[name] = sum(seen) / len(seen) if seen else None
    checks = tuple(
        next((other for run in runs for other in run.checks if other.name == check.name and other.failed), check)
        for check in shown.checks
    )
    failures = tuple(dict.fromkeys(failure for run in runs for failure in run.failures))
    records = tuple(
        SampleRecord(sample, run.output_hash, run.item_id, dict(run.values), run.failures)
        for sample, run in enumerate(runs)
    )
    return dataclasses.replace(
        shown,
        position=position,
        values=values,
        checks=checks,
        failures=failures,
        seconds=sum(run.seconds for run in runs),
        samples=records,
    )


def judge_case(
    answered: Answered,
    judge: JudgeClient,
    config: JudgeConfig,
    rubric: Rubric,
    top_k: int,
    clock: Callable[[], str] = utc_now,
) -> CaseResult:
    """The judge's verdict on an answered case, its trajectory and metric values: the finished case."""
    with _hashes_known(answered):
        verdict = judge_verdict(
            judge, config, answered.loaded.case, answered.output, rubric, item_id=answered.item_id, created_at=clock()
        )
    return finished_case(answered, verdict, rubric, top_k)


async def ajudge_case(
    answered: Answered,
    judge: JudgeClient,
    config: JudgeConfig,
    rubric: Rubric,
    top_k: int,
    clock: Callable[[], str] = utc_now,
) -> CaseResult:
    """`judge_case` on a run's event loop: the judge's call awaited."""
    with _hashes_known(answered):
        verdict = await ajudge_verdict(
            judge, config, answered.loaded.case, answered.output, rubric, item_id=answered.item_id, created_at=clock()
        )
    return finished_case(answered, verdict, rubric, top_k)


@contextmanager
def _hashes_known(answered: Answered) -> Iterator[None]:
    """The case's and output's hashes, already computed, offered to the judge's cache for this call only."""
    token = ITEM_HASHES.set((answered.loaded.case, answered.output, answered.loaded.content_hash, answered.output_hash))
    try:
        yield
    finally:
        ITEM_HASHES.reset(token)


def finished_case(answered: Answered, verdict: JudgeVerdict, rubric: Rubric, top_k: int) -> CaseResult:
    """An answered case with its verdict: its trajectory, metric values and why it fails, if it does."""
    loaded, output, checks = answered.loaded, answered.output, answered.checks
    case = loaded.case
    trajectory = score_trajectory(case, output)
    values = case_values(case, output, checks, verdict, trajectory, rubric, top_k)
    return CaseResult(
        answered.position,
        loaded,
        output,
        answered.output_json,
        answered.output_hash,
        answered.item_id,
        checks,
        verdict,
        trajectory,
        values,
        case_failures(checks, loaded, output, trajectory),
        answered.seconds,
    )


def evaluate_case(
    position: int,
    loaded: LoadedCase,
    adapter: SystemAdapter,
    judge: JudgeClient,
    config: JudgeConfig,
    rubric: Rubric,
    top_k: int,
    clock: Callable[[], str] = utc_now,
) -> CaseResult:
    return judge_case(answer_case(position, loaded, adapter), judge, config, rubric, top_k, clock)


def judge_concurrency(judge: JudgeClient) -> int:
    """Judge calls a run keeps in flight: the judge's `concurrency` (a model judge's `[judge] concurrency`),
    else 1, when each case's judge call runs right after its adapter call on the adapter's thread."""
    value = getattr(judge, "concurrency", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else 1


def run_suite(
    cases: Sequence[LoadedCase],
    adapter: SystemAdapter,
    judge: JudgeClient,
    *,
    rubric: Rubric,
    adapter_spec: str,
    judge_spec: str,
    adapter_name: str | None = None,
    workers: int = 1,
    top_k: int = 3,
    progress: Progress | None = None,
    clock: Callable[[], str] = utc_now,
    samples: int = 1,
    sink: RunSink | None = None,
    executor: Executor | None = None,
) -> RunResult:
    """Run every case (in suite order in the result, whatever `workers` is) and score the run.

    `progress(done, total)` is called from the calling thread after each case; `clock` gives the
    ISO timestamps of the run and its verdicts (fixed in tests and screenshots). With `samples` k > 1
    each case is answered and judged k times and its values are the means (`merge_samples`). A `sink`
    is handed the run's header before its first case (after an executor's workers are started), then each
    case as it finishes (merged over its samples), and the run keeps what it returns (the case whole, or
    compact once it is stored).
    An `executor` runs the cases instead of this process (`shards.sharded`: shared out among forked
    worker processes, each with its own adapter threads, event loop and judge session, their results
    streamed back to this one); the sink, the progress and the run are this process's either way.
    """
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise UsageError(f"--samples must be a whole number, at least 1, got {samples!r}")
    if not cases:
        raise UsageError("no cases to run")
    config = effective_config(judge, rubric)
    with collector_paused():
        return _run(
            cases,
            adapter,
            judge,
            config,
            rubric,
            adapter_spec,
            judge_spec,
            adapter_name,
            workers,
            top_k,
            progress,
            clock,
            samples,
            sink,
            executor,
        )


def _run(
    cases: Sequence[LoadedCase],
    adapter: SystemAdapter,
    judge: JudgeClient,
    config: JudgeConfig,
    rubric: Rubric,
    adapter_spec: str,
    judge_spec: str,
    adapter_name: str | None,
    workers: int,
    top_k: int,
    progress: Progress | None,
    clock: Callable[[], str],
    samples: int = 1,
    sink: RunSink | None = None,
    executor: Executor | None = None,
) -> RunResult:
    started_at = clock()
    # Every (case, sample) is one unit of work at position case * samples + sample.
    total = len(cases) * samples
    header = RunResult(
        run_id=f"run-{started_at.replace(':', '').replace('-', '')[:15]}-{uuid.uuid4().hex[:8]}",
        suite_hash=suite_hash(loaded.content_hash for loaded in cases),
        adapter=adapter_name or adapter_label(adapter, adapter_spec),
        adapter_spec=adapter_spec,
        judge_spec=judge_spec,
        judge_config=config,
        rubric_version=rubric.version,
        top_k=top_k,
        workers=workers,
        started_at=started_at,
        finished_at="",
        cases=(),
        board=scoreboard([]),
        samples=samples,
    )

    def opened() -> None:
        if sink is not None:
            sink.opened(header)

    keeper = _Keeper(cases, samples, sink)
    work = CaseWork(cases, adapter, judge, config, rubric, top_k, clock, samples, workers)
    if executor is not None:  # the sink opened once the workers are forked: its store thread starts after them
        executor(work, keeper.add, progress, opened)
    else:
        opened()
        work.execute(range(total), keeper.add, progress)
    results = keeper.cases()
    rows = (
        results.board_rows()
        if isinstance(results, CompactCases)
        else ((result.slice_keys(), result.values) for result in results)
    )
    return dataclasses.replace(header, finished_at=clock(), cases=results, board=scoreboard(rows))


@dataclass(frozen=True)
class CaseWork:
    """What a run does to each of its (case, sample) positions: answer, check, judge, score. The same
    work runs in this process or, shared out, in worker processes (`shards`)."""

    cases: Sequence[LoadedCase]
    adapter: SystemAdapter
    judge: JudgeClient
    config: JudgeConfig
    rubric: Rubric
    top_k: int
    clock: Callable[[], str]
    samples: int
    workers: int

    def execute(
        self,
        positions: Sequence[int],
        add: Callable[[int, CaseResult], None],
        progress: Progress | None,
        concurrency: int | None = None,
    ) -> None:
        """Every position in `positions`, each finished case handed to `add(position, case)`; `concurrency`:
        the judge calls kept in flight, when not the judge's own (a worker process's share of it)."""
        cases, adapter, judge, config, rubric, top_k, clock, samples = (
            self.cases,
            self.adapter,
            self.judge,
            self.config,
            self.rubric,
            self.top_k,
            self.clock,
            self.samples,
        )
        total = len(positions)

        def one(index: int) -> int:
            position = positions[index]
            answered = answer_case(position, cases[position // samples], adapter)
            add(position, judge_sample(answered, position % samples, judge, config, rubric, top_k, clock))
            return position

        def answer(index: int) -> Answered:
            position = positions[index]
            return answer_case(position, cases[position // samples], adapter)

        async def judged(answered: Answered) -> None:  # nothing returned: the pipeline keeps nothing a case
            token = SAMPLE.set(answered.position % samples)  # the task's own context: its sample keys the cache
            try:
                add(answered.position, await ajudge_case(answered, judge, config, rubric, top_k, clock))
            finally:
                SAMPLE.reset(token)

        in_flight = judge_concurrency(judge) if concurrency is None else concurrency
        if judge_concurrency(judge) > 1 or is_asynchronous(judge):  # a model judge: calls awaited on one loop
            pipelined(answer, judged, total, self.workers, in_flight, progress, close=lambda: close_judge(judge))
        elif self.workers == 1:
            for index in range(total):
                one(index)
                if progress is not None:
                    progress(index + 1, total)
        else:
            _in_parallel(one, total, self.workers, progress)


class RunSink(Protocol):
    """Where a run's cases go as they finish (`run_and_store` streams them to the store)."""

    def opened(self, run: RunResult) -> None:
        """The run's header (no case yet, no finish time), before its first case is asked."""

    def __call__(self, case: CaseResult) -> CaseResult:
        """A finished case (merged over its samples); returns what the run keeps of it. Called from the
        thread that finished the case: several at once on several adapter threads."""


class _Keeper:
    """Each finished case at its suite position: a sampled case once its k samples are in (merged), every
    case handed to the sink, which says what is kept of it. With a sink, what it keeps goes into a
    `CompactCases` (a compact case to its columns): the run's memory does not grow by a case object a case."""

    def __init__(self, cases: Sequence[LoadedCase], samples: int, sink: RunSink | None) -> None:
        self.samples = samples
        self.sink = sink
        self.slots: list[CaseResult | None] = [None] * len(cases) if sink is None else []
        self.kept = CompactCases(cases, samples) if sink is not None else None
        self.pending: dict[int, list[CaseResult | None]] = {}
        self.lock = threading.Lock()

    def add(self, position: int, result: CaseResult) -> None:
        if self.samples == 1:
            self._keep(position, result)
            return
        index = position // self.samples
        with self.lock:
            group = self.pending.setdefault(index, [None] * self.samples)
            group[position % self.samples] = result
            if any(run is None for run in group):
                return
            del self.pending[index]
        self._keep(index, merge_samples(index, [run for run in group if run is not None]))

    def _keep(self, index: int, result: CaseResult) -> None:
        if self.kept is None or self.sink is None:
            self.slots[index] = result
        else:
            self.kept.put(index, self.sink(result))

    def cases(self) -> Sequence[CaseResult]:
        if self.kept is None:
            return tuple(slot for slot in self.slots if slot is not None)
        return self.kept if self.kept.complete else self.kept.filled()


def _in_parallel(one: Callable[[int], object], total: int, workers: int, progress: Progress | None) -> None:
    """`one(i)` for every position on `workers` threads.

    Each thread pulls the next position itself and the caller only polls for progress, so a
    CPU-bound adapter does not pay a thread handoff per case (that made 2 workers 1.5x slower).
    """
    positions = iter(range(total))
    lock = threading.Lock()
    finished = 0

    def drain() -> None:
        nonlocal finished
        while True:
            with lock:
                position = next(positions, None)
            if position is None:
                return
            one(position)
            with lock:
                finished += 1

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="qaeval-adapter") as pool:
        threads = [pool.submit(drain) for _ in range(min(workers, total))]
        pending = set(threads)
        reported = 0
        while pending:
            _, pending = wait(pending, timeout=0.2)
            if progress is not None:
                # Every count is reported, in order, from this thread, as with one worker. Read the
                # shared counter once: a second read could skip counts finished in between.
                with lock:
                    now = finished
                for done in range(reported + 1, now + 1):
                    progress(done, total)
                reported = now
    for thread in threads:
        thread.result()  # an unexpected error inside the harness itself is raised, never swallowed


def store_run(store: StoreBackend, result: RunResult, *, cases_stored: bool = False) -> None:
    """Append the run (cases, outputs, verdicts) to the store; nothing is ever updated in place.
    `cases_stored`: the suite's cases went in before the run (`store_cases`), while it ran."""
    with collector_paused():
        if not cases_stored:
            store_cases(store, [r.loaded for r in result.cases])
        _store_run(store, result)


def store_cases(store: StoreBackend, cases: Sequence[LoadedCase]) -> None:
    """The golden cases a run is about (content-addressed: a case already stored is left as it is)."""
    store.upsert_cases(
        CaseRecord(loaded.content_hash, loaded.case_id, loaded.split, case_to_json_dict(loaded.case))
        for loaded in cases
    )


def _store_run(store: StoreBackend, result: RunResult) -> None:
    record = run_record(result)
    store.insert_run(
        record,
        [run_output(r) for r in result.cases],
        [run_verdict(r, result.judge_config.name, record.judge_config_hash or "") for r in result.cases],
    )


def run_record(result: RunResult) -> RunRecord:
    """The run's row: its header and scoreboard."""
    header = result.header()
    return RunRecord(
        run_id=result.run_id,
        suite_hash=result.suite_hash,
        adapter=result.adapter,
        judge_name=result.judge_config.name,
        judge_config_hash=header["judge"]["config_hash"],
        code_version=result.code_version,
        started_at=result.started_at,
        finished_at=result.finished_at,
        n_cases=len(result.cases),
        data=header,
        metrics=result.board.to_json(),
    )


def run_output(r: CaseResult) -> RunOutput:
    """A case's output row: the output and what was measured on it, its verdict apart (`run_verdict`)."""
    result = r.result_json()
    del result["verdict"]
    return RunOutput(
        position=r.position,
        case_id=r.case_id,
        case_hash=r.loaded.content_hash,
        output_hash=r.output_hash,
        output=r.output_json,
        result=result,
    )


def run_verdict(r: CaseResult, judge_name: str, config_hash: str) -> VerdictRecord:
    return VerdictRecord(
        item_id=r.item_id,
        case_id=r.case_id,
        judge_name=judge_name,
        config_hash=config_hash,
        status=r.verdict.status,
        verdict=r.verdict,
        created_at=r.verdict.created_at,
    )


def stored_case_documents(store: StoreBackend, run_id: str) -> Iterator[dict[str, Any]]:
    """A stored run's cases as its artifact shows them (`CaseResult.to_json`), read back from the store."""
    verdicts = {record.case_id: record.verdict for record in store.verdicts(run_id=run_id)}
    for row in store.run_outputs(run_id):
        document: dict[str, Any] = {
            "position": row.position,
            "case_id": row.case_id,
            "case_hash": row.case_hash,
            "output_hash": row.output_hash,
            "output": row.output,
        }
        for key, value in row.result.items():
            if key == "seconds":  # the verdict goes where `result_json` has it: after the values
                document["verdict"] = verdicts[row.case_id].to_json()
            document[key] = value
        yield document


def expanded(case: CaseResult, output_json: Mapping[str, Any]) -> CaseResult:
    """A compact case (`CaseResult.compact`) whole again from its stored output: the checks and the trajectory
    are recomputed (deterministic), the values, failures and verdict scores kept."""
    output = SUTOutput.model_validate(output_json)
    return dataclasses.replace(
        case,
        output=output,
        output_json=dict(output_json),
        checks=run_checks(case.loaded.case, output),
        trajectory=score_trajectory(case.loaded.case, output),
        compacted=False,
    )
