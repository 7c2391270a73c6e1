"""One real scenario per (command, exit code) the README documents, for tests/test_exit_codes.py.

Each scenario builds what it needs under an empty folder (the working directory when it runs) and
returns the `qaeval` arguments. `means` is a word the README's meaning of that code must contain,
so a scenario that exits 2 for a bad input cannot stand for a "2" the README gives another sense.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import DEMO_GOLDEN, REPO, make_case, write_jsonl
from tests.core.review_fixtures import store_with_run
from tests.curation_fixtures import BEDROOM, DEMO_INBOX, RESTOCKING, demo_copy, make_miss

Build = Callable[[Path], list[str]]

DEMO = str(DEMO_GOLDEN)
DEMO_LABELS = REPO / "labels"
DEMO_BASELINE = str(REPO / "baselines" / "demo.json")
BUGGY = ["--data", str(REPO / "golden_buggy"), "--adapter", "qaeval_tui.bundled.buggy_hub:make_buggy_hub"]
REFUSING = "tests.cli.run_adapters:make_refusing_hub"
OUTAGE_JUDGE = "tests.cli.hostile_plugins:make_outage_judge"


@dataclass(frozen=True)
class Scenario:
    command: str  # as in the README's exit-code table, without "qaeval" ("" for qaeval itself)
    code: int
    name: str
    build: Build
    means: str = ""
    bad_input: bool = False  # a user mistake: one message on stderr, no traceback
    tui_seconds: int | None = None  # run the real TUI headless in a subprocess; it quits after this long

    @property
    def id(self) -> str:
        return f"{self.command or 'qaeval'}:{self.code}:{self.name}".replace(" ", "-")


SCENARIOS: list[Scenario] = []


def scenario(
    command: str, code: int, means: str = "", *, bad_input: bool = False, tui_seconds: int | None = None
) -> Callable[[Build], Build]:
    def register(build: Build) -> Build:
        name = build.__name__.replace("_", " ")
        SCENARIOS.append(Scenario(command, code, name, build, means, bad_input, tui_seconds))
        return build

    return register


def fixed(command: str, code: int, name: str, args: list[str], means: str = "", *, bad_input: bool = False) -> None:
    """A scenario that needs no files of its own."""
    SCENARIOS.append(Scenario(command, code, name, lambda _: list(args), means, bad_input))


# -- small files --------------------------------------------------------------------------------------


def invalid_golden(root: Path) -> str:
    """A golden folder whose second line is not JSON."""
    write_jsonl(root / "bad_golden" / "frozen.jsonl", [make_case("c1"), "{not json"])
    return str(root / "bad_golden")


def labels_copy(root: Path) -> Path:
    """The demo labels and judge verdicts, in a folder of this scenario's own."""
    return Path(shutil.copytree(DEMO_LABELS, root / "labels"))


def off_scale_labels(root: Path) -> Path:
    """The demo labels with one more revision whose faithfulness is 7 on a 0-2 scale."""
    folder = labels_copy(root)
    ana = folder / "ana.jsonl"
    line = json.loads(ana.read_text(encoding="utf-8").splitlines()[0])
    line.update(item_id="off.scale", scores={"faithfulness": 7}, skipped=False)
    with ana.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    return folder


def config(root: Path, text: str) -> list[str]:
    (root / "qaeval.toml").write_text(text, encoding="utf-8")
    return ["--config", str(root / "qaeval.toml")]


