"""`make run` (issue 13): the store it opens holds the bundled demo reviewers' labels, so
adjudication and the dashboard have something real, and running it again imports nothing twice.
The Makefile's own recipe is run (all but its last line, the TUI) in a copy of the demo."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from qaeval_tui.core.config import load_config
from qaeval_tui.core.review.prepare import ensure_prepared
from qaeval_tui.core.store.sqlite import Store

REPO = Path(__file__).resolve().parents[2]


def run_recipe() -> list[str]:
    lines = (REPO / "Makefile").read_text(encoding="utf-8").splitlines()
    start = lines.index(next(line for line in lines if line.startswith("run:")))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_make_run_opens_a_store_with_the_demo_labels_imported_once(tmp_path: Path) -> None:
    recipe = run_recipe()
    assert recipe[-1] == "$(BIN)/qaeval review"
    assert "$(BIN)/qaeval labels import labels" in recipe[:-1]
    for name in ("golden", "labels"):
        shutil.copytree(REPO / name, tmp_path / name)
    shutil.copyfile(REPO / "qaeval.toml", tmp_path / "qaeval.toml")
    bin_dir = str(Path(sys.executable).parent)
    for _ in range(2):  # `make run` twice
        for command in recipe[:-1]:
            done = subprocess.run(command.replace("$(BIN)", bin_dir), shell=True, cwd=tmp_path, capture_output=True)
            assert done.returncode == 0, done.stderr
    assert b"added 0, 93 already present" in done.stdout
    config = load_config(tmp_path / "qaeval.toml")
    with Store.open(config.path(config.paths.store)) as store:
        ensure_prepared(store, config, [config.path(config.paths.golden)], "zoe")  # what `qaeval review` does
        labelled = {row.label.item_id for row in store.labels()}
        items = {row.item_id for row in store.review_items()}
        assert len(store.labels()) == 93 and set(store.label_reviewers()) == {"ana", "ben", "chloe"}
        assert labelled <= items  # the demo labels are on the items being reviewed: they pair up
        assert store.queue_length("zoe") > 0  # and your own labels join them
