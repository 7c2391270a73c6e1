"""Data text is shown literally (DESIGN §7): markup-like text and escape sequences never style the screen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App
from textual.screen import ModalScreen

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.session import Advance
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.app import ReviewApp, create_app
from qaeval_tui.tui.literal import marked
from qaeval_tui.tui.screens.import_dialog import ImportDialog
from qaeval_tui.tui.screens.note import NoteDialog
from qaeval_tui.tui.services import Services
from tests.conftest import DEMO_GOLDEN
from tests.tui.conftest import flat, make_app, open_review, screen_text, settle
from tests.tui.scenes.review import LITERAL_QUESTION, wait_until

LITERAL_CASE = "literal-rendering-01"


def reviewer_of_literal_case(db: Path) -> str:
    with Store.open(db) as store:
        case_of = store.case_ids_by_item()
        return next(name for name, item_id, _ in store.assignments() if case_of[item_id] == LITERAL_CASE)


async def test_markup_and_escape_sequences_in_a_source_show_as_text(demo_db: Path) -> None:
    app = make_app(demo_db, reviewer_of_literal_case(demo_db))
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_review(pilot)
        for _ in range(30):
            if screen.item is not None and LITERAL_QUESTION in screen.item.question:
                break
            await settle(pilot, "s")
        assert screen.item is not None and LITERAL_QUESTION in screen.item.question
        await settle(pilot, "n", *"see [bold red]x[/] and [@click=app.quit]q[/]", "enter", "right_square_bracket")
        svg = app.export_screenshot()
        text = flat(screen_text(app))
        assert isinstance(app, ReviewApp) and app.is_running  # the [@click=app.quit] text did nothing
    assert '"WB-10 bracket bolts [bold red]x[/]"' in text  # a title
    assert "formatting junk [bold red]x[/] [link=https://example.invalid]click[/link]." in text
    assert "[@click=app.quit]quit[/]" in text
    assert "export.\\x1b[2J Copied" in text  # ESC shown as a visible escape, not sent
    assert "here\\x1b]52;c;aGVsbG8=\\x07" in text  # OSC 52 (clipboard write) shown, not sent
    assert "note see [bold red]x[/] and [@click=app.quit]q[/]" in text  # the reviewer's own note
    assert "\x1b" not in svg and "\x07" not in svg


def test_marked_maps_highlight_ranges_through_escaping() -> None:
    text = "a\x1bb [b]c[/b] d"
    content = marked(text, [(text.index("[b]"), text.index("[b]") + 3, "bold")])
    assert content.plain == "a\\x1bb [b]c[/b] d"
    [span] = content.spans
    assert content.plain[span.start : span.end] == "[b]"


class RefusingGateway(Services):
    """Refuses every submit with an error quoting markup-like data."""

    def submit_and_next(
        self, item_id: str, scores: dict[str, int | None], note: str, flagged: bool, seconds: float
    ) -> Advance:
        raise UsageError("answer [bold red]x[/] cites [@click=app.quit]q[/]: not saved")


async def test_an_error_toast_quotes_data_literally(demo_db: Path) -> None:
    config = Config()
    services = RefusingGateway(config, demo_db, [DEMO_GOLDEN])
    app = create_app(
        config, db_path=demo_db, data_paths=[DEMO_GOLDEN], reviewer="ana", deterministic=True, services=services
    )
    async with app.run_test(size=(100, 32), notifications=True) as pilot:  # draw toasts
        await open_review(pilot)
        await settle(pilot, "2", "1", "2", "enter")
        await wait_until(pilot, lambda: "not saved" in screen_text(app))
        lines = screen_text(app).splitlines()
        assert app.is_running
    toast = " ".join(line.split("▌", 1)[1].strip() for line in lines if "▌" in line)  # right of the toast's edge
    assert "Not saved answer [bold red]x[/] cites [@click=app.quit]q[/]: not saved" in toast


Dialog = ModalScreen[str | None]


class DialogHost(App[None]):
    """Pushes one dialog and keeps what it returned."""

    def __init__(self, dialog: Dialog) -> None:
        super().__init__()
        self.dialog = dialog
        self.result: str | None = "(not returned)"

    def on_mount(self) -> None:
        self.push_screen(self.dialog, self.returned)

    def returned(self, value: str | None) -> None:
        self.result = value


@pytest.mark.parametrize(
    "make", [lambda text: NoteDialog(text, blink=False), lambda text: ImportDialog(text, blink=False)]
)
async def test_a_field_kept_as_shown_keeps_its_hidden_characters(
    make: Callable[[str], ModalScreen[str | None]],
) -> None:
    """A note or path holding ESC or a bidi override is shown escaped; enter on it unchanged returns it as it was."""
    text = "notes\x1b[2J \u202etxt.exe"
    app = DialogHost(make(text))
    async with app.run_test() as pilot:
        await pilot.pause()
        svg = app.export_screenshot()
        await pilot.press("enter")
        await pilot.pause()
    assert "notes\\x1b[2J \\u202etxt.exe" in svg.replace("&#160;", " ")
    assert "\x1b" not in svg and "\u202e" not in svg
    assert app.result == text