def cli(*args: str) -> None:
    """A set-up step through the real command; it must succeed."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output


def curation_root(root: Path) -> None:
    """A private copy of the demo golden set (config in the working folder) with its inbox imported."""
    demo_copy(root)
    cli("inbox", "import")


# -- flags ---------------------------------------------------------------------------------------------


@scenario("flags list", 0, "listed")
def flags_list_of_a_store_with_flags(root: Path) -> list[str]:
    from tests.flag_fixtures import flagged_store

    flagged_store(root / "s.db")
    return ["flags", "list", "--db", "s.db"]


fixed("flags list", 2, "open and all", ["flags", "list", "--db", "s.db", "--open", "--all"], "usage", bad_input=True)


@scenario("flags resolve", 0, "resolved")
def flags_resolve_an_open_flag(root: Path) -> list[str]:
    from tests.flag_fixtures import flagged_store

    first = flagged_store(root / "s.db")[0]
    return ["flags", "resolve", str(first), "--note", "fixed", "--curator", "Mara", "--db", "s.db"]


@scenario("flags resolve", 2, "usage", bad_input=True)
def flags_resolve_an_unknown_flag(root: Path) -> list[str]:
    from tests.flag_fixtures import flagged_store

    flagged_store(root / "s.db")
    return ["flags", "resolve", "999", "--note", "fixed", "--curator", "Mara", "--db", "s.db"]


# -- stored runs ------------------------------------------------------------------------------------


def _two_runs(root: Path) -> None:
    store, _ = store_with_run(root / "s.db", run_id="run-a")
    store.close()
    store, _ = store_with_run(root / "s.db", run_id="run-b")
    store.close()


@scenario("runs list", 0, "listed")
def runs_list_of_a_store_with_runs(root: Path) -> list[str]:
    _two_runs(root)
    return ["runs", "list", "--db", "s.db"]


fixed("runs list", 2, "no store", ["runs", "list", "--db", "missing.db"], "usage", bad_input=True)


@scenario("runs show", 0, "shown")
def runs_show_one_run(root: Path) -> list[str]:
    _two_runs(root)
    return ["runs", "show", "run-a", "--db", "s.db"]


@scenario("runs show", 2, "usage", bad_input=True)
def runs_show_an_ambiguous_run(root: Path) -> list[str]:
    _two_runs(root)
    return ["runs", "show", "run-", "--db", "s.db"]


@scenario("diff", 0, "compared")
def diff_two_runs(root: Path) -> list[str]:
    _two_runs(root)
    return ["diff", "run-a", "run-b", "--db", "s.db"]


@scenario("diff", 2, "usage", bad_input=True)
def diff_an_unknown_run(root: Path) -> list[str]:
    _two_runs(root)
    return ["diff", "run-a", "run-zzz", "--db", "s.db"]


# -- the team store (PostgreSQL) --------------------------------------------------------------------------


@scenario("team init", 0, "secured")
def team_init_on_a_new_database(root: Path) -> list[str]:
    from tests.pg.team_helpers import scenario_database

    return ["team", "init", "--db", scenario_database()]


@scenario("team add", 0, "created")
def team_add_a_reviewer(root: Path) -> list[str]:
    import secrets

    from tests.pg.team_helpers import scenario_database

    return ["team", "add", f"ana_{secrets.token_hex(3)}", "--role", "reviewer", "--db", scenario_database(secured=True)]


@scenario("team list", 0, "listed")
def team_list_of_a_secured_store(root: Path) -> list[str]:
    from tests.pg.team_helpers import scenario_database

    return ["team", "list", "--db", scenario_database(secured=True)]


@scenario("team remove", 0, "removed")
def team_remove_a_reviewer(root: Path) -> list[str]:
    import secrets

    from qaeval_tui.core.store.pg_team import add_member
    from tests.pg.team_helpers import scenario_database

    url = scenario_database(secured=True)
    return ["team", "remove", add_member(url, f"ana_{secrets.token_hex(3)}", ["reviewer"]).name, "--db", url]


@scenario("team reset-password", 0, "new password")
def team_reset_a_password(root: Path) -> list[str]:
    import secrets

    from qaeval_tui.core.store.pg_team import add_member
    from tests.pg.team_helpers import scenario_database

    url = scenario_database(secured=True)
    return ["team", "reset-password", add_member(url, f"ana_{secrets.token_hex(3)}", ["reviewer"]).name, "--db", url]


@scenario("team rename", 0, "renamed")
def team_rename_a_reviewer(root: Path) -> list[str]:
    import secrets

    from qaeval_tui.core.store.pg_team import add_member
    from tests.pg.team_helpers import scenario_database

    url = scenario_database(secured=True)
    suffix = secrets.token_hex(3)
    return ["team", "rename", add_member(url, f"ana_{suffix}", ["reviewer"]).name, f"anna_{suffix}", "--db", url]


@scenario("rubric publish", 0, "published")
def rubric_publish_into_a_store(root: Path) -> list[str]:
    from qaeval_tui.core.store.sqlite import Store

    Store.open(root / "s.db").close()
    return ["rubric", "publish", "--db", "s.db"]


fixed("rubric publish", 2, "no store", ["rubric", "publish", "--db", "missing.db"], "usage", bad_input=True)
fixed("team remove", 2, "a sqlite store", ["team", "remove", "ana", "--db", "s.db"], "usage", bad_input=True)
fixed(
    "team reset-password",
    2,
    "no server",
    ["team", "reset-password", "ana", "--db", "postgresql://x@127.0.0.1:1/x"],
    "usage",
    bad_input=True,
)
fixed(
    "team rename", 2, "a bad name", ["team", "rename", "ana", "a b", "--db", "postgresql:///x"], "usage", bad_input=True
)
fixed("team init", 2, "a sqlite store", ["team", "init", "--db", "s.db"], "usage", bad_input=True)
fixed(
    "team add",
    2,
    "a bad name",
    ["team", "add", "a b", "--role", "reviewer", "--db", "postgresql:///x"],
    "usage",
    bad_input=True,
)
fixed("team list", 2, "no server", ["team", "list", "--db", "postgresql://x@127.0.0.1:1/x"], "usage", bad_input=True)

# -- store copy ----------------------------------------------------------------------------------------


def _copy_source(root: Path) -> None:
    from tests.flag_fixtures import flagged_store

    flagged_store(root / "s.db")


@scenario("store copy", 0, "copied")
def store_copy_into_a_new_file(root: Path) -> list[str]:
    _copy_source(root)
    return ["store", "copy", "--from", "s.db", "--to", "copy.db"]


@scenario("store copy", 1, "mismatch")
def store_copy_into_a_store_that_drops_a_row(root: Path) -> list[str]:
    import sqlite3

    from qaeval_tui.core.store.sqlite import Store

    _copy_source(root)
    Store.open(root / "odd.db").close()
    with sqlite3.connect(root / "odd.db") as conn:
        conn.execute("CREATE TRIGGER drop_all BEFORE INSERT ON labels BEGIN SELECT RAISE(IGNORE); END")
    return ["store", "copy", "--from", "s.db", "--to", "odd.db"]


@scenario("store copy", 2, "not empty", bad_input=True)
def store_copy_into_a_store_with_rows(root: Path) -> list[str]:
    _copy_source(root)
    _copy_source(root / "other")
    return ["store", "copy", "--from", "s.db", "--to", "other/s.db"]


# -- qaeval itself -----------------------------------------------------------------------------------------

fixed("", 0, "version", ["--version"])
fixed("", 0, "help", ["--help"])
fixed("", 2, "no command", [], "usage", bad_input=True)
fixed("", 2, "unknown command", ["frobnicate"], "usage", bad_input=True)

# -- validate, cases ---------------------------------------------------------------------------------------

fixed("validate", 0, "demo set", ["validate", DEMO])
fixed("validate", 2, "missing path", ["validate", "no-such-folder"], "missing path", bad_input=True)


@scenario("validate", 1, "invalid", bad_input=True)
def validate_invalid_json_line(root: Path) -> list[str]:
    return ["validate", invalid_golden(root)]


@scenario("validate", 1, "invalid", bad_input=True)
def validate_duplicate_case_id(root: Path) -> list[str]:
    write_jsonl(root / "g" / "frozen.jsonl", [make_case("c1"), make_case("c1", question="Again?")])
    return ["validate", str(root / "g")]


@scenario("validate", 2, "bad config", bad_input=True)
def validate_with_a_bad_config(root: Path) -> list[str]:
    return [*config(root, '[gate.tolerances]\nmrr = "0.02"\n'), "validate", DEMO]


fixed("cases", 0, "demo living split", ["cases", DEMO, "--split", "living"])
fixed("cases", 2, "missing path", ["cases", "no-such-folder"], "usage", bad_input=True)
fixed("cases", 2, "unknown difficulty", ["cases", DEMO, "--difficulty", "bogus"], "usage", bad_input=True)


@scenario("cases", 2, "invalid set", bad_input=True)
def cases_of_an_invalid_set(root: Path) -> list[str]:
    return ["cases", invalid_golden(root), "--json"]


# -- run, baseline, gate, drift ---------------------------------------------------------------------------

fixed("run", 0, "demo set", ["run", "--data", DEMO])
fixed("run", 2, "missing data", ["run", "--data", "no-such-folder"], "usage", bad_input=True)
fixed(
    "run", 2, "unloadable adapter", ["run", "--data", DEMO, "--adapter", "no_such_module:make"], "usage", bad_input=True
)
fixed(
    "run", 1, "strict, every judge call failed", ["run", "--data", DEMO, "--judge", OUTAGE_JUDGE, "--strict"], "strict"
)
fixed("run", 2, "zero workers", ["run", "--data", DEMO, "--workers", "0"], "usage", bad_input=True)


@scenario("run", 2, "input error", bad_input=True)
def run_on_an_invalid_set(root: Path) -> list[str]:
    return ["run", "--data", invalid_golden(root)]


fixed("baseline", 0, "demo set", ["baseline", "--out", "baseline.json", "--data", DEMO])
fixed("baseline", 2, "no --out", ["baseline", "--data", DEMO], "usage", bad_input=True)
fixed(
    "baseline",
    2,
    "judge failed",
    ["baseline", "--out", "b.json", "--data", DEMO, "--judge", OUTAGE_JUDGE],
    "judge failed",
    bad_input=True,
)


@scenario("baseline", 2, "usage", bad_input=True)
def baseline_out_is_a_folder(root: Path) -> list[str]:
    (root / "out").mkdir()
    return ["baseline", "--out", "out", "--data", DEMO]


@scenario("baseline", 2, "input error", bad_input=True)
def baseline_of_an_invalid_set(root: Path) -> list[str]:
    return ["baseline", "--out", "b.json", "--data", invalid_golden(root)]


fixed("gate", 0, "demo passes its baseline", ["gate", "--baseline", DEMO_BASELINE, "--data", DEMO])
fixed("gate", 1, "buggy hub blocks", ["gate", "--baseline", DEMO_BASELINE, *BUGGY], "block")
fixed("plan", 0, "demo baseline", ["plan", "--baseline", DEMO_BASELINE, "--mde", "0.1"], "planned")
fixed("plan", 2, "unknown metric", ["plan", "--baseline", DEMO_BASELINE, "--metric", "nope"], "usage", bad_input=True)


@scenario("gate", 3, "refused")
def gate_statistical_with_a_tolerance_below_the_mde(root: Path) -> list[str]:
    return [*config(root, '[gate]\nmode = "statistical"\n'), "gate", "--baseline", DEMO_BASELINE, "--data", DEMO]


fixed("gate", 2, "missing baseline", ["gate", "--baseline", "no-such.json", "--data", DEMO], "missing", bad_input=True)


UNCALIBRATED_BUT_REQUIRED = ["gate", "--baseline", DEMO_BASELINE, "--data", DEMO, "--require-trusted"]
fixed("gate", 1, "uncalibrated judge under require trusted", UNCALIBRATED_BUT_REQUIRED, "require-trusted")


@scenario("gate", 2, "calibration artifact", bad_input=True)
def gate_calibration_not_json(root: Path) -> list[str]:
    (root / "calibration.json").write_text("{not json", encoding="utf-8")
    return ["gate", "--baseline", DEMO_BASELINE, "--data", DEMO, "--calibration", "calibration.json"]


@scenario("gate", 2, "unreadable", bad_input=True)
def gate_baseline_not_json(root: Path) -> list[str]:
    (root / "baseline.json").write_text("{ not json", encoding="utf-8")
    return ["gate", "--baseline", "baseline.json", "--data", DEMO]


@scenario("gate", 2, "input error", bad_input=True)
def gate_baseline_with_nan(root: Path) -> list[str]:
    document = json.loads(Path(DEMO_BASELINE).read_text(encoding="utf-8"))
    document["metrics"]["overall"]["mrr"]["value"] = "NAN-HERE"
    text = json.dumps(document).replace('"NAN-HERE"', "NaN")  # what a hand edit or another tool leaves
    (root / "baseline.json").write_text(text, encoding="utf-8")
    return ["gate", "--baseline", "baseline.json", "--data", DEMO]


@scenario("gate", 2, "mismatched baseline", bad_input=True)
def gate_baseline_of_another_k(root: Path) -> list[str]:
    return [*config(root, "[run]\ntop_k = 5\n"), "gate", "--baseline", DEMO_BASELINE, "--data", DEMO]


@scenario("gate", 2, "input error", bad_input=True)
def gate_on_an_invalid_set(root: Path) -> list[str]:
    return ["gate", "--baseline", DEMO_BASELINE, "--data", invalid_golden(root)]


fixed("drift", 0, "first point", ["drift", "--timeseries", "series.jsonl", "--data", DEMO])
fixed(
    "drift",
    1,
    "judge failed",
    ["drift", "--timeseries", "series.jsonl", "--data", DEMO, "--judge", OUTAGE_JUDGE],
    "judge failed",
)
fixed("drift", 2, "zero window", ["drift", "--timeseries", "s.jsonl", "--window", "0"], "usage", bad_input=True)


@scenario("drift", 1, "alarm")
def drift_when_the_system_starts_refusing(root: Path) -> list[str]:
    cli("drift", "--timeseries", "series.jsonl", "--data", DEMO)
    series = root / "series.jsonl"
    series.write_text(series.read_text(encoding="utf-8") * 3, encoding="utf-8")  # three steady points
    return ["drift", "--timeseries", "series.jsonl", "--data", DEMO, "--adapter", REFUSING]


@scenario("drift", 2, "time series", bad_input=True)
def drift_series_with_a_bad_line(root: Path) -> list[str]:
    (root / "series.jsonl").write_text("not json\n", encoding="utf-8")
    return ["drift", "--timeseries", "series.jsonl", "--data", DEMO]


@scenario("drift", 2, "time series", bad_input=True)
def drift_series_with_nan(root: Path) -> list[str]:
    point = {"version": 1, "at": "t", "run_id": "r", "suite_hash": "s", "judge_config_hash": "j", "metrics": {}}
    line = json.dumps(point).replace('"metrics": {}', '"metrics": {"mrr": NaN}')
    (root / "series.jsonl").write_text(line + "\n", encoding="utf-8")
    return ["drift", "--timeseries", "series.jsonl", "--data", DEMO]


# -- review (the real TUI, headless), queue -------------------------------------------------------------------


@scenario("review", 0, "quit", tui_seconds=1)
def review_prepares_the_demo_and_quits(root: Path) -> list[str]:
    return ["review", "--reviewer", "ana", "--data", DEMO, "--db", "review.db"]


@scenario("review", 1, "invalid golden data", bad_input=True, tui_seconds=60)
def review_of_an_invalid_set_on_a_fresh_store(root: Path) -> list[str]:
    return ["review", "--reviewer", "ana", "--data", invalid_golden(root), "--db", "review.db"]


fixed("review", 2, "bad reviewer name", ["review", "--reviewer", "a/b"], "reviewer name", bad_input=True)


@scenario("curate", 0, "quit", tui_seconds=1)
def curate_prepares_the_demo_and_quits(root: Path) -> list[str]:
    return ["curate", "--as", "ana", "--data", DEMO, "--db", "review.db"]


@scenario("curate", 1, "invalid golden data", bad_input=True, tui_seconds=60)
def curate_of_an_invalid_set_on_a_fresh_store(root: Path) -> list[str]:
    return ["curate", "--as", "ana", "--data", invalid_golden(root), "--db", "review.db"]


@scenario("curate", 2, "review.roster", bad_input=True)
def curate_by_a_reviewer_the_roster_does_not_make_a_curator(root: Path) -> list[str]:
    team = '[review]\nroster = [{name = "ana", roles = ["reviewer", "curator"]}, {name = "ben"}]\n'
    return [*config(root, team), "curate", "--as", "ben"]


@scenario("queue", 0, "assigned")
def queue_a_stored_run(root: Path) -> list[str]:
    store_with_run(root / "q.db", n_items=9)[0].close()
    return ["queue", "--db", "q.db", "--reviewers", "a,b,c", "--overlap", "2"]


fixed("queue", 2, "no store", ["queue", "--db", "none.db"], "no store", bad_input=True)


@scenario("queue", 2, "overlap larger than the team", bad_input=True)
def queue_overlap_larger_than_the_team(root: Path) -> list[str]:
    store_with_run(root / "q.db")[0].close()
    return ["queue", "--db", "q.db", "--reviewers", "a,b", "--overlap", "3"]


@scenario("queue", 2, "invalid `--data`", bad_input=True)
def queue_with_invalid_data_for_cases_the_store_lacks(root: Path) -> list[str]:
    store_with_run(root / "q.db", store_cases=False)[0].close()
    return ["queue", "--db", "q.db", "--data", invalid_golden(root)]


# -- labels, agreement, calibrate ----------------------------------------------------------------------------


@scenario("labels export", 0, "exported")
def labels_export_of_imported_demo_labels(root: Path) -> list[str]:
    cli("labels", "import", str(DEMO_LABELS), "--db", "s.db")
    return ["labels", "export", "--db", "s.db", "--out", "exported"]


@scenario("labels export", 1, "conflict")
def labels_export_over_a_file_whose_revision_differs(root: Path) -> list[str]:
    cli("labels", "import", str(DEMO_LABELS), "--db", "s.db")
    (root / "exported").mkdir()
    first = (DEMO_LABELS / "ana.jsonl").read_text(encoding="utf-8").splitlines()[0]
    changed = first.replace('"note": ""', '"note": "edited elsewhere"', 1)
    assert changed != first
    (root / "exported" / "ana.jsonl").write_text(changed + "\n", encoding="utf-8")
    return ["labels", "export", "--db", "s.db", "--out", "exported"]


fixed("labels export", 2, "no store", ["labels", "export", "--db", "none.db"], "no store", bad_input=True)


@scenario("labels export", 2, "refused folder", bad_input=True)
def labels_export_into_the_golden_folder(root: Path) -> list[str]:
    cli("labels", "import", str(DEMO_LABELS), "--db", "s.db")
    shutil.copytree(DEMO_GOLDEN, root / "golden")
    return ["labels", "export", "--db", "s.db", "--out", "golden"]


@scenario("labels export", 2, "refused folder or reviewer", bad_input=True)
def labels_export_for_a_reviewer_named_like_a_split(root: Path) -> list[str]:
    cli("labels", "import", str(DEMO_LABELS), "--db", "s.db")
    return ["labels", "export", "--db", "s.db", "--out", "exported", "--reviewer", "frozen"]


fixed("labels import", 0, "demo labels", ["labels", "import", str(DEMO_LABELS), "--db", "s.db"])
fixed(
    "labels import",
    2,
    "missing file",
    ["labels", "import", "none.jsonl", "--db", "s.db"],
    "missing file",
    bad_input=True,
)
fixed(
    "labels import",
    2,
    "unknown format",
    ["labels", "import", str(DEMO_LABELS), "--format", "xml"],
    "unknown format",
    bad_input=True,
)


@scenario("labels import", 1, "invalid", bad_input=True)
def labels_import_of_an_off_scale_score(root: Path) -> list[str]:
    return ["labels", "import", str(off_scale_labels(root) / "ana.jsonl"), "--db", "s.db"]


@scenario("labels import", 1, "invalid", bad_input=True)
def labels_import_of_a_line_that_is_not_json(root: Path) -> list[str]:
    write_jsonl(root / "ana.jsonl", ["{not json"])
    return ["labels", "import", "ana.jsonl", "--db", "s.db"]


def store_with_a_bad_label(root: Path) -> int:
    """The demo labels in `s.db`, and one row written by hand with an off-scale score: its id."""
    import sqlite3

    cli("labels", "import", str(DEMO_LABELS), "--db", "s.db")
    with sqlite3.connect(root / "s.db") as conn:
        conn.execute(
            """INSERT INTO labels (id, item_id, case_id, reviewer, revision, scores_json, note, flagged, skipped,
                                   rubric_version, revealed, created_at, seconds_spent, origin)
               SELECT 9999, item_id, case_id, 'zed', 1, '{"faithfulness": 9}', '', 0, 0, rubric_version, 0,
                      created_at, 1.0, 'hand' FROM labels LIMIT 1"""
        )
    return 9999


@scenario("labels check", 0, "no bad row")
def labels_check_of_the_demo_labels(root: Path) -> list[str]:
    cli("labels", "import", str(DEMO_LABELS), "--db", "s.db")
    return ["labels", "check", "--db", "s.db"]


@scenario("labels check", 1, "listed")
def labels_check_of_a_hand_edited_row(root: Path) -> list[str]:
    store_with_a_bad_label(root)
    return ["labels", "check", "--db", "s.db"]


fixed("labels check", 2, "no store", ["labels", "check", "--db", "none.db"], "usage", bad_input=True)


@scenario("labels quarantine", 0, "recorded")
def labels_quarantine_of_a_hand_edited_row(root: Path) -> list[str]:
    row = store_with_a_bad_label(root)
    return ["labels", "quarantine", str(row), "--reason", "typed by hand", "--curator", "dana", "--db", "s.db"]


@scenario("labels quarantine", 2, "usage", bad_input=True)
def labels_quarantine_of_a_good_row(root: Path) -> list[str]:
    store_with_a_bad_label(root)
    return ["labels", "quarantine", "1", "--reason", "I disagree", "--curator", "dana", "--db", "s.db"]


@scenario("agreement", 2, "bad stored label row", bad_input=True)
def agreement_over_a_hand_edited_row(root: Path) -> list[str]:
    store_with_a_bad_label(root)
    return ["agreement", "--db", "s.db"]


def foreign_scores(root: Path, faithfulness: str) -> str:
    """Another judge's scores on one demo item, as CSV."""
    first = json.loads((DEMO_LABELS / "judge-verdicts.jsonl").read_text(encoding="utf-8").splitlines()[0])
    (root / "scores.csv").write_text(
        f"item_id,case_id,faithfulness\n{first['item_id']},{first['case_id']},{faithfulness}\n", encoding="utf-8"
    )
    return "scores.csv"


