"""PPI on the scoreboard (`qaeval run`, its JSON) and in the gate (`[gate] judge_metrics = "ppi"`), end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.statistics.ppi import REASON_NO_LABELS
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import write_jsonl
from tests.core.run_fixtures import abstain_case, case

runner = CliRunner()
N_ANSWERABLE, N_LABELLED = 60, 42
PPI_CONFIG = '[gate]\njudge_metrics = "ppi"\n'


def qaeval(db: Path, *args: str, config: Path | None = None) -> Result:
    head = ["--config", str(config)] if config is not None else []
    return runner.invoke(app, [*head, *args, "--db", str(db)])


@pytest.fixture
def big_suite(tmp_path: Path) -> Path:
    """60 answerable cases (enough labels for an interval) and 2 must-abstain ones."""
    folder = tmp_path / "golden"
    cases = [case(f"warranty-{i:02d}") for i in range(N_ANSWERABLE)]
    cases += [abstain_case("financing-01"), abstain_case("financing-02")]
    write_jsonl(folder / "frozen.jsonl", [c.model_dump(mode="json") for c in cases])
    return folder


def run_json(db: Path, suite: Path) -> dict[str, Any]:
    result = qaeval(db, "run", "--data", str(suite), "--json")
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def faithfulness(i: int) -> int:
    """The humans' faithfulness score of labelled case i: every third answer unfaithful."""
    return 0 if i % 3 == 0 else 2


def label(item_id: str, case_id: str, reviewer: str, scores: dict[str, int | None], **extra: Any) -> Label:
    fields: dict[str, Any] = {"rubric_version": "1", "revision": 1, "created_at": "2026-10-01T09:00:00Z", **extra}
    return Label(item_id=item_id, case_id=case_id, reviewer=reviewer, scores=scores, **fields)


def label_cases(db: Path, document: dict[str, Any], score: Any = faithfulness, revision: int = 1) -> None:
    """Two blind reviewers agree on the first 42 answerable cases; two labels that must not count besides."""
    rows = document["cases"]
    labels = []
    for i, row in enumerate(rows[:N_LABELLED]):
        scores = {"faithfulness": score(i), "citation_correctness": 2, "answer_correctness": 2 if i % 2 else 1}
        for reviewer in ("ana", "ben"):
            labels.append(label(row["item_id"], row["case_id"], reviewer, scores, revision=revision))
    if revision == 1:
        worst = {"faithfulness": 0, "citation_correctness": 0, "answer_correctness": 0}
        # made after the reviewer saw the judge, and made under another rubric version: neither counts
        labels.append(label(rows[50]["item_id"], rows[50]["case_id"], "ana", worst, revealed=True))
        labels.append(label(rows[51]["item_id"], rows[51]["case_id"], "ben", worst, rubric_version="0"))
    with Store.open(db) as store:
        store.insert_labels(labels, origin="import")


def expected_ppi(document: dict[str, Any], human: dict[int, float]) -> float:
    """Judge mean over the cases with a judge value + mean(human - judge) on the labelled ones, by hand."""
    judge = [row["values"]["faithfulness_rate"] for row in document["cases"]]
    scored = [value for value in judge if value is not None]
    corrections = [human[i] - judge[i] for i in human if judge[i] is not None]
    return sum(scored) / len(scored) + sum(corrections) / len(corrections)


def test_run_json_carries_the_ppi_estimate_of_each_judge_metric(tmp_path: Path, big_suite: Path) -> None:
    db = tmp_path / "q.db"
    first = run_json(db, big_suite)
    label_cases(db, first)
    document = run_json(db, big_suite)
    block = document["ppi"]
    assert block["labelled_cases"] == N_LABELLED
    assert block["labels"]["post_reveal_excluded"] == 1 and block["labels"]["other_rubric_version"] == 1
    faith = block["metrics"]["faithfulness_rate"]
    judged = sum(1 for row in document["cases"] if row["values"]["faithfulness_rate"] is not None)
    assert (faith["n_labelled"], faith["n_cases"]) == (N_LABELLED, judged)
    # faithfulness_rate is 1 only at the top of the scale: humans' 2 -> 1.0, 0 -> 0.0
    human = {i: 1.0 if faithfulness(i) == 2 else 0.0 for i in range(N_LABELLED)}
    assert faith["value"] == pytest.approx(expected_ppi(document, human))
    assert faith["judge_mean"] == pytest.approx(document["metrics"]["overall"]["faithfulness_rate"]["value"])
    assert faith["ci"][0] < faith["value"] < faith["ci"][1]
    assert faith["excluded"] == {"human_without_judge": 0, "no_human_consensus": 0}
    # answer_correctness scales 0..2 to 0..1: humans' 1 -> 0.5
    assert block["metrics"]["answer_correctness"]["labelled_mean"] == pytest.approx((21 * 1.0 + 21 * 0.5) / 42)


