"""The curator app imports a trace export as it imports miss lines: `i`, the path, enter."""

from __future__ import annotations

import json

from qaeval_tui.tui.screens.inbox import InboxScreen
from tests.traces.exports import Recorder, genai_trace, langfuse_trace, openinference_trace, otlp_json, write
from tests.tui.conftest import flat
from tests.tui.oversight_host import Workspace, notices, oversight_app, oversight_template, workspace
from tests.tui.scenes.review import wait_until

__all__ = ["oversight_template", "workspace"]  # fixtures


async def test_an_otlp_export_typed_into_the_import_dialog_fills_the_inbox(workspace: Workspace) -> None:
    rec = Recorder(seed=51)
    trace = genai_trace(rec)
    export = write(workspace.root / "traces.json", otlp_json(rec.spans()))
    app = oversight_app(workspace, InboxScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InboxScreen) and app.screen.loaded)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        await pilot.press("i", "ctrl+u", *str(export), "enter")
        await wait_until(pilot, lambda: len(screen.entries) == 1)
        assert screen.entries[0].trace_id == trace
        assert "1 new miss(es) imported" in flat(" ".join(notices(app)))
    with workspace.store() as store:
        assert store.count("inbox") == 1


def test_the_format_is_told_by_content() -> None:
    from qaeval_tui.core.curation.traces.importer import detect_format

    rec = Recorder(seed=52)
    genai_trace(rec)
    otlp = otlp_json(rec.spans()).encode()
    rec = Recorder(seed=53)
    openinference_trace(rec)
    phoenix = otlp_json(rec.spans()).encode()
    assert detect_format(otlp) == "otlp"
    assert detect_format(otlp + b"\n" + otlp) == "otlp"  # one request a line, as the collector writes
    assert detect_format(phoenix) == "openinference"
    assert detect_format(json.dumps([langfuse_trace("lf-1")]).encode()) == "langfuse"
    assert detect_format(json.dumps({"data": [langfuse_trace("lf-1")]}).encode()) == "langfuse"
    assert detect_format(b'{"trace_id": "tr-1", "question": "q"}\n') == "jsonl"
    assert detect_format(b"not json at all") == "jsonl"  # and the miss reader says where it is wrong