@scenario("verdicts import", 0)
def verdicts_import_of_on_scale_scores(root: Path) -> list[str]:
    return ["verdicts", "import", foreign_scores(root, "2"), "--judge-name", "gpt-4", "--out", "v.jsonl"]


@scenario("verdicts import", 1, "invalid", bad_input=True)
def verdicts_import_of_an_off_scale_score(root: Path) -> list[str]:
    return ["verdicts", "import", foreign_scores(root, "4"), "--judge-name", "gpt-4", "--out", "v.jsonl"]


fixed(
    "verdicts import",
    2,
    "missing file",
    ["verdicts", "import", "none.csv", "--judge-name", "gpt-4", "--out", "v.jsonl"],
    "missing file",
    bad_input=True,
)


@scenario("verdicts export", 0, "written")
def verdicts_export_of_a_stored_run(root: Path) -> list[str]:
    store_with_run(root / "q.db")[0].close()
    return ["verdicts", "export", "--db", "q.db", "--format", "csv", "--out", "verdicts.csv"]


fixed("verdicts export", 2, "no store", ["verdicts", "export", "--db", "none.db", "--format", "csv"], "no store",
      bad_input=True)  # fmt: skip


@scenario("results export", 0, "written")
def results_export_of_the_latest_run(root: Path) -> list[str]:
    store_with_run(root / "q.db")[0].close()
    return ["results", "export", "--db", "q.db", "--format", "jsonl", "--out", "results.jsonl"]


