"""The dossier shows the verdict of the judge asked for, typed as the judge gave it, or the latest of any."""

from __future__ import annotations

from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.dossier import item_dossier
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.review.queue import build_review_items
from qaeval_tui.core.store.rows import RunRecord, VerdictRecord
from tests.core.review_fixtures import JUDGE_HASH, store_with_run


def test_the_dossier_shows_the_chosen_judges_verdict_not_just_the_latest(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "d.db", n_items=2)
    build_review_items(store, "run-1")
    later = JudgeVerdict(
        item_id=items[0],
        case_id="readable-case-000",
        judge={"name": "stricter", "model": "m2", "config_hash": "other-judge"},
        status="ok",
        scores={"faithfulness": 0, "citation_correctness": 0, "answer_correctness": 0},
        evidence={"faithfulness": "no quote supports it"},
        created_at="2026-02-01T00:00:00Z",
    )
    run = RunRecord("run-2", "suite", "a", "stricter", "other-judge", "0", "2026-02-01T00:00:00Z", "t", 1, {}, {})
    store.insert_run(
        run,
        [],
        [VerdictRecord(items[0], "readable-case-000", "stricter", "other-judge", "ok", later, later.created_at)],
    )
    latest = item_dossier(store, Config(), items[0], with_judge=True).judge
    assert latest is not None and (latest.name, latest.config_hash, latest.scores["faithfulness"]) == (
        "stricter",
        "other-judge",
        0,
    )
    assert latest.evidence == {"faithfulness": "no quote supports it"}
    chosen = item_dossier(store, Config(), items[0], with_judge=True, judge_config_hash=JUDGE_HASH).judge
    assert chosen is not None and (chosen.name, chosen.config_hash) == ("mechanical-judge", JUDGE_HASH)
    assert chosen.evidence == {"faithfulness": "lasts ten years"}
    assert item_dossier(store, Config(), items[1], with_judge=True, judge_config_hash="other-judge").judge is None
    assert item_dossier(store, Config(), items[0], with_judge=False).judge is None
