"""The real `qaeval review` and `qaeval curate` in tmux: the palette route that leaked (issue 13).

A reviewer on item 1 pressed `ctrl+p`, typed "calib", opened the calibration dashboard and a cell,
and read the judge's verdict and evidence, other reviewers' labels and case ids for the item being
labelled. Sentinels are planted in all of those; the same keys in the reviewer app show none of
them, and in the curator app they reach the dashboard.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import DEMO_GOLDEN
from tests.e2e.test_review_tmux import QAEVAL, SIZE, Terminal, pytestmark, terminal
from tests.tui.scenes.review import build_demo_store
from tests.tui.test_blindness import EVIDENCE, JUDGE, OTHER_NOTE, SYSTEM, plant_sentinels

__all__ = ["pytestmark", "terminal"]  # the e2e marker and the tmux fixture

CONSENSUS = "SENTINEL-CONSENSUS-REASON"


def sentinel_store(path: Path) -> list[str]:
    """The demo store (queues of ana, ben, chloe) with sentinels planted everywhere; the case ids."""
    build_demo_store(path, DEMO_GOLDEN, Config())
    plant_sentinels(path)
    with Store.open(path) as store:
        for item in store.review_items():
            store.insert_adjudication(item.item_id, "faithfulness", 1, CONSENSUS, "SENTINEL-ADJUDICATOR")
    return [loaded.case.id for loaded in load_golden([DEMO_GOLDEN]).cases]


def start(term: Terminal, name: str, command: str, *args: str) -> None:
    """`qaeval <command> args` in a fresh tmux session (Terminal.start runs `review` only)."""
    line = f"{QAEVAL} {command} {' '.join(args)}; echo $? > {term.cwd / f'{name}.exit'}; sleep 60"
    subprocess.run(
        ["tmux", "-L", term.socket, "new-session", "-d", "-s", name, "-x", SIZE[0], "-y", SIZE[1], line],
        cwd=term.cwd,
        env={key: value for key, value in os.environ.items() if key != "QAEVAL_REVIEWER"},
        check=True,
    )


def leaks(screen: str, case_ids: list[str]) -> list[str]:
    words = [SYSTEM, JUDGE, EVIDENCE, OTHER_NOTE, CONSENSUS, "SENTINEL"]
    return [word for word in words if word in screen] + [case_id for case_id in case_ids if case_id in screen]


def screens_after(term: Terminal, name: str, *steps: tuple[str, ...]) -> list[str]:
    """Each step's keys sent, then the screen a moment later (whatever opened has drawn)."""
    shots = []
    for keys in steps:
        term.keys(name, *keys)
        time.sleep(1.0)
        shots.append(term.screen(name))
    return shots


ROUTE = (("C-p",), ("-l", "calib"), ("Enter",), ("Tab",), ("Enter",), ("Down",), ("Enter",))
"""ctrl+p, "calib", run the top hit; then into the grid and open a cell (what leaked)."""


def test_the_palette_route_to_calibration_shows_a_reviewer_no_sentinel(terminal: Terminal, tmp_path: Path) -> None:
    db = tmp_path / "qaeval.db"
    case_ids = sentinel_store(db)
    start(terminal, "rev", "review", "--reviewer", "ana", "--db", str(db), "--data", "golden")
    first = terminal.wait_for("rev", "item 1/", "faithfulness", timeout=60)
    assert leaks(first, case_ids) == []
    shots = screens_after(terminal, "rev", *ROUTE)
    assert [leaks(shot, case_ids) for shot in shots] == [[]] * len(ROUTE), "\n".join(shots)
    assert not [shot for shot in shots if "Calibration" in shot or "dashboard" in shot.lower()], "\n".join(shots)
    terminal.keys("rev", "Escape", "Escape", "Escape", "C-q")
    assert terminal.exited("rev") == 0


def test_the_same_route_in_the_curator_app_reaches_the_dashboard(terminal: Terminal, tmp_path: Path) -> None:
    db = tmp_path / "qaeval.db"
    sentinel_store(db)
    start(terminal, "cur", "curate", "--as", "ana", "--db", str(db), "--data", "golden")
    terminal.wait_for("cur", "qaeval curate", "Calibration", timeout=60)
    terminal.keys("cur", "C-p")
    terminal.keys("cur", "-l", "calib")
    terminal.wait_for("cur", "Open calibration dashboard")
    terminal.keys("cur", "Enter")
    terminal.wait_for("cur", "Calibration dashboard", "faithfulness", timeout=30)
    terminal.keys("cur", "C-q")
    assert terminal.exited("cur") == 0
