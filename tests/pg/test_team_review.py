"""A review session on a team store: the reviewer is the login, and the app works through row security."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.pg_team import reviewer_for_login
from tests.pg.server import PgServer
from tests.pg.team_helpers import TeamStore, secured_store, seed


@pytest.fixture
def team_store(pg_server: PgServer, pg_url: str) -> Iterator[TeamStore]:
    yield from secured_store(pg_server, pg_url)


def test_a_reviewer_login_reviews_as_itself_and_as_no_one_else(team_store: TeamStore) -> None:
    ana_url = team_store.login("Ana")
    team_store.login("ben")
    seed(team_store, team_store.name("Ana"), team_store.name("ben"))
    ana = team_store.name("Ana")
    assert reviewer_for_login(ana_url, None) == ana
    assert reviewer_for_login(ana_url, ana.lower()) == ana  # the login's spelling, as the roster's
    with pytest.raises(UsageError, match=f"this store's login is '{ana}'"):
        reviewer_for_login(ana_url, team_store.name("ben"))


def test_a_curator_login_or_a_reviewer_without_a_queue_is_told_what_to_do(team_store: TeamStore) -> None:
    cara_url = team_store.login("cara", "curator")
    dan_url = team_store.login("dan")
    with pytest.raises(UsageError, match=r"a curator's login .* open `qaeval curate`"):
        reviewer_for_login(cara_url, None)
    with pytest.raises(UsageError, match=r"no review queue .* a curator assigns items") as refused:
        reviewer_for_login(dan_url, None)
    assert "***" in str(refused.value) and str(urlsplit(dan_url).password) not in str(refused.value)


def test_the_owner_reviews_as_chosen_as_on_sqlite(team_store: TeamStore) -> None:
    assert reviewer_for_login(team_store.owner_url, "zoe") == "zoe"
    assert reviewer_for_login(team_store.owner_url, None) is None


def test_the_review_session_labels_through_row_security_with_a_reviewers_login(
    team_store: TeamStore, golden_dir: Path
) -> None:
    """Every store call the review app makes (prepare, queue, item, submit, progress, reveal, home's
    overview) works with a reviewer's login, and the label lands under their name."""
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.review.session import BlindnessError, ReviewSession
    from qaeval_tui.core.store.postgres.store import PgStore
    from qaeval_tui.core.usecases.prepare import ensure_prepared, store_overview

    ana_url = team_store.login("ana")
    team_store.login("ben")
    ana, ben = team_store.name("ana"), team_store.name("ben")
    config = Config.model_validate({"review": {"reviewers": [ana, ben], "overlap": 2}})
    with PgStore.open(team_store.owner_url) as owner:  # the owner runs the system and builds the queues
        assert ensure_prepared(owner, config, [golden_dir], ana).queue_length == 3
    with PgStore.open(ana_url) as store:
        report = ensure_prepared(store, config, [golden_dir], reviewer_for_login(ana_url, None) or "")
        assert (report.ran, report.queue_length) == (False, 3)  # resumed: no run re-made, none visible
        overview = store_overview(store, [golden_dir])
        assert overview.runs == () and overview.review_items == 3
        session = ReviewSession(store, config, ana)
        view = session.next_item()
        assert view is not None and view.total == 3
        with pytest.raises(BlindnessError):
            session.reveal(view.item_id)
        scores: dict[str, int | None] = {axis.name: axis.scale[0] for axis in config.rubric.axes}
        case = store.review_item(view.item_id)
        assert case is not None and case.case is not None and "gold_answer" not in case.case
        assert (case.item.case_id, case.item.run_id) == ("", "")  # the readable id and the run stay hidden
        assert session.gold_answer(view.item_id, scores) in {"Ten years.", "Five days."}  # the gold lock, on record
        session.submit(view.item_id, scores, "", False, 4.0)
        assert session.progress().done == 1
        assert session.next_item() is not None
        revealed = session.reveal(view.item_id)
        assert revealed.status == "ok" and revealed.judge_scores
        assert revealed.case_id in {"c1", "c2", "c3"}  # once the reveal is on record
    with team_store.owner() as conn:
        rows = conn.execute("SELECT item_id, reviewer, revealed FROM labels").fetchall()
        reveals = conn.execute("SELECT reviewer FROM reveals").fetchall()
    assert rows == [(view.item_id, ana, 0)] and reveals == [(ana,)]


