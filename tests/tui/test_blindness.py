"""Blindness (DESIGN §4): before a reviewer submits, nothing on screen gives the verdict away.

Sentinels make the check able to fail: a judge verdict with a distinctive judge name and
evidence, a system name, another reviewer's label with a distinctive note. Each is on screen
after submit + reveal (the positive control), and none of them, nor any readable case id, is on
screen before.
"""

from __future__ import annotations

from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.review.session import ReviewSession
from qaeval_tui.core.store.rows import RunRecord, VerdictRecord
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.prepare import ensure_prepared
from qaeval_tui.tui.screens.home import HomeScreen
from qaeval_tui.tui.screens.reveal import RevealDialog
from qaeval_tui.tui.screens.summary import SummaryScreen
from tests.conftest import DEMO_GOLDEN
from tests.tui.conftest import make_app, open_review, screen_text, settle
from tests.tui.scenes.review import wait_until

SYSTEM = "SENTINEL-SYSTEM-NAME"
JUDGE = "SENTINEL-JUDGE-NAME"
EVIDENCE = "SENTINEL-JUDGE-EVIDENCE"
OTHER_NOTE = "SENTINEL-OTHER-REVIEWER-NOTE"


def plant_sentinels(db: Path) -> None:
    """A later judge verdict on every item, from a named system and judge; a full queue labeled by someone else."""
    config = Config()
    with Store.open(db) as store:
        items = store.review_items()
        verdicts = [
            VerdictRecord(
                item_id=item.item_id,
                case_id=item.case_id,
                judge_name=JUDGE,
                config_hash="sentinel",
                status="ok",
                created_at="2026-10-02T00:00:00Z",
                verdict=JudgeVerdict.model_validate(
                    {
                        "item_id": item.item_id,
                        "case_id": item.case_id,
                        "status": "ok",
                        "judge": {"name": JUDGE, "model": "sentinel", "config_hash": "sentinel"},
                        "scores": {"faithfulness": 0, "citation_correctness": 0, "answer_correctness": 0},
                        "evidence": {"faithfulness": EVIDENCE},
                        "created_at": "2026-10-02T00:00:00Z",
                    }
                ),
            )
            for item in items
        ]
        run = RunRecord(
            run_id="run-sentinel",
            suite_hash="x",
            adapter=SYSTEM,
            judge_name=JUDGE,
            judge_config_hash="sentinel",
            code_version="test",
            started_at="2026-10-02T00:00:00Z",
            finished_at="2026-10-02T00:00:00Z",
            n_cases=0,
            data={"adapter": SYSTEM},
            metrics={},
        )
        store.insert_run(run, [], verdicts)
        ensure_prepared(store, config, [DEMO_GOLDEN], "zoe")
        other = ReviewSession(store, config, "zoe")
        while (item := other.next_item()) is not None:
            scores: dict[str, int | None] = {"faithfulness": 0, "citation_correctness": 0, "answer_correctness": 0}
            other.submit(item.item_id, scores, OTHER_NOTE, True, 1.0)


def leaks(text: str, case_ids: list[str]) -> list[str]:
    found = [
        word for word in (SYSTEM, JUDGE, EVIDENCE, OTHER_NOTE, "zoe", "reference-hub", "mechanical") if word in text
    ]
    return found + [case_id for case_id in case_ids if case_id in text]


async def test_nothing_unblinding_is_on_screen_before_submit_on_any_item(demo_db: Path) -> None:
    plant_sentinels(demo_db)
    case_ids = [loaded.case.id for loaded in load_golden([DEMO_GOLDEN]).cases]
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        checked = 0
        while not isinstance(app.screen, SummaryScreen):
            item = screen.item
            assert item is not None
            assert leaks(screen_text(app), case_ids) == [], item.position
            await settle(pilot, "2", "1")  # blind axes scored: the gold answer may show, nothing else
            assert leaks(screen_text(app), case_ids) == [], item.position
            checked += 1
            await settle(pilot, "1", "enter")
        assert checked == 26
        summary = screen_text(app)
        assert leaks(summary, case_ids) == []
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        assert leaks(screen_text(app), case_ids) == []


async def test_reveal_after_submit_shows_what_was_hidden(demo_db: Path) -> None:
    plant_sentinels(demo_db)
    case_ids = [loaded.case.id for loaded in load_golden([DEMO_GOLDEN]).cases]
    app = make_app(demo_db)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_review(pilot)
        await settle(pilot, "2", "1", "1", "enter", "r")
        await wait_until(pilot, lambda: isinstance(app.screen, RevealDialog))
        await pilot.pause()
        found = leaks(screen_text(app), case_ids)
        assert JUDGE in found and EVIDENCE in found
        assert any(case_id in found for case_id in case_ids)
        assert OTHER_NOTE in found and "zoe" in found  # the other reviewer's label and note, after one's own


async def test_gold_answer_only_for_the_gold_axis_after_the_blind_axes(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        await settle(pilot, "tab", "tab")  # on answer_correctness, blind axes not scored
        assert "Gold answer:" in screen_text(app) and "shown once" in screen_text(app)
        assert screen.gold is None
        await settle(pilot, "shift+tab", "shift+tab", "2", "1")
        assert screen.gold is not None
        assert f"Gold answer: {screen.gold.split()[0]}" in screen_text(app)
        await settle(pilot, "shift+tab")  # back on a blind axis: the gold answer is not shown there
        assert "Gold answer:" not in screen_text(app)
