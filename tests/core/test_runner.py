"""Running a suite: suite order with parallel workers, crashes as failed cases, the store, the artifact."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.bundled.mechanical_judge import MechanicalJudge, make_mechanical_judge
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.hashing import content_hash, item_id_for
from qaeval_tui.core.models.golden import GoldenCase, LoadedCase
from qaeval_tui.core.models.run import CaseView, SUTOutput
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.adapters import SystemAdapter
from qaeval_tui.core.running.judge import JudgeResult
from qaeval_tui.core.running.result import RUN_FORMAT, RunResult, dumps_document, write_json
from qaeval_tui.core.running.runner import run_suite, store_run
from qaeval_tui.core.store.sqlite import Store
from tests.core.run_fixtures import FIXED_TIME, RUBRIC, ScriptedAdapter, abstain_case, case, loaded, multi_hop_case


def suite(size: int = 12) -> list[LoadedCase]:
    makers = (case, abstain_case, multi_hop_case)
    return [loaded(makers[i % 3](f"case-{i:02d}"), split="living" if i % 4 == 0 else "frozen") for i in range(size)]


def run(cases: list[LoadedCase], adapter: SystemAdapter, **options: Any) -> RunResult:
    return run_suite(
        cases,
        adapter,
        make_mechanical_judge(),
        rubric=RUBRIC,
        adapter_spec="test:adapter",
        judge_spec="test:judge",
        clock=lambda: FIXED_TIME,
        **options,
    )


class JitteryHub(ReferenceHub):
    """The reference hub with random delays, so parallel calls finish out of order."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.threads: set[str] = set()

    def answer(self, view: CaseView) -> SUTOutput:
        with self.lock:
            delay = self.random.uniform(0, 0.01)
            self.threads.add(threading.current_thread().name)
        time.sleep(delay)
        return super().answer(view)


def test_parallel_workers_give_the_same_results_in_suite_order() -> None:
    cases = suite()
    serial = run(cases, ReferenceHub(), workers=1)
    jittery = JitteryHub(seed=3)
    parallel = run(cases, jittery, workers=4)
    assert len(jittery.threads) > 1
    assert [r.case_id for r in parallel.cases] == [item.case.id for item in cases]
    assert [r.output_hash for r in parallel.cases] == [r.output_hash for r in serial.cases]
    assert parallel.board.to_json() == serial.board.to_json()


def test_an_adapter_crash_is_a_failed_case_and_the_run_goes_on() -> None:
    def respond(view: CaseView) -> SUTOutput:
        if "financing" in view.question:
            raise ConnectionError("hub unreachable")
        return ReferenceHub().answer(view)

    result = run(suite(6), ScriptedAdapter(respond))
    crashed = [r for r in result.cases if r.output.error]
    assert len(crashed) == 2 and len(result.cases) == 6
    assert all(r.failures[0] == "check:adapter_ok" and not r.passed for r in crashed)
    assert crashed[0].output.error == "ConnectionError: hub unreachable"
    assert result.board.overall["deterministic_pass_rate"].value == pytest.approx(4 / 6)


@pytest.mark.parametrize("workers", [1, 2])
def test_an_adapter_that_exits_is_a_failed_case_but_an_interrupt_still_stops_the_run(workers: int) -> None:
    def respond(view: CaseView) -> SUTOutput:
        if "financing" in view.question:
            raise SystemExit(0)
        return ReferenceHub().answer(view)

    result = run(suite(6), ScriptedAdapter(respond), workers=workers)
    crashed = [r for r in result.cases if r.output.error]
    assert len(result.cases) == 6 and len(crashed) == 2
    assert crashed[0].output.error == "SystemExit(0): the code tried to exit the process"
    assert all(r.failures[0] == "check:adapter_ok" for r in crashed)

    def interrupted(view: CaseView) -> SUTOutput:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # the person at the keyboard still stops qaeval
        run(suite(2), ScriptedAdapter(interrupted), workers=workers)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 10**400])
def test_a_computed_value_that_is_no_finite_number_is_a_failed_case(value: float) -> None:
    def respond(view: CaseView) -> SUTOutput:
        return ReferenceHub().answer(view).model_copy(update={"computed": {"total": value}})

    result = run(suite(3), ScriptedAdapter(respond))
    assert all("check:adapter_ok" in r.failures for r in result.cases)
    error = result.cases[2].output.error
    assert error is not None and error.startswith("the adapter computed 'total' = ")
    assert error.endswith("which is not a finite number")

    def refuse(token: str) -> None:
        raise AssertionError(f"{token} written")

    json.loads(dumps_document(result.artifact()), parse_constant=refuse)


def test_text_that_is_not_unicode_from_the_adapter_or_the_judge_never_crashes_the_run_or_the_store(
    tmp_path: Path,
) -> None:
    class LoneSurrogates(MechanicalJudge):
        def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
            if "financing" in case.question:
                raise RuntimeError("bad byte \ud800 in the reply")
            result = super().score(case, output, rubric)
            return JudgeResult(result.scores, {axis: "half a pair \udfff" for axis in result.evidence})

    def respond(view: CaseView) -> SUTOutput:
        output = ReferenceHub().answer(view)
        return output.model_copy(update={"prompt": output.prompt + "\ud800"}) if "E517" in view.question else output

    result = run_suite(
        suite(3), ScriptedAdapter(respond), LoneSurrogates(), rubric=RUBRIC, adapter_spec="t:a", judge_spec="t:j"
    )
    answered, refused, multi_hop = result.cases
    assert multi_hop.output.error == "the adapter returned text that is not valid Unicode (a lone surrogate)"
    assert refused.verdict.error == "RuntimeError: bad byte \\ud800 in the reply"
    assert answered.verdict.error == "the judge's evidence for faithfulness is not valid Unicode (a lone surrogate)"
    with Store.open(tmp_path / "runs.db") as store:
        store_run(store, result)
        assert [v.status for v in store.verdicts(run_id=result.run_id)] == ["error", "error", "ok"]
    dumps_document(result.artifact()).encode("utf-8")


