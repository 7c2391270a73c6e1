"""A promoted case reaches review without hidden steps: `qaeval queue` picks up cases run since the
last queue even when a later run left them out, and the core says which cases are not yet run or queued."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.review.queue import unreviewed_cases
from qaeval_tui.core.store.sqlite import Store
from tests.cli.test_promote_then_gate import promote_bedroom_miss

runner = CliRunner()
NEW_CASE = "bedroom-install-01"


def qaeval(*args: str) -> None:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output


def test_a_promoted_case_run_then_left_out_of_a_later_run_is_still_queued(tmp_path: Path) -> None:
    golden = promote_bedroom_miss(
        tmp_path, "--gold-answer", "No: the HB-10 must not be installed in sleeping areas.", "--gold-source", "s2"
    )
    db = str(tmp_path / "curation.db")
    frozen = str(golden / "frozen.jsonl")
    queue = ["queue", "--db", db, "--reviewers", "ana,ben", "--overlap", "1", "--data", str(golden)]

    def pending() -> tuple[tuple[str, ...], tuple[str, ...]]:
        with Store.open(db) as store:
            found = unreviewed_cases(store, load_golden([golden]))
        return found.not_run, found.not_queued

    qaeval("run", "--data", frozen, "--db", db)
    qaeval(*queue)
    not_run, not_queued = pending()
    assert NEW_CASE in not_run and not_queued == ()  # with the living split's other cases
    qaeval("run", "--data", str(golden), "--db", db)  # the new case is answered ...
    not_run, not_queued = pending()
    assert not_run == () and NEW_CASE in not_queued
    qaeval("run", "--data", frozen, "--db", db)  # ... and the latest run leaves it out
    qaeval(*queue)
    assert pending() == ((), ())
    with Store.open(db) as store:
        queued = set().union(*store.queued_items().values())
        assert NEW_CASE in {store.case_ids_by_item()[item] for item in queued}
