"""core.review.prepare: a fresh store is made reviewable once; a prepared one is left alone."""

from __future__ import annotations

import threading
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.session import Progress
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.prepare import ensure_prepared, pace, reviewer_name_problem, store_overview
from tests.conftest import DEMO_GOLDEN, make_case, write_jsonl


def test_fresh_store_gets_a_run_items_and_a_queue_once(tmp_path: Path) -> None:
    steps: list[str] = []
    with Store.open(tmp_path / "q.db") as store:
        first = ensure_prepared(store, Config(), [DEMO_GOLDEN], "ana", step=steps.append)
        again = ensure_prepared(store, Config(), [DEMO_GOLDEN], "ana")
        assert first.ran and first.items_created == 39 and first.queue_length == 26 and first.changed
        assert not again.changed and again.run_id == first.run_id and again.queue_length == 26
        assert len(store.list_runs()) == 1 and store.count("labels") == 0
    assert steps[0] == "Loading the golden set…" and "39 of 39 cases" in " ".join(steps)


def test_a_newcomer_joins_with_a_fair_share_that_overlaps_others(tmp_path: Path) -> None:
    with Store.open(tmp_path / "q.db") as store:
        ensure_prepared(store, Config(), [DEMO_GOLDEN], "ana")
        before = {(r, i) for r, i, _ in store.assignments()}
        report = ensure_prepared(store, Config(), [DEMO_GOLDEN], "newcomer")
        after = {(r, i) for r, i, _ in store.assignments()}
        mine = [i for r, i, _ in store.assignments("newcomer")]
        assert before < after and report.newly_assigned == len(mine) == 26  # 78 assignments / 3 reviewers
        assert len(set(mine)) == len(mine)
        assert not report.ran


def test_two_reviewers_starting_on_one_fresh_store_make_one_run(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    Store.open(db).close()
    errors: list[BaseException] = []

    def start(name: str) -> None:
        try:
            with Store.open(db) as store:
                ensure_prepared(store, Config(), [DEMO_GOLDEN], name)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(name,)) for name in ("ana", "ben")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with Store.open(db) as store:
        assert len(store.list_runs()) == 1 and len(store.review_items()) == 39
        assert len(store.assignments("ana")) == 26 and len(store.assignments("ben")) == 26


def test_overview_counts_the_golden_set_and_flags_an_old_run(tmp_path: Path) -> None:
    with Store.open(tmp_path / "q.db") as store:
        ensure_prepared(store, Config(), [DEMO_GOLDEN], "ana")
        overview = store_overview(store, [DEMO_GOLDEN])
        assert overview.golden_cases == 39 and overview.golden_counts["split"] == {"frozen": 30, "living": 9}
        assert overview.runs[0].matches_golden and overview.review_items == 39
        other = write_jsonl(tmp_path / "other" / "frozen.jsonl", [make_case("c1")])
        assert not store_overview(store, [other]).runs[0].matches_golden
        broken = write_jsonl(tmp_path / "broken" / "frozen.jsonl", ["{not json"])
        assert "problem" in (store_overview(store, [broken]).golden_problem or "")


def test_pace_and_reviewer_names() -> None:
    assert pace(Progress(done=0, assigned=5, skipped=0, flagged=0, seconds_spent=10)) is None
    assert pace(Progress(done=4, assigned=5, skipped=1, flagged=0, seconds_spent=100)) == 25
    assert reviewer_name_problem("ana.b-1_x") is None
    assert reviewer_name_problem("") and reviewer_name_problem("a b") and reviewer_name_problem("[red]x")
    # Names whose label file would pass for a golden split or the verdict export never get in.
    for name in ("frozen", "Living", "judge-verdicts", ".hidden", "NUL"):
        assert reviewer_name_problem(name), name


def test_a_newcomer_first_on_a_fresh_store_leaves_the_team_queues_as_queue_builds_them(tmp_path: Path) -> None:
    """The README's promise: the demo reviewers' queues are the ones their labels were made on, and
    a newcomer gets a queue of 26 of their own."""
    with Store.open(tmp_path / "team.db") as team:
        ensure_prepared(team, Config(), [DEMO_GOLDEN], "ana")
        expected = {name: team.queue_item_ids(name) for name in ("ana", "ben", "chloe")}
    with Store.open(tmp_path / "q.db") as store:
        report = ensure_prepared(store, Config(), [DEMO_GOLDEN], "zoe")
        assert report.queue_length == 26
        assert {name: store.queue_item_ids(name) for name in ("ana", "ben", "chloe")} == expected


def test_a_curator_who_is_not_enrolled_gets_no_queue(tmp_path: Path) -> None:
    with Store.open(tmp_path / "q.db") as store:
        report = ensure_prepared(store, Config(), [DEMO_GOLDEN], "dana", enrol=False)
        assert report.queue_length == 0 and store.queue_length("dana") == 0
        assert store.queue_length("ana") == 26  # the team's queues are built all the same


async def test_opening_the_curator_app_enrols_no_curator_as_a_reviewer(tmp_path: Path) -> None:
    from qaeval_tui.tui.screens.home import HomeScreen
    from tests.tui.conftest import make_app
    from tests.tui.scenes.review import wait_until

    db = tmp_path / "fresh.db"
    app = make_app(db, "dana", role="curator")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
    with Store.open(db) as store:
        assert store.count("review_items") == 39 and store.queue_length("ana") == 26
        assert store.queue_length("dana") == 0
