"""The dashboard recomputed in its own process (tui/dashboard_process.py): the same figures and cells
as computed in the app, a process that dies said in one line and replaced, and none left after exit."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.opening import open_store
from qaeval_tui.core.usecases.dashboard import compute_dashboard
from qaeval_tui.tui.dashboard_process import DashboardProcess
from qaeval_tui.tui.services import Services
from tests.tui.oversight_host import Workspace, oversight_template, workspace

__all__ = ["oversight_template", "workspace"]  # fixtures
WAIT_S = 30.0


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_dashboard_from_its_process_shows_what_the_app_would_compute(workspace: Workspace) -> None:
    config, db = workspace.config, workspace.db
    services = Services(config, db, [workspace.golden])
    steps: list[tuple[int, str]] = []
    try:
        shown = services.dashboard(lambda index, text: steps.append((index, text)))
    finally:
        services.close()
    with open_store(db) as store:
        expected = compute_dashboard(store, config)
    assert shown.calibration is not None and expected.calibration is not None
    assert (shown.labels_read, shown.reviewers, shown.pace) == (expected.labels_read, expected.reviewers, expected.pace)
    assert shown.agreement == expected.agreement
    assert [index for index, _ in steps] == [0, 1, 2, 3, 4]
    axis = config.rubric.axes[0]
    cells = [(axis.name, judge, human) for judge in axis.scale for human in axis.scale]
    assert any(expected.items_in_cell(*cell) for cell in cells)  # the labelled demo has items behind cells
    for cell in cells:
        assert shown.items_in_cell(*cell) == expected.items_in_cell(*cell)  # case ids and all


def test_a_dashboard_process_that_dies_mid_recompute_is_named_and_the_next_recompute_works(
    workspace: Workspace,
) -> None:
    dashboards = DashboardProcess(workspace.db, workspace.config)
    reading, release = threading.Event(), threading.Event()

    def hold(index: int, _text: str) -> None:
        if index == 0:
            reading.set()
            release.wait(WAIT_S)

    failures: list[BaseException] = []

    def recompute() -> None:
        try:
            dashboards.compute(hold)
        except UsageError as exc:
            failures.append(exc)

    thread = threading.Thread(target=recompute)
    thread.start()
    try:
        assert reading.wait(WAIT_S)
        child = dashboards._child
        assert child is not None
        os.kill(child.pid, signal.SIGKILL)
        child.wait(WAIT_S)
    finally:
        release.set()
        thread.join(WAIT_S)
    assert [str(exc) for exc in failures] == [f"the dashboard's process stopped (exit code {-signal.SIGKILL})"]
    try:
        assert dashboards.compute().labels_read > 0  # a new process, the same store
    finally:
        dashboards.close()


def test_quitting_ends_the_dashboard_process(workspace: Workspace) -> None:
    services = Services(workspace.config, workspace.db, [workspace.golden])
    services.dashboard()
    child = services._dashboards._child if services._dashboards is not None else None
    assert child is not None and child.poll() is None  # kept for the next recomputation
    services.close()
    assert child.poll() is not None and _gone(child.pid)
    with pytest.raises(UsageError, match="the store is closed"):
        services.dashboard()
