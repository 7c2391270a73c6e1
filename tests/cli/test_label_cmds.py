"""`qaeval queue`, `labels export|import`, `agreement`, `calibrate`: outputs and documented exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.config import Config
from qaeval_tui.core.review.session import ReviewSession
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import REPO
from tests.core.review_fixtures import FULL, store_with_run

runner = CliRunner()
AXES = ("faithfulness", "citation_correctness", "answer_correctness")


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every command in an empty folder, so no stray store, labels or config is picked up."""
    monkeypatch.chdir(tmp_path)


def write_labels(folder: Path, by_reviewer: dict[str, list[tuple[str, dict[str, int | None]]]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for reviewer, rows in by_reviewer.items():
        lines = [
            {
                "item_id": item, "case_id": f"case-{item}", "reviewer": reviewer, "scores": scores, "note": "",
                "flagged": False, "skipped": False, "rubric_version": "1", "revealed": False, "revision": 1,
                "created_at": "2026-01-01T00:00:00Z", "seconds_spent": 1.0,
            }
            for item, scores in rows
        ]  # fmt: skip
        (folder / f"{reviewer}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def write_verdicts(folder: Path, scores: dict[str, dict[str, int | None]], judge_name: str = "mech") -> None:
    lines = [
        {
            "item_id": item, "case_id": f"case-{item}", "status": "ok", "scores": s, "evidence": {},
            "judge": {"name": judge_name, "model": "m", "config_hash": "J1", "rubric_version": "1"},
            "created_at": "2026-01-01T00:00:00Z",
        }
        for item, s in scores.items()
    ]  # fmt: skip
    (folder / "judge-verdicts.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def labeled_folder(folder: Path, judge: dict[str, int], n: int = 24, human: int = 2) -> Path:
    """Two reviewers agreeing on `n` items (each axis `human`); the judge gives `judge[axis]`."""
    items = [f"i{k:03d}" for k in range(n)]
    rows: list[tuple[str, dict[str, int | None]]] = [(item, dict.fromkeys(AXES, human)) for item in items]
    write_labels(folder, {"ana": rows, "ben": rows[: n // 2]})
    write_verdicts(folder, {item: {axis: judge[axis] for axis in AXES} for item in items})
    return folder


def varied_folder(folder: Path, wrong: dict[str, int] | None = None, n: int = 60, judge_name: str = "mech") -> Path:
    """Two reviewers agreeing on `n` items whose values vary (item k: k % 3 on every axis); the judge
    agrees with them except on the last `wrong[axis]` items of an axis, where it is one step off."""
    items = [f"i{k:03d}" for k in range(n)]
    rows: list[tuple[str, dict[str, int | None]]] = [(item, dict.fromkeys(AXES, k % 3)) for k, item in enumerate(items)]
    write_labels(folder, {"ana": rows, "ben": rows})
    off = wrong or {}
    scores = {item: {axis: (k % 3 + (k >= n - off.get(axis, 0))) % 3 for axis in AXES} for k, item in enumerate(items)}
    write_verdicts(folder, scores, judge_name)
    return folder


# -- queue and label files ------------------------------------------------------------------------------


def test_queue_assigns_the_latest_run_and_reports_the_load(tmp_path: Path) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=9)
    store.close()
    result = runner.invoke(
        app, ["queue", "--db", "q.db", "--reviewers", "a,b,c", "--overlap", "2", "--seed", "7", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["new_review_items"], data["items"], data["load"]) == (9, 9, {"a": 6, "b": 6, "c": 6})
    text = runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "a,b,c"])
    assert text.exit_code == 0 and "0 new review item(s), 9 in all" in text.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--reviewers", "a,b", "--overlap", "3"], "overlap must be between 1 and"),
        (["--run", "nope"], "no run named 'nope'"),
    ],
)
def test_queue_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    store_with_run(tmp_path / "q.db", n_items=2)[0].close()
    result = runner.invoke(app, ["queue", "--db", "q.db", *args])
    assert result.exit_code == 2 and message in result.stderr


def test_queue_without_a_store_is_a_usage_error() -> None:
    result = runner.invoke(app, ["queue"])
    assert result.exit_code == 2 and "run `qaeval run` first" in result.stderr


def test_export_then_import_twice_changes_nothing_the_second_time(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "a.db", n_items=3)
    store.close()
    assert runner.invoke(app, ["queue", "--db", "a.db", "--reviewers", "ana", "--overlap", "1"]).exit_code == 0
    with Store.open(tmp_path / "a.db") as store:
        ReviewSession(store, Config(), "ana").submit(items[0], FULL, "", False, 1.0)
    exported = runner.invoke(app, ["labels", "export", "--db", "a.db", "--out", "out", "--verdicts"])
    assert exported.exit_code == 0, exported.output
    assert (tmp_path / "out" / "ana.jsonl").is_file() and (tmp_path / "out" / "judge-verdicts.jsonl").is_file()
    first = runner.invoke(app, ["labels", "import", "out", "--db", "b.db", "--json"])
    second = runner.invoke(app, ["labels", "import", "out", "--db", "b.db", "--json"])
    assert first.exit_code == second.exit_code == 0, first.output
    assert (json.loads(first.stdout)["added"], json.loads(second.stdout)["added"]) == (1, 0)
    assert json.loads(second.stdout)["unchanged"] == 1


def test_invalid_import_exits_1_names_file_and_line_and_imports_nothing(tmp_path: Path) -> None:
    write_labels(tmp_path / "in", {"ana": [("i1", {"faithfulness": 2}), ("i2", {"faithfulness": 9})]})
    result = runner.invoke(app, ["labels", "import", "in", "--db", "b.db"])
    assert result.exit_code == 1
    assert f"{Path('in') / 'ana.jsonl'}:2: scores.faithfulness:" in result.stderr
    assert "nothing was changed" in result.stderr
    with Store.open(tmp_path / "b.db") as store:
        assert store.labels() == []  # i1 was valid, yet nothing was imported


def test_csv_import_with_a_mapping(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=1)
    store.close()
    runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "ana", "--overlap", "1"])
    (tmp_path / "theirs.csv").write_text(f"who,item,faith\nzoe,{items[0]},1\n")
    args = [
        "labels",
        "import",
        "theirs.csv",
        "--db",
        "q.db",
        "--map",
        "reviewer=who,item_id=item",
        "--map",
        "faithfulness=faith",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0 and "added 1" in result.stdout
    assert "added 0, 1 already present" in runner.invoke(app, args).stdout
    assert runner.invoke(app, ["labels", "import", "theirs.csv", "--db", "q.db", "--map", "oops"]).exit_code == 2


# -- agreement ---------------------------------------------------------------------------------------------


def test_agreement_json_has_the_documented_fields(tmp_path: Path) -> None:
    labeled_folder(tmp_path / "labels", dict.fromkeys(AXES, 2))
    result = runner.invoke(app, ["agreement", "--labels", "labels", "--json", "--replicates", "200", "--seed", "4"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for axis in data["axes"].values():
        assert {"alpha", "state", "reason", "ci", "n_items", "n_pairable", "raw_agreement", "distribution"} <= set(axis)
        # Everyone gave 2 everywhere: no variation, so alpha is a state with a reason, not a number.
        assert (axis["alpha"], axis["state"], axis["raw_agreement"]) == (None, "undefined", 1.0)
        assert axis["bootstrap"]["replicates"] == 200 and axis["bootstrap"]["seed"] == 4
    assert set(data["pairwise"]) == set(AXES)


def test_agreement_without_labels_is_a_usage_error() -> None:
    result = runner.invoke(app, ["agreement"])
    assert result.exit_code == 2 and "no labels" in result.stderr


def test_agreement_markdown_and_html_files(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "agreement",
            "--labels",
            str(REPO / "labels"),
            "--markdown",
            "a.md",
            "--html",
            "a.html",
            "--replicates",
            "100",
        ],
    )
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "a.md").read_text()
    assert markdown.startswith("## Inter-rater agreement") and "| faithfulness | ordinal |" in markdown
    html = (tmp_path / "a.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "http" not in html and "<script" not in html


def test_two_outputs_on_stdout_is_a_usage_error(tmp_path: Path) -> None:
    labeled_folder(tmp_path / "labels", dict.fromkeys(AXES, 2))
    result = runner.invoke(app, ["agreement", "--labels", "labels", "--json", "--markdown", "-"])
    assert result.exit_code == 2


# -- calibrate -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wrong", "n", "code", "verdict"),
    [
        ({}, 60, 0, "TRUSTED"),
        ({"citation_correctness": 40}, 60, 1, "RETUNE"),
        ({}, 10, 3, "INSUFFICIENT"),
    ],
)
def test_calibrate_exit_codes(tmp_path: Path, wrong: dict[str, int], n: int, code: int, verdict: str) -> None:
    varied_folder(tmp_path / "labels", wrong, n=n)
    result = runner.invoke(app, ["calibrate", "--labels", "labels", "--json"])
    assert result.exit_code == code, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == verdict and data["judge_config_hash"] == "J1" and data["rubric_version"] == "1"
    fields = {
        "n",
        "exact",
        "exact_ci",
        "within_one",
        "mae",
        "bias",
        "kappa",
        "kappa_quadratic",
        "alpha",
        "confusion",
        "verdict",
    }
    assert all(fields <= set(axis) for axis in data["axes"].values())
    assert data["axes"]["faithfulness"]["n"] == n


def test_calibrate_usage_error_exits_2(tmp_path: Path) -> None:
    write_labels(tmp_path / "labels", {"ana": [("i1", dict.fromkeys(AXES, 2))]})
    result = runner.invoke(app, ["calibrate", "--labels", "labels"])
    assert result.exit_code == 2 and "no judge verdicts" in result.stderr


def test_calibrate_console_and_html_escape_data(tmp_path: Path) -> None:
    varied_folder(tmp_path / "labels", judge_name="<b>[red]judge")
    result = runner.invoke(app, ["calibrate", "--labels", "labels", "--html", "c.html"])
    assert result.exit_code == 0, result.output
    assert "Judge calibration: TRUSTED" in result.stdout and "<b>[red]judge" in result.stdout
    html = (tmp_path / "c.html").read_text()
    assert "&lt;b&gt;[red]judge" in html and "<b>[red]" not in html and 'class="grid"' in html


def test_demo_labels_calibrate_and_agree_out_of_the_box() -> None:
    """The committed demo labels (synthetic) are computable: agreement exit 0, calibration exit 1 (one axis RETUNE)."""
    agreement = runner.invoke(app, ["agreement", "--labels", str(REPO / "labels"), "--replicates", "100"])
    assert agreement.exit_code == 0, agreement.output
    calibration = runner.invoke(app, ["calibrate", "--labels", str(REPO / "labels"), "--json"])
    data = json.loads(calibration.stdout)
    assert calibration.exit_code == 1 and data["verdict"] == "RETUNE"
    assert data["axes"]["citation_correctness"]["verdict"] == "RETUNE"
    assert min(axis["n"] for axis in data["axes"].values()) >= 20


def test_any_scale_and_level_through_the_commands(tmp_path: Path) -> None:
    (tmp_path / "qaeval.toml").write_text(
        """[rubric]
version = "5pt"
[[rubric.axes]]
name = "quality"
scale = [1, 2, 3, 4, 5]
level = "interval"
anchors = ["a", "b", "c", "d", "e"]
[[rubric.axes]]
name = "correct"
scale = [0, 1]
level = "nominal"
anchors = ["no", "yes"]
needs_gold = true
"""
    )
    items = [f"i{k:03d}" for k in range(60)]
    ana: list[tuple[str, dict[str, int | None]]] = [
        (i, {"quality": 1 + k % 5, "correct": k % 2}) for k, i in enumerate(items)
    ]
    ben: list[tuple[str, dict[str, int | None]]] = [
        (i, {"quality": 1 + (k + (k % 7 == 0)) % 5, "correct": k % 2}) for k, i in enumerate(items)
    ]
    write_labels(tmp_path / "labels", {"ana": ana, "ben": ben})
    for path in (tmp_path / "labels").glob("*.jsonl"):
        path.write_text(path.read_text().replace('"rubric_version": "1"', '"rubric_version": "5pt"'))
    judge = {"name": "j", "model": "m", "config_hash": "J5", "rubric_version": "5pt"}
    lines = [
        {"item_id": i, "case_id": f"case-{i}", "status": "ok", "scores": {"quality": 1 + k % 5, "correct": 1},
         "evidence": {}, "created_at": "t", "judge": judge}
        for k, i in enumerate(items)
    ]  # fmt: skip
    (tmp_path / "labels" / "judge-verdicts.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    agreement = json.loads(runner.invoke(app, ["agreement", "--json", "--replicates", "100"]).stdout)
    assert agreement["axes"]["quality"]["level"] == "interval" and agreement["axes"]["quality"]["alpha"] > 0.5
    assert agreement["axes"]["correct"]["alpha"] == pytest.approx(1.0)
    assert set(agreement["axes"]["quality"]["distribution"]) == {"1", "2", "3", "4", "5"}
    result = runner.invoke(app, ["calibrate", "--json"])
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["rubric_version"] == "5pt"  # the judge says "correct" everywhere: RETUNE
    assert (data["axes"]["quality"]["verdict"], data["axes"]["correct"]["verdict"]) == ("TRUSTED", "RETUNE")
    assert len(data["axes"]["quality"]["confusion"]["counts"]) == 5 and data["axes"]["correct"]["mae"] is None


# -- invalid input is exit 2 where 1 means something else; a rubric changed without a version bump --------


def _rubric_toml(faithfulness: str = "faithfulness", scale: str = "[0, 1, 2]", version: str = "1") -> str:
    anchors = ", ".join(f'"a{k}"' for k in range(len(json.loads(scale))))
    axes = [(faithfulness, scale, anchors, "false"), ("citation_correctness", "[0, 1, 2]", '"a", "b", "c"', "false")]
    axes.append(("answer_correctness", "[0, 1, 2]", '"a", "b", "c"', "true"))
    return f'[rubric]\nversion = "{version}"\n' + "".join(
        f'[[rubric.axes]]\nname = "{name}"\nscale = {points}\nanchors = [{words}]\nneeds_gold = {gold}\n'
        for name, points, words, gold in axes
    )


def labeled_store(tmp_path: Path, faithfulness: int = 2, judge_scores: int = 2) -> None:
    """q.db: two reviewers labelled every item of a run under rubric version 1 (faithfulness as given)."""
    store, items = store_with_run(tmp_path / "q.db", n_items=6, judge_scores=judge_scores)
    store.close()
    assert runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "ana,ben", "--overlap", "2"]).exit_code == 0
    with Store.open(tmp_path / "q.db") as store:
        for reviewer in ("ana", "ben"):
            session = ReviewSession(store, Config(), reviewer)
            for item in items:
                session.submit(item, {**FULL, "faithfulness": faithfulness}, "", False, 1.0)


@pytest.mark.parametrize("command", ["agreement", "calibrate"])
def test_bad_label_files_exit_2_not_1_which_calibrate_gives_retune(tmp_path: Path, command: str) -> None:
    folder = labeled_folder(tmp_path / "labels", dict.fromkeys(AXES, 2))
    with (folder / "ana.jsonl").open("a") as handle:
        handle.write('{"item_id": "i999", "reviewer": "ana", "reviewer": "zed"}\n')
    result = runner.invoke(app, [command, "--labels", "labels"])
    assert result.exit_code == 2, result.output
    assert f"{Path('labels') / 'ana.jsonl'}:25: reviewer: invalid JSON: duplicate key 'reviewer'" in result.stderr


@pytest.mark.parametrize(
    ("bad", "field", "message"),
    [
        (7, "scores.faithfulness", "7 is not on the faithfulness scale [0, 1, 2] of rubric version '1'"),
        ("2", "scores.faithfulness", "Input should be a valid integer"),
        (True, "scores.faithfulness", "Input should be a valid integer"),
        (2.0, "scores.faithfulness", "Input should be a valid integer"),
    ],
    ids=["off-scale", "text", "boolean", "float"],
)
def test_a_bad_verdict_score_is_a_located_error_exit_2(tmp_path: Path, bad: object, field: str, message: str) -> None:
    folder = labeled_folder(tmp_path / "labels", dict.fromkeys(AXES, 2))
    path = folder / "judge-verdicts.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["scores"]["faithfulness"] = bad
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    result = runner.invoke(app, ["calibrate", "--labels", "labels"])
    assert result.exit_code == 2, result.output
    assert f"{path.relative_to(tmp_path)}:1: {field}: {message}" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)  # no traceback


