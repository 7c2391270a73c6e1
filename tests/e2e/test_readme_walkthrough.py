"""The README's walkthrough, run as a newcomer runs it, on a fresh copy of the demo: `make run`'s
recipe, then the review app for a name of one's own, the curator app, and `queue --more-labels`.

What the README promises and this checks: a newcomer's queue holds 26 items; the demo reviewers'
queues stay done (their labels were imported onto them); opening `qaeval curate` gives a curator no
review queue; `--more-labels` offers exactly the items calibration counts as labelled by one reviewer.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from qaeval_tui.core.config import load_config
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.prepare import team_standing
from tests.conftest import REPO
from tests.e2e.test_make_run_demo import run_recipe
from tests.test_docs import README

DEMO_REVIEWERS = ("ana", "ben", "chloe")


def qaeval(folder: Path, *args: str, tui: bool = False, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QAEVAL_STATE_DIR": str(folder / ".state")}
    env.pop("QAEVAL_REVIEWER", None)
    env.pop("QAEVAL_DB", None)
    if tui:  # the real app, headless: Textual's screenshot hook quits it after a few seconds
        env |= {
            "TEXTUAL_DRIVER": "textual.drivers.headless_driver:HeadlessDriver",
            "TEXTUAL_SCREENSHOT": "4",
            "TEXTUAL_SCREENSHOT_LOCATION": str(folder / ".shots"),
        }
    done = subprocess.run(
        [sys.executable, "-m", "qaeval_tui", *args],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in ok, f"qaeval {' '.join(args)}: {done.stderr}"
    return done


def test_the_readme_walkthrough_on_a_fresh_copy_of_the_demo(tmp_path: Path) -> None:
    promised = re.search(r"type a name of your own for a queue of (\d+) items", " ".join(README.split()))
    assert promised is not None, "the README no longer says how long a newcomer's queue is"
    for name in ("golden", "labels"):
        shutil.copytree(REPO / name, tmp_path / name)
    shutil.copyfile(REPO / "qaeval.toml", tmp_path / "qaeval.toml")
    bin_dir = str(Path(sys.executable).parent)
    for command in run_recipe()[:-1]:  # make run, up to the app
        done = subprocess.run(command.replace("$(BIN)", bin_dir), shell=True, cwd=tmp_path, capture_output=True)
        assert done.returncode == 0, done.stderr
    config = load_config(tmp_path / "qaeval.toml")
    db = config.path(config.paths.store)

    said = qaeval(tmp_path, "review", "--reviewer", "zoe", tui=True).stderr.strip().splitlines()[-1]
    assert said == f"zoe: 0 label(s) saved this session, 0 skipped; {promised.group(1)} item(s) left in your queue"
    qaeval(tmp_path, "curate", "--as", "dana", tui=True)
    with Store.open(db) as store:
        assert store.queue_length("zoe") == int(promised.group(1))
        assert all(standing.done for standing in team_standing(store, DEMO_REVIEWERS))
        assert store.queue_length("dana") == 0
        before = {name: store.queue_item_ids(name) for name in DEMO_REVIEWERS}

    calibration = json.loads(qaeval(tmp_path, "calibrate", "--json", ok=(0, 1, 3)).stdout)
    one_reviewer = set().union(*(axis["one_reviewer_items"] for axis in calibration["axes"].values()))
    assert one_reviewer, "the demo has items one reviewer labelled: the walkthrough offers them"
    offered = json.loads(qaeval(tmp_path, "queue", "--more-labels", "--json").stdout)
    with Store.open(db) as store:
        added = {name: store.queue_item_ids(name)[len(before[name]) :] for name in DEMO_REVIEWERS}
        queued = store.queued_items()
        labelled: dict[str, set[str]] = {}
        for row in store.labels():
            labelled.setdefault(row.label.reviewer, set()).add(row.label.item_id)
    assert offered["newly_assigned_items"] == sum(map(len, added.values())) > 0
    assert set().union(*map(set, added.values())) <= one_reviewer
    # Every item calibration counts as one reviewer's now waits in the queue of someone who has not
    # labelled it (zoe's queue already held some: an offer made counts), never of someone who has.
    for item_id in one_reviewer:
        holders = {name for name, items in queued.items() if item_id in items}
        assert holders - {name for name, items in labelled.items() if item_id in items}, item_id
    assert all(not set(added[name]) & labelled.get(name, set()) for name in DEMO_REVIEWERS)
