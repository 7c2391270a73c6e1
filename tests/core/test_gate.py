"""The gate: Tier 1, Tier 2 (tolerances, regressions, new cases, paired CIs), baselines, trust marking."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.bundled.mechanical_judge import MechanicalJudge
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate.baseline import Baseline, baseline_document, load_baseline
from qaeval_tui.core.gate.decision import GateReport, run_gate
from qaeval_tui.core.gate.report import gate_json, gate_junit, gate_markdown
from qaeval_tui.core.models.golden import GoldenCase, LoadedCase
from qaeval_tui.core.models.run import CaseView, Citation, JudgeConfig, SUTOutput
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.adapters import SystemAdapter
from qaeval_tui.core.running.judge import JudgeResult
from qaeval_tui.core.running.result import RunResult, write_json
from qaeval_tui.core.running.runner import run_suite
from tests.core.run_fixtures import (
    FIXED_TIME,
    HB5_WARRANTY,
    RUBRIC,
    ScriptedAdapter,
    abstain_case,
    case,
    loaded,
    multi_hop_case,
)


def suite() -> list[LoadedCase]:
    return [
        loaded(case("warranty-01")),
        loaded(case("warranty-02", question="What warranty term applies to the HB-10?")),
        loaded(abstain_case("financing-01")),
        loaded(multi_hop_case("fan-price-01")),
    ]


def run(
    cases: list[LoadedCase], adapter: SystemAdapter | None = None, judge: MechanicalJudge | None = None
) -> RunResult:
    return run_suite(
        cases,
        adapter or ReferenceHub(),
        judge or MechanicalJudge(),
        rubric=RUBRIC,
        adapter_spec="t:a",
        judge_spec="t:j",
        clock=lambda: FIXED_TIME,
    )


def baseline_of(result: RunResult, tmp_path: Path) -> Baseline:
    path = tmp_path / "baseline.json"
    write_json(path, baseline_document(result))
    return load_baseline(path)


def hub_unless(word: str, respond: Any) -> ScriptedAdapter:
    """The reference hub, except for questions containing `word`."""
    hub = ReferenceHub()
    return ScriptedAdapter(lambda view: respond(view) if word in view.question else hub.answer(view))


def gate(result: RunResult, baseline: Baseline, **options: Any) -> GateReport:
    return run_gate(result, baseline, replicates=500, **options)


def test_a_run_gated_against_its_own_baseline_passes(tmp_path: Path) -> None:
    report = gate(run(suite()), baseline_of(run(suite()), tmp_path))
    assert report.verdict == "PASS" and report.exit_code == 0 and not report.findings
    gated = {d.name: d for d in report.metrics}
    assert gated["abstention_recall"].status == "pass" and gated["abstention_recall"].tolerance == 0.0
    assert gated["deterministic_pass_rate"].status == "info"
    # Nothing changed on its 2 paired cases: not the bootstrap's [0, 0] but the exact bound 1 - 0.025^(1/2).
    assert gated["faithfulness_rate"].ci == pytest.approx((-0.8419, 0.8419), abs=1e-4)
    assert gated["faithfulness_rate"].basis == "shared"


def test_tier1_names_each_fired_check_and_its_case(tmp_path: Path) -> None:
    def miscite(view: CaseView) -> SUTOutput:
        output = ReferenceHub().answer(view)
        return output.model_copy(update={"citations": (Citation(source_id="s2", quote=output.answer),)})

    report = gate(run(suite(), hub_unless("What warranty term", miscite)), baseline_of(run(suite()), tmp_path))
    assert report.verdict == "BLOCK" and report.exit_code == 1
    assert [(f.tier, f.name, f.case_id) for f in report.tier1] == [(1, "citation_resolvability", "warranty-02")]
    assert "never retrieved" in report.tier1[0].message


def test_a_previously_passing_case_that_now_fails_is_a_regression(tmp_path: Path) -> None:
    refuse = hub_unless("What warranty term", lambda view: SUTOutput(answer="No.", abstained=True))
    report = gate(run(suite(), refuse), baseline_of(run(suite()), tmp_path))
    assert report.verdict == "BLOCK" and not report.tier1
    regressions = [f for f in report.tier2 if f.kind == "regression"]
    assert [(f.case_id, f.message) for f in regressions] == [
        ("warranty-02", "passed in the baseline, fails now: over_refusal")
    ]
    refusal = next(d for d in report.metrics if d.name == "over_refusal_rate")
    assert refusal.status == "fail" and refusal.delta == pytest.approx(1 / 3)
    assert refusal.reason is not None and refusal.reason.startswith("rose +0.333")


def test_a_metric_drop_blocks_beyond_its_tolerance_only(tmp_path: Path) -> None:
    def hb5(view: CaseView) -> SUTOutput:  # a cited, grounded, but wrong answer: no check fires
        output = ReferenceHub().answer(view)
        cited = Citation(source_id="s3", quote=HB5_WARRANTY, claim=HB5_WARRANTY)
        update = {"answer": HB5_WARRANTY, "citations": (cited,), "retrieved_ids": ("s3", "s1")}
        return output.model_copy(update={**update, "prompt": f"{output.prompt}\n[s3] {HB5_WARRANTY}"})

    current = run(suite(), hub_unless("What warranty term", hb5))
    baseline = baseline_of(run(suite()), tmp_path)
    strict = gate(current, baseline)
    correctness = next(d for d in strict.metrics if d.name == "answer_correctness")
    assert correctness.status == "fail" and correctness.delta == pytest.approx(-0.5 / 4)
    assert correctness.ci is not None and correctness.delta is not None
    assert correctness.ci[0] <= correctness.delta <= correctness.ci[1]
    assert correctness.n_paired == 4
    assert not strict.tier1 and not [f for f in strict.tier2 if f.kind == "regression"]
    lenient = gate(
        current,
        baseline,
        tolerances={
            "answer_correctness": 0.2,
            "citation_correctness": 1.0,
            "retrieval_recall_at_k": 1.0,
            "mrr": 1.0,
            "ndcg": 1.0,
            "retrieval_precision_at_k": 1.0,
        },
    )
    assert lenient.verdict == "PASS", [f.message for f in lenient.findings]


def test_a_metric_moves_when_a_case_starts_counting_for_it(tmp_path: Path) -> None:
    # financing-01 was refused (no faithfulness to rate); now it is answered without support.
    def invent(view: CaseView) -> SUTOutput:
        text = "Yes, Tidewell offers zero-interest monthly financing on every battery."
        return SUTOutput(
            answer=text,
            citations=(Citation(source_id="s1", claim=text),),
            retrieved_ids=("s1",),
            model_was_called=True,
            prompt=f"{view.question}\n{view.sources[0].text}",
        )

    report = gate(run(suite(), hub_unless("financing", invent)), baseline_of(run(suite()), tmp_path))
    faithful = next(d for d in report.metrics if d.name == "faithfulness_rate")
    assert faithful.baseline == 1.0 and faithful.current == pytest.approx(2 / 3) and faithful.status == "fail"
    assert faithful.n_paired == 2 and faithful.delta is not None and faithful.ci is not None
    # Cases resampled jointly, each side its own mean: the interval is about the delta itself.
    assert faithful.ci[0] < 0 and faithful.ci[0] <= faithful.delta <= faithful.ci[1]


def test_new_cases_must_pass_and_changed_cases_count_as_new(tmp_path: Path) -> None:
    baseline = baseline_of(run(suite()), tmp_path)
    grown = [*suite(), loaded(case("warranty-03", question="How many years of warranty does the HB-10 get?"))]
    assert gate(run(grown), baseline).verdict == "PASS"
    refuse_new = hub_unless("How many years", lambda view: SUTOutput(answer="No.", abstained=True))
    report = gate(run(grown, refuse_new), baseline)
    assert [(f.kind, f.case_id) for f in report.tier2 if f.kind == "new_case"] == [("new_case", "warranty-03")]
    edited = [loaded(case("warranty-01", gold_answer="Ten years")), *suite()[1:]]
    refuse_edited = hub_unless("How long is", lambda view: SUTOutput(answer="No.", abstained=True))
    changed = gate(run(edited, refuse_edited), baseline)
    assert [f.message for f in changed.tier2 if f.kind == "new_case"] == [
        "case changed since the baseline must pass, fails: over_refusal"
    ]


def test_removed_cases_are_reported_without_blocking(tmp_path: Path) -> None:
    report = gate(run(suite()[:3]), baseline_of(run(suite()), tmp_path))
    assert report.verdict == "PASS" and report.removed_cases == ("fan-price-01",)


def test_with_no_shared_case_deltas_are_unpaired_and_have_no_ci(tmp_path: Path) -> None:
    report = gate(run([loaded(case("other-01"))]), baseline_of(run(suite()), tmp_path))
    faithful = next(d for d in report.metrics if d.name == "faithfulness_rate")
    assert faithful.basis == "unpaired" and faithful.ci is None
    assert faithful.ci_reason == "no case shared with the baseline"


def test_missing_unreadable_or_malformed_baselines_are_usage_errors(tmp_path: Path) -> None:
    good = baseline_document(run(suite()))
    cases: dict[str, tuple[str, str]] = {
        "missing.json": ("", "baseline not found"),
        "garbage.json": ("{not json", "not valid JSON"),
        "other.json": (json.dumps({"format": "something-else"}), "not a qaeval baseline"),
        "future.json": (json.dumps({**good, "version": 99}), "baseline version 99"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        if text:
            path.write_text(text)
        with pytest.raises(UsageError, match=message) as caught:
            load_baseline(path)
        assert caught.value.exit_code == 2 and str(path) in str(caught.value)


def test_a_baseline_from_another_judge_is_refused(tmp_path: Path) -> None:
    baseline = baseline_of(run(suite()), tmp_path)
    other = MechanicalJudge(JudgeConfig(name="mechanical", model="token-overlap-2"))
    with pytest.raises(UsageError, match="baseline does not match this run: judge config"):
        gate(run(suite(), judge=other), baseline)


def test_untrusted_judge_axes_are_marked_in_every_output(tmp_path: Path) -> None:
    refuse = hub_unless("What warranty term", lambda view: SUTOutput(answer="No.", abstained=True))
    trust = {"answer_correctness": "RETUNE", "faithfulness": "TRUSTED"}
    report = gate(run(suite(), refuse), baseline_of(run(suite()), tmp_path), axis_trust=trust)
    marks = {d.name: d.trusted for d in report.metrics}
    assert marks["answer_correctness"] is False and marks["faithfulness_rate"] is True
    assert marks["citation_correctness"] is None and marks["mrr"] is None
    failing = next(f for f in report.tier2 if f.name == "answer_correctness")
    assert "[untrusted: judge axis answer_correctness calibration: RETUNE]" in failing.message
    document = gate_json(report)
    assert document["untrusted_axes"] == ["answer_correctness"]
    assert next(m for m in document["metrics"] if m["name"] == "answer_correctness")["trusted"] is False
    assert "answer\\_correctness (untrusted)" in gate_markdown(report)
    names = [tc.get("name") for tc in ET.fromstring(gate_junit(report)).iter("testcase")]
    assert "answer_correctness (untrusted)" in names


def test_bad_trust_verdicts_and_unknown_tolerances_are_usage_errors(tmp_path: Path) -> None:
    result, baseline = run(suite()), baseline_of(run(suite()), tmp_path)
    with pytest.raises(UsageError, match="expected one of TRUSTED, RETUNE, INSUFFICIENT"):
        gate(result, baseline, axis_trust={"faithfulness": "maybe"})
    with pytest.raises(UsageError, match="unknown metric 'faithfulnes'"):
        gate(result, baseline, tolerances={"faithfulnes": 0.1})


def test_junit_has_a_testcase_per_case_and_a_failure_per_fired_check(tmp_path: Path) -> None:
    def broken(view: CaseView) -> SUTOutput:
        return SUTOutput(answer="Ten years, trust me.", abstained=False, model_was_called=True, prompt="")

    report = gate(run(suite(), hub_unless("What warranty term", broken)), baseline_of(run(suite()), tmp_path))
    root = ET.fromstring(gate_junit(report))
    cases = root.find("testsuite[@name='qaeval.cases']")
    assert cases is not None and cases.get("tests") == "4" and cases.get("failures") == "1"
    broken_case = cases.find("testcase[@name='warranty-02']")
    assert broken_case is not None
    assert [f.get("type") for f in broken_case.findall("failure")] == [
        "grounding_isolation",
        "citation_coverage",
        "fail_closed",
        "regression",
    ]


class _CannotJudge(MechanicalJudge):
    """No error, and no score on any axis either."""

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        return JudgeResult(dict.fromkeys(rubric.axis_names))


class _FailsOn(MechanicalJudge):
    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        if case.id == "financing-01":
            raise ConnectionError("judge endpoint refused the connection")
        return super().score(case, output, rubric)


def test_a_judge_error_on_one_case_is_a_tier1_finding_on_that_case(tmp_path: Path) -> None:
    report = gate(run(suite(), judge=_FailsOn()), baseline_of(run(suite()), tmp_path))
    assert report.verdict == "BLOCK" and report.exit_code == 1
    assert [(f.tier, f.kind, f.case_id, f.message) for f in report.tier1] == [
        (1, "judge_error", "financing-01", "the judge failed: ConnectionError: judge endpoint refused the connection")
    ]
    outcome = next(c for c in report.cases if c.case_id == "financing-01")
    assert [f.name for f in outcome.findings] == ["judge_error"]


def test_a_gated_metric_with_a_baseline_value_and_none_now_fails_even_unpaired(tmp_path: Path) -> None:
    report = gate(run([loaded(case("other-01"))], judge=_CannotJudge()), baseline_of(run(suite()), tmp_path))
    faithful = next(d for d in report.metrics if d.name == "faithfulness_rate")
    assert faithful.basis == "unpaired" and faithful.current is None and faithful.status == "fail"
    assert report.verdict == "BLOCK" and "faithfulness_rate" in [f.name for f in report.tier2]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tolerances": {"mrr": float("nan")}}, "gate.tolerances.mrr: must be a number from 0 to 1, got nan"),
        ({"tolerances": {"mrr": float("inf")}}, "gate.tolerances.mrr: must be a number from 0 to 1, got inf"),
        ({"tolerances": {"mrr": True}}, "gate.tolerances.mrr: must be a number from 0 to 1, got True"),
        ({"seed": -1}, "gate.seed: must be a whole number, 0 or more, got -1"),
        ({"replicates": 0}, "gate.bootstrap_replicates: must be a whole number, 1 or more, got 0"),
    ],
)
def test_settings_that_would_void_the_gate_are_usage_errors(
    tmp_path: Path, options: dict[str, Any], message: str
) -> None:
    result, baseline = run(suite()), baseline_of(run(suite()), tmp_path)
    with pytest.raises(UsageError) as caught:
        run_gate(result, baseline, **{"replicates": 200, **options})
    assert str(caught.value) == message
