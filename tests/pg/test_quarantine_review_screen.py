"""A reviewer's own review screen leaves out their quarantined label revision: it shows the latest
revision no curator quarantined, or none (the item is then theirs to label again), on SQLite and on
the team store through the reviewer's own login (issue 20's quarantine, read under row security).

What the screen shows of an earlier revision is the view's `previous_*` (`u` reopens the item with
it); whether the item counts as done is the session's progress.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.session import ReviewSession
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.opening import open_store
from qaeval_tui.core.usecases.prepare import ensure_prepared
from tests.pg.server import PgServer
from tests.pg.team_helpers import secured_store


@dataclass
class Seats:
    reviewer: str
    as_reviewer: Callable[[], AbstractContextManager[StoreBackend]]
    as_curator: Callable[[], AbstractContextManager[StoreBackend]]
    config: Config


@pytest.fixture(params=["sqlite", "postgresql"])
def seats(request: pytest.FixtureRequest, tmp_path: Path, golden_dir: Path) -> Iterator[Seats]:
    if request.param == "sqlite":
        db = tmp_path / "qaeval.db"
        config = Config.model_validate({"review": {"reviewers": ["ana"], "overlap": 1}})
        with open_store(db) as store:
            ensure_prepared(store, config, [golden_dir], "ana")
        yield Seats("ana", partial(open_store, db), partial(open_store, db), config)
        return
    pg_server: PgServer = request.getfixturevalue("pg_server")
    pg_url: str = request.getfixturevalue("pg_url")
    for team in secured_store(pg_server, pg_url):
        ana_url, cara_url = team.login("ana"), team.login("cara", "curator")
        ana = team.name("ana")
        config = Config.model_validate({"review": {"reviewers": [ana], "overlap": 1}})
        with open_store(team.owner_url) as owner:  # the owner runs the system and builds the queue
            ensure_prepared(owner, config, [golden_dir], ana)
        yield Seats(ana, partial(open_store, ana_url), partial(open_store, cara_url), config)


def scores(config: Config, pick: int) -> dict[str, int | None]:
    return {axis.name: axis.scale[pick] for axis in config.rubric.axes}


def quarantine_latest(seats: Seats, item_id: str) -> None:
    """A curator quarantines the reviewer's latest revision of `item_id` (the row's id names it)."""
    with seats.as_curator() as store:
        rows = store.labels(reviewer=seats.reviewer, item_id=item_id)
        assert store.quarantine_label(max(row.id for row in rows), "typed by hand", "curator") is not None


def test_the_review_screen_shows_the_latest_unquarantined_revision_or_none(seats: Seats) -> None:
    config = seats.config
    first, second = scores(config, 0), scores(config, -1)
    with seats.as_reviewer() as store:
        session = ReviewSession(store, config, seats.reviewer)
        view = session.next_item()
        assert view is not None
        item_id = view.item_id
        session.submit(item_id, first, "first thoughts", False, 3.0)
        reopened = session.undo()
        assert reopened is not None and reopened.previous_scores == first
        session.submit(item_id, second, "second thoughts", True, 3.0)
        done = session.progress().done

    quarantine_latest(seats, item_id)  # the second revision

    with seats.as_reviewer() as store:  # the app opened again: the screen shows the first revision
        session = ReviewSession(store, config, seats.reviewer)
        assert session.progress().done == done
        reopened = session.undo()
        assert reopened is not None and reopened.item_id == item_id
        assert (reopened.previous_scores, reopened.previous_note, reopened.previous_flagged) == (
            first,
            "first thoughts",
            False,
        )
        assert [row.label.note for row in store.labels(reviewer=seats.reviewer, item_id=item_id)] == ["first thoughts"]

    quarantine_latest(seats, item_id)  # the first revision too: nothing of theirs stands on the item

    with seats.as_reviewer() as store:
        session = ReviewSession(store, config, seats.reviewer)
        assert session.progress().done == done - 1
        assert session.undo() is None  # nothing submitted or skipped that still stands
        again = session.next_item()
        assert again is not None and again.item_id == item_id  # theirs to label again
        assert (again.previous_scores, again.previous_note) == ({}, "")


def test_a_quarantine_recorded_while_the_app_is_open_is_left_out_when_the_item_is_reopened(seats: Seats) -> None:
    config = seats.config
    first, second = scores(config, 0), scores(config, -1)
    with seats.as_reviewer() as store:
        session = ReviewSession(store, config, seats.reviewer)
        view = session.next_item()
        assert view is not None
        session.submit(view.item_id, first, "first thoughts", False, 3.0)
        assert session.undo() is not None
        session.submit(view.item_id, second, "second thoughts", False, 3.0)
        assert session.progress().done == 1  # the screen's progress line: the session has taken in the revision
        quarantine_latest(seats, view.item_id)  # meanwhile, from the curator's app
        reopened = session.undo()
        assert reopened is not None and reopened.item_id == view.item_id
        assert (reopened.previous_scores, reopened.previous_note) == (first, "first thoughts")
