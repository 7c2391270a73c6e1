"""After a promotion one key in the inbox runs the new case and queues it for the roster: no hidden CLI steps."""

from __future__ import annotations

import json

from qaeval_tui.tui.screens.inbox import InboxScreen
from tests.tui.oversight_host import Workspace, notices, oversight_app, oversight_template, workspace
from tests.tui.scenes.review import wait_until

__all__ = ["oversight_template", "workspace"]  # fixtures

NEW_CASE = "freshly-promoted-01"


async def test_r_in_the_inbox_runs_the_promoted_case_and_queues_it_for_the_roster(workspace: Workspace) -> None:
    living = workspace.golden / "living.jsonl"
    case = json.loads(living.read_text(encoding="utf-8").splitlines()[0])
    case["id"] = NEW_CASE
    case["question"] = "Can the HB-10 run from a generator during a grid outage?"
    with living.open("a", encoding="utf-8") as out:
        out.write(json.dumps(case) + "\n")
    with workspace.store() as store:
        runs_before = len(store.list_runs())
    app = oversight_app(workspace, InboxScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InboxScreen) and app.screen.loaded)
        await pilot.press("r")
        await wait_until(pilot, lambda: any("queued for the roster" in text for text in notices(app)))
        assert any(f"ran 1 new case(s) ({NEW_CASE})" in text for text in notices(app))
    with workspace.store() as store:
        runs = store.list_runs()
        assert len(runs) == runs_before + 1
        (new_run,) = [run for run in runs if run.n_cases == 1]
        assert [o.case_id for o in store.run_outputs(new_run.run_id)] == [NEW_CASE]
        by_item = store.case_ids_by_item()
        holders = {
            reviewer for reviewer, items in store.queued_items().items() if NEW_CASE in {by_item[i] for i in items}
        }
    assert holders and holders <= set(workspace.config.review.reviewers)
