"""The curator's flags queue in the core: filters, one resolution each, and the dashboard's open count."""

from __future__ import annotations

from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.flags import list_flags, resolve_flag
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.dashboard import compute_dashboard
from tests.flag_fixtures import flagged_store


def test_the_dashboard_counts_open_flags_and_a_resolution_lowers_the_count(tmp_path: Path) -> None:
    flag, note, _ = flagged_store(tmp_path / "s.db")
    with Store.open(tmp_path / "s.db") as store:
        assert compute_dashboard(store, Config()).open_flags == 3
        resolve_flag(store, flag, note="gold source fixed", curator="mara")
        resolve_flag(store, note, note="question reworded", curator="mara")
        assert compute_dashboard(store, Config()).open_flags == 1


def test_filters_and_states_of_the_queue(tmp_path: Path) -> None:
    flag, note, bare = flagged_store(tmp_path / "s.db")
    with Store.open(tmp_path / "s.db") as store:
        resolve_flag(store, bare, note="fine as is", curator="mara")
        assert [f.id for f in list_flags(store)] == [flag, note]
        assert [f.id for f in list_flags(store, state="resolved")] == [bare]
        assert [f.id for f in list_flags(store, state="all", reviewer="Ana")] == [flag, bare]
        assert [f.id for f in list_flags(store, search="WRONG PAGE")] == [flag]
        with pytest.raises(UsageError, match="already resolved"):
            resolve_flag(store, bare, note="again", curator="mara")
        assert [f.row.resolution_note for f in list_flags(store, state="resolved")] == ["fine as is"]
