"""`qaeval inbox import|list|show`, `qaeval promote`, `qaeval reject`: outputs and exit codes 0 / 1 / 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from tests.conftest import write_jsonl
from tests.curation_fixtures import BEDROOM, GATEWAY, NOISE, RESTOCKING, demo_copy, make_miss

runner = CliRunner()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = demo_copy(tmp_path)
    assert qaeval(root, "inbox", "import").exit_code == 0
    return root


def qaeval(root: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return runner.invoke(app, ["--config", str(root / "qaeval.toml"), *args], env=env)


def files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "golden").glob("*.jsonl"))}


def statuses(root: Path) -> dict[str, str]:
    result = qaeval(root, "inbox", "list", "--json")
    return {row["trace_id"]: row["status"] for row in json.loads(result.stdout)}


PROMOTE_BEDROOM = [
    "promote", BEDROOM, "--id", "install-bedroom-01", "--gold-answer", "No: not in sleeping areas.",
    "--gold-source", "s2", "--tag", "decoy", "--curator", "Mara Okafor",
]  # fmt: skip


def test_import_then_reimport_is_idempotent(root: Path) -> None:
    result = qaeval(root, "inbox", "import")
    assert result.exit_code == 0
    assert "imported 0 new production miss(es)" in result.stdout and "10 already in the inbox" in result.stdout
    assert len(statuses(root)) == 10


def test_import_of_a_bad_file_lists_every_line_and_exits_1(root: Path) -> None:
    bad = write_jsonl(root / "bad.jsonl", [make_miss("tr-a"), "nope", make_miss("tr-b", reporter="")])
    result = qaeval(root, "inbox", "import", str(bad))
    assert result.exit_code == 1
    assert f"{bad}:2: (line): invalid JSON" in result.stderr
    assert f"{bad}:3: reporter: " in result.stderr
    assert "nothing was changed" in result.stderr and "Traceback" not in result.output
    assert "tr-a" not in statuses(root)


def test_import_of_a_missing_file_exits_2(root: Path) -> None:
    result = qaeval(root, "inbox", "import", str(root / "missing.jsonl"))
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_list_shows_full_trace_ids_and_counts(root: Path) -> None:
    result = qaeval(root, "inbox", "list")
    assert result.exit_code == 0
    assert all(trace in result.stdout for trace in (BEDROOM, GATEWAY, RESTOCKING))
    assert "10 of 10 entries (pending=10  promoted=0  rejected=0)" in result.stdout
    assert qaeval(root, "inbox", "list", "--status", "later").exit_code == 2


def test_show_prints_the_sources_a_curator_picks_from(root: Path) -> None:
    result = qaeval(root, "inbox", "show", BEDROOM)
    assert result.exit_code == 0
    assert "s2  HB-10 Installation Guide §4.2 — Clearances" in result.stdout
    assert "do not install it in sleeping areas" in result.stdout
    assert qaeval(root, "inbox", "show", "tr-none").exit_code == 2


def test_show_renders_data_literally(root: Path) -> None:
    path = write_jsonl(root / "m.jsonl", [make_miss("tr-esc", answer="[bold red]x[/] \x1b]52;c;aGk=\x07 done")])
    qaeval(root, "inbox", "import", str(path))
    result = qaeval(root, "inbox", "show", "tr-esc")
    assert "[bold red]x[/] \\x1b]52;c;aGk=\\x07 done" in result.stdout and "\x1b" not in result.stdout


def test_promote_appends_with_provenance_and_the_set_still_validates(root: Path) -> None:
    before = files(root)
    result = qaeval(root, *PROMOTE_BEDROOM)
    assert result.exit_code == 0, result.output
    assert f"promoted {BEDROOM} as install-bedroom-01: " in result.stdout and "living.jsonl:10" in result.stdout
    after = files(root)
    assert after["frozen.jsonl"] == before["frozen.jsonl"]
    assert after["living.jsonl"].startswith(before["living.jsonl"])
    line = json.loads(after["living.jsonl"][len(before["living.jsonl"]) :])
    assert line["provenance"]["trace_id"] == BEDROOM and line["provenance"]["promoted_by"] == "Mara Okafor"
    assert line["provenance"]["reason"].startswith("Told a customer the HB-10 can go in a bedroom")  # the miss's reason
    validate = runner.invoke(app, ["validate", str(root / "golden")])
    assert validate.exit_code == 0 and "40 cases in 2 file(s): valid" in validate.stdout
    assert statuses(root)[BEDROOM] == "promoted"


def test_invalid_promote_names_the_options_and_writes_nothing(root: Path) -> None:
    before = files(root)
    result = qaeval(
        root, "promote", BEDROOM, "--id", "error-e310-01", "--gold-source", "s5",
        "--difficulty", "aggregation", "--checkpoint", "value:total", "--curator", "Mara",
    )  # fmt: skip
    assert result.exit_code == 1
    assert f"{BEDROOM}: --id: 'error-e310-01' already exists (" in result.stderr
    assert f"{BEDROOM}: --gold-answer: required (non-empty) when expected_behavior is 'answer'" in result.stderr
    assert f"{BEDROOM}: --gold-source #1: 's5' is not one of this miss's sources (s1, s2, s3, s4)" in result.stderr
    assert f"{BEDROOM}: --checkpoint #1: 'value:total': write value:NAME=VALUE" in result.stderr
    assert "nothing was written" in result.stderr
    assert files(root) == before and statuses(root)[BEDROOM] == "pending"


def test_promote_warns_about_a_near_duplicate_and_still_promotes(root: Path) -> None:
    result = qaeval(
        root, "promote", GATEWAY, "--id", "gateway-price-current-02", "--gold-answer", "$349",
        "--gold-source", "s3", "--tag", "time_sensitive", "--curator", "Mara",
    )  # fmt: skip
    assert result.exit_code == 0
    assert "warning: the question is close to existing case(s)" in result.stderr
    assert "gateway-price-current-01 (0.70): what's the gateway g2 price now?" in result.stderr


def test_promote_without_a_near_duplicate_prints_no_warning(root: Path) -> None:
    result = qaeval(root, *PROMOTE_BEDROOM)
    assert "warning" not in result.stderr


def test_dry_run_prints_the_line_and_writes_nothing(root: Path) -> None:
    before = files(root)
    result = qaeval(root, *PROMOTE_BEDROOM, "--dry-run")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["id"] == "install-bedroom-01"
    assert files(root) == before and statuses(root)[BEDROOM] == "pending"


def test_curator_can_come_from_the_environment(root: Path) -> None:
    args = [
        "promote", NOISE, "--id", "noise-level-01", "--behavior", "abstain", "--tag", "unanswerable_lookalike",
    ]  # fmt: skip
    assert qaeval(root, *args).exit_code == 2  # no curator at all: usage
    result = qaeval(root, *args, env={"QAEVAL_CURATOR": "Dana"})
    assert result.exit_code == 0, result.output
    assert json.loads(files(root)["living.jsonl"].splitlines()[-1])["provenance"]["promoted_by"] == "Dana"


def test_reject_then_a_second_decision_is_refused(root: Path) -> None:
    result = qaeval(root, "reject", RESTOCKING, "--reason", "The answer was right.", "--curator", "Mara")
    assert result.exit_code == 0 and f"rejected {RESTOCKING} by Mara" in result.stdout
    again = qaeval(root, "reject", RESTOCKING, "--reason", "Still right.", "--curator", "Ben")
    assert again.exit_code == 1 and "already rejected by Mara" in again.stderr
    before = files(root)
    promoted = qaeval(root, *[RESTOCKING if arg == BEDROOM else arg for arg in PROMOTE_BEDROOM])
    assert promoted.exit_code == 1 and files(root) == before
    assert statuses(root)[RESTOCKING] == "rejected"


def test_reject_of_a_miss_whose_case_is_already_in_the_set_records_the_promotion(root: Path) -> None:
    # As after a promotion killed between appending the case and recording the decision (or a
    # case added by hand): the golden set says promoted, so rejecting it is refused and the
    # inbox learns the promotion from the case's provenance.
    living = root / "golden" / "living.jsonl"
    dry = qaeval(root, *PROMOTE_BEDROOM, "--dry-run")
    assert dry.exit_code == 0
    line = dry.stdout.strip()
    living.write_text(living.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    assert statuses(root)[BEDROOM] == "pending"
    assert qaeval(root, *PROMOTE_BEDROOM, "--dry-run").exit_code == 1  # a dry run writes nothing
    assert statuses(root)[BEDROOM] == "pending"
    refused = qaeval(root, "reject", BEDROOM, "--reason", "Not a miss.", "--curator", "Ben")
    assert refused.exit_code == 1
    assert "already in the golden set as 'install-bedroom-01': that promotion (by Mara Okafor" in refused.stderr
    assert "only the promotion already in the golden set was recorded" in refused.stderr
    assert statuses(root)[BEDROOM] == "promoted"


def test_reject_needs_a_non_blank_reason(root: Path) -> None:
    assert qaeval(root, "reject", RESTOCKING, "--curator", "Mara").exit_code == 2
    blank = qaeval(root, "reject", RESTOCKING, "--reason", "  ", "--curator", "Mara")
    assert blank.exit_code == 1 and "--reason: required" in blank.stderr
    assert statuses(root)[RESTOCKING] == "pending"


def test_unknown_trace_id_is_a_usage_error(root: Path) -> None:
    result = qaeval(root, "reject", "tr-unknown", "--reason", "x", "--curator", "Mara")
    assert result.exit_code == 2 and "no production miss with trace id 'tr-unknown'" in result.stderr


@pytest.mark.parametrize(
    ("command", "phrase"),
    [
        (["inbox", "import"], "Exit 0 imported, 1 invalid"),
        (["inbox", "list"], "List inbox entries"),
        (["inbox", "show"], "Show one miss in full"),
        (["promote"], "Exit 0 promoted, 1 invalid (nothing written; a miss already in the golden set:"),
        (["reject"], "Exit 0 rejected, 1 invalid"),
    ],
)
def test_every_curation_command_documents_itself(command: list[str], phrase: str) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0 and phrase in " ".join(result.stdout.split())


def test_a_refused_promotion_still_warns_about_the_near_duplicate_first(root: Path) -> None:
    before = files(root)
    result = qaeval(root, "promote", GATEWAY, "--id", "gateway-price-current-02", "--curator", "Mara")
    assert result.exit_code == 1
    warning = result.stderr.index("warning: the question is close to existing case(s)")
    assert warning < result.stderr.index(f"{GATEWAY}: --gold-answer: required (non-empty)")
    assert "nothing was written" in result.stderr and files(root) == before and statuses(root)[GATEWAY] == "pending"