def test_the_scoreboard_shows_ppi_beside_each_judge_metric(tmp_path: Path, big_suite: Path) -> None:
    db = tmp_path / "q.db"
    label_cases(db, run_json(db, big_suite))
    document = run_json(db, big_suite)
    faith = document["ppi"]["metrics"]["faithfulness_rate"]
    result = qaeval(db, "run", "--data", str(big_suite))
    assert result.exit_code == 0, result.output
    low, high = faith["ci"]
    row = rf"faithfulness_rate\s+{faith['value']:.3f}\s+\[{low:.3f}, {high:.3f}\]\s+42\s+{faith['n_cases']}\s+1\.000"
    assert re.search(row, result.stdout), result.stdout
    assert "on the 42 labelled case(s)" in result.stdout


def test_without_labels_the_json_says_why_and_the_table_has_no_ppi_column(tmp_path: Path, big_suite: Path) -> None:
    db = tmp_path / "q.db"
    faith = run_json(db, big_suite)["ppi"]["metrics"]["faithfulness_rate"]
    assert faith["value"] is None and faith["n_labelled"] == 0 and faith["reason"] == REASON_NO_LABELS
    assert "PPI" not in qaeval(db, "run", "--data", str(big_suite)).stdout


def gate(db: Path, suite: Path, baseline: Path, config: Path | None) -> Result:
    return qaeval(db, "gate", "--data", str(suite), "--baseline", str(baseline), "--json", config=config)


def test_the_gate_on_ppi_blocks_a_drop_only_the_humans_saw(tmp_path: Path, big_suite: Path) -> None:
    db, baseline, config = tmp_path / "q.db", tmp_path / "baseline.json", tmp_path / "qaeval.toml"
    config.write_text(PPI_CONFIG)
    first = run_json(db, big_suite)
    label_cases(db, first)
    written = qaeval(db, "baseline", "--data", str(big_suite), "--out", str(baseline), config=config)
    assert written.exit_code == 0, written.output
    recorded = json.loads(baseline.read_text())["ppi"]["metrics"]["faithfulness_rate"]["value"]
    assert recorded == pytest.approx(expected_ppi(first, {i: float(faithfulness(i) == 2) for i in range(42)}))

    same = gate(db, big_suite, baseline, config)
    assert same.exit_code == 0, same.output
    row = next(m for m in json.loads(same.stdout)["metrics"] if m["name"] == "faithfulness_rate")
    assert (row["basis"], row["baseline"], row["current"], row["delta"]) == ("ppi", recorded, recorded, 0.0)

    # The reviewers revise: two in three answers are unfaithful. The judge has not changed its mind.
    label_cases(db, first, score=lambda i: 0 if i % 3 else 2, revision=2)
    assert gate(db, big_suite, baseline, None).exit_code == 0  # gated on the judge mean: nothing moved
    blocked = gate(db, big_suite, baseline, config)
    assert blocked.exit_code == 1, blocked.output
    report = json.loads(blocked.stdout)
    row = next(m for m in report["metrics"] if m["name"] == "faithfulness_rate")
    revised = expected_ppi(first, {i: float(i % 3 == 0) for i in range(42)})
    assert row["status"] == "fail" and row["current"] == pytest.approx(revised)
    assert row["delta"] == pytest.approx(revised - recorded) and row["delta"] < -0.3
    assert any(f["name"] == "faithfulness_rate" and "PPI" in f["message"] for f in report["failures"])
    # Both estimates' intervals are in the row, and that they are too wide for a 0.02 tolerance to mean much
    before_ci = json.loads(baseline.read_text())["ppi"]["metrics"]["faithfulness_rate"]["ci"]
    assert f"baseline [{before_ci[0]:.3f}, {before_ci[1]:.3f}] on 42 labelled case(s)" in row["ci_reason"]
    assert re.search(r"this run \[0\.\d{3}, 0\.\d{3}\] on 42 of 60", row["ci_reason"]), row["ci_reason"]
    assert "more than the tolerance 0.020" in row["ci_reason"] and "baseline [" in row["reason"]


