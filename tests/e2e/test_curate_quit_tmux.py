"""Quitting the real `qaeval curate` (tmux) prints one line: what this curator decided this session."""

from __future__ import annotations

from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import DEMO_GOLDEN
from tests.e2e.test_review_tmux import Terminal, pytestmark, terminal
from tests.e2e.test_roles_tmux import start
from tests.tui.oversight_host import DEMO_LABELS
from tests.tui.scenes.host import build_labeled_store
from tests.tui.scenes.review import build_demo_store

__all__ = ["pytestmark", "terminal"]  # the e2e marker and the tmux fixture


def parting_line(terminal: Terminal) -> str:
    """The last line the program left in the pane (wrapped lines joined back: `capture-pane -J`)."""
    terminal.wait_for("cur", "(curator):")
    lines = terminal.tmux("capture-pane", "-p", "-J", "-t", "cur").splitlines()
    return [line for line in lines if line.strip()][-1].strip()


def test_quitting_the_curator_app_says_what_was_decided(terminal: Terminal, tmp_path: Path) -> None:
    """The demo reviewers' labels disagree on some items: the curator rules on the worst one."""
    db = build_labeled_store(tmp_path / "qaeval.db", DEMO_GOLDEN, DEMO_LABELS)
    with Store.open(db) as store:
        before = len(store.adjudications())
    start(terminal, "cur", "curate", "--as", "dana", "--db", str(db), "--data", "golden")
    terminal.wait_for("cur", "qaeval curate", "Calibration", timeout=60)
    terminal.keys("cur", "a")
    terminal.wait_for("cur", "open disagreement(s)", "Blind labels", timeout=30)
    terminal.keys("cur", "Enter")
    terminal.wait_for("cur", "Consensus on", "up/down choose a value", timeout=30)
    terminal.keys("cur", "Down", "Down", "Tab")
    terminal.wait_for("cur", "type the reason")  # the reason has focus: typing lands in it
    terminal.keys("cur", "-l", "the quote supports the answer")
    terminal.wait_for("cur", "the quote supports the answer")
    terminal.keys("cur", "Enter")
    terminal.wait_for("cur", "Adjudication", absent=("Consensus on",), timeout=30)
    terminal.keys("cur", "C-q")
    assert terminal.exited("cur") == 0
    assert parting_line(terminal) == (
        "dana (curator): 1 ruling(s) recorded, 0 case(s) promoted, 0 trace(s) rejected, 0 flag(s) resolved this session"
    )
    with Store.open(db) as store:
        assert len(store.adjudications()) == before + 1


def test_quitting_the_curator_app_having_decided_nothing_says_so(terminal: Terminal, tmp_path: Path) -> None:
    db = tmp_path / "qaeval.db"
    build_demo_store(db, DEMO_GOLDEN, Config())
    start(terminal, "cur", "curate", "--as", "dana", "--db", str(db), "--data", "golden")
    terminal.wait_for("cur", "qaeval curate", "Calibration", timeout=60)
    terminal.keys("cur", "C-q")
    assert terminal.exited("cur") == 0
    assert parting_line(terminal) == "dana (curator): nothing decided this session"
