"""`[gate] mode = "statistical"` through the real CLI on the demo set: a tolerance below the MDE is
refused with exit 3 (also through the supervised child process, never read as a pass), a planted
significant drop beyond its tolerance blocks, a drop within it passes; `tolerance` mode keeps its
decisions and warns; `qaeval plan` prints the suite size a target MDE needs."""

from __future__ import annotations

import json
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


def gate(root: Path, config: Path, baseline: Path = BASELINE, *extra: str) -> Result:
    args = ["--config", str(config), "gate", "--baseline", str(baseline), "--data", str(DEMO_GOLDEN)]
    return runner.invoke(app, [*args, "--db", str(root / "runs.db"), *extra])


def planted_baseline(root: Path, cases: int) -> Path:
    """The demo baseline, but `cases` of the cases the hub gets partly or wholly wrong (16 at 0.5, then
    5 at 0) scored correct: a drop planted now."""
    document = json.loads(BASELINE.read_text(encoding="utf-8"))
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
    assert (
        "warning: this suite cannot resolve a 0.02 drop in faithfulness_rate; it resolves 0.164 with 31 cases; "
        "~2082 cases would resolve 0.02" in result.stdout
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
    faithfulness = next(m for m in document["metrics"] if m["name"] == "faithfulness_rate")
    assert faithfulness["status"] == "refused" and faithfulness["statistics"]["tolerance_resolvable"] is False
    xml = junit.read_text(encoding="utf-8")
    assert '<error type="refused"' in xml and 'errors="12"' in xml  # refused is never a JUnit pass
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
    config = write_config(tmp_path, "statistical", RESOLVABLE)
    result = gate(tmp_path, config, planted_baseline(tmp_path, 21), "--json")
    assert result.exit_code == 1, result.stdout
    document = json.loads(result.stdout)
    correctness = next(m for m in document["metrics"] if m["name"] == "answer_correctness")
    assert correctness["status"] == "fail" and correctness["statistics"]["significant"] is True
    assert correctness["delta"] < -0.3 and correctness["statistics"]["mde"] <= 0.3
    assert document["statistics"]["refused_metrics"] == []


def test_statistical_mode_passes_a_drop_that_is_not_significant(tmp_path: Path) -> None:
    # Three of 39 cases half a point worse: within the tolerance and not significant. The same drop
    # under the tolerance gate with a tolerance of 0.02 blocks.
    planted = planted_baseline(tmp_path, 3)
    # This baseline's spread is wider (0.5s beside the 1s): it resolves 0.4, not 0.3.
    tolerances = RESOLVABLE | {"answer_correctness": 0.4}
    statistical = gate(tmp_path, write_config(tmp_path, "statistical", tolerances), planted, "--json")
    assert statistical.exit_code == 0, statistical.stdout
    correctness = next(m for m in json.loads(statistical.stdout)["metrics"] if m["name"] == "answer_correctness")
    assert correctness["statistics"]["significant"] is False and correctness["delta"] < 0
    tolerant = gate(tmp_path, write_config(tmp_path, "tolerance", {"answer_correctness": 0.02}), planted)
    assert tolerant.exit_code == 1


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
    tolerances = RESOLVABLE | {"faithfulness_rate": 0.02}
    result = gate(tmp_path, write_config(tmp_path, "statistical", tolerances), planted_baseline(tmp_path, 21))
    assert result.exit_code == 1 and "GATE: BLOCK" in result.stdout
    assert "besides the block, 1 metric(s) refused (faithfulness_rate)" in result.stdout
