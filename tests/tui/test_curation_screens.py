"""Curation from the keyboard: import the inbox, open a miss, promote it (or fail to), reject one.

Every test runs the screens in a small host app on a private copy of the demo golden set and a
demo store, then checks what a curator cares about: the living file and the store.
"""

from __future__ import annotations

import json
from pathlib import Path

from qaeval_tui.core.curation.inbox import import_misses, inbox_entry
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.tui.app import ReviewApp
from qaeval_tui.tui.screens.inbox import InboxScreen
from qaeval_tui.tui.screens.promote import PromoteScreen
from qaeval_tui.tui.widgets.promote_form import PromoteForm
from tests.curation_fixtures import BEDROOM, GATEWAY, RESTOCKING, make_miss
from tests.tui.conftest import flat
from tests.tui.oversight_host import (
    FIXED_NOW,
    Workspace,
    host_text,
    notices,
    oversight_app,
    oversight_template,
    workspace,
)
from tests.tui.scenes.review import AnyPilot, wait_until

__all__ = ["oversight_template", "workspace"]  # fixtures


async def inbox_ready(pilot: AnyPilot) -> InboxScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, InboxScreen) and app.screen.loaded and not app.screen.busy)
    await pilot.pause()
    assert isinstance(app.screen, InboxScreen)
    return app.screen


async def form_ready(pilot: AnyPilot) -> PromoteScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, PromoteScreen) and app.screen.form is not None)
    await pilot.pause()
    assert isinstance(app.screen, PromoteScreen)
    return app.screen


def import_demo_inbox(ws: Workspace) -> None:
    with ws.store() as store:
        import_misses(store, ws.inbox_file)


def promote_app(ws: Workspace, trace_id: str) -> ReviewApp:
    import_demo_inbox(ws)
    return oversight_app(ws, lambda context: PromoteScreen(context, trace_id))


async def test_importing_the_demo_inbox_lists_every_miss_and_opens_one(workspace: Workspace) -> None:
    app = oversight_app(workspace, InboxScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await inbox_ready(pilot)
        assert screen.entries == []
        await pilot.press("i")  # the dialog offers the configured inbox file
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(screen.entries) == 10)
        assert "pending 10" in host_text(app)
        await pilot.press("down", "enter")
        form = await form_ready(pilot)
        assert form.trace_id == screen.entries[1].trace_id == RESTOCKING
        assert form.form is not None and form.form.draft().question == screen.entries[1].miss.question
        await pilot.press("escape")
        await inbox_ready(pilot)
    with workspace.store() as store:
        assert store.count("inbox") == 10 and store.count("inbox_decisions") == 0


async def test_a_bad_miss_file_is_reported_by_line_and_nothing_is_imported(workspace: Workspace) -> None:
    bad = workspace.root / "bad.jsonl"
    bad.write_text(json.dumps(make_miss("tr-ok")) + "\n" + json.dumps(make_miss("tr-bad", question="")) + "\n")
    app = oversight_app(workspace, InboxScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        await inbox_ready(pilot)
        await pilot.press("i", "ctrl+u", *str(bad), "enter")
        await wait_until(pilot, lambda: bool(notices(app)))
        assert f"{bad}:2: question:" in notices(app)[-1] and notices(app)[-1].startswith("Nothing imported")
    with workspace.store() as store:
        assert store.count("inbox") == 0


async def test_status_filter_and_search_narrow_the_list(workspace: Workspace) -> None:
    import_demo_inbox(workspace)
    with workspace.store() as store:
        from qaeval_tui.core.curation.rejection import reject

        reject(store, RESTOCKING, reason="the answer was right", curator="dana")
    app = oversight_app(workspace, InboxScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await inbox_ready(pilot)
        assert len(screen.entries) == 10
        await pilot.press("f")  # pending
        await wait_until(pilot, lambda: screen.status == "pending" and len(screen.entries) == 9)
        await pilot.press("f")  # promoted
        await wait_until(pilot, lambda: screen.status == "promoted" and screen.entries == [])
        await pilot.press("f", "f")  # rejected, then any
        await wait_until(pilot, lambda: screen.status is None and len(screen.entries) == 10)
        await pilot.press("slash", *"g2 price")
        await wait_until(pilot, lambda: [e.trace_id for e in screen.entries] == [GATEWAY])
        await pilot.press("escape")  # leaves the search field, not the screen
        assert isinstance(app.screen, InboxScreen) and app.screen.focused is not None
        assert app.screen.focused.id == "inbox-list"


async def test_ctrl_s_on_a_miss_already_in_the_set_records_that_promotion(workspace: Workspace) -> None:
    # As after a promotion killed between the append and the store's commit: the case is in the
    # living file, the miss still pending. Opening it writes nothing; ctrl+s records it.
    case = json.loads(workspace.living.read_text(encoding="utf-8").splitlines()[0])
    case["id"] = "bedroom-cut-short-01"
    case["provenance"] |= {"trace_id": BEDROOM, "promoted_by": "mara", "promoted_at": FIXED_NOW}
    with workspace.living.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(case) + "\n")
    before = workspace.living.read_bytes()
    app = promote_app(workspace, BEDROOM)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await form_ready(pilot)
        assert any("not yet recorded as promoted" in error.message for error in screen.errors)
        with workspace.store() as store:
            assert inbox_entry(store, BEDROOM).status == "pending"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: bool(notices(app)) and not screen.busy)
        assert "only the promotion already in the golden set was recorded" in notices(app)[-1]
    assert workspace.living.read_bytes() == before
    with workspace.store() as store:
        decision = inbox_entry(store, BEDROOM).decision
    assert decision is not None and (decision.case_id, decision.curator) == ("bedroom-cut-short-01", "mara")


