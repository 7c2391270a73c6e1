"""`make run` (issue 13): the store it opens holds the bundled demo reviewers' labels, so
adjudication and the dashboard have something real, and running it again imports nothing twice.
The Makefile's own recipe is run (all but its last line, the TUI) in a copy of the demo."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from qaeval_tui.core.config import load_config
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.prepare import ensure_prepared

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
    for attempt in range(2):  # `make run` twice
        said = b""
        for command in recipe[:-1]:
            done = subprocess.run(command.replace("$(BIN)", bin_dir), shell=True, cwd=tmp_path, capture_output=True)
            assert done.returncode == 0, done.stderr
            said += done.stdout + done.stderr
        assert b"not review items" not in said  # the store is prepared before the labels arrive
        assert (b"added 0, 93 already present" in said) == (attempt == 1)
    config = load_config(tmp_path / "qaeval.toml")
    with Store.open(config.path(config.paths.store)) as store:
        ensure_prepared(store, config, [config.path(config.paths.golden)], "zoe")  # what `qaeval review` does
        labelled = {row.label.item_id for row in store.labels()}
        items = {row.item_id for row in store.review_items()}
        assert len(store.labels()) == 93 and set(store.label_reviewers()) == {"ana", "ben", "chloe"}
        assert labelled <= items  # the demo labels are on the items being reviewed: they pair up
        assert store.queue_length("zoe") == 26  # and your own labels join them
        for name in ("ana", "ben", "chloe"):  # the demo reviewers' queues are done
            labelled = {row.label.item_id for row in store.labels(reviewer=name) if not row.label.skipped}
            assert set(store.queue_item_ids(name)) <= labelled, name


def recipe_of(text: str, target: str) -> tuple[list[str], str]:
    """A Makefile target's prerequisites and its recipe."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    body = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        body.append(line)
    return lines[start].split(":", 1)[1].split(), "\n".join(body)


def test_make_run_installs_what_running_needs_and_make_test_the_dev_tools() -> None:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    assert recipe_of(text, "run")[0] == ["$(RUN_STAMP)"]
    run_install = recipe_of(text, "$(RUN_STAMP)")[1]
    assert "pip install --quiet -e .\n" in run_install + "\n" and "dev" not in run_install
    assert recipe_of(text, "test")[0] == ["$(STAMP)"]
    assert '-e ".[dev]"' in recipe_of(text, "$(STAMP)")[1]