@scenario("results export", 2, "no such run", bad_input=True)
def results_export_of_an_unknown_run(root: Path) -> list[str]:
    store_with_run(root / "q.db")[0].close()
    return ["results", "export", "--db", "q.db", "--format", "csv", "--run", "run-404"]


fixed("agreement", 0, "demo labels", ["agreement", "--labels", str(DEMO_LABELS), "--replicates", "100"])
fixed("agreement", 2, "no labels anywhere", ["agreement"], "usage", bad_input=True)
fixed("agreement", 2, "missing file", ["agreement", "--labels", "none.jsonl"], "usage", bad_input=True)
fixed(
    "agreement",
    2,
    "too few replicates",
    ["agreement", "--labels", str(DEMO_LABELS), "--replicates", "5"],
    "usage",
    bad_input=True,
)


@scenario("agreement", 2, "invalid label file", bad_input=True)
def agreement_on_an_off_scale_score(root: Path) -> list[str]:
    return ["agreement", "--labels", str(off_scale_labels(root)), "--replicates", "100"]


def judge_that_scores_like_the_reviewers(root: Path) -> Path:
    """The demo labels, with judge verdicts changed to the reviewers' most common score on each item and axis."""
    folder = labels_copy(root)
    given: dict[tuple[str, str], list[int]] = {}
    for path in folder.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "reviewer" in row:
                for axis, score in row["scores"].items():
                    given.setdefault((row["item_id"], axis), []).append(score)
    verdicts = folder / "judge-verdicts.jsonl"
    rows = [json.loads(line) for line in verdicts.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        for axis in row["scores"]:
            scores = given.get((row["item_id"], axis))
            if scores:
                row["scores"][axis] = max(scores, key=scores.count)
    verdicts.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return folder


@scenario("calibrate", 0, "all TRUSTED")
def calibrate_demo_labels_against_a_lower_bar_on_point_estimates(root: Path) -> list[str]:
    # The demo judge is constant on two axes, never TRUSTED under either rule; a judge that scores like the
    # reviewers is, on point estimates (the interval rule would need 50 items per axis).
    toml = '[calibration]\nmin_exact = 0.5\nrule = "point"\n'
    return [*config(root, toml), "calibrate", "--labels", str(judge_that_scores_like_the_reviewers(root))]


fixed("calibrate", 1, "demo citation_correctness", ["calibrate", "--labels", str(DEMO_LABELS)], "some axis RETUNE")


@scenario("calibrate", 1, "differs")
def calibrate_check_of_an_artifact_with_another_bar(root: Path) -> list[str]:
    artifact = json.loads((REPO / "baselines" / "calibration.json").read_text(encoding="utf-8"))
    artifact["bar"]["min_n"] = 10  # still agrees with itself (no axis is decided by min_n), not with a recalibration
    (root / "other.json").write_text(json.dumps(artifact), encoding="utf-8")
    return ["calibrate", "--labels", str(DEMO_LABELS), "--check", str(root / "other.json")]


@scenario("calibrate", 3, "INSUFFICIENT")
def calibrate_demo_labels_with_a_high_min_n(root: Path) -> list[str]:
    return [*config(root, "[calibration]\nmin_n = 1000\n"), "calibrate", "--labels", str(DEMO_LABELS)]


fixed("calibrate", 2, "missing file", ["calibrate", "--labels", "none.jsonl"], "usage", bad_input=True)


fixed(
    "calibrate",
    2,
    "missing verdict file",
    ["calibrate", "--labels", str(DEMO_LABELS), "--verdicts", "none.jsonl"],
    "usage",
    bad_input=True,
)


@scenario("calibrate", 2, "invalid label", bad_input=True)
def calibrate_on_an_off_scale_score(root: Path) -> list[str]:
    return ["calibrate", "--labels", str(off_scale_labels(root))]


@scenario("calibrate", 2, "verdict file", bad_input=True)
def calibrate_with_a_verdict_line_that_is_not_json(root: Path) -> list[str]:
    folder = labels_copy(root)
    with (folder / "judge-verdicts.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    return ["calibrate", "--labels", str(folder)]


@scenario("calibrate", 2, "usage", bad_input=True)
def calibrate_labels_without_verdicts(root: Path) -> list[str]:
    (root / "only").mkdir()
    shutil.copy(DEMO_LABELS / "ana.jsonl", root / "only" / "ana.jsonl")
    return ["calibrate", "--labels", "only"]


# -- inbox, promote, reject ------------------------------------------------------------------------------------

fixed("inbox import", 0, "demo inbox", ["inbox", "import", str(DEMO_INBOX), "--db", "s.db"])
fixed(
    "inbox import", 2, "missing file", ["inbox", "import", "none.jsonl", "--db", "s.db"], "missing file", bad_input=True
)


fixed("inbox receive", 0, "idle exit", ["inbox", "receive", "--port", "0", "--idle-exit", "0.1", "--db", "s.db"],
      "stopped")  # fmt: skip
fixed("inbox receive", 2, "unknown format", ["inbox", "receive", "--format", "langfuse", "--db", "s.db"], "format",
      bad_input=True)  # fmt: skip


@scenario("inbox import", 1, "invalid", bad_input=True)
def inbox_import_of_a_trace_export_whose_span_lacks_an_answer(root: Path) -> list[str]:
    span = {
        "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "chat",
        "startTimeUnixNano": "1790000000000000000",
        "attributes": [{"key": "gen_ai.prompt", "value": {"stringValue": "Is the HB-10 allowed in a bedroom?"}}],
    }  # fmt: skip
    export = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [span]}]}]}
    (root / "traces.json").write_text(json.dumps(export), encoding="utf-8")
    return ["inbox", "import", "traces.json", "--format", "otlp", "--db", "s.db"]


