"""One styling rule: screens are styled by the app's stylesheet, `DEFAULT_CSS` is for reusable widgets."""

from __future__ import annotations

import importlib
import pkgutil

from textual.screen import Screen

import qaeval_tui.tui.screens


def screen_classes() -> list[type[Screen[object]]]:
    found = pkgutil.iter_modules(qaeval_tui.tui.screens.__path__, prefix="qaeval_tui.tui.screens.")
    modules = [importlib.import_module(module.name) for module in found]
    return [
        value
        for module in modules
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Screen) and value.__module__ == module.__name__
    ]


def test_no_screen_carries_its_own_css() -> None:
    screens = screen_classes()
    assert {"InboxScreen", "ConsensusDialog", "ReviewScreen"} <= {cls.__name__ for cls in screens}
    own = sorted(cls.__qualname__ for cls in screens if "DEFAULT_CSS" in vars(cls))
    assert not own, f"screen CSS belongs in tui/app.tcss, scoped by the screen's type: {own}"
