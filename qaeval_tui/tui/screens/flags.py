"""The curator's flags queue: reviewers' flags and notes, open first, each resolved once with a note.

The list is the core's `list_flags` (filters included: state `s`, text `/`, axis `a`); the screen
only shows it and asks for the resolution's note. Curator side only: a flag names an item and
another reviewer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from qaeval_tui.core.curation.flags import Flag, FlagState
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import cell, line, plain
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.pick_table import PickTable

STATES: tuple[FlagState, ...] = ("open", "resolved", "all")


@dataclass
class FlagsLoaded(Message):
    flags: list[Flag]
    state: FlagState
    search: str
    axis: str | None = None


@dataclass
class FlagResolved(Message):
    flag: Flag


class ResolveDialog(ModalScreen[str | None]):
    """Returns the resolution's note (non-blank), or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]  # noqa: RUF012 (Textual's own type)

    def __init__(self, flag: Flag, *, blink: bool = True) -> None:
        super().__init__()
        self.flag = flag
        self.blink = blink

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Content.assemble(f"Resolve flag {self.flag.id} · ", plain(self.flag.row.reviewer)),
                classes="dialog-title",
            )
            yield Input(placeholder="how it was resolved (recorded once, never changed)", id="resolve-note")
            yield Static("enter resolve · escape cancel", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        note = self.query_one("#resolve-note", Input)
        note.cursor_blink = self.blink
        note.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


def flag_detail(flag: Flag | None) -> Content:
    if flag is None:
        return Content.styled("No flag selected.", "$foreground-muted")
    row = flag.row
    lines = [
        Content.assemble((f"{flag.kind} {row.id} · ", "bold"), plain(row.reviewer), f" · revision {row.revision}"),
        Content.assemble(
            ("item ", "$foreground-muted"), plain(row.item_id), ("  case ", "$foreground-muted"), plain(row.case_id)
        ),
        Content.assemble(("about ", "$foreground-muted"), line(", ".join(flag.axes) or "no axis in particular")),
        plain(row.note or "(no note)"),
    ]
    if not flag.is_open:
        lines.append(
            Content.assemble(
                ("resolved by ", "$success"),
                plain(row.resolved_by or ""),
                f" at {row.resolved_at}: ",
                plain(row.resolution_note or ""),
            )
        )
    return Content("\n").join(lines)


class FlagsScreen(AppScreen[None]):
    """Reviewers' flags and notes, oldest first."""

    SCOPE = "flags"
    BINDINGS = bindings("flags")

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.state: FlagState = "open"
        self.search = ""
        self.axis: str | None = None
        """Only flags about this axis (None: every flag)."""
        self.flags: list[Flag] = []
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Flags queue · loading…", "bold"), id="flags-title")
        yield Input(placeholder="/ search notes, item ids, case ids", id="flags-search", compact=True)
        yield PickTable(id="flags-list")
        yield Static(id="flags-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#flags-search", Input).cursor_blink = not self.context.deterministic
        self.query_one(PickTable).focus()

    def on_screen_resume(self) -> None:
        self.reload()

    def reload(self) -> None:
        services, state, search, axis = self.context.services, self.state, self.search, self.axis
        self.call(
            "loading…", lambda: FlagsLoaded(services.flags(state, search, axis), state, search, axis), "Not loaded"
        )

    def on_flags_loaded(self, message: FlagsLoaded) -> None:
        if (message.state, message.search, message.axis) != (self.state, self.search, self.axis):
            return  # an older query came back after a newer one was typed
        self.settle()
        self.flags = message.flags
        table = self.query_one(PickTable)
        table.clear(columns=True)
        for title, width in (("id", 5), ("kind", 5), ("status", 9), ("reviewer", 12), ("case", 22)):
            table.add_column(title, width=width)
        table.add_column("note", width=max(20, self.size.width - 70))
        for flag in self.flags:
            row = flag.row
            status = "open" if flag.is_open else "resolved"
            table.add_row(
                cell(str(row.id)), cell(flag.kind), cell(status, "bold yellow" if flag.is_open else "green"),
                cell(row.reviewer), cell(row.case_id), cell(row.note or "-"), key=str(row.id),
            )  # fmt: skip
        title = f"Flags queue   {len(self.flags)} {self.state}"
        parts = [Content.styled(title, "bold")]
        if self.axis is not None:
            parts += [Content.styled(" · axis: ", "$foreground-muted"), line(self.axis)]
        if self.search:
            parts += [Content.styled(" · search: ", "$foreground-muted"), line(self.search)]
        self.query_one("#flags-title", Static).update(Content.assemble(*parts))
        self._detail()
        self.loaded = True

    def selected(self) -> Flag | None:
        table = self.query_one(PickTable)
        if not self.flags or not 0 <= table.cursor_row < len(self.flags):
            return None
        return self.flags[table.cursor_row]

    def _detail(self) -> None:
        self.query_one("#flags-detail", Static).update(flag_detail(self.selected()))

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._detail()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "flags-search":
            self.search = event.value
            self.reload()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(PickTable).focus()

    # -- actions ----------------------------------------------------------------------------------

    def action_resolve_flag(self) -> None:
        flag = self.selected()
        if flag is None or not flag.is_open:
            self.notify("No open flag selected: change the state (s), the axis (a) or the search.", severity="warning")
            return
        self.app.push_screen(ResolveDialog(flag, blink=not self.context.deterministic), self._resolve(flag))

    def _resolve(self, flag: Flag) -> Callable[[str | None], None]:
        def done(note: str | None) -> None:
            if note is None:
                return
            services, curator = self.context.services, self.context.curator
            self.call("resolving…", lambda: FlagResolved(services.resolve_flag(flag.id, note, curator)), "Not resolved")

        return done

    def on_flag_resolved(self, message: FlagResolved) -> None:
        self.settle()
        self.notify(f"Flag {message.flag.id} resolved.", markup=False)
        self.reload()

    def action_search(self) -> None:
        self.query_one("#flags-search", Input).focus()

    def action_cycle_state(self) -> None:
        self.state = STATES[(STATES.index(self.state) + 1) % len(STATES)]
        self.reload()

    def action_cycle_axis(self) -> None:
        axes: list[str | None] = [None, *self.context.services.config.rubric.axis_names]
        self.axis = axes[(axes.index(self.axis) + 1) % len(axes)]
        self.reload()

    def action_back(self) -> None:
        if self.focused is self.query_one("#flags-search", Input):
            self.query_one(PickTable).focus()
            return
        self.dismiss(None)
