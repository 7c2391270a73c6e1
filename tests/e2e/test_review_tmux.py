"""The real `qaeval review` in a real terminal (tmux, 100x32): keys in, screen text out, then the store.

`.ci/run` installs tmux, so these run in CI instead of skipping.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from qaeval_tui.core.models.label import Label
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import DEMO_GOLDEN, REPO

pytestmark = pytest.mark.e2e
QAEVAL = REPO / ".venv" / "bin" / "qaeval"
SIZE = ("100", "32")


class Terminal:
    """One tmux server (private socket) holding the sessions of one test."""

    def __init__(self, socket: str, cwd: Path) -> None:
        self.socket = socket
        self.cwd = cwd

    def tmux(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True)
        return result.stdout

    def start(self, name: str, *qaeval_args: str) -> None:
        env = {key: value for key, value in os.environ.items() if key != "QAEVAL_REVIEWER"}
        command = f"{QAEVAL} review {' '.join(qaeval_args)}; echo $? > {self.cwd / f'{name}.exit'}; sleep 60"
        subprocess.run(
            ["tmux", "-L", self.socket, "new-session", "-d", "-s", name, "-x", SIZE[0], "-y", SIZE[1], command],
            cwd=self.cwd,
            env=env,
            check=True,
        )

    def screen(self, name: str) -> str:
        return self.tmux("capture-pane", "-p", "-t", name)

    def wait_for(self, name: str, *texts: str, absent: tuple[str, ...] = (), timeout: float = 30.0) -> str:
        """The screen once every text is on it and none of `absent` is (a capture can catch a frame half drawn)."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen(name)
            if all(text in screen for text in texts) and not any(text in screen for text in absent):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{texts!r} not on screen (or {absent!r} on it) after {timeout} s:\n{screen}")
            time.sleep(0.05)

    def keys(self, name: str, *keys: str) -> None:
        self.tmux("send-keys", "-t", name, *keys)

    def pid(self, name: str) -> int:
        """The qaeval process (a child of the pane's shell)."""
        shell = self.tmux("display-message", "-p", "-t", name, "#{pane_pid}").strip()
        return int(subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True, check=True).stdout.split()[0])

    def exited(self, name: str, timeout: float = 15.0) -> int:
        """qaeval's exit status, as the shell reports it (128 + N when killed by signal N)."""
        status = self.cwd / f"{name}.exit"
        deadline = time.monotonic() + timeout
        while not status.is_file() or not status.read_text().strip():
            if time.monotonic() > deadline:
                raise AssertionError(f"{name} did not exit:\n{self.screen(name)}")
            time.sleep(0.05)
        return int(status.read_text())


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is required for the end-to-end tests (.ci/run installs it)")
    shutil.copytree(DEMO_GOLDEN, tmp_path / "golden")
    term = Terminal(f"qaeval-e2e-{os.getpid()}-{tmp_path.name}", tmp_path)
    yield term
    subprocess.run(["tmux", "-L", term.socket, "kill-server"], capture_output=True, check=False)


def labels(db: Path, reviewer: str) -> list[Label]:
    with Store.open(db) as store:
        return [row.label for row in store.labels(reviewer=reviewer)]


def test_label_quit_and_resume_on_a_fresh_store(terminal: Terminal, tmp_path: Path) -> None:
    db = tmp_path / "store" / "qaeval.db"
    terminal.start("one", "--reviewer", "ana", "--db", str(db), "--data", "golden")
    terminal.wait_for("one", "item 1/26", "done 0/26", "faithfulness", "submit")
    terminal.keys("one", "2", "1", "2", "Enter")
    terminal.wait_for("one", "item 2/26", "done 1/26", "saved")
    terminal.keys("one", "x", "x", "1", "f", "n")
    terminal.wait_for("one", "Note on this item")
    terminal.keys("one", "-l", "unit [b]typo[/b]")
    terminal.keys("one", "Enter")
    terminal.wait_for("one", "note unit [b]typo[/b]")
    terminal.keys("one", "Enter")
    terminal.wait_for("one", "item 3/26", "done 2/26")
    terminal.keys("one", "C-q")
    assert terminal.exited("one") == 0
    first, second = labels(db, "ana")
    assert first.scores == {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 2}
    assert second.scores == {"faithfulness": None, "citation_correctness": None, "answer_correctness": 1}
    assert second.flagged and second.note == "unit [b]typo[/b]"

    terminal.start("two", "--reviewer", "ana", "--db", str(db), "--data", "golden")
    terminal.wait_for("two", "item 3/26", "done 2/26")
    terminal.keys("two", "u")
    terminal.wait_for("two", "item 2/26", "reopened")
    terminal.keys("two", "C-q")
    assert terminal.exited("two") == 0
    assert len(labels(db, "ana")) == 2