async def test_promoting_appends_one_line_with_provenance_and_the_set_still_loads(workspace: Workspace) -> None:
    before = workspace.living.read_text(encoding="utf-8").splitlines()
    app = promote_app(workspace, BEDROOM)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await form_ready(pilot)
        assert screen.errors  # a fresh draft has no gold answer yet
        # case id -> question -> behaviour -> gold answer
        await pilot.press("tab", "tab", "tab", *"No: not in a sleeping area.")
        await pilot.press("tab", "down", "space")  # gold sources: pick s2, the installation guide
        await pilot.pause()
        assert screen.errors == []
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, PromoteScreen))
    after = workspace.living.read_text(encoding="utf-8").splitlines()
    assert after[:-1] == before and len(after) == len(before) + 1
    case = json.loads(after[-1])
    assert case["id"] == "install-hb-10-bedroom-01" and case["gold_answer"] == "No: not in a sleeping area."
    assert case["gold_source_ids"] == ["s2"] and case["expected_behavior"] == "answer"
    assert case["provenance"] == {
        "origin": "production_miss",
        "trace_id": BEDROOM,
        "promoted_by": "dana",
        "promoted_at": FIXED_NOW,
        "reason": case["provenance"]["reason"],
    }
    assert case["provenance"]["reason"].startswith("Told a customer the HB-10 can go in a bedroom")
    golden = load_golden([workspace.golden])
    assert golden.by_id()["install-hb-10-bedroom-01"].split == "living"
    with workspace.store() as store:
        decision = inbox_entry(store, BEDROOM).decision
    assert decision is not None and (decision.decision, decision.case_id) == ("promoted", "install-hb-10-bedroom-01")


async def test_an_invalid_draft_shows_inline_errors_and_writes_nothing(workspace: Workspace) -> None:
    before = workspace.living.read_bytes()
    app = promote_app(workspace, BEDROOM)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await form_ready(pilot)
        await pilot.press("ctrl+u", *"gateway-price-current-01")  # an id the golden set already has
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PromoteScreen)
        form = screen.query_one(PromoteForm)
        problems = {error.field for error in screen.errors}
        assert {"case_id", "gold_answer", "gold_source_ids"} <= problems
        shown = flat(str(form.query_one("#e-case_id").render()))
        assert "'gateway-price-current-01' already exists" in shown and "living.jsonl:1" in shown
        assert "required (non-empty)" in flat(str(form.query_one("#e-gold_answer").render()))
        # The refusal focuses the first problem; ctrl+n walks on to the next ones, in form order.
        assert form.field_widget("case_id").has_focus
        await pilot.press("ctrl+n")
        assert form.field_widget("gold_answer").has_focus
        await pilot.press("ctrl+n")
        assert form.field_widget("gold_source_ids").has_focus
    assert workspace.living.read_bytes() == before
    with workspace.store() as store:
        assert store.count("inbox_decisions") == 0


