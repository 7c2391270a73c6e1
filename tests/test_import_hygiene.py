"""The core stays headless, and `qaeval --help` never loads the TUI."""

from __future__ import annotations

import importlib.util
import subprocess
import sys


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