def test_the_gate_on_ppi_refuses_without_labels_on_the_run(tmp_path: Path, big_suite: Path) -> None:
    db, baseline, config = tmp_path / "q.db", tmp_path / "baseline.json", tmp_path / "qaeval.toml"
    config.write_text(PPI_CONFIG)
    label_cases(db, run_json(db, big_suite))
    assert qaeval(db, "baseline", "--data", str(big_suite), "--out", str(baseline)).exit_code == 0
    fresh = gate(tmp_path / "fresh.db", big_suite, baseline, config)  # a CI machine's empty store
    assert fresh.exit_code == 2
    assert 'judge_metrics = "ppi": faithfulness_rate has no PPI estimate for this run' in fresh.stderr
    assert fresh.stdout == ""


def test_the_gate_on_ppi_refuses_a_baseline_without_ppi_before_running(tmp_path: Path, big_suite: Path) -> None:
    db, baseline, config = tmp_path / "q.db", tmp_path / "baseline.json", tmp_path / "qaeval.toml"
    config.write_text(PPI_CONFIG)
    assert qaeval(db, "baseline", "--data", str(big_suite), "--out", str(baseline)).exit_code == 0
    assert "ppi" not in json.loads(baseline.read_text())  # no labels when it was written
    label_cases(db, run_json(db, big_suite))
    with Store.open(db) as store:
        runs = len(store.list_runs())
    refused = gate(db, big_suite, baseline, config)
    assert refused.exit_code == 2
    assert f"{baseline}: ppi.metrics.faithfulness_rate.value: no PPI estimate in the baseline" in refused.stderr
    with Store.open(db) as store:
        assert len(store.list_runs()) == runs  # refused before the suite ran


def test_a_bad_ppi_value_in_the_baseline_is_named_with_its_line(tmp_path: Path, big_suite: Path) -> None:
    db, baseline = tmp_path / "q.db", tmp_path / "baseline.json"
    label_cases(db, run_json(db, big_suite))
    assert qaeval(db, "baseline", "--data", str(big_suite), "--out", str(baseline)).exit_code == 0
    text = baseline.read_text()
    document = json.loads(text)
    document["ppi"]["metrics"]["answer_correctness"]["value"] = 1.5
    document["ppi"]["metrics"]["mrr"] = {"value": 0.5}  # not judge-scored: nothing PPI could correct
    baseline.write_text(json.dumps(document, indent=2))
    result = gate(db, big_suite, baseline, None)
    assert result.exit_code == 2
    assert re.search(
        rf"{re.escape(str(baseline))}:\d+: ppi\.metrics\.answer_correctness\.value: must be from 0 to 1", result.stderr
    )
    assert re.search(
        rf"{re.escape(str(baseline))}:\d+: ppi\.metrics\.mrr: 'mrr' is no judge-scored metric", result.stderr
    )


def test_judge_metrics_takes_judge_or_ppi_and_names_them_when_wrong(tmp_path: Path, big_suite: Path) -> None:
    config = tmp_path / "qaeval.toml"
    config.write_text('[gate]\njudge_metrics = "ppi"\n')
    assert qaeval(tmp_path / "q.db", "run", "--data", str(big_suite), config=config).exit_code == 0
    config.write_text('[gate]\njudge_metrics = "human"\n')
    result = qaeval(tmp_path / "q.db", "run", "--data", str(big_suite), config=config)
    assert result.exit_code == 2
    assert re.search(r"qaeval\.toml:2: gate\.judge_metrics: Input should be 'judge' or 'ppi'", result.stderr), (
        result.stderr
    )


def test_the_human_value_is_the_consensus_calibration_uses(tmp_path: Path, big_suite: Path) -> None:
    """Adjudicated: the ruling. Reviewers split 2/1 (median 1.5, off the scale): unresolved, counted, not used."""
    db = tmp_path / "q.db"
    rows = run_json(db, big_suite)["cases"]
    labels = []
    for i, row in enumerate(rows[:4]):
        for reviewer, score in (("ana", 2), ("ben", 2 if i < 2 else 1 if i == 2 else 0)):
            labels.append(label(row["item_id"], row["case_id"], reviewer, {"faithfulness": score}))
    with Store.open(db) as store:
        store.insert_labels(labels, origin="import")
        store.insert_adjudication(rows[3]["item_id"], "faithfulness", 0, "the answer adds a detail", "chloe")
    faith = run_json(db, big_suite)["ppi"]["metrics"]["faithfulness_rate"]
    # case 2 (2 vs 1) has no consensus; case 3 is adjudicated 0; cases 0 and 1 agree on 2
    assert faith["n_labelled"] == 3 and faith["excluded"]["no_human_consensus"] == 1
    assert faith["labelled_mean"] == pytest.approx(2 / 3)