def test_a_login_with_both_roles_reviews_its_queue_blind_and_curates_the_rest(
    team_store: TeamStore, golden_dir: Path
) -> None:
    """The review session works for a reviewer + curator login through the same redacted reads; its
    curator reads leave out its own unrevealed items and show the others whole."""
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.review.session import ReviewSession
    from qaeval_tui.core.store.postgres.store import PgStore
    from qaeval_tui.core.usecases.prepare import ensure_prepared

    dana_url = team_store.login("dana", "reviewer", "curator")
    team_store.login("ben")
    dana, ben = team_store.name("dana"), team_store.name("ben")
    config = Config.model_validate({"review": {"reviewers": [dana, ben], "overlap": 1}})
    with PgStore.open(team_store.owner_url) as owner:
        ensure_prepared(owner, config, [golden_dir], dana)
        everything = {row.item_id for row in owner.review_items()}
        theirs = set(owner.queue_item_ids(dana))
    with PgStore.open(dana_url) as store:
        assert {row.item_id for row in store.review_items()} == everything - theirs
        assert {v.item_id for v in store.verdicts()} == everything - theirs
        session = ReviewSession(store, config, dana)
        view = session.next_item()
        assert view is not None
        case = store.review_item(view.item_id)
        assert case is not None and case.case is not None and "gold_answer" not in case.case
        other = store.review_item(next(iter(everything - theirs)))
        assert other is not None and other.case is not None and "gold_answer" in other.case  # a curator's view
        session.submit(view.item_id, {axis.name: axis.scale[0] for axis in config.rubric.axes}, "", False, 3.0)
        session.reveal(view.item_id)
        assert view.item_id in {v.item_id for v in store.verdicts()}
    with team_store.owner() as conn:
        assert conn.execute("SELECT reviewer, revealed FROM labels").fetchall() == [(dana, 0)]


async def test_the_review_app_opened_with_a_reviewers_url_stores_their_label(
    team_store: TeamStore, golden_dir: Path
) -> None:
    """`qaeval review --db URL` as the reviewer would run it: the app, its services and store thread,
    a label typed and submitted from the keyboard, and the row in the database under their login."""
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.store.postgres.store import PgStore
    from qaeval_tui.core.usecases.prepare import ensure_prepared
    from qaeval_tui.tui.app import create_app
    from tests.tui.conftest import open_review, settle
    from tests.tui.scenes.review import FixedClock

    ana_url = team_store.login("ana")
    ana = team_store.name("ana")
    config = Config.model_validate({"review": {"reviewers": [ana], "overlap": 1}})
    with PgStore.open(team_store.owner_url) as owner:
        ensure_prepared(owner, config, [golden_dir], ana)
    app = create_app(
        config, db_path=ana_url, data_paths=[golden_dir], reviewer=reviewer_for_login(ana_url, None), clock=FixedClock()
    )
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        assert screen.item is not None
        item_id = screen.item.item_id
        await settle(pilot, "2", "1", "1", "enter")
    with team_store.owner() as conn:
        rows = conn.execute("SELECT item_id, reviewer, skipped FROM labels").fetchall()
    assert rows == [(item_id, ana, 0)]


def test_qaeval_review_and_curate_refuse_to_act_as_someone_else_with_a_login(
    team_store: TeamStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from qaeval_tui.cli.main import app

    monkeypatch.chdir(tmp_path)
    ana_url, cara_url = team_store.login("ana"), team_store.login("cara", "curator")
    for args, says in (
        (["review", "--db", ana_url, "--reviewer", team_store.name("ben")], f"login is '{team_store.name('ana')}'"),
        (["review", "--db", cara_url], "a curator's login"),
        (["review", "--db", ana_url], "no review queue"),
        (["curate", "--db", cara_url, "--as", team_store.name("ben")], f"login is '{team_store.name('cara')}'"),
        (["curate", "--db", ana_url], "a reviewer's login"),
    ):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2 and says in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_a_command_a_reviewers_login_may_not_run_is_one_line_and_exit_2(
    team_store: TeamStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from qaeval_tui.cli.main import app

    monkeypatch.chdir(tmp_path)
    ana_url = team_store.login("ana")
    for args, says in (
        (["inbox", "list"], "permission denied for table inbox"),
        (["flags", "list"], "permission denied for table labels"),  # the case id of a label, then the resolutions
    ):
        result = CliRunner().invoke(app, [*args, "--db", ana_url])
        assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
        assert result.exit_code == 2 and "this login may not do that on the team store" in result.stderr
        assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert str(urlsplit(ana_url).password) not in result.stderr


def test_the_reveal_shows_the_other_reviewers_label_through_row_security_only_after_ones_own(
    team_store: TeamStore, golden_dir: Path
) -> None:
    """ben's label and note reach ana's reveal, read with ana's own login once her reveal is on record."""
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.review.session import ReviewSession
    from qaeval_tui.core.store.postgres.store import PgStore
    from qaeval_tui.core.usecases.prepare import ensure_prepared

    ana_url, ben_url = team_store.login("ana"), team_store.login("ben")
    ana, ben = team_store.name("ana"), team_store.name("ben")
    config = Config.model_validate({"review": {"reviewers": [ana, ben], "overlap": 2}})
    with PgStore.open(team_store.owner_url) as owner:
        ensure_prepared(owner, config, [golden_dir], ana)
    scores: dict[str, int | None] = {axis.name: axis.scale[-1] for axis in config.rubric.axes}
    with PgStore.open(ben_url) as store:
        bens = ReviewSession(store, config, ben)
        item = bens.next_item()
        assert item is not None
        bens.submit(item.item_id, scores, "ben's reasoning", False, 2.0)
    with PgStore.open(ana_url) as store:
        assert [row.label.reviewer for row in store.labels(item_id=item.item_id)] == []  # blind before
        anas = ReviewSession(store, config, ana)
        anas.submit(item.item_id, {**scores, "faithfulness": 0}, "", False, 2.0)
        others = anas.reveal(item.item_id).others
    assert [(o.reviewer, o.note) for o in others] == [(ben, "ben's reasoning")]
