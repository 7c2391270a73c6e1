"""Home says when the golden set has cases no run answered yet (a promoted case, say), so none waits unseen."""

from __future__ import annotations

import json

from tests.tui.conftest import flat, screen_text
from tests.tui.oversight_host import Workspace, oversight_template, workspace
from tests.tui.scenes.review import wait_until
from tests.tui.test_navigation import app_on, go_home

__all__ = ["oversight_template", "workspace"]  # fixtures


async def test_home_names_a_golden_case_not_yet_run(workspace: Workspace) -> None:
    living = workspace.golden / "living.jsonl"
    case = json.loads(living.read_text(encoding="utf-8").splitlines()[0])
    case["id"] = "freshly-promoted-01"
    case["question"] = "Can the HB-10 run from a generator during a grid outage?"
    with living.open("a", encoding="utf-8") as out:
        out.write(json.dumps(case) + "\n")
    app = app_on(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await go_home(pilot)
        await wait_until(pilot, lambda: "not yet run" in flat(screen_text(app)))
        text = flat(screen_text(app))
    assert "1 golden case(s) not yet run (freshly-promoted-01): `qaeval run`" in text
