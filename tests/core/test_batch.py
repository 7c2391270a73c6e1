"""Batch steps pause the cyclic collector and always give it back, even on an error."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from qaeval_tui.core.batch import collector_paused, with_collector_paused


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    if not was_enabled:
        gc.disable()


def test_paused_inside_restored_after_and_nesting_keeps_it_paused() -> None:
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block found it paused and leaves it so
    assert gc.isenabled()


def test_an_error_still_restores_the_collector() -> None:
    @with_collector_paused
    def fails() -> None:
        assert not gc.isenabled()
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        fails()
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()
