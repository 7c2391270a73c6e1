"""A rubric changed without a version bump: every way in says so, naming the axis, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.session import ReviewSession, assign, build_review_items
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.statistics.sources import agreement_from_store, calibration_from_store
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.dashboard import compute_dashboard
from tests.core.review_fixtures import FULL, store_with_run


def _config(faithfulness: Axis) -> Config:
    axes = (faithfulness, *Config().rubric.axes[1:])
    return Config(rubric=Rubric(version="1", axes=axes))


NARROWED = _config(Axis(name="faithfulness", scale=(0, 1), anchors=("no", "yes")))
RENAMED = _config(Axis(name="groundedness", anchors=("a", "b", "c")))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """Two reviewers gave faithfulness 2 on every item, under rubric version 1 with its 0..2 scale."""
    store, items = store_with_run(tmp_path / "q.db", n_items=6)
    build_review_items(store, "run-1")
    assign(store, ["ana", "ben"], overlap=2, seed=1)
    for reviewer in ("ana", "ben"):
        session = ReviewSession(store, Config(), reviewer)
        for item in items:
            session.submit(item, FULL, "", False, 1.0)
    return store


@pytest.mark.parametrize(("config", "named"), [(NARROWED, "give faithfulness 2"), (RENAMED, "axis 'faithfulness'")])
def test_the_dashboard_shows_the_problem_instead_of_failing(store: Store, config: Config, named: str) -> None:
    # It crashed on the narrowed scale (a value outside alpha's domain) and showed n = 0 for the renamed axis.
    dashboard = compute_dashboard(store, config)
    assert dashboard.agreement is None and dashboard.calibration is None
    for problem in (dashboard.agreement_problem, dashboard.calibration_problem):
        assert problem is not None and named in problem and "bump rubric.version" in problem


@pytest.mark.parametrize("config", [NARROWED, RENAMED])
def test_store_statistics_refuse_labels_of_a_changed_rubric(store: Store, config: Config) -> None:
    for compute in (agreement_from_store, calibration_from_store):
        with pytest.raises(UsageError, match=r"made under rubric version '1'.*bump rubric\.version"):
            compute(store, config)
