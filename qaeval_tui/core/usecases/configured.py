"""The run a configuration describes: its golden set, system and judge loaded, ready to run.

`qaeval run`, `baseline`, `gate` and `drift` and the review TUI's first start all run a suite
this way; options given on the command line override the configured system, judge and workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.golden.loader import GoldenSet, load_golden
from qaeval_tui.core.models.run import JudgeConfig
from qaeval_tui.core.running.adapters import SystemAdapter, adapter_label, load_adapter
from qaeval_tui.core.running.judge import JudgeClient, SkippedJudge, effective_config, load_judge
from qaeval_tui.core.running.result import RunResult
from qaeval_tui.core.running.runner import RunSink, run_suite
from qaeval_tui.core.running.shards import shard_count, sharded
from qaeval_tui.core.usecases.http_adapter import HTTP_ADAPTER, make_http_system


@dataclass(frozen=True)
class RunPlan:
    """A suite and the system and judge that will run it, loaded and checked."""

    config: Config
    golden: GoldenSet
    adapter: SystemAdapter
    adapter_spec: str
    judge: JudgeClient
    judge_spec: str
    workers: int
    samples: int = 1
    processes: int = 1
    """Worker processes for the run (`[run] processes`: 0 picks, `shards.shard_count`); 1 keeps it in this one."""

    @property
    def judge_config(self) -> JudgeConfig:
        """The judge's config bound to the rubric it scores under: what a baseline must match."""
        return effective_config(self.judge, self.config.rubric)

    def run(
        self,
        progress: Callable[[int, int], None] | None = None,
        sink: RunSink | None = None,
        *,
        processes: int | None = None,
    ) -> RunResult:
        """Run every case through the system and the judge; `progress(done, total)` after each, and each
        finished case handed to `sink` (`run_suite`); on `processes` worker processes (the plan's by default)."""
        return run_suite(
            self.golden.cases,
            self.adapter,
            self.judge,
            rubric=self.config.rubric,
            adapter_spec=self.adapter_spec,
            judge_spec=self.judge_spec,
            adapter_name=adapter_label(self.adapter, self.adapter_spec),
            workers=self.workers,
            top_k=self.config.run.top_k,
            progress=progress,
            samples=self.samples,
            sink=sink,
            executor=sharded(self._processes(processes)),
        )

    def _processes(self, asked: int | None) -> int:
        """The worker processes this run uses: a system served over HTTP waits on the network, not the CPU,
        and keeps its request counts in one place, so its runs stay in this process."""
        if self.adapter_spec == HTTP_ADAPTER:
            return 1
        return shard_count(
            self.processes if asked is None else asked, len(self.golden.cases) * self.samples, self.judge
        )


def plan_run(
    config: Config,
    golden_paths: Sequence[Path],
    *,
    adapter: str | None = None,
    judge: str | None = None,
    workers: int | None = None,
    checks_only: bool = False,
    samples: int | None = None,
) -> RunPlan:
    """Load the golden set, then the system and the judge (`module:factory`, else the configured ones).

    The system `"http"` is the one `[run.http]` describes, called with its concurrency unless
    `workers` is given.

    Everything that can be wrong with the input fails here, before a single case runs. `checks_only`
    asks no judge (none is loaded, no credential read): every verdict is skipped.
    """
    golden = load_golden(golden_paths, by_reference=True)  # a run reads each case again as it asks it
    adapter_spec = adapter or config.run.adapter
    system: SystemAdapter
    if adapter_spec == HTTP_ADAPTER:  # the system served over HTTP, [run.http]: its concurrency is the default
        system = make_http_system(config.run.http)
        workers = workers or max(config.run.workers, system.settings.concurrency)
    else:
        system = load_adapter(adapter_spec)
    judge_client, judge_spec = _judge(config, judge, checks_only)
    if config.cascade is not None and not checks_only:  # [cascade]: the chosen judge screens for a stronger one
        from qaeval_tui.core.judges.cascade import cascade_from_config

        judge_client, judge_spec = cascade_from_config(config, judge_client, judge_spec)
    return RunPlan(
        config,
        golden,
        system,
        adapter_spec,
        judge_client,
        judge_spec,
        workers or config.run.workers,
        samples or config.run.samples,
        config.run.processes,
    )


def _judge(config: Config, spec: str | None, checks_only: bool) -> tuple[JudgeClient, str]:
    """`--judge module:factory`, else a `[judge]` model judge (its key checked now, before any call), else
    `[run] judge`; none at all for a checks-only run."""
    if checks_only:
        return SkippedJudge(), "checks-only"
    if spec is None and config.judge.is_model:
        from qaeval_tui.core.judges.factory import configured_judge  # the SDKs: only for a model judge

        section = config.judge
        return configured_judge(section, config.rubric), f"[judge] {section.kind} {section.model}"
    chosen = spec or config.run.judge
    return load_judge(chosen), chosen
