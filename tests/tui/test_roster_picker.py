"""The first screen, the reviewer picker (issue 13): with a roster, a name not on the team is
refused with the team shown, `Ana` is the roster's `ana`, and the last reviewer on this machine is
the default, so pressing enter resumes their session."""

from __future__ import annotations

from pathlib import Path

from qaeval_tui.core.config import Config, ReviewConfig, RosterMember
from qaeval_tui.core.review.roster import last_reviewer, remember_reviewer
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.screens.reviewer import ReviewerScreen
from tests.core.review_fixtures import FULL
from tests.tui.conftest import make_app, open_review, screen_text, settle
from tests.tui.scenes.review import wait_until

TEAM = Config(
    review=ReviewConfig(
        roster=(
            RosterMember(name="ana", roles=("reviewer",)),
            RosterMember(name="ben", roles=("reviewer", "curator")),
            RosterMember(name="chloe", roles=("reviewer",)),
        )
    )
)


async def test_an_unknown_name_is_refused_and_a_known_one_takes_the_rosters_spelling(demo_db: Path) -> None:
    app = make_app(demo_db, None, config=TEAM)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewerScreen))
        assert "ana, ben, chloe" in screen_text(app)
        await pilot.press(*"anna", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ReviewerScreen)
        assert "not on the team" in screen_text(app)
        for _ in range(len("anna")):
            await pilot.press("backspace")
        await pilot.press(*"Ana", "enter")
        screen = await open_review(pilot)
        assert app.context.reviewer == "ana" and screen.item is not None
        await settle(pilot, "1", "1", "1", "enter")
    with Store.open(demo_db) as store:
        assert store.labels(reviewer="Ana") == []
        assert len(store.labels(reviewer="ana")) == 1
    assert last_reviewer() == "ana"


async def test_the_last_reviewer_on_this_machine_is_the_default(demo_db: Path) -> None:
    remember_reviewer("ben")
    app = make_app(demo_db, None, config=TEAM)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewerScreen))
        await pilot.press("enter")
        await open_review(pilot)
        assert app.context.reviewer == "ben"


async def test_the_picker_says_who_has_finished_and_that_a_newcomer_types_a_name_of_their_own(demo_db: Path) -> None:
    from qaeval_tui.core.review.session import ReviewSession

    with Store.open(demo_db) as store:
        session = ReviewSession(store, Config(), "ana")
        for item_id in store.queue_item_ids("ana"):
            session.submit(item_id, FULL, "", False, 1)
    app = make_app(demo_db, None)
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_until(pilot, lambda: "new here?" in " ".join(screen_text(app).split()), timeout=5)
        text = " ".join(screen_text(app).split())
        assert "Ana has finished their queue" in text
        assert "not finished: ben (26 of 26 left), chloe (26 of 26 left)" in text
        assert "type a name of your own" in text
