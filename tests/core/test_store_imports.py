"""The review TUI and the dashboard keep sqlite-utils out of their process.

Its import slows the TUI's cold start and makes every later full garbage collection longer, which
shows in the submit-to-next latency; the store reads and writes with raw SQL on those paths.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from qaeval_tui.core.review.session import assign, build_review_items
from tests.core.review_fixtures import FULL, store_with_run

NEW_REVIEWER_LABELS = """
import sys
from qaeval_tui.core.config import Config
from qaeval_tui.core.usecases.prepare import ensure_prepared
from qaeval_tui.core.review.session import ReviewSession
from qaeval_tui.core.store.sqlite import Store
with Store.open(sys.argv[1]) as store:
    ensure_prepared(store, Config(), [], "zoe")  # zoe joins the queues
    session = ReviewSession(store, Config(), "zoe")
    view = session.next_item()
    session.submit(view.item_id, {FULL!r}, "", False, 1.0)
    session.reveal(view.item_id)
    session.next_item(), session.progress()
print("sqlite_utils" in sys.modules)
"""

DASHBOARD = """
import sys
from qaeval_tui.core.config import Config
from qaeval_tui.core.usecases.dashboard import compute_dashboard
from qaeval_tui.core.store.sqlite import Store
with Store.open(sys.argv[1]) as store:
    compute_dashboard(store, Config())
print("sqlite_utils" in sys.modules)
"""


def imports_sqlite_utils(script: str, db: Path) -> bool:
    run = subprocess.run([sys.executable, "-c", script, str(db)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()[-1] == "True"


def test_a_new_reviewer_labels_without_importing_sqlite_utils(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=4)
    with store:
        build_review_items(store, "run-1")
        assign(store, ["ana", "ben"], overlap=2, seed=1)
        store.insert_adjudication(items[0], "faithfulness", 2, "clear", "dana")
    assert not imports_sqlite_utils(NEW_REVIEWER_LABELS.replace("{FULL!r}", repr(FULL)), tmp_path / "q.db")
    assert not imports_sqlite_utils(DASHBOARD, tmp_path / "q.db")
