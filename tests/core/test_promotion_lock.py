"""Two promotions through two stores into one golden folder take turns on the living file.

The store's write lock serializes one store's promotions only: two curators with their own
databases share the golden folder, and each append reads the living file and writes it back.
Real processes race here, held together by a barrier so that both have read the file before
either writes it: without the lock on the living file, one line is lost.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.core.curation.inbox import import_misses, inbox_entry
from qaeval_tui.core.curation.promotion import GoldenTarget, PromotionDraft, promote
from qaeval_tui.core.curation.rejection import reject
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.store.sqlite import Store
from tests.curation_fixtures import BEDROOM, DEMO_INBOX, NOISE, RESTOCKING, demo_copy

NOW = "2026-10-12T09:30:00Z"
HOLD_S = 3.0  # how long the first writer waits for the other at the barrier (with the lock: in vain)
DRAFTS = {
    BEDROOM: PromotionDraft(
        trace_id=BEDROOM, case_id="install-bedroom-01", question="Can I install the HB-10 in a bedroom?",
        gold_answer="No: the HB-10 must not be installed in sleeping areas.", gold_source_ids=("s2",),
        curator="Mara Okafor", reason="Allowed a bedroom install.",
    ),
    NOISE: PromotionDraft(
        trace_id=NOISE, case_id="noise-level-01", question="How loud is the HB-10?", expected_behavior="abstain",
        adversarial="unanswerable_lookalike", curator="Ben Adler", reason="Invented a 30 dB figure.",
    ),
}  # fmt: skip


def target_in(root: Path) -> GoldenTarget:
    return GoldenTarget(golden=(root / "golden",), living=root / "golden" / "living.jsonl")


def promote_when_both_have_read(root: Path, db: Path, trace_id: str, barrier: Any) -> None:
    """In a child process: promote one miss, pausing before the living file is written until the
    other process has read it too (or HOLD_S has passed)."""
    import qaeval_tui.core.atomic_file as atomic_file

    real_replace = atomic_file.replace_file
    waited: list[bool] = []

    def replace_after_the_other_read(path: Path, data: bytes) -> None:
        if not waited:
            waited.append(True)
            # Broken when the other process is held by the lock instead of waiting here.
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait(timeout=HOLD_S)
        real_replace(path, data)

    atomic_file.replace_file = replace_after_the_other_read
    with Store.open(db) as store:
        promote(store, DRAFTS[trace_id], target_in(root), now=NOW)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = demo_copy(tmp_path)
    for name in ("mara.db", "ben.db"):
        with Store.open(root / name) as store:
            import_misses(store, DEMO_INBOX)
    return root


def test_two_promotions_from_two_stores_both_land(root: Path) -> None:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    workers = [
        context.Process(target=promote_when_both_have_read, args=(root, root / db, trace, barrier))
        for db, trace in (("mara.db", BEDROOM), ("ben.db", NOISE))
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert [worker.exitcode for worker in workers] == [0, 0]

    cases = load_golden([root / "golden"]).by_id()
    assert {"install-bedroom-01", "noise-level-01"} <= set(cases)  # neither dropped the other's line
    assert cases["install-bedroom-01"].split == cases["noise-level-01"].split == "living"
    for db, trace in (("mara.db", BEDROOM), ("ben.db", NOISE)):
        with Store.open(root / db) as store:
            assert inbox_entry(store, trace).status == "promoted"
    assert not [p.name for p in (root / "golden").iterdir() if p.name.endswith(".tmp")]


def test_a_promotion_killed_midway_leaves_no_temporary_file_after_the_next(root: Path) -> None:
    leftover = root / "golden" / ".living.jsonl.abcd1234.tmp"
    leftover.write_text("half a line")
    with Store.open(root / "mara.db") as store:
        promote(store, DRAFTS[BEDROOM], target_in(root), now=NOW)
    assert not leftover.exists()
    assert "install-bedroom-01" in load_golden([root / "golden"]).by_id()


def test_a_rejection_goes_ahead_when_the_golden_folder_cannot_hold_a_lock(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder no one may write holds no promotion to wait for: rejecting a miss must still work.
    import filelock

    def cannot_create(self: Any, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(filelock.FileLock, "acquire", cannot_create)
    with Store.open(root / "mara.db") as store:
        reject(store, RESTOCKING, reason="the answer was right", curator="Mara", target=target_in(root))
        assert inbox_entry(store, RESTOCKING).status == "rejected"
