"""The production-miss inbox: every miss with its status, a status filter and a text search; open one.

The list is the core's `list_inbox` (filtering included); the screen only shows it. Opening a
miss goes to the promote form, where it is promoted or rejected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Input, Static

from qaeval_tui.core.curation.inbox import STATUSES, ImportReport, InboxEntry, InboxStatus, status_counts
from qaeval_tui.core.usecases.queue import NewCasesQueued
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import cell, line, notice
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.miss_view import STATUS_STYLES, MissView
from qaeval_tui.tui.widgets.pick_table import PickTable

FILTERS: tuple[InboxStatus | None, ...] = (None, *STATUSES)
STATUS_CELL_STYLES = {"pending": "bold yellow", "promoted": "bold green", "rejected": "bold red"}


@dataclass
class InboxLoaded(Message):
    entries: list[InboxEntry]
    every: list[InboxEntry]
    status: str | None
    search: str
    inbox_file: Path
    inbox_file_exists: bool


@dataclass
class MissesImported(Message):
    report: ImportReport


@dataclass
class NewCasesRun(Message):
    done: NewCasesQueued


def title_content(every: list[InboxEntry], shown: int, status: str | None, search: str) -> Content:
    counts = status_counts(every)
    parts: list[Content | str] = [Content.styled("Production-miss inbox", "bold"), "   "]
    for name, count in counts.items():
        parts.extend([Content.styled(f"{name} {count}", STATUS_STYLES[name]), "  "])
    parts.append(Content.styled(f"· showing {shown} of {len(every)}", "$foreground-muted"))
    parts.append(Content.styled(f" · status: {status or 'any'}", "$foreground-muted"))
    if search:
        parts.append(Content.styled(" · search: ", "$foreground-muted"))
        parts.append(line(search))
    return Content.assemble(*parts)


def empty_inbox_offer(inbox_file: Path, *, exists: bool) -> Content:
    """What an empty inbox offers: the configured inbox file (`[paths] inbox`), one key away."""
    if exists:
        return Content.assemble(
            ("The inbox is empty. ", "bold"),
            "Press i to import the configured inbox file:\n",
            line(str(inbox_file)),
        )
    return Content.assemble(
        ("The inbox is empty, ", "bold"),
        "and the configured inbox file does not exist:\n",
        line(str(inbox_file)),
        Content.styled("\n[paths] inbox in the config names it; i imports any other file.", "$foreground-muted"),
    )


class InboxScreen(AppScreen[None]):
    """Production misses, oldest report first."""

    SCOPE = "inbox"
    BINDINGS = bindings("inbox")

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.status: InboxStatus | None = None
        self.search = ""
        self.entries: list[InboxEntry] = []
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Production-miss inbox · loading…", "bold"), id="inbox-title")
        yield Input(
            placeholder="/ search trace id, question, answer, reason, reporter", id="inbox-search", compact=True
        )
        yield PickTable(id="inbox-list")
        yield MissView(id="inbox-preview")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#inbox-search", Input).cursor_blink = not self.context.deterministic
        self.query_one(PickTable).focus()

    def on_resize(self) -> None:
        self._fill_table(self.selected_trace_id())

    def _fill_table(self, keep: str | None) -> None:
        """(Re)build the table; the question column takes the width the others leave."""
        table = self.query_one(PickTable)
        table.clear(columns=True)
        for title, width in (("status", 8), ("trace id", 20), ("reported", 10)):
            table.add_column(title, width=width)
        table.add_column("question", width=max(20, self.size.width - 56))
        for entry in self.entries:
            miss = entry.miss
            table.add_row(
                cell(entry.status, STATUS_CELL_STYLES[entry.status]),
                cell(miss.trace_id),
                cell(miss.reported_at[:10]),
                cell(miss.question),
                key=miss.trace_id,
            )
        ids = [entry.trace_id for entry in self.entries]
        if keep in ids:
            table.move_cursor(row=ids.index(keep), animate=False)

    def on_screen_resume(self) -> None:
        self.reload()

    def reload(self) -> None:
        services, status, search = self.context.services, self.status, self.search

        inbox_file = services.config.path(services.config.paths.inbox)

        def work() -> InboxLoaded:
            shown, every = services.inbox(status, search)
            return InboxLoaded(shown, every, status, search, inbox_file, inbox_file.is_file())

        self.call("loading…", work, "Not loaded")

    def on_inbox_loaded(self, message: InboxLoaded) -> None:
        if (message.status, message.search) != (self.status, self.search):
            return  # an older query came back after a newer one was typed
        self.settle()
        keep = self.selected_trace_id()
        self.entries = message.entries
        self._fill_table(keep)
        self.query_one("#inbox-title", Static).update(
            title_content(message.every, len(self.entries), self.status, self.search)
        )
        self._preview()
        if not message.every:
            self.query_one(MissView).update(empty_inbox_offer(message.inbox_file, exists=message.inbox_file_exists))
        self.loaded = True

    def selected_trace_id(self) -> str | None:
        table = self.query_one(PickTable)
        if not self.entries or not 0 <= table.cursor_row < len(self.entries):
            return None
        return self.entries[table.cursor_row].trace_id

    def selected_entry(self) -> InboxEntry | None:
        trace_id = self.selected_trace_id()
        return next((entry for entry in self.entries if entry.trace_id == trace_id), None)

    def _preview(self) -> None:
        self.query_one(MissView).show(self.selected_entry())

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._preview()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_miss()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "inbox-search":
            self.search = event.value
            self.reload()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(PickTable).focus()

    # -- actions ----------------------------------------------------------------------------------

    def action_open_miss(self) -> None:
        entry = self.selected_entry()
        if entry is None:
            self.notify("No miss to open: import a file (i) or change the filter (f).", severity="warning")
            return
        self.navigate("promote", entry.trace_id)

    def action_search(self) -> None:
        self.query_one("#inbox-search", Input).focus()

    def action_cycle_status(self) -> None:
        self.status = FILTERS[(FILTERS.index(self.status) + 1) % len(FILTERS)]
        self.reload()

    def action_import_misses(self) -> None:
        from qaeval_tui.tui.screens.import_dialog import ImportDialog

        config = self.context.services.config
        default = str(config.path(config.paths.inbox))
        self.app.push_screen(ImportDialog(default, blink=not self.context.deterministic), self._import)

    def _import(self, path: str | None) -> None:
        if path is None:
            return
        services = self.context.services
        self.call("importing…", lambda: MissesImported(services.import_misses(Path(path))), "Nothing imported")

    def on_misses_imported(self, message: MissesImported) -> None:
        self.settle()
        report = message.report
        self.notify(
            f"{len(report.added)} new miss(es) imported, {len(report.unchanged)} already in the inbox.",
            title=notice(report.path),
            markup=False,
        )
        self.reload()

    def action_run_and_queue(self) -> None:
        services = self.context.services
        self.call("running new cases…", lambda: NewCasesRun(services.run_new_cases_and_queue()), "Not run")

    def on_new_cases_run(self, message: NewCasesRun) -> None:
        self.settle()
        done = message.done
        if not done.ran and not done.queued_items:
            self.notify("Every golden case is already run and queued.", markup=False)
            return
        ran = f"ran {len(done.ran)} new case(s) ({', '.join(done.ran[:3])}); " if done.ran else ""
        self.notify(notice(f"{ran}{done.queued_items} review item(s) queued for the roster."), markup=False)

    def action_back(self) -> None:
        if self.focused is self.query_one("#inbox-search", Input):
            self.query_one(PickTable).focus()
            return
        self.dismiss(None)