def test_statistical_mode_refuses_a_ppi_row_rather_than_test_it_as_paired(tmp_path: Path, big_suite: Path) -> None:
    # The paired sign-flip test and MDE describe per-case judge values; a PPI estimate is compared
    # unpaired, so in statistical mode its row has no test: no verdict (exit 3), never a pass.
    db, baseline, config = tmp_path / "q.db", tmp_path / "baseline.json", tmp_path / "qaeval.toml"
    config.write_text(PPI_CONFIG + '\nmode = "statistical"\n')
    label_cases(db, run_json(db, big_suite))
    assert qaeval(db, "baseline", "--data", str(big_suite), "--out", str(baseline)).exit_code == 0
    refused = gate(db, big_suite, baseline, config)
    assert refused.exit_code == 3, refused.output
    row = next(m for m in json.loads(refused.stdout)["metrics"] if m["name"] == "faithfulness_rate")
    assert row["basis"] == "ppi" and row["status"] == "refused" and row["statistics"] is None
    assert "is compared unpaired, so the paired test has nothing to test" in row["reason"]


def test_ppi_reads_labels_with_the_min_reviewers_calibrate_uses(tmp_path: Path, big_suite: Path) -> None:
    """One blind reviewer per item: no consensus under the default `min_reviewers = 2`, a consensus under 1.

    PPI's human values are the consensus `qaeval calibrate` compares the judge with, under the same
    `[calibration] min_reviewers`; the run's estimate and calibrate's n move together."""
    db, config = tmp_path / "q.db", tmp_path / "qaeval.toml"
    first = run_json(db, big_suite)
    rows = first["cases"]
    labels = [
        label(row["item_id"], row["case_id"], "ana", {"faithfulness": faithfulness(i)})
        for i, row in enumerate(rows[:N_LABELLED])
    ]
    with Store.open(db) as store:
        store.insert_labels(labels, origin="import")

    def ppi_and_calibrate(config_path: Path | None) -> tuple[dict[str, Any], int]:
        ran = qaeval(db, "run", "--data", str(big_suite), "--json", config=config_path)
        assert ran.exit_code == 0, ran.output
        calibrated = qaeval(db, "calibrate", "--json", config=config_path)
        assert calibrated.exit_code in (0, 1, 3), calibrated.output  # a verdict on the judge, whichever
        n: int = json.loads(calibrated.stdout)["axes"]["faithfulness"]["n"]
        return json.loads(ran.stdout)["ppi"]["metrics"]["faithfulness_rate"], n

    faith, calibrate_n = ppi_and_calibrate(None)  # min_reviewers = 2: one reviewer is no consensus
    assert faith["value"] is None and faith["n_labelled"] == 0 == calibrate_n
    assert faith["excluded"]["no_human_consensus"] == N_LABELLED

    config.write_text("[calibration]\nmin_reviewers = 1\n")
    faith, calibrate_n = ppi_and_calibrate(config)
    assert faith["n_labelled"] == N_LABELLED == calibrate_n
    human = {i: 1.0 if faithfulness(i) == 2 else 0.0 for i in range(N_LABELLED)}
    assert faith["value"] == pytest.approx(expected_ppi(first, human))
    assert faith["excluded"]["no_human_consensus"] == 0


def label_first(db: Path, document: dict[str, Any], count: int) -> None:
    """Two blind reviewers give the top score on every axis to the first `count` answerable cases."""
    scores = {"faithfulness": 2, "citation_correctness": 2, "answer_correctness": 2}
    labels = [
        label(row["item_id"], row["case_id"], reviewer, scores)
        for row in document["cases"][:count]
        for reviewer in ("ana", "ben")
    ]
    with Store.open(db) as store:
        store.insert_labels(labels, origin="import")


def ppi_baseline(tmp_path: Path, suite: Path) -> tuple[Path, Path, Path]:
    """The store, a baseline written with 42 labelled cases (an interval on each estimate), the PPI config."""
    db, baseline, config = tmp_path / "q.db", tmp_path / "baseline.json", tmp_path / "qaeval.toml"
    config.write_text(PPI_CONFIG)
    label_cases(db, run_json(db, suite))
    assert qaeval(db, "baseline", "--data", str(suite), "--out", str(baseline)).exit_code == 0
    return db, baseline, config