def test_the_gold_lock_outlives_the_program_and_a_partly_scored_item_asks_once_before_quitting(
    terminal: Terminal, tmp_path: Path
) -> None:
    db = tmp_path / "qaeval.db"
    terminal.start("lock", "--reviewer", "ana", "--db", str(db), "--data", "golden")
    terminal.wait_for("lock", "item 1/26", "faithfulness")
    terminal.keys("lock", "x", "x")  # both blind axes "can't judge": the gold answer shows, they lock
    terminal.wait_for("lock", "locked: gold shown")
    terminal.keys("lock", "C-q")
    terminal.wait_for("lock", "Quit without saving this item?", "2 of 3 axes scored")
    terminal.keys("lock", "C-q")  # quit again: no second question
    assert terminal.exited("lock") == 0
    assert labels(db, "ana") == []  # nothing partly scored was written

    terminal.start("back", "--reviewer", "ana", "--db", str(db), "--data", "golden")
    screen = terminal.wait_for("back", "item 1/26", "locked: gold shown", absent=("shown once",), timeout=10)
    assert screen.count("locked: gold shown") == 2  # both blind axes stay locked, and the gold shows too
    terminal.keys("back", "1", "Enter")  # the open axis, then submit: the core takes what the screen offers
    terminal.wait_for("back", "item 2/26", "done 1/26")
    terminal.keys("back", "C-q")
    assert terminal.exited("back") == 0
    [label] = labels(db, "ana")
    assert label.scores == {"faithfulness": None, "citation_correctness": None, "answer_correctness": 1}


def test_a_label_survives_sigkill_right_after_submit(terminal: Terminal, tmp_path: Path) -> None:
    db = tmp_path / "qaeval.db"
    terminal.start("victim", "--reviewer", "ana", "--db", str(db), "--data", "golden")
    terminal.wait_for("victim", "item 1/26")
    terminal.keys("victim", "0", "1", "2", "Enter")
    terminal.wait_for("victim", "done 1/26")  # the screen moved on: the label is acknowledged
    os.kill(terminal.pid("victim"), signal.SIGKILL)
    assert terminal.exited("victim") == 128 + signal.SIGKILL
    [label] = labels(db, "ana")
    assert label.scores == {"faithfulness": 0, "citation_correctness": 1, "answer_correctness": 2}


def test_two_reviewers_on_one_store_at_once_lose_nothing(terminal: Terminal, tmp_path: Path) -> None:
    db = tmp_path / "qaeval.db"
    terminal.start("ana", "--reviewer", "ana", "--db", str(db), "--data", "golden")
    terminal.wait_for("ana", "item 1/26")  # the first process prepares the fresh store
    terminal.start("ben", "--reviewer", "ben", "--db", str(db), "--data", "golden")
    terminal.wait_for("ben", "item 1/26")
    rounds = 6
    for done in range(1, rounds + 1):
        terminal.keys("ana", "2", "2", "1", "Enter")
        terminal.keys("ben", "1", "0", "2", "Enter")
        terminal.wait_for("ana", f"done {done}/26")
        terminal.wait_for("ben", f"done {done}/26")
    for name in ("ana", "ben"):
        terminal.keys(name, "C-q")
        assert terminal.exited(name) == 0
    ana, ben = labels(db, "ana"), labels(db, "ben")
    assert len(ana) == len(ben) == rounds
    assert all(row.scores == {"faithfulness": 2, "citation_correctness": 2, "answer_correctness": 1} for row in ana)
    assert all(row.scores == {"faithfulness": 1, "citation_correctness": 0, "answer_correctness": 2} for row in ben)
    with Store.open(db) as store:
        assert len(store.list_runs()) == 1


def test_markup_and_escape_sequences_reach_the_terminal_as_text(terminal: Terminal, tmp_path: Path) -> None:
    db = tmp_path / "qaeval.db"
    terminal.start("lit", "--reviewer", "ben", "--db", str(db), "--data", "golden")
    screen = terminal.wait_for("lit", "item 1/26")
    for position in range(2, 27):
        if "WB-10 wall bracket anchor bolts" in screen:
            break
        terminal.keys("lit", "s")
        screen = terminal.wait_for("lit", f"item {position}/26")
    terminal.keys("lit", "]")
    screen = " ".join(terminal.wait_for("lit", "Community forum").split())
    assert "[bold red]x[/]" in screen and "[@click=app.quit]quit[/]" in screen
    assert "\\x1b[2J" in screen and "\\x07" in screen  # visible escapes; the screen was not cleared
    assert "item " in screen and "faithfulness" in screen
    terminal.keys("lit", "C-q")
    assert terminal.exited("lit") == 0
