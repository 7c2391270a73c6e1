"""The core stays headless, and `qaeval --help` never loads the TUI."""

from __future__ import annotations

import subprocess
import sys


def modules_after(code: str) -> set[str]:
    script = f"{code}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_core_imports_neither_textual_nor_rich() -> None:
    import pkgutil

    import qaeval_tui.core

    names = [f"qaeval_tui.core.{m.name}" for m in pkgutil.iter_modules(qaeval_tui.core.__path__)]
    loaded = modules_after("\n".join(f"import {name}" for name in names))
    assert not {m for m in loaded if m.split(".")[0] in {"textual", "rich"}}


def test_help_does_not_import_textual() -> None:
    loaded = modules_after(
        "import sys\nfrom qaeval_tui.cli.main import app\ntry:\n    app(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert "qaeval_tui.cli.main" in loaded
    assert not {m for m in loaded if m.split(".")[0] == "textual"}