def test_no_document_is_ever_written_with_nan() -> None:
    with pytest.raises(ValueError, match="not JSON compliant"):
        dumps_document({"metrics": {"mrr": float("nan")}})
    with pytest.raises(ValueError, match="not JSON compliant"):
        dumps_document({"cases": [{"values": {"mrr": float("inf")}}]})


def test_a_malformed_adapter_return_is_a_failed_case() -> None:
    result = run(suite(1), ScriptedAdapter(lambda view: "just a string"))  # type: ignore[arg-type, return-value]
    assert result.cases[0].output.error == "the adapter returned str, not a SUTOutput"
    as_dict = run(suite(1), ScriptedAdapter(lambda view: {"answer": "x", "abstained": True}))  # type: ignore[arg-type, return-value]
    assert as_dict.cases[0].output.abstained and as_dict.cases[0].output.error is None


def test_an_output_built_without_validation_is_validated_before_any_check_reads_it() -> None:
    def dict_citations(view: CaseView) -> SUTOutput:  # model_copy(update=...) skips validation
        output = ReferenceHub().answer(view)
        cited = [{"source_id": c.source_id, "quote": c.quote} for c in output.citations]
        return output.model_copy(update={"citations": cited, "retrieved_ids": list(output.retrieved_ids)})

    coerced = run(suite(3), ScriptedAdapter(dict_citations))
    assert [r.failures for r in coerced.cases] == [r.failures for r in run(suite(3), ReferenceHub()).cases]
    unchecked = run(suite(1), ScriptedAdapter(lambda view: SUTOutput.model_construct(answer=None)))
    assert (
        unchecked.cases[0].output.error
        == "the adapter returned an invalid output: answer: Input should be a valid string"
    )


def test_progress_reports_every_case_in_order() -> None:
    seen: list[tuple[int, int]] = []
    run(suite(5), ReferenceHub(), workers=2, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]


def test_a_case_fails_on_over_refusal_and_on_a_missed_trajectory() -> None:
    refuse_all = run(suite(3), ScriptedAdapter(lambda view: SUTOutput(answer="No.", abstained=True)))
    failures = {r.case_id: r.failures for r in refuse_all.cases}
    assert failures == {"case-00": ("over_refusal",), "case-01": (), "case-02": ("over_refusal", "trajectory")}


def test_the_run_is_stored_append_only_with_outputs_and_verdicts(tmp_path: Path) -> None:
    result = run(suite(4), ReferenceHub())
    with Store.open(tmp_path / "runs.db") as store:
        store_run(store, result)
        store_run(store, run(suite(4), ReferenceHub()))
        runs = store.list_runs()
        assert len(runs) == 2
        record = store.get_run(result.run_id)
        assert record is not None
        assert record.suite_hash == result.suite_hash and record.adapter == "reference-hub"
        assert record.judge_config_hash == result.judge_config.config_hash()
        assert record.code_version.startswith("qaeval_tui ")
        assert record.metrics["overall"]["abstention_recall"]["value"] == 1.0
        outputs = store.run_outputs(result.run_id)
        assert [o.case_id for o in outputs] == [r.case_id for r in result.cases]
        first = outputs[0]
        assert first.output_hash == content_hash(first.output)
        assert first.result["item_id"] == item_id_for(first.case_hash, first.output_hash)
        assert first.result["checks"][0]["name"] == "adapter_ok"
        verdicts = store.verdicts(run_id=result.run_id)
        assert len(verdicts) == 4
        assert list(verdicts[0].verdict.to_json()) == [
            "item_id",
            "case_id",
            "judge",
            "status",
            "scores",
            "evidence",
            "created_at",
            *["outcome", "reason", "requested_model", "returned_model", "usage", "attempts", "retries"],
        ]
        assert verdicts[0].verdict.item_id == first.result["item_id"]
        assert store.case_json(first.case_hash) is not None


def test_the_artifact_is_versioned_and_round_trips(tmp_path: Path) -> None:
    result = run(suite(3), ReferenceHub())
    path = tmp_path / "out" / "run.json"
    write_json(path, result.artifact())
    data = json.loads(path.read_text())
    assert data["format"] == RUN_FORMAT and data["version"] == 1
    assert data["run"]["judge"]["config_hash"] == result.judge_config.config_hash()
    assert [c["case_id"] for c in data["cases"]] == ["case-00", "case-01", "case-02"]
    assert data["cases"][0]["verdict"]["status"] == "ok"
    assert json.loads(dumps_document(result.artifact())) == data
    case_lines = [line for line in path.read_text().splitlines() if line.startswith('    {"position"')]
    assert len(case_lines) == 3  # one reviewable line per case


def test_nothing_to_run_or_no_workers_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no cases"):
        run([], ReferenceHub())
    with pytest.raises(UsageError, match="--workers"):
        run(suite(1), ReferenceHub(), workers=0)
