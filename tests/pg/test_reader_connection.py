"""The review app's reader connection on the team store: a dashboard recomputing on it never holds up
a submit on the writer, sees the label submitted before it read, and the label survives the app."""

from __future__ import annotations

from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.tui.services import Services
from tests.pg.reviewers import PgOpener, team_store
from tests.tui.reader_scenario import submit_beside_a_held_dashboard


def test_a_submit_never_waits_behind_a_dashboard_recomputing_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    team_store(PgOpener(pg_url), tmp_path, 12, 3)
    config = Config(base_dir=str(tmp_path))
    services = Services(config, pg_url)
    submit_beside_a_held_dashboard(config, pg_url, services, "rev00")
