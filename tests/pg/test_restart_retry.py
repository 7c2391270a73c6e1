"""The TUI's store thread keeps a call whose store went away and retries it on a new connection,
saying so once when it goes and once when it is back; quitting stops a retry that waits forever.
(The same with a real PostgreSQL restart: test_restart.py.)"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.rows import StoreUnavailableError
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui import store_thread
from qaeval_tui.tui.store_thread import StoreThread


def test_a_call_the_store_fails_as_unavailable_is_retried_on_a_new_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_thread, "RETRY_FIRST_SECONDS", 0.01)
    told: list[str | None] = []
    thread = StoreThread(tmp_path / "s.db", on_unavailable=told.append)
    connections: list[object] = []

    def work(store: Store) -> str:
        connections.append(store.conn)  # kept alive, so no two can share an id
        if len(connections) < 3:
            raise StoreUnavailableError("server closed the connection unexpectedly")
        store.record_reveal("item-1", "ana")
        return "saved"

    try:
        assert thread.call(work) == "saved"
        assert thread.call(lambda store: store.has_revealed("item-1", "ana"))
    finally:
        thread.close()
    assert len({id(conn) for conn in connections}) == 3  # each attempt on a fresh connection
    assert told == [
        "the store is unavailable (server closed the connection unexpectedly); what you did is kept and retried "
        "until it is back",
        None,
    ]


def test_quitting_stops_a_call_waiting_for_a_store_that_never_comes_back(tmp_path: Path) -> None:
    told = threading.Event()
    thread = StoreThread(tmp_path / "s.db", on_unavailable=lambda text: told.set())
    outcome: list[BaseException] = []

    def never(store: Store) -> None:
        raise StoreUnavailableError("connection refused")

    def ask() -> None:
        try:
            thread.call(never)
        except BaseException as exc:  # what the caller sees is the point of the test
            outcome.append(exc)

    caller = threading.Thread(target=ask)
    caller.start()
    assert told.wait(5)
    thread.close()
    caller.join(5)
    assert not caller.is_alive()
    assert isinstance(outcome[0], UsageError) and "the app is quitting" in str(outcome[0])