@pytest.mark.parametrize("command", ["agreement", "calibrate"])
@pytest.mark.parametrize(
    ("toml", "axis"),
    [
        (_rubric_toml(scale="[0, 1]"), "faithfulness 2, off its faithfulness scale [0, 1]"),
        (_rubric_toml("grounded"), "'faithfulness'"),
    ],
    ids=["scale-narrowed", "axis-renamed"],
)
def test_a_rubric_changed_without_a_version_bump_is_an_error_naming_the_axis(
    tmp_path: Path, command: str, toml: str, axis: str
) -> None:
    labeled_store(tmp_path)
    (tmp_path / "qaeval.toml").write_text(toml)
    result = runner.invoke(app, [command, "--db", "q.db"])
    assert result.exit_code == 2, result.output
    assert axis in result.stderr and "bump rubric.version" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)  # no traceback
    (tmp_path / "qaeval.toml").write_text(toml.replace('version = "1"', 'version = "2"'))
    bumped = runner.invoke(app, [command, "--db", "q.db"])  # bumped: the old labels are history
    assert (
        bumped.exit_code == 2
        and "no usable labels" in bumped.stderr
        and "under another rubric version" in bumped.stderr
    )


def test_verdicts_that_no_longer_fit_the_rubric_are_an_error_naming_the_axis(tmp_path: Path) -> None:
    labeled_store(tmp_path, faithfulness=1, judge_scores=2)  # the labels fit [0, 1]; the verdicts do not
    (tmp_path / "qaeval.toml").write_text(_rubric_toml(scale="[0, 1]"))
    result = runner.invoke(app, ["calibrate", "--db", "q.db"])
    assert result.exit_code == 2, result.output
    assert "verdicts made under rubric version '1' give faithfulness 2" in result.stderr
    assert "bump rubric.version" in result.stderr


def test_importing_labels_that_no_longer_fit_the_rubric_says_to_bump_its_version(tmp_path: Path) -> None:
    write_labels(tmp_path / "in", {"ana": [("i1", {"faithfulness": 2})]})
    (tmp_path / "qaeval.toml").write_text(_rubric_toml(scale="[0, 1]"))
    result = runner.invoke(app, ["labels", "import", "in", "--db", "b.db"])
    assert result.exit_code == 1
    assert (
        f"{Path('in') / 'ana.jsonl'}:1: scores.faithfulness: 2 is not on the faithfulness scale [0, 1]" in result.stderr
    )
    assert "bump rubric.version" in result.stderr