def test_the_gate_on_ppi_refuses_a_run_with_too_few_labels_for_an_interval(tmp_path: Path, big_suite: Path) -> None:
    # Five labelled cases where the humans give the top score: the estimate leaps up, with no
    # interval to say how far it could be off. It is no number to gate: exit 2, never a pass.
    _, baseline, config = ppi_baseline(tmp_path, big_suite)
    few = tmp_path / "few.db"
    label_first(few, run_json(few, big_suite), 5)
    refused = gate(few, big_suite, baseline, config)
    assert refused.exit_code == 2, refused.output
    assert refused.stdout == ""
    assert (
        "faithfulness_rate: this run's PPI estimate 1.000 has no interval (5 labelled cases; an interval needs at "
        "least 40" in refused.stderr
    )


def test_the_gate_on_ppi_refuses_a_baseline_estimate_without_an_interval(tmp_path: Path, big_suite: Path) -> None:
    db, baseline, config = tmp_path / "q.db", tmp_path / "baseline.json", tmp_path / "qaeval.toml"
    config.write_text(PPI_CONFIG)
    label_first(db, run_json(db, big_suite), 5)
    assert qaeval(db, "baseline", "--data", str(big_suite), "--out", str(baseline)).exit_code == 0
    recorded = json.loads(baseline.read_text())["ppi"]["metrics"]["faithfulness_rate"]
    assert (recorded["value"], recorded["n_labelled"], recorded["ci"]) == (1.0, 5, None)  # what the gate reads
    label_cases(db, run_json(db, big_suite), revision=2)  # now enough labels: the baseline is what lacks them
    with Store.open(db) as store:
        runs = len(store.list_runs())
    refused = gate(db, big_suite, baseline, config)
    assert refused.exit_code == 2, refused.output
    assert re.search(
        rf"{re.escape(str(baseline))}:\d+: ppi\.metrics\.faithfulness_rate\.n_labelled: 5 labelled case\(s\): "
        r"too few for an interval \(at least 40\)",
        refused.stderr,
    ), refused.stderr
    with Store.open(db) as store:
        assert len(store.list_runs()) == runs  # refused before the suite ran


def test_a_baseline_estimate_without_its_precision_is_refused_with_its_line(tmp_path: Path, big_suite: Path) -> None:
    # A baseline written before n_labelled and ci were read back (or hand-edited): the gate cannot
    # know how precise the value is, so it will not gate on it.
    db, baseline, config = ppi_baseline(tmp_path, big_suite)
    document = json.loads(baseline.read_text())
    for entry in document["ppi"]["metrics"].values():
        del entry["n_labelled"], entry["ci"]
    text = json.dumps(document, indent=2)
    baseline.write_text(text)
    lines = text.splitlines()
    line = lines.index('      "faithfulness_rate": {', lines.index('  "ppi": {')) + 1
    refused = gate(db, big_suite, baseline, config)
    assert refused.exit_code == 2, refused.output
    assert (
        f"{baseline}:{line}: ppi.metrics.faithfulness_rate.n_labelled: not recorded, so the precision of the "
        "baseline's PPI estimate is unknown" in refused.stderr
    ), refused.stderr
    assert gate(db, big_suite, baseline, None).exit_code == 0  # gated on the judge mean, the file is fine


def test_a_bad_n_labelled_or_interval_in_the_baseline_is_named_with_its_line(tmp_path: Path, big_suite: Path) -> None:
    db, baseline, _ = ppi_baseline(tmp_path, big_suite)
    document = json.loads(baseline.read_text())
    document["ppi"]["metrics"]["faithfulness_rate"]["n_labelled"] = "42"
    document["ppi"]["metrics"]["answer_correctness"]["ci"] = [0.9, 0.6]
    baseline.write_text(json.dumps(document, indent=2))
    result = gate(db, big_suite, baseline, None)
    assert result.exit_code == 2
    where = re.escape(str(baseline))
    assert re.search(
        rf"{where}:\d+: ppi\.metrics\.faithfulness_rate\.n_labelled: must be a whole number", result.stderr
    )
    assert re.search(rf"{where}:\d+: ppi\.metrics\.answer_correctness\.ci: low must not exceed high", result.stderr)
