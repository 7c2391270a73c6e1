"""Submit -> next on PostgreSQL: the statements sent to the server are counted, and pinned.

libpq's own protocol trace of the session's connection is read: each statement is one Bind
(extended protocol) or one Query (BEGIN, COMMIT) message the client sent. As on SQLite
(tests/core/test_submit_statements.py): the gold answer asked for once the blind axes are scored,
then `submit_and_next`. Neither may read the queue or the label history again because of the
session's own writes; another connection's commit makes the session read what changed, once.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from psycopg import pq

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.session import Advance, ReviewSession
from qaeval_tui.core.store.postgres.store import PgStore
from tests.core.review_fixtures import FULL
from tests.pg.reviewers import PgOpener, reviewer_names, team_store

BLIND = {name: FULL[name] for name in ("faithfulness", "citation_correctness")}

GOLD = 8
"""Change token; BEGIN, the lock written and read back, the transaction's id asked (the change token
counts it out), COMMIT; change token; the gold answer."""
SUBMIT_AND_NEXT = 10
"""Change token; BEGIN, the writer lock, what the store holds of the reviewer on the item (one statement),
the label, the transaction's id, COMMIT; change token; the next item; its gold lock."""


def _sent(store: PgStore, path: Path, work: Callable[[], object]) -> list[str]:
    """What the client sent while `work` ran: one line per statement (Bind or Query message)."""
    with path.open("w") as trace:
        store.conn.pgconn.trace(trace.fileno())
        store.conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            work()
        finally:
            store.conn.pgconn.untrace()
    messages = [line.split("\t") for line in path.read_text().splitlines()]
    return ["\t".join(parts[2:]) for parts in messages if parts[0] == "F" and parts[2] in ("Bind", "Query")]


def test_submit_to_next_sends_a_pinned_handful_of_statements(pg_url: str, tmp_path: Path) -> None:
    team_store(PgOpener(pg_url), tmp_path, items=12, reviewers=3)
    ana, ben = reviewer_names(3)[:2]
    with PgStore.open(pg_url) as store:
        session = ReviewSession(store, Config(), ana)
        item = session.next_item()
        advanced: list[Advance] = []

        def submit(item_id: str) -> None:
            advanced.append(session.submit_and_next(item_id, FULL, "", False, 1.0))

        for done in range(1, 8):
            assert item is not None
            item_id = item.item_id
            gold = _sent(store, tmp_path / "gold", partial(session.gold_answer, item_id, BLIND))
            assert len(gold) == GOLD, gold
            sent = _sent(store, tmp_path / "submit", partial(submit, item_id))
            assert len(sent) == SUBMIT_AND_NEXT, sent
            assert advanced[-1].progress.done == done
            item = advanced[-1].item
        with PgStore.open(pg_url) as other:  # a commit the session did not make: ben skips an item
            theirs = ReviewSession(other, Config(), ben)
            view = theirs.next_item()
            assert view is not None
            theirs.skip(view.item_id, 1.0)
        for more in (True, False):  # the queue and the labels since are read once, then no more
            assert item is not None
            item_id = item.item_id
            sent = _sent(store, tmp_path / "submit", partial(submit, item_id))
            assert (len(sent) > SUBMIT_AND_NEXT) is more, sent
            item = advanced[-1].item
        assert advanced[-1].progress.done == 9
        assert len(store.labels(reviewer=ana)) == 9
