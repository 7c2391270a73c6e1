"""The howdah verdict contract in the verdict itself: an outcome on every verdict, the model ids, token
usage (unknown is null, never 0), attempts and retries; old verdicts still read; a checks-only run asks
no judge and its skipped verdicts never pass a gate."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.bundled.mechanical_judge import MechanicalJudge
from qaeval_tui.cli.main import app
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate.baseline import baseline_document, load_baseline
from qaeval_tui.core.gate.decision import run_gate
from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import Attempt, JudgeConfig, JudgeVerdict, SUTOutput
from qaeval_tui.core.review.labels_io import read_verdicts
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.judge import (
    JudgeCall,
    JudgeFailure,
    JudgeResult,
    SkippedJudge,
    effective_config,
    judge_verdict,
)
from qaeval_tui.core.running.result import RunResult, write_json
from qaeval_tui.core.running.runner import run_suite
from qaeval_tui.core.store.sqlite import Store
from tests.core.run_fixtures import FIXED_TIME, RUBRIC, abstain_case, case, loaded, quoting_output


class _Scripted:
    config = JudgeConfig(name="scripted", model="m")

    def __init__(self, result: JudgeResult | Exception) -> None:
        self.result = result

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def _verdict(judge: object, output: SUTOutput | None = None) -> JudgeVerdict:
    golden = case()
    return judge_verdict(
        judge,  # type: ignore[arg-type]
        JudgeConfig(name="scripted", model="m"),
        golden,
        output or quoting_output(golden),
        RUBRIC,
        item_id="i",
        created_at="T",
    )


def _scores(faithfulness: int | None) -> dict[str, int | None]:
    return {"faithfulness": faithfulness, "citation_correctness": 2, "answer_correctness": 2}


@pytest.mark.parametrize(
    ("faithfulness", "outcome", "status"),
    [(2, "faithful", "ok"), (1, "unfaithful", "ok"), (0, "unfaithful", "ok"), (None, "abstained", "ok")],
)
def test_the_outcome_follows_the_faithfulness_score(faithfulness: int | None, outcome: str, status: str) -> None:
    verdict = _verdict(_Scripted(JudgeResult(_scores(faithfulness))))
    assert (verdict.outcome, verdict.status) == (outcome, status)
    assert (verdict.reason is None) == (outcome != "abstained")


def test_a_judge_that_says_it_cannot_judge_abstains_with_its_reason() -> None:
    verdict = _verdict(_Scripted(JudgeResult(_scores(2), abstained=True, reason="the sources\nare ambiguous")))
    assert verdict.outcome == "abstained" and verdict.reason == "the sources are ambiguous"
    assert verdict.status == "ok" and set(verdict.scores.values()) == {None}  # no score it disowns


def test_a_failed_call_is_an_error_verdict_that_keeps_what_it_cost() -> None:
    call = JudgeCall(
        requested_model="gpt-x",
        returned_model=None,
        input_tokens=None,
        output_tokens=None,
        attempts=(Attempt(latency_s=0.5, error="http_500"), Attempt(latency_s=0.25, error="timeout")),
    )
    verdict = _verdict(_Scripted(JudgeFailure("the judge timed out\x1b[31m twice", call)))
    document = verdict.to_json()
    assert document["status"] == "error" and document["outcome"] == "error"
    assert document["error"].startswith("the judge timed out") and "\x1b" not in document["error"]  # sanitized
    assert document["usage"] == {"input_tokens": None, "output_tokens": None}  # unknown is null, not 0
    assert document["retries"] == 1 and [a["error"] for a in document["attempts"]] == ["http_500", "timeout"]
    assert document["requested_model"] == "gpt-x" and document["returned_model"] is None


def test_a_scored_verdict_records_the_models_and_tokens_of_its_call() -> None:
    call = JudgeCall("gpt-x", "gpt-x-2026", 120, 30, (Attempt(latency_s=0.1),))
    document = _verdict(_Scripted(JudgeResult(_scores(2), call=call))).to_json()
    assert document["outcome"] == "faithful" and document["retries"] == 0
    assert document["usage"] == {"input_tokens": 120, "output_tokens": 30}
    assert document["returned_model"] == "gpt-x-2026"


def test_a_system_failure_is_abstained_with_a_reason_and_the_judge_is_not_asked() -> None:
    verdict = _verdict(_Scripted(RuntimeError("must not be called")), SUTOutput(error="boom"))
    assert verdict.outcome == "abstained" and verdict.status == "ok"
    assert verdict.reason is not None and "system failed" in verdict.reason


def test_the_mechanical_judge_records_no_call_and_keeps_its_config_hash() -> None:
    """Verdicts, baselines and calibrations stored before the contract stay bound to the same judge."""
    golden = case()
    judge = MechanicalJudge()
    config = effective_config(judge, RUBRIC)
    # The hash the committed calibration golden file (tests/cli/golden/calibrate.json) was made with.
    assert config.config_hash() == "07ce4d340c237fb35b05c5577d19f777455daa9d2d9f5974c1bb7ae488eeb6d2"
    verdict = judge_verdict(judge, config, golden, quoting_output(golden), RUBRIC, item_id="i", created_at="T")
    assert verdict.outcome in {"faithful", "unfaithful"} and verdict.attempts == [] and verdict.retries == 0
    assert verdict.usage.input_tokens is None and verdict.requested_model is None


def test_the_config_hash_covers_what_a_model_judge_adds() -> None:
    base = JudgeConfig(name="j", model="m", kind="openai", prompt_hash="p1", rubric_hash="r1", max_tokens=800)
    for change in ({"prompt_hash": "p2"}, {"rubric_hash": "r2"}, {"kind": "anthropic"}, {"max_tokens": 900}):
        assert base.model_copy(update=change).config_hash() != base.config_hash()


OLD_VERDICT = {
    "item_id": "a.b",
    "case_id": "warranty-01",
    "judge": {"name": "mechanical", "model": "overlap", "config_hash": "h", "rubric_version": "1"},
    "status": "ok",
    "scores": {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 2},
    "evidence": {},
    "created_at": "2026-01-01T00:00:00Z",
}


def test_a_verdict_file_from_before_the_contract_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "judge-verdicts.jsonl"
    path.write_text(json.dumps(OLD_VERDICT) + "\n", encoding="utf-8")
    (verdict,) = read_verdicts([path], RUBRIC)
    assert verdict.outcome is None and verdict.usage.input_tokens is None and verdict.attempts == []
    assert verdict.to_json() == OLD_VERDICT  # re-exported unchanged


def test_a_verdict_with_the_contract_round_trips_through_a_verdict_file(tmp_path: Path) -> None:
    call = JudgeCall("m", "m-1", 10, None, (Attempt(latency_s=1.5, error="http_429"), Attempt(latency_s=0.2)))
    verdict = _verdict(_Scripted(JudgeResult(_scores(1), {"faithfulness": "10 years"}, call=call)))
    path = tmp_path / "judge-verdicts.jsonl"
    path.write_text(json.dumps(verdict.to_json()) + "\n", encoding="utf-8")
    (read,) = read_verdicts([path], RUBRIC)
    assert read == verdict and read.usage.output_tokens is None and read.retries == 1


def _run(judge: object, cases: list[GoldenCase]) -> RunResult:
    return run_suite(
        [loaded(c) for c in cases],
        ReferenceHub(),
        judge,  # type: ignore[arg-type]
        rubric=RUBRIC,
        adapter_spec="t:a",
        judge_spec="t:j",
        clock=lambda: FIXED_TIME,
    )


def test_a_checks_only_run_marks_every_verdict_skipped_and_writes_no_baseline(tmp_path: Path) -> None:
    result = _run(SkippedJudge(), [case(), abstain_case()])
    assert {r.verdict.outcome for r in result.cases} == {"skipped"}
    assert {r.verdict.status for r in result.cases} == {"skipped"}
    assert result.board.overall["faithfulness_rate"].value is None  # missing, never 0 or 1
    assert len(result.judge_errors) == 2
    with pytest.raises(UsageError, match="no baseline was written"):
        baseline_document(result)
    with Store.open(tmp_path / "runs.db") as store:
        from qaeval_tui.core.running.runner import store_run

        store_run(store, result)
        assert {v.status for v in store.verdicts()} == {"skipped"}
        assert {v.verdict.outcome for v in store.verdicts()} == {"skipped"}
        assert {v.status for v in store.verdict_scores()} == {"skipped"}  # what calibrate reads: no corrupt row


def test_the_gate_blocks_on_skipped_verdicts_as_on_judge_errors(tmp_path: Path) -> None:
    cases = [case(), abstain_case()]
    judged = _run(MechanicalJudge(), cases)
    path = tmp_path / "baseline.json"
    write_json(path, baseline_document(judged))
    skipped = dataclasses.replace(
        judged,
        cases=tuple(
            dataclasses.replace(
                r,
                verdict=r.verdict.model_copy(
                    update={"status": "skipped", "outcome": "skipped", "reason": "checks-only run: no judge was asked"}
                ),
            )
            for r in judged.cases
        ),
    )
    report = run_gate(skipped, load_baseline(path), replicates=200)
    assert report.verdict == "BLOCK" and report.exit_code == 1
    assert [(f.kind, f.case_id) for f in report.tier1] == [("judge_error", c.id) for c in cases]


def test_qaeval_run_checks_only_loads_no_judge_and_skips_every_verdict(tmp_path: Path, suite: Path) -> None:
    out = tmp_path / "run.json"
    result = CliRunner().invoke(
        app,
        [
            *["run", "--data", str(suite), "--checks-only", "--judge", "no_such_module:judge"],
            *["--out", str(out), "--db", str(tmp_path / "runs.db")],
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Checks-only run: no judge was asked" in result.stdout
    artifact = json.loads(out.read_text())
    assert {c["verdict"]["outcome"] for c in artifact["cases"]} == {"skipped"}
    assert {c["verdict"]["status"] for c in artifact["cases"]} == {"skipped"}
    assert artifact["run"]["judge"]["name"] == "checks-only"
