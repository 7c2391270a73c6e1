"""The key bindings of a curation or oversight screen, from the one declaration in `tui/commands.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qaeval_tui.tui.commands import OversightScope, bindings

if TYPE_CHECKING:
    from textual.binding import BindingType


def oversight_bindings(scope: OversightScope, digits: tuple[int, ...] = ()) -> list[BindingType]:
    """The scope's bindings (ids `qaeval.<name>`, so `[review.keys]` remaps them) and rule digits.

    Help is the app's binding, as on every screen (one help path). `digits` add one binding
    per scale value, `rule_with(value)`, sharing the label "rule as" (the key bar shows them as one
    range; a screen hides the digits its scale does not have).
    """
    from textual.binding import Binding

    result = bindings(scope)
    result.extend(Binding(str(digit), f"rule_with({digit})", "rule as") for digit in digits)
    return result