@scenario("inbox import", 1, "invalid", bad_input=True)
def inbox_import_of_a_line_that_is_not_json(root: Path) -> list[str]:
    write_jsonl(root / "misses.jsonl", [make_miss("tr-a"), "{not json"])
    return ["inbox", "import", "misses.jsonl", "--db", "s.db"]


@scenario("inbox import", 1, "invalid", bad_input=True)
def inbox_import_of_a_known_trace_id_with_another_payload(root: Path) -> list[str]:
    cli("inbox", "import", str(DEMO_INBOX), "--db", "s.db")
    write_jsonl(root / "misses.jsonl", [make_miss(BEDROOM)])
    return ["inbox", "import", "misses.jsonl", "--db", "s.db"]


@scenario("inbox list", 0, "listed")
def inbox_list_after_import(root: Path) -> list[str]:
    cli("inbox", "import", str(DEMO_INBOX), "--db", "s.db")
    return ["inbox", "list", "--db", "s.db", "--status", "pending"]


fixed(
    "inbox list",
    2,
    "unknown status",
    ["inbox", "list", "--db", "s.db", "--status", "bogus"],
    "unknown status",
    bad_input=True,
)


@scenario("inbox list", 2, "usage", bad_input=True)
def inbox_list_of_a_store_that_is_not_a_database(root: Path) -> list[str]:
    (root / "s.db").write_text("not a database\n", encoding="utf-8")
    return ["inbox", "list", "--db", "s.db"]


