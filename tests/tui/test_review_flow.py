"""The review flow with Pilot: every key does what the help says, and the store holds the result."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from qaeval_tui.core.config import Config, ReviewConfig
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.screens.help import HelpScreen
from qaeval_tui.tui.screens.reveal import RevealDialog
from tests.tui.conftest import make_app, open_review, screen_text, settle, sources_pane
from tests.tui.scenes.review import FixedClock, wait_until


def labels(db: Path, reviewer: str = "ana") -> list[Label]:
    with Store.open(db) as store:
        return [row.label for row in store.labels(reviewer=reviewer)]


async def test_digits_score_axes_and_enter_saves_one_label(demo_db: Path) -> None:
    clock = FixedClock()
    app = make_app(demo_db, clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        first = screen.item
        assert first is not None and first.position == 1
        await pilot.press("2", "1")
        assert screen.draft is not None and screen.draft.focus == 2  # moved on after each digit
        await pilot.press("0")
        clock.advance(42)
        await settle(pilot, "enter")
        assert screen.item is not None and screen.item.item_id != first.item_id
        assert screen.progress is not None and screen.progress.done == 1
    [label] = labels(demo_db)
    assert label.item_id == first.item_id
    assert label.scores == {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 0}
    assert label.seconds_spent == 42 and label.revision == 1 and not label.skipped


async def test_cant_judge_note_and_flag_are_saved_with_the_label(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_review(pilot)
        await pilot.press("x", "x", "n", *"odd units", "enter", "f", "1")
        await settle(pilot, "enter")
    [label] = labels(demo_db)
    assert label.scores == {"faithfulness": None, "citation_correctness": None, "answer_correctness": 1}
    assert label.note == "odd units" and label.flagged


async def test_cursor_keys_and_space_score_any_scale(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        assert "0 · The answer states something its sources contradict" in screen_text(app)
        await pilot.press("right", "right")
        assert "2 · Every claim in the answer is supported by the sources." in screen_text(app)
        await pilot.press("space", "right", "space", "space")
        assert screen.draft is not None
        assert screen.draft.scores == {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 0}


async def test_incomplete_label_is_refused_and_nothing_is_written(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        first = screen.item
        await settle(pilot, "2", "enter")
        assert screen.item == first  # still on the same item
        assert "answer_correctness" in screen_text(app) and "missing" in screen_text(app)
    assert labels(demo_db) == []


async def test_skip_records_a_skip_and_moves_on(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        first = screen.item
        await settle(pilot, "s")
        assert screen.item is not None and first is not None and screen.item.item_id != first.item_id
        assert screen.progress is not None and screen.progress.skipped == 1
    [label] = labels(demo_db)
    assert label.skipped and label.scores == {}


async def test_undo_reopens_the_last_item_and_resubmit_is_a_new_revision(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        first = screen.item
        await settle(pilot, "2", "2", "2", "enter")
        await settle(pilot, "u")
        assert screen.item is not None and first is not None and screen.item.item_id == first.item_id
        assert screen.draft is not None and screen.draft.scores == {
            "faithfulness": 2,
            "citation_correctness": 2,
            "answer_correctness": 2,
        }
        assert screen.draft.axis.name == "answer_correctness"  # the blind axes are locked: the gold was shown
        await settle(pilot, "1", "enter")
    history = labels(demo_db)
    assert [row.revision for row in history] == [1, 2]
    assert history[1].scores["answer_correctness"] == 1 and history[1].scores["faithfulness"] == 2


async def test_undo_after_a_skip_reopens_the_skipped_item(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await settle(pilot, "2", "2", "2", "enter")
        skipped = screen.item
        await settle(pilot, "s")
        assert screen.item is not None and skipped is not None and screen.item.item_id != skipped.item_id
        await settle(pilot, "u")
        assert screen.item is not None and screen.item.item_id == skipped.item_id
        assert screen.draft is not None and screen.draft.scores == {}  # only ever skipped: nothing to carry over
        await settle(pilot, "1", "1", "1", "enter")
    history = labels(demo_db)
    assert [(row.item_id == skipped.item_id, row.skipped) for row in history] == [
        (False, False),
        (True, True),
        (True, False),
    ]


async def test_reveal_only_after_submit_and_later_changes_are_post_reveal(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert not isinstance(app.screen, RevealDialog)
        await settle(pilot, "2", "1", "2", "enter", "r")
        await wait_until(pilot, lambda: isinstance(app.screen, RevealDialog))
        text = screen_text(app)
        assert "Judge verdict" in text and "mechanical" in text and "agree" in text
        await pilot.press("escape")
        assert app.screen is screen
        await settle(pilot, "u")
        await settle(pilot, "0", "enter")  # on answer correctness: the blind axes are locked, the gold was shown
    history = labels(demo_db)
    assert [row.revealed for row in history] == [False, True]


async def test_resume_starts_at_the_next_unlabeled_item(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_review(pilot)
        await settle(pilot, "2", "2", "2", "enter", "1", "1", "1", "enter")
        await pilot.press("ctrl+q")
    again = make_app(demo_db)
    async with again.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        assert screen.item is not None and screen.item.position == 3
        assert screen.progress is not None and screen.progress.done == 2
        assert "done 2/26" in screen_text(again)


async def test_layout_holds_from_80x24_up_and_switches_to_two_columns(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        for size in ((80, 24), (120, 40), (200, 60), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            text = screen_text(app)
            for needle in (
                "Question",
                "Answer",
                "faithfulness",
                "citation_correctness",
                "answer_correctness",
                "submit",
            ):
                assert needle in text, (size, needle)
            assert screen.has_class("-wide") == (size[0] >= 120)


async def test_keys_typed_while_saving_are_replayed_on_the_next_item(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        gateway = app.context.services
        real_submit = gateway.submit_and_next

        def slow_submit(*args: Any) -> Any:
            time.sleep(2.0)
            return real_submit(*args)

        gateway.submit_and_next = slow_submit  # type: ignore[method-assign,assignment]
        await pilot.press("2", "2", "2", "enter", "1", "0")
        assert screen.busy == "saving…"  # the UI answered while the save was in flight
        await pilot.press("question_mark")  # and it still takes commands
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.busy and not screen.pending)
        assert screen.item is not None and screen.item.position == 2
        assert screen.draft is not None and screen.draft.scores == {"faithfulness": 1, "citation_correctness": 0}
    assert len(labels(demo_db)) == 1


async def test_help_lists_every_key_and_remapped_keys_take_effect(demo_db: Path) -> None:
    config = Config(review=ReviewConfig(keys={"submit": "ctrl+s", "skip": "k"}))
    app = make_app(demo_db, config=config)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_review(pilot)
        bar = screen_text(app).splitlines()[-2:]
        assert any("^s submit" in line for line in bar) and any("k skip" in line for line in bar)
        await pilot.press("2", "2", "2", "enter", "s")
        await pilot.pause()
        assert screen.progress is not None and screen.progress.done == 0  # enter and s no longer act
        await settle(pilot, "ctrl+s")
        assert screen.progress is not None and screen.progress.done == 1
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = screen_text(app)
        assert "Save the label" in text and "^s" in text and "Skip this item" in text
    assert len(labels(demo_db)) == 1


async def test_command_palette_runs_review_commands(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"skip")
        await pilot.pause(0.5)
        assert "Skip (s)" in screen_text(app)  # the palette lists review commands by their declared key
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.progress is not None and screen.progress.skipped == 1)
    assert labels(demo_db)[0].skipped


async def test_citation_jump_selects_the_span_in_the_sources(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        assert screen.item is not None and screen.item.citations
        citation = screen.item.citations[0]
        source = next(s for s in screen.item.sources if s.source_id == citation.source_id)
        assert citation.span is not None
        quote = " ".join(source.text[citation.span[0] : citation.span[1]].split()[:3])
        heading = f"{source.source_id} · {source.title}"
        assert heading not in sources_pane(app)  # the cited source starts below the fold
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert screen.selected == citation.marker
        assert quote in sources_pane(app)


async def test_escape_with_unsaved_scores_asks_once_then_goes_home(demo_db: Path) -> None:
    from qaeval_tui.tui.screens.home import HomeScreen
    from qaeval_tui.tui.screens.leave_dialog import LeaveDialog

    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        await open_review(pilot)
        await pilot.press("2", "escape")
        await pilot.pause()
        assert isinstance(app.screen, LeaveDialog)
        assert "Go home without saving this item?" in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        text = screen_text(app)
        assert "Golden set" in text and "39" in text and "done      0 of 26" in text
        await pilot.press("enter")
        await open_review(pilot)
    assert labels(demo_db) == []


async def test_key_bar_shows_every_key_the_issue_names_at_80x24(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_review(pilot)
        bar = " ".join(screen_text(app).splitlines()[-2:])
    for item in (
        "0-2 score",
        "tab/shift+tab axis",
        "x can't judge",
        "n note",
        "f flag",
        "s skip",
        "⏎ submit",
        "u undo",
        "r reveal",
        "esc back",
        "^q quit",
        "? help",
    ):
        assert item in bar, item


async def test_the_heap_is_frozen_while_labelling_and_released_when_the_app_ends(demo_db: Path) -> None:
    """Long-lived objects leave the collector's scans once an item shows (heap.py), and nothing stays frozen after."""
    import gc

    threshold = gc.get_threshold()
    app = make_app(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_review(pilot)
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[0] > threshold[0]
        await settle(pilot, "2", "1", "0", "enter")
        assert gc.get_freeze_count() > 0  # still held across submits
    assert gc.get_freeze_count() == 0  # a finished app's objects are collectable again
    assert gc.get_threshold() == threshold
    assert len(labels(demo_db)) == 1
