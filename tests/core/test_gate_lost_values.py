"""A judge that goes quiet where it would score low never lifts a metric to a pass.

A case whose judge-scored metric had a value in the baseline and has none now leaves the mean:
the judge's "can't judge" on exactly its low scores would otherwise read as an improvement.
Values that stop applying because the output changed (the system refuses now where it answered,
or the reverse) are gated by the other checks and do not fail the metric.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from qaeval_tui.core.gate.report import gate_json, gate_junit, gate_markdown
from qaeval_tui.core.models.run import CaseView, Citation, SUTOutput
from tests.cli.hostile_plugins import TopOrQuietJudge
from tests.core.run_fixtures import loaded, multi_hop_case
from tests.core.test_gate import baseline_of, gate, hub_unless, run, suite


def test_a_judge_quiet_where_it_would_score_low_fails_the_metric_naming_the_cases(tmp_path: Path) -> None:
    baseline = baseline_of(run(suite()), tmp_path)
    report = gate(run(suite(), judge=TopOrQuietJudge()), baseline)

    correctness = next(d for d in report.metrics if d.name == "answer_correctness")
    # fan-price-01, refused by the hub in both runs, scored 0 in the baseline: without it the mean only rises.
    assert correctness.current is not None and correctness.baseline is not None
    assert correctness.current > correctness.baseline
    assert correctness.status == "fail" and correctness.lost_cases == ("fan-price-01",)
    assert (correctness.n_baseline, correctness.n_current) == (4, 3)
    assert correctness.reason is not None
    assert correctness.reason.startswith("lost 1 of its 4 baseline value(s): the judge said can't judge")
    assert "(fan-price-01)" in correctness.reason
    assert report.verdict == "BLOCK" and report.exit_code == 1

    document = json.loads(json.dumps(gate_json(report)))
    assert "answer_correctness" in document["tiers"]["tier2"]["failed_metrics"]
    entry = next(m for m in document["metrics"] if m["name"] == "answer_correctness")
    assert entry["lost_cases"] == ["fan-price-01"] and entry["status"] == "fail"
    assert any("fan-price-01" in f["message"] for f in document["failures"] if f["name"] == "answer_correctness")
    markdown = gate_markdown(report)
    assert "Values lost" in markdown and "answer\\_correctness: lost 1 of its 4" in markdown
    junit = ET.fromstring(gate_junit(report))
    failure = junit.find(".//testcase[@name='answer_correctness']/failure")
    assert failure is not None and "fan-price-01" in failure.get("message", "")


def test_many_lost_values_name_the_first_few_and_count_the_rest(tmp_path: Path) -> None:
    alike = [loaded(multi_hop_case(f"fan-price-x{i}")) for i in range(8)]
    every = [*suite(), *alike]  # eight more cases like fan-price-01, which the judge scores 0
    report = gate(run(every, judge=TopOrQuietJudge()), baseline_of(run(every), tmp_path))
    correctness = next(d for d in report.metrics if d.name == "answer_correctness")
    assert len(correctness.lost_cases) == 9 and correctness.status == "fail"
    assert correctness.reason is not None
    assert "(fan-price-01, fan-price-x0, fan-price-x1, fan-price-x2, fan-price-x3 and 4 more)" in correctness.reason


def test_nothing_lost_leaves_every_report_as_it_was(tmp_path: Path) -> None:
    baseline = baseline_of(run(suite()), tmp_path)
    report = gate(run(suite()), baseline)
    assert report.verdict == "PASS"
    assert all(not d.lost_cases for d in report.metrics)
    assert all("lost_cases" not in entry for entry in gate_json(report)["metrics"])
    assert "Values lost" not in gate_markdown(report)


def test_a_judge_value_gone_because_the_system_now_abstains_is_not_lost(tmp_path: Path) -> None:
    # The baseline answered the must-abstain financing-01 (a cited, judged answer); now the system
    # refuses it, as it should: faithfulness and citation correctness no longer apply there.
    def invent(view: CaseView) -> SUTOutput:
        text = "Yes, Tidewell offers zero-interest monthly financing on every battery."
        return SUTOutput(
            answer=text,
            citations=(Citation(source_id="s1", claim=text),),
            retrieved_ids=("s1",),
            model_was_called=True,
            prompt=f"{view.question}\n{view.sources[0].text}",
        )

    before = run(suite(), hub_unless("financing", invent))
    assert before.cases[2].values["citation_correctness"] is not None
    report = gate(run(suite()), baseline_of(before, tmp_path))
    assert report.verdict == "PASS", [f.message for f in report.findings]
    for name in ("faithfulness_rate", "citation_correctness"):
        delta = next(d for d in report.metrics if d.name == name)
        assert delta.lost_cases == () and delta.n_current == delta.n_baseline - 1


def test_a_deterministic_metric_that_stops_applying_is_counted_not_failed_for_it(tmp_path: Path) -> None:
    # warranty-02 is now refused: citation precision has no value there. Over-refusal and the
    # regression of warranty-02 block; citation precision itself held on the rest.
    refuse = hub_unless("What warranty term", lambda view: SUTOutput(answer="No.", abstained=True))
    report = gate(run(suite(), refuse), baseline_of(run(suite()), tmp_path))
    precision = next(d for d in report.metrics if d.name == "citation_precision")
    assert precision.status == "pass" and precision.lost_cases == ()
    assert precision.n_current == precision.n_baseline - 1
    failed = {f.name for f in report.tier2}
    assert {"over_refusal_rate", "regression"} <= failed and "citation_precision" not in failed