@scenario("inbox show", 0, "shown")
def inbox_show_a_known_miss(root: Path) -> list[str]:
    cli("inbox", "import", str(DEMO_INBOX), "--db", "s.db")
    return ["inbox", "show", BEDROOM, "--db", "s.db"]


fixed(
    "inbox show",
    2,
    "unknown trace id",
    ["inbox", "show", "tr-none", "--db", "s.db"],
    "unknown trace id",
    bad_input=True,
)

PROMOTE_BEDROOM = [
    "promote", BEDROOM, "--id", "install-bedroom-01", "--gold-answer", "No: not in sleeping areas.",
    "--gold-source", "s2", "--tag", "decoy", "--curator", "Mara Okafor",
]  # fmt: skip


@scenario("promote", 0, "promoted")
def promote_a_demo_miss(root: Path) -> list[str]:
    curation_root(root)
    return PROMOTE_BEDROOM


@scenario("promote", 1, "invalid", bad_input=True)
def promote_with_a_gold_source_the_miss_lacks(root: Path) -> list[str]:
    curation_root(root)
    return [
        "promote",
        BEDROOM,
        "--id",
        "install-bedroom-01",
        "--gold-answer",
        "No.",
        "--gold-source",
        "s99",
        "--curator",
        "Mara Okafor",
    ]


