"""A store with a row in every table, made the way users make one: a run of the demo set, queues,
the demo reviewers' labels, a reviewer's revisions after a reveal, an adjudication, the demo inbox
with a rejection, an exposure and a resolved flag. For the tests (and the bench) that move whole
stores between backends."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.judge_cache import CachedJudgement
from qaeval_tui.core.store.rows import InboxMiss, LabelDraft
from qaeval_tui.core.store.tables import TABLE_SPECS, TABLES, TableRows
from tests.curation_fixtures import RESTOCKING, demo_copy, make_miss

REPO = Path(__file__).resolve().parents[1]


def cli(root: Path, *args: str) -> None:
    result = CliRunner().invoke(app, ["--config", str(root / "qaeval.toml"), *args])
    assert result.exit_code == 0, (args, result.output)


def build_full_store(root: Path, db: str) -> None:
    """Fill the store `db` (a path or URL; empty) under the project folder `root` (made here)."""
    demo_copy(root)
    shutil.copytree(REPO / "labels", root / "labels")
    cli(root, "run", "--db", db, "--data", str(root / "golden"))
    cli(root, "queue", "--db", db, "--reviewers", "ana,ben,chloe", "--overlap", "2", "--seed", "7")
    cli(root, "labels", "import", "--db", db, str(root / "labels"))
    cli(root, "inbox", "import", "--db", db, str(root / "golden" / "inbox" / "misses.jsonl"))
    cli(root, "reject", RESTOCKING, "--db", db, "--reason", "the answer was right", "--curator", "ben")


def add_history(store: StoreBackend) -> None:
    """What only a review session and a curator write: revisions after a reveal, a ruling, a flag resolved."""
    item = store.review_items()[0]
    draft = LabelDraft(
        item_id=item.item_id, case_id=item.case_id, reviewer="dora", scores={"faithfulness": 2}, rubric_version="1"
    )
    store.record_gold_shown(item.item_id, "dora", {"faithfulness": 2, "citation_correctness": None})
    store.append_label(draft)
    store.record_reveal(item.item_id, "dora")
    store.record_exposure("dora", [item.item_id], "item dossier", "judge verdict, other reviewers' labels")
    revised = store.append_label(
        LabelDraft(
            item_id=item.item_id,
            case_id=item.case_id,
            reviewer="dora",
            scores={"faithfulness": 1},
            rubric_version="1",
            note="changed my mind: café ✓ \u202e",
            flagged=True,
            seconds_spent=12.345678901234567,
        )
    )
    store.insert_adjudication(item.item_id, "faithfulness", 2, "two of three", "ben")
    store.insert_adjudication(item.item_id, "faithfulness", None, "cannot judge after all", "ben")
    store.resolve_flag(revised.id, "talked it through", "ben")
    off_scale = store.append_label(  # a score off the rubric's scale: both databases hold it, no reader takes it
        LabelDraft(
            item_id=item.item_id,
            case_id=item.case_id,
            reviewer="erin",
            scores={"faithfulness": 7},
            rubric_version="1",
            note="scored on another scale",
        )
    )
    store.quarantine_label(off_scale.id, "a score off the scale", "ben")
    store.cache_judgements(
        [CachedJudgement("judge-config", item.case_id, "output", {"scores": {"faithfulness": 2}, "note": "café ✓"})]
    )
    store.publish_rubric("1", {"version": "1", "axes": [], "note": "café ✓"}, "ben")
    store.publish_rubric("2", {"version": "2", "axes": []}, "ben")
    # A team login renamed (`qaeval team rename` writes it as the owner; no store method does).
    rename = (1, "fred", "frida", "owner", "2026-12-01T10:00:00.000Z")
    store.insert_table_rows(TableRows(TABLE_SPECS["renames"], [rename]))
    # The inbox lists misses in the order they came, not by trace id: a copy must keep that order.
    late = [make_miss(trace_id) for trace_id in ("zz-came-first", "aa-came-last")]
    for miss in late:
        store.add_inbox_misses([InboxMiss(miss["trace_id"], json.dumps(miss, sort_keys=True), "late.jsonl")])


def assert_every_table_filled(store: StoreBackend) -> None:
    empty = [spec.name for spec in TABLES if not store.count(spec.name)]
    assert not empty, f"no rows in {empty}: the fixture does not exercise every table"
