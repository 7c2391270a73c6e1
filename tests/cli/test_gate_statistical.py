"""`[gate] mode = "statistical"` through the real CLI on the demo set: a tolerance below the MDE is
refused with exit 3 (also through the supervised child process, never read as a pass), a planted
significant drop beyond its tolerance blocks, a drop within it passes; `tolerance` mode keeps its
decisions and warns; `qaeval plan` prints the suite size a target MDE needs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.running.metrics import METRIC_NAMES
from tests.conftest import DEMO_GOLDEN, REPO

BASELINE = REPO / "baselines" / "demo.json"
QAEVAL = Path(sys.executable).parent / "qaeval"
runner = CliRunner()


def write_config(root: Path, mode: str, tolerances: dict[str, float] | None = None) -> Path:
    lines = ["[gate]", f'mode = "{mode}"']
    if tolerances:
        lines += ["[gate.tolerances]", *(f"{name} = {value}" for name, value in tolerances.items())]
    path = root / "qaeval.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def gate(root: Path, config: Path, baseline: Path = BASELINE, *extra: str, data: Path = DEMO_GOLDEN) -> Result:
    args = ["--config", str(config), "gate", "--baseline", str(baseline), "--data", str(data)]
    return runner.invoke(app, [*args, "--db", str(root / "runs.db"), *extra])


def twice(root: Path) -> tuple[Path, Path]:
    """The demo set with every case twice (its 8 must-abstain cases become 16: with 8 and m = 12 metrics no
    abstention drop can reach significance, so statistical mode on the demo always refuses abstention_recall),
    and its baseline."""
    folder = root / "twice"
    folder.mkdir()
    for source in sorted(DEMO_GOLDEN.glob("*.jsonl")):
        cases = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
        twins = [{**case, "id": f"{case['id']}-twin"} for case in cases]
        lines = [json.dumps(case, ensure_ascii=False) for case in cases + twins]
        (folder / source.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    baseline = root / "twice.json"
    made = runner.invoke(app, ["baseline", "--data", str(folder), "--out", str(baseline), "--db", str(root / "b.db")])
    assert made.exit_code == 0, made.output
    return folder, baseline


def planted_baseline(root: Path, cases: int, baseline: Path = BASELINE) -> Path:
    """The baseline, but `cases` of the cases the hub gets partly or wholly wrong (on the demo: 16 at 0.5,
    then 5 at 0) scored correct: a drop planted now."""
    document = json.loads(baseline.read_text(encoding="utf-8"))
    wrong = [case for case in document["cases"] if case["values"]["answer_correctness"] < 1.0]
    wrong.sort(key=lambda case: -case["values"]["answer_correctness"])
    for case in wrong[:cases]:
        case["values"]["answer_correctness"] = 1.0
    values = [case["values"]["answer_correctness"] for case in document["cases"]]
    document["metrics"]["overall"]["answer_correctness"]["value"] = sum(values) / len(values)
    path = root / "planted.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


# Every gated tolerance above its MDE on the demo set, answer correctness at 0.3.
RESOLVABLE = {name: 1.0 for name in METRIC_NAMES if name != "deterministic_pass_rate"} | {"answer_correctness": 0.3}


def test_tolerance_mode_keeps_its_verdict_and_warns_where_a_tolerance_is_below_the_mde(tmp_path: Path) -> None:
    result = gate(tmp_path, write_config(tmp_path, "tolerance"))
    assert result.exit_code == 0 and "GATE: PASS" in result.stdout
    warning = next(line for line in result.stdout.splitlines() if line.startswith("warning: "))
    assert "faithfulness_rate" in warning and "says how many cases each needs" in warning
    assert "this suite cannot resolve a 0.02 drop in faithfulness_rate; it resolves 0.164 with 31 cases" in (
        gate(tmp_path, write_config(tmp_path, "tolerance"), BASELINE, "--json").stdout
    )


def test_statistical_mode_refuses_a_tolerance_below_the_mde_with_exit_3_in_every_output(tmp_path: Path) -> None:
    config = write_config(tmp_path, "statistical")
    junit, markdown = tmp_path / "gate.xml", tmp_path / "gate.md"
    result = gate(tmp_path, config, BASELINE, "--junit", str(junit), "--markdown", str(markdown))
    assert result.exit_code == 3, result.output
    assert "GATE: REFUSED" in result.stdout and "no verdict was reached; refusing is not passing" in result.stdout
    document = json.loads(gate(tmp_path, config, BASELINE, "--json").stdout)
    assert document["verdict"] == "REFUSED" and document["exit_code"] == 3
    assert "faithfulness_rate" in document["statistics"]["refused_metrics"]
    # Tier 2 did not pass: it reached no verdict, as the console and Markdown say.
    tier2 = document["tiers"]["tier2"]
    assert tier2["passed"] is False and tier2["failed_metrics"] == []
    assert tier2["refused_metrics"] == document["statistics"]["refused_metrics"]
    assert "Tier 2 REFUSED" in result.stdout and "### Tier 2: REFUSED" in markdown.read_text(encoding="utf-8")
    faithfulness = next(m for m in document["metrics"] if m["name"] == "faithfulness_rate")
    assert faithfulness["status"] == "refused" and faithfulness["statistics"]["tolerance_resolvable"] is False
    xml = junit.read_text(encoding="utf-8")
    # refused is never a JUnit pass; the three zero tolerances are decided per case, not refused
    assert '<error type="refused"' in xml and 'errors="9"' in xml
    assert "## qaeval gate: REFUSED" in markdown.read_text(encoding="utf-8")


def test_exit_3_passes_through_the_supervised_child_and_is_never_a_pass(tmp_path: Path) -> None:
    config = write_config(tmp_path, "statistical")
    command = [str(QAEVAL), "--config", str(config), "gate", "--baseline", str(BASELINE), "--data", str(DEMO_GOLDEN)]
    done = subprocess.run(
        [*command, "--db", str(tmp_path / "runs.db")], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 3, done.stderr
    assert "GATE: REFUSED" in done.stdout and "without a verdict" not in done.stderr


def test_code_ending_the_process_with_status_3_is_no_refusal_and_no_pass(tmp_path: Path) -> None:
    # Only the command's own verdict is exit 3: an adapter that calls os._exit(3) gave none (exit 2).
    config = write_config(tmp_path, "statistical")
    command = [str(QAEVAL), "--config", str(config), "gate", "--baseline", str(BASELINE), "--data", str(DEMO_GOLDEN)]
    adapter = ["--adapter", "tests.cli.refusal_adapters:make_exit_three_hub", "--db", str(tmp_path / "runs.db")]
    done = subprocess.run([*command, *adapter], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "error: qaeval gate ended without a verdict: the code it ran exited the process (exit 3)" in done.stderr
    assert "GATE:" not in done.stdout


def test_statistical_mode_blocks_a_planted_significant_drop_beyond_its_tolerance(tmp_path: Path) -> None:
    # Every wrong answer of the doubled demo planted as right in the baseline: a 0.33 drop, significant.
    # The tolerance, 0.1, is above what the baseline resolves (0.066); the drop widens the spread of the
    # differences, which once raised the MDE above 0.1 and refused it. A significant drop beyond its
    # tolerance is a BLOCK.
    data, baseline = twice(tmp_path)
    config = write_config(tmp_path, "statistical", RESOLVABLE | {"answer_correctness": 0.1})
    result = gate(tmp_path, config, planted_baseline(tmp_path, 42, baseline), "--json", data=data)
    assert result.exit_code == 1, result.stdout
    document = json.loads(result.stdout)
    correctness = next(m for m in document["metrics"] if m["name"] == "answer_correctness")
    assert correctness["status"] == "fail" and correctness["statistics"]["significant"] is True
    assert correctness["delta"] < -0.3 and correctness["statistics"]["mde"] <= 0.1
    assert document["statistics"]["refused_metrics"] == [] and document["verdict"] == "BLOCK"


def test_statistical_mode_passes_a_drop_that_is_not_significant(tmp_path: Path) -> None:
    # Six of 78 cases half a point worse: within the tolerance and not significant. The same drop
    # under the tolerance gate with a tolerance of 0.02 blocks.
    data, baseline = twice(tmp_path)
    planted = planted_baseline(tmp_path, 6, baseline)
    statistical = gate(tmp_path, write_config(tmp_path, "statistical", RESOLVABLE), planted, "--json", data=data)
    assert statistical.exit_code == 0, statistical.stdout
    correctness = next(m for m in json.loads(statistical.stdout)["metrics"] if m["name"] == "answer_correctness")
    assert correctness["statistics"]["significant"] is False and correctness["delta"] < 0
    tolerant = gate(tmp_path, write_config(tmp_path, "tolerance", {"answer_correctness": 0.02}), planted, data=data)
    assert tolerant.exit_code == 1


def test_statistical_mode_on_a_metric_too_few_cases_can_test_refuses_and_never_passes(tmp_path: Path) -> None:
    # The demo's 8 must-abstain cases with 12 metrics checked: the smallest p-value the sign-flip test can
    # give is 2^(1-8), x 12 = 0.094 > 0.05, so no abstention drop, not even all 8 cases failing, could be
    # significant. Every tolerance generous: before, this passed (exit 0) and would have passed a collapse.
    tolerances = RESOLVABLE | {"answer_correctness": 0.35}  # the demo resolves 0.303
    result = gate(tmp_path, write_config(tmp_path, "statistical", tolerances), BASELINE, "--json")
    assert result.exit_code == 3, result.stdout
    document = json.loads(result.stdout)
    assert document["verdict"] == "REFUSED" and document["statistics"]["refused_metrics"] == ["abstention_recall"]
    abstention = next(m for m in document["metrics"] if m["name"] == "abstention_recall")
    assert abstention["statistics"]["mde"] is None and abstention["statistics"]["tolerance_resolvable"] is False
    assert "with 8 cases no drop can be significant" in abstention["reason"]
    planned = runner.invoke(app, ["plan", "--baseline", str(BASELINE), "--metric", "abstention_recall", "--json"])
    row = json.loads(planned.stdout)["metrics"][0]
    assert row["mde"] is None and "no finite MDE" in row["reason"]


def test_tier_1_still_blocks_with_exit_1_in_statistical_mode(tmp_path: Path) -> None:
    config = write_config(tmp_path, "statistical")
    args = ["--config", str(config), "gate", "--baseline", str(BASELINE), "--data", str(REPO / "golden_buggy")]
    result = runner.invoke(
        app, [*args, "--adapter", "qaeval_tui.bundled.buggy_hub:make_buggy_hub", "--db", str(tmp_path / "runs.db")]
    )
    assert result.exit_code == 1 and "GATE: BLOCK" in result.stdout


def test_an_unknown_mode_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    result = gate(tmp_path, write_config(tmp_path, "bayesian"))
    assert result.exit_code == 2 and "gate.mode" in result.stderr and "Traceback" not in result.output


def test_plan_prints_the_suite_size_a_target_mde_needs_and_agrees_with_the_gate(tmp_path: Path) -> None:
    result = runner.invoke(app, ["plan", "--baseline", str(BASELINE), "--mde", "0.1", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    faithfulness = next(m for m in document["metrics"] if m["name"] == "faithfulness_rate")
    assert faithfulness["n"] == 31 and round(faithfulness["mde"], 3) == 0.164  # what the gate warns with
    assert faithfulness["cases_needed"] > 31 and faithfulness["suite_size_needed"] >= faithfulness["cases_needed"]
    one = runner.invoke(app, ["plan", "--baseline", str(BASELINE), "--metric", "mrr"])
    assert one.exit_code == 0 and "mrr" in one.stdout and "faithfulness_rate" not in one.stdout
    bad = runner.invoke(app, ["plan", "--baseline", str(BASELINE), "--metric", "nope"])
    assert bad.exit_code == 2 and "--metric: unknown metric 'nope'" in bad.stderr
    zero = runner.invoke(app, ["plan", "--baseline", str(BASELINE), "--mde", "0"])
    assert zero.exit_code == 2 and "--mde" in zero.stderr


def test_a_block_wins_over_a_refusal_and_says_which_metrics_were_refused(tmp_path: Path) -> None:
    # The planted drop blocks; faithfulness at a tolerance of 0.02 cannot be resolved: exit 1, both named.
    data, baseline = twice(tmp_path)
    tolerances = RESOLVABLE | {"faithfulness_rate": 0.02}
    config = write_config(tmp_path, "statistical", tolerances)
    planted = planted_baseline(tmp_path, 42, baseline)
    result = gate(tmp_path, config, planted, data=data)
    assert result.exit_code == 1 and "GATE: BLOCK" in result.stdout
    assert "besides the block, 1 metric(s) refused (faithfulness_rate)" in result.stdout
    tier2 = json.loads(gate(tmp_path, config, planted, "--json", data=data).stdout)["tiers"]["tier2"]
    assert tier2["passed"] is False and tier2["refused_metrics"] == ["faithfulness_rate"]
    assert tier2["failed_metrics"] == ["answer_correctness"]


def test_plan_and_the_gate_print_the_same_mde_for_the_same_baseline(tmp_path: Path) -> None:
    # The MDE is the suite's, planned from the baseline: a change (here 21 answers worse) does not move it.
    planted = planted_baseline(tmp_path, 21)
    config = write_config(tmp_path, "statistical", RESOLVABLE)
    gated = json.loads(gate(tmp_path, config, planted, "--json").stdout)
    planned = runner.invoke(app, ["--config", str(config), "plan", "--baseline", str(planted), "--json"])
    plan_mde = {row["name"]: row["mde"] for row in json.loads(planned.stdout)["metrics"]}
    gate_mde = {m["name"]: m["statistics"]["mde"] for m in gated["metrics"] if m["statistics"] is not None}
    assert gate_mde == plan_mde and len(gate_mde) == 12
    assert round(gate_mde["answer_correctness"], 3) == 0.131  # the planted baseline scored every answer 1.0
    console = runner.invoke(app, ["--config", str(config), "plan", "--baseline", str(planted)]).stdout
    assert re.search(r"answer_correctness +39 +0\.131 ", console)
    assert re.search(r"answer_correctness +39 +\S+ +\S+ +\S+ +0\.131 ", gate(tmp_path, config, planted).stdout)


def test_plan_says_a_metric_without_a_tolerance_is_not_gated_instead_of_inventing_a_target(tmp_path: Path) -> None:
    args = ["plan", "--baseline", str(BASELINE), "--metric", "deterministic_pass_rate"]
    console = runner.invoke(app, args)
    assert console.exit_code == 0 and "not gated" in console.stdout
    assert "0.000" not in console.stdout and "target 0" not in console.stdout
    row = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["metrics"][0]
    assert row["target_mde"] is None and row["cases_needed"] is None and "not gated" in row["reason"]
    aimed = json.loads(runner.invoke(app, [*args, "--mde", "0.1", "--json"]).stdout)["metrics"][0]
    assert aimed["target_mde"] == 0.1 and aimed["cases_needed"] > 39 and aimed["reason"] is None


def readme_statistical_config(root: Path) -> Path:
    """The statistical configuration the README shows for the demo (section `qaeval gate`), copied from it."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- statistical-demo-config -->\n```toml\n", 1)[1].split("```", 1)[0]
    path = root / "qaeval.toml"
    path.write_text(block, encoding="utf-8")
    return path