@scenario("promote", 1, "only that promotion is recorded")
def promote_a_miss_whose_case_is_already_in_the_golden_set(root: Path) -> list[str]:
    curation_root(root)
    cli(*PROMOTE_BEDROOM)
    cli("inbox", "import", str(DEMO_INBOX), "--db", "fresh.db")  # another store: the miss is pending there
    return [*PROMOTE_BEDROOM, "--db", "fresh.db"]


@scenario("promote", 2, "unknown trace id", bad_input=True)
def promote_an_unknown_trace_id(root: Path) -> list[str]:
    curation_root(root)
    return ["promote", "tr-none", "--id", "x-01", "--curator", "Mara Okafor"]


@scenario("promote", 2, "missing option", bad_input=True)
def promote_without_a_curator(root: Path) -> list[str]:
    curation_root(root)
    return ["promote", BEDROOM, "--id", "x-01", "--gold-answer", "No.", "--gold-source", "s2"]


@scenario("reject", 0, "rejected")
def reject_a_demo_miss(root: Path) -> list[str]:
    curation_root(root)
    return ["reject", RESTOCKING, "--reason", "the answer was right", "--curator", "Mara Okafor"]


@scenario("reject", 1, "a miss already decided", bad_input=True)
def reject_twice(root: Path) -> list[str]:
    curation_root(root)
    cli("reject", RESTOCKING, "--reason", "the answer was right", "--curator", "Mara Okafor")
    return ["reject", RESTOCKING, "--reason", "again", "--curator", "Mara Okafor"]


