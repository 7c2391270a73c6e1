"""A run streamed to the store keeps its cases in columns (`CompactCases`), so its memory stays flat in its cases:
each case read back is the compact case the run kept, the scoreboard is the one of the same run held whole, and no
case or verdict object a case stays alive once the run is over."""

from __future__ import annotations

import gc
import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.bundled.mechanical_judge import make_mechanical_judge
from qaeval_tui.core.config import Config
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.running.result import CaseResult, CompactCases, RunResult, SampleRecord
from qaeval_tui.core.running.runner import run_suite
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.run import RunStream, plan_suite, run_and_store
from tests.conftest import DEMO_GOLDEN
from tests.core.run_fixtures import RUBRIC, abstain_case, case, loaded, multi_hop_case
from tests.judgeops.test_one_runner import write_golden


def recording(monkeypatch: pytest.MonkeyPatch) -> list[CaseResult]:
    """What the run's stream says the run keeps of each case, as it says it."""
    kept: list[CaseResult] = []
    original = RunStream.__call__

    def keeping(self: RunStream, result: CaseResult) -> CaseResult:
        compact = original(self, result)
        kept.append(compact)
        return compact

    monkeypatch.setattr(RunStream, "__call__", keeping)
    return kept


def test_a_streamed_run_reads_back_each_compact_case_it_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The demo suite: answered, abstained, multi-hop and adversarial cases, failed checks among them.
    plan = plan_suite(Config(base_dir=str(tmp_path)), [DEMO_GOLDEN], workers=3)
    kept = recording(monkeypatch)
    with Store.open(tmp_path / "runs.db") as store:
        streamed = run_and_store(store, plan)
    assert isinstance(streamed.cases, CompactCases)
    expected = sorted(kept, key=lambda result: result.position)
    assert len(streamed.cases) == len(expected) == len(plan.golden.cases)
    assert list(streamed.cases) == expected
    assert any(result.failures for result in expected) and any(result.output.abstained for result in expected)
    assert streamed.cases[-1] == expected[-1] and streamed.cases[2:5] == tuple(expected[2:5])
    whole = plan.run()  # the same deterministic system and judge, every case held whole
    assert streamed.board == whole.board
    assert [r.case_id for r in streamed.judge_errors] == [r.case_id for r in whole.judge_errors]


class Compacting:
    """A sink that keeps each case compact, as the store's stream does, without a store."""

    def __init__(self) -> None:
        self.kept: list[CaseResult] = []

    def opened(self, run: RunResult) -> None:
        pass

    def __call__(self, case: CaseResult) -> CaseResult:
        compact = case.compact()
        self.kept.append(compact)
        return compact


@pytest.mark.parametrize(
    ("clock", "samples"),
    [
        (lambda: "2026-10-01T09:00:00.000Z", 1),  # the store's own time format: kept as a number
        (lambda: "a clock of its own", 1),  # any other text: kept as it is
        (iter(f"2026-10-01T09:00:{s:02d}.5Z" for s in itertools.count()).__next__, 1),  # no millisecond form
        (lambda: "2026-10-01T09:00:00.000Z", 3),  # sampled cases: their samples' records too
    ],
)
def test_every_case_reads_back_as_kept_whatever_the_clock_or_the_samples(
    clock: Callable[[], str], samples: int
) -> None:
    makers = (case, abstain_case, multi_hop_case)
    cases = [loaded(makers[i % 3](f"case-{i:02d}"), line=i + 1) for i in range(9)]
    sink = Compacting()
    result = run_suite(
        cases,
        ReferenceHub(),
        make_mechanical_judge(),
        rubric=RUBRIC,
        adapter_spec="test:adapter",
        judge_spec="test:judge",
        clock=clock,
        samples=samples,
        sink=sink,
    )
    assert list(result.cases) == sorted(sink.kept, key=lambda kept: kept.position)
    assert result.cases == tuple(result.cases) and tuple(result.cases) == result.cases


def live(kind: type) -> int:
    gc.collect()
    return sum(1 for thing in gc.get_objects() if type(thing) is kind)


@pytest.mark.parametrize("samples", [1, 2])
def test_a_streamed_run_holds_no_case_or_verdict_object_a_case(tmp_path: Path, samples: int) -> None:
    folder = write_golden(tmp_path, 120)
    plan = plan_suite(Config(base_dir=str(tmp_path)), [folder], samples=samples)
    before = [live(kind) for kind in (CaseResult, JudgeVerdict, SampleRecord)]
    with Store.open(tmp_path / "runs.db") as store:
        result = run_and_store(store, plan)
    assert len(result.cases) == 120 and result.board.n_cases == 120
    after = [live(kind) for kind in (CaseResult, JudgeVerdict, SampleRecord)]
    assert all(now - then <= 2 for now, then in zip(after, before, strict=True)), (before, after)
    assert all(case.compacted and len(case.samples) == (samples if samples > 1 else 0) for case in result.cases)


def test_a_checks_only_run_counts_its_skipped_verdicts_without_building_its_cases(tmp_path: Path) -> None:
    # Every verdict of a checks-only run is skipped, so every case is among its judge errors: the run's header
    # counts them and the console lists a few, neither holding all the cases built at once.
    folder = write_golden(tmp_path, 50)
    plan = plan_suite(Config(base_dir=str(tmp_path)), [folder], checks_only=True)
    with Store.open(tmp_path / "runs.db") as store:
        result = run_and_store(store, plan, checks_only=True)
        [run] = store.list_runs()
    cases_before = live(CaseResult)
    errors = result.judge_errors
    assert len(errors) == result.header()["judge_errors"] == run.data["judge_errors"] == 50
    assert live(CaseResult) == cases_before  # counted and listed lazily
    assert [r.case_id for r in errors[:2]] == ["warranty-00", "warranty-01"]
    assert errors[-1].judge_error == "not judged: checks-only run: no judge was asked" and list(errors) == list(
        result.cases
    )
