"""The core stays headless, and `qaeval --help` never loads the TUI."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path


def modules_after(code: str) -> set[str]:
    script = f"{code}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_core_imports_neither_textual_nor_rich() -> None:
    import pkgutil

    import qaeval_tui.core

    found = pkgutil.walk_packages(qaeval_tui.core.__path__, prefix="qaeval_tui.core.")
    names = [m.name for m in found]
    assert "qaeval_tui.core.golden.loader" in names  # subpackages are walked, not only the top level
    loaded = modules_after("\n".join(f"import {name}" for name in names))
    assert not {m for m in loaded if m.split(".")[0] in {"textual", "rich"}}


def test_help_does_not_import_textual() -> None:
    loaded = modules_after(
        "import sys\nfrom qaeval_tui.cli.main import app\ntry:\n    app(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert "qaeval_tui.cli.main" in loaded
    assert not {m for m in loaded if m.split(".")[0] == "textual"}
    # Nor the config or case models (pydantic): the help lists commands, it reads no file.
    models = {"qaeval_tui.core.config", "qaeval_tui.core.config.model", "qaeval_tui.core.models.golden"}
    assert all(importlib.util.find_spec(name) for name in models)
    assert not models & loaded
    assert not {m for m in loaded if m.split(".")[0] in {"pydantic", "rich"}}  # the consoles load on first print


def test_validate_loads_only_what_it_uses() -> None:
    # Each command imports its own machinery, so `qaeval validate` and `--help` start fast:
    # no statistics (numpy, krippendorff), no store, runner or report code.
    loaded = modules_after(
        "from qaeval_tui.cli.main import app\n"
        "try:\n"
        "    app(['validate', 'golden'])\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code"
    )
    assert "qaeval_tui.core.golden.loader" in loaded
    heavy = {"numpy", "krippendorff", "textual", "sqlite_utils", "sqlite3"}
    assert not {m for m in loaded if m.split(".")[0] in heavy}
    unused = {
        "store.sqlite",
        "running.runner",
        "statistics.agreement",
        "statistics.calibration",
        "gate.decision",
        "curation.promotion",
        "review.session",
        "statistics.report_html",
    }
    # Each name must still be a module, or a move would leave this check asserting nothing.
    assert all(importlib.util.find_spec(f"qaeval_tui.core.{name}") for name in unused)
    assert not {f"qaeval_tui.core.{name}" for name in unused} & loaded
    assert not {m for m in loaded if m.startswith(("qaeval_tui.core.usecases", "qaeval_tui.bundled"))}


def test_review_app_starts_without_the_statistics() -> None:
    # The home screen reaches the oversight screens, whose core (calibration, near-duplicates)
    # needs numpy; a reviewer who never opens them should not wait for it at start-up, nor on the
    # way home (the app builds home when the reviewer first goes there).
    loaded = modules_after("import qaeval_tui.tui.app\nimport qaeval_tui.tui.screens.home")
    assert {"qaeval_tui.tui.app", "qaeval_tui.tui.screens.home"} <= loaded
    assert not {m for m in loaded if m.split(".")[0] in {"numpy", "krippendorff"}}


def test_the_package_ships_no_test_scaffolding() -> None:
    # Scenes, the oversight host and the screenshot script live in tests/ and scripts/: no module of
    # the package drives the app through a Pilot or reaches into the tests.
    import pkgutil

    import qaeval_tui

    found = pkgutil.walk_packages(qaeval_tui.__path__, prefix="qaeval_tui.")
    names = [m.name for m in found if not m.name.endswith("__main__")]  # those run the CLI
    assert "qaeval_tui.tui.app" in names and "qaeval_tui.tui.screens.inbox" in names
    loaded = modules_after("\n".join(f"import {name}" for name in names))
    assert "qaeval_tui.tui.app" in loaded
    harness = {m for m in loaded if m == "textual.pilot" or m.split(".")[0] in {"tests", "scripts"}}
    assert not harness, f"the package imports test scaffolding: {sorted(harness)}"


# Started as `qaeval review` starts, headless, until its first item is on screen; then the modules it
# loaded are listed. `--help`'s check above covers the command line; this one the app's start.
_REVIEW_START = """
import asyncio, sys
from qaeval_tui.cli import review_cmd
from qaeval_tui.tui.app import ReviewApp