@scenario("reject", 1, "an empty reason", bad_input=True)
def reject_with_an_empty_reason(root: Path) -> list[str]:
    curation_root(root)
    return ["reject", RESTOCKING, "--reason", " ", "--curator", "Mara Okafor"]


@scenario("reject", 2, "unknown trace id", bad_input=True)
def reject_an_unknown_trace_id(root: Path) -> list[str]:
    curation_root(root)
    return ["reject", "tr-none", "--reason", "r", "--curator", "Mara Okafor"]


@scenario("reject", 2, "missing option", bad_input=True)
def reject_without_a_reason(root: Path) -> list[str]:
    curation_root(root)
    return ["reject", RESTOCKING, "--curator", "Mara Okafor"]


# -- qaeval serve (the browser scenarios themselves are tests/web) ----------------------------------------------


def _roster(root: Path) -> None:
    (root / "qaeval.toml").write_text('[review]\nroster = [{name = "ana", roles = ["reviewer"]}]\n', encoding="utf-8")


@scenario("serve", 0, "tokens printed")
def serve_issues_the_tokens_and_exits(root: Path) -> list[str]:
    _roster(root)
    return ["serve", "--db", "serve.db", "--tokens-only"]


@scenario("serve", 2, "no `[review] roster`", bad_input=True)
def serve_a_sqlite_store_without_a_roster(root: Path) -> list[str]:
    return ["serve", "--db", "serve.db", "--port", "0"]


@scenario("serve", 2, "not on it", bad_input=True)
def serve_a_new_token_for_a_stranger(root: Path) -> list[str]:
    _roster(root)
    return ["serve", "--db", "serve.db", "--new-token", "mallory", "--tokens-only"]
