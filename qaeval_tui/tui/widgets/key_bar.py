"""The key bar: every active key of the screen, wrapped over as many lines as the width needs.

Textual's Footer keeps to one line, which cuts keys off at 80 columns; the issue asks for all of
them to be visible. It reads the screen's active bindings, so keymap remaps and disabled
actions (dimmed) show exactly as they behave.
"""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget

from qaeval_tui.tui.literal import line

GAP = "  "


def join_keys(keys: list[str]) -> str:
    """`0 1 2` -> `0-2`; other keys joined with `/`."""
    if len(keys) > 2 and all(key.isdigit() and len(key) == 1 for key in keys):
        values = sorted(int(key) for key in keys)
        if values == list(range(values[0], values[-1] + 1)):
            return f"{values[0]}-{values[-1]}"
    return "/".join(keys)


class KeyBar(Widget):
    """Keys of the current screen as `key label` pairs, never split across lines."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: auto;
        padding: 0 1;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def _bindings_changed(self, _screen: Screen[object]) -> None:
        self.refresh(layout=True)

    def _items(self) -> list[Content]:
        """One item per label; keys sharing a label (the scale digits) are joined, digit runs as ranges."""
        keys: dict[str, list[str]] = {}
        enabled: dict[str, bool] = {}
        seen: set[str] = set()
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            keys.setdefault(binding.description, []).append(self.app.get_key_display(binding))
            enabled[binding.description] = enabled.get(binding.description, False) or active.enabled
        items: list[Content] = []
        for label, shown in keys.items():
            key_style = "bold $footer-key-foreground" if enabled[label] else "$foreground 40%"
            label_style = "" if enabled[label] else "$foreground 40%"
            # Keys can be remapped in the config: shown literally.
            items.append(Content.assemble(line(join_keys(shown)).stylize(key_style), " ", (label, label_style)))
        return items

    def _lines(self, width: int) -> list[Content]:
        lines: list[Content] = []
        current = Content("")
        for item in self._items():
            if current.cell_length and current.cell_length + len(GAP) + item.cell_length > width:
                lines.append(current)
                current = Content("")
            current = current + GAP + item if current.cell_length else item
        if current.cell_length or not lines:
            lines.append(current)
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(max(width, 1)))

    def render(self) -> Content:
        return Content("\n").join(self._lines(max(self.content_size.width, 1)))