shown = []

async def first_item(pilot):
    app = pilot.app
    while not (type(app.screen).__name__ == "ReviewScreen" and app.screen.item is not None):
        await asyncio.sleep(0.01)
    await pilot.pause()
    shown.append(app.screen.item.position)
    app.exit()

run = ReviewApp.run
ReviewApp.run = lambda self: run(self, headless=True, auto_pilot=first_item, size=(100, 32))
from qaeval_tui.cli.main import app
try:
    app(["review", "--reviewer", "ana", "--db", sys.argv[1], "--data", sys.argv[2]])
except SystemExit as exc:
    assert exc.code in (None, 0), exc.code
print("shown", *shown)
from pydantic import BaseModel

models, built = [BaseModel], []
while models:
    for model in models.pop().__subclasses__():
        models.append(model)
        built += [model.__qualname__] if model.__dict__.get("__pydantic_complete__") else []
print("built", *sorted(built))
print("\\n".join(sorted(sys.modules)))
"""


def test_the_review_app_reaches_its_first_item_without_what_it_does_not_show(tmp_path: Path) -> None:
    # The first item of a prepared store needs the config, the store, the review screen and Textual:
    # not the statistics, the judges or the suite's runner (a fresh store imports those to prepare),
    # nor home or the oversight screens (built when the reviewer goes there), nor sqlite-utils or a
    # PostgreSQL driver on a SQLite store.
    from qaeval_tui.core.config import Config
    from tests.conftest import DEMO_GOLDEN
    from tests.tui.scenes.review import build_demo_store

    db = tmp_path / "qaeval.db"
    build_demo_store(db, DEMO_GOLDEN, Config())
    (tmp_path / "qaeval.toml").write_text("", encoding="utf-8")
    env = {**os.environ, "QAEVAL_STATE_DIR": str(tmp_path / "state")}
    env.pop("QAEVAL_REVIEWER", None)
    done = subprocess.run(
        [sys.executable, "-c", _REVIEW_START, str(db), str(DEMO_GOLDEN)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    head, built, *names = done.stdout.split("\n")
    assert head == "shown 1", head  # the first item was on screen when the modules were listed
    # An empty qaeval.toml gives the defaults unvalidated (config/sections.py: Section): no config or
    # rubric model has built its pydantic schema (the command line's own parameters may have).
    assert not {"Config", "Rubric", "Axis", "ReviewConfig"} & set(built.split()[1:]), built
    loaded = set(names)
    assert {"qaeval_tui.tui.screens.review", "qaeval_tui.core.config.model"} <= loaded
    ours = {
        "tui.screens.home",
        "tui.screens.preparing",
        "tui.screens.reviewer",
        "tui.screens.help",
        "tui.screens.dashboard",
        "tui.screens.adjudicate",
        "tui.screens.inbox",
        "tui.screens.runs",
        "core.usecases.run",
        "core.usecases.dashboard",
        "core.running.runner",
        "core.judges",
        "core.statistics",
        "core.curation.adjudication",
        "core.runs",
        "core.gate",
    }
    assert all(importlib.util.find_spec(f"qaeval_tui.{name}") for name in ours)  # a move would void the check
    unwanted = {m for m in loaded if any(m == f"qaeval_tui.{n}" or m.startswith(f"qaeval_tui.{n}.") for n in ours)}
    foreign = {"numpy", "krippendorff", "scipy", "sqlite_utils", "psycopg", "httpx", "openai", "anthropic", "aiohttp"}
    unwanted |= {m for m in loaded if m.split(".")[0] in foreign}
    assert not unwanted, f"the review app's start imports {sorted(unwanted)}"