def test_the_readmes_statistical_configuration_passes_the_unchanged_demo_and_blocks_the_buggy_hub(
    tmp_path: Path,
) -> None:
    config = readme_statistical_config(tmp_path)
    passed = gate(tmp_path, config, BASELINE, "--json")
    assert passed.exit_code == 0, passed.stdout
    document = json.loads(passed.stdout)
    statuses = {m["name"]: m["status"] for m in document["metrics"]}
    assert len(statuses) == len(METRIC_NAMES)  # the ungated metrics are shown, as information
    assert statuses["answer_correctness"] == "info" and statuses["retrieval_recall_at_k"] == "pass"
    assert document["statistics"]["refused_metrics"] == []
    args = ["--config", str(config), "gate", "--baseline", str(BASELINE), "--data", str(REPO / "golden_buggy")]
    buggy = runner.invoke(
        app, [*args, "--adapter", "qaeval_tui.bundled.buggy_hub:make_buggy_hub", "--db", str(tmp_path / "b.db")]
    )
    assert buggy.exit_code == 1 and "GATE: BLOCK" in buggy.stdout


def test_a_sampled_gate_reports_the_run_to_run_spread_and_warns_where_a_tolerance_is_inside_it(
    tmp_path: Path,
) -> None:
    # A system that drops its citations every other time it is asked: with 2 samples a case each case has one
    # sample of each, so citation precision varies within every answered case.
    varying = ["--adapter", "tests.cli.run_adapters:make_varying_hub", "--samples", "2"]
    made = runner.invoke(
        app,
        [
            "baseline",
            "--data",
            str(DEMO_GOLDEN),
            "--out",
            str(tmp_path / "b.json"),
            "--db",
            str(tmp_path / "b.db"),
            *varying,
        ],
    )
    assert made.exit_code == 0, made.output
    result = gate(tmp_path, write_config(tmp_path, "tolerance"), tmp_path / "b.json", *varying, "--json")
    document = json.loads(result.stdout)
    statistics = document["statistics"]
    assert statistics["samples"] == 2
    spread = {row["name"]: row for row in statistics["spread"]}
    assert spread["citation_coverage"]["band"] > 0.01 and spread["citation_coverage"]["warning"] is not None
    assert spread["citation_coverage"]["warning"] in statistics["mde_warnings"]
    console = gate(tmp_path, write_config(tmp_path, "tolerance"), tmp_path / "b.json", *varying).stdout
    assert "run-to-run spread (2 samples a case" in console and "is inside its run-to-run spread" in console