async def test_a_near_duplicate_question_names_the_similar_case(workspace: Workspace) -> None:
    app = promote_app(workspace, GATEWAY)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await form_ready(pilot)
        near = flat(str(screen.query_one("#near").render()))
        assert "close to existing case" in near and "gateway-price-current-01" in near
        # Rewording the question away from it clears the warning, as you type.
        await pilot.press("tab", "ctrl+a", "ctrl+k", *"Which inverter warranty applies to solar owners")
        await pilot.pause()
        assert "no existing case asks anything close" in flat(str(screen.query_one("#near").render()))


async def test_rejecting_records_the_reason_and_leaves_the_golden_set_alone(workspace: Workspace) -> None:
    before = workspace.living.read_bytes()
    app = promote_app(workspace, RESTOCKING)
    async with app.run_test(size=(100, 32)) as pilot:
        await form_ready(pilot)
        await pilot.press("ctrl+r", "enter")  # no reason yet: refused in the dialog
        await pilot.pause()
        assert "a reason is required" in flat(host_text(app))
        await pilot.press(*"The answer was right: the fee is in the terms.", "enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, PromoteScreen) and len(app.screen_stack) == 1)
    assert workspace.living.read_bytes() == before
    with workspace.store() as store:
        decision = inbox_entry(store, RESTOCKING).decision
    assert decision is not None and decision.decision == "rejected" and decision.curator == "dana"
    assert decision.reason == "The answer was right: the fee is in the terms." and decision.decided_at == FIXED_NOW


async def test_data_text_is_shown_literally_never_as_markup_or_escapes(workspace: Workspace, tmp_path: Path) -> None:
    tricky = make_miss("tr-tricky", question="Is [bold red]this[/] \x1b[31mred\x1b[0m?", answer="[link=x]click[/link]")
    path = tmp_path / "tricky.jsonl"
    path.write_text(json.dumps(tricky) + "\n", encoding="utf-8")
    with workspace.store() as store:
        import_misses(store, path)
    app = oversight_app(workspace, InboxScreen)
    async with app.run_test(size=(120, 32)) as pilot:
        await inbox_ready(pilot)
        text = flat(host_text(app))
        assert "Is [bold red]this[/] \\x1b[31mred\\x1b[0m?" in text
        assert "[link=x]click[/link]" in text
        assert "\x1b" not in app.export_screenshot()


async def test_an_invalid_golden_set_is_reported_where_the_form_would_be(workspace: Workspace) -> None:
    with workspace.living.open("a", encoding="utf-8") as living:
        living.write('{"id": "broken"}\n')
    app = promote_app(workspace, BEDROOM)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: bool(notices(app)))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PromoteScreen) and screen.form is None
        assert "living.jsonl:10" in flat(host_text(app)) and notices(app)[-1].startswith("Not loaded")
        await pilot.press("ctrl+s")  # nothing to promote: refused quietly
    with workspace.store() as store:
        assert store.count("inbox_decisions") == 0


async def test_unchecked_boxes_in_the_promote_form_are_empty_and_checked_ones_are_marked(workspace: Workspace) -> None:
    from textual.widgets import RadioButton, SelectionList

    app = promote_app(workspace, BEDROOM)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await form_ready(pilot)
        assert screen.form is not None
        buttons = list(screen.form.query(RadioButton))
        assert any(button.value for button in buttons) and any(not button.value for button in buttons)
        for button in buttons:
            style = button.get_component_rich_style("toggle--button")
            assert (style.color == style.bgcolor) is (not button.value), button.label  # X invisible iff unchecked
        sources = screen.form.query_one(SelectionList)
        for name in ("selection-list--button", "selection-list--button-highlighted"):
            style = sources.get_component_rich_style(name)
            assert style.color == style.bgcolor, name
        style = sources.get_component_rich_style("selection-list--button-selected")
        assert style.color != style.bgcolor


async def test_an_empty_inbox_offers_the_configured_inbox_file(workspace: Workspace) -> None:
    app = oversight_app(workspace, InboxScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await inbox_ready(pilot)
        text = flat(host_text(app))
        assert screen.entries == [] and "The inbox is empty. Press i to import the configured inbox file" in text
        assert workspace.inbox_file.name in text
        workspace.inbox_file.unlink()
        screen.reload()
        await inbox_ready(pilot)
        await wait_until(pilot, lambda: "does not exist" in flat(host_text(app)))
