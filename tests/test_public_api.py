"""The public API for adapter and judge authors: its names are stable, and importing it stays light."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

import qaeval_tui
from qaeval_tui.core.models.golden import GoldenCase, Source
from qaeval_tui.core.models.run import Attempt, CaseView, Citation, JudgeConfig, SUTOutput
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.running.adapters import SystemAdapter
from qaeval_tui.core.running.judge import JudgeCall, JudgeClient, JudgeFailure, JudgeResult
from tests.conftest import REPO

# Removing or renaming one of these breaks every adapter and judge written against them.
PUBLIC = {
    "Attempt": Attempt,
    "Axis": Axis,
    "CaseView": CaseView,
    "Citation": Citation,
    "GoldenCase": GoldenCase,
    "Judge": JudgeClient,
    "JudgeCall": JudgeCall,
    "JudgeClient": JudgeClient,
    "JudgeConfig": JudgeConfig,
    "JudgeFailure": JudgeFailure,
    "JudgeResult": JudgeResult,
    "Rubric": Rubric,
    "SUTOutput": SUTOutput,
    "Source": Source,
    "SystemAdapter": SystemAdapter,
}


def test_the_public_names_are_exactly_these() -> None:
    assert sorted(qaeval_tui.__all__) == sorted([*PUBLIC, "__version__"])


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_each_public_name_is_the_core_object(name: str) -> None:
    assert getattr(qaeval_tui, name) is PUBLIC[name]


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="MechanicalJudge"):
        qaeval_tui.MechanicalJudge  # noqa: B018 (the access is the test)


def loaded_after(code: str) -> set[str]:
    script = f"{code}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_importing_the_package_loads_no_core_and_no_terminal_library() -> None:
    loaded = loaded_after("import qaeval_tui")
    assert not {m for m in loaded if m.startswith("qaeval_tui.")}
    assert not {m for m in loaded if m.split(".")[0] in {"textual", "rich"}}


def test_importing_every_public_name_loads_no_terminal_library() -> None:
    loaded = loaded_after(f"from qaeval_tui import {', '.join(sorted(PUBLIC))}")
    assert "qaeval_tui.core.running.adapters" in loaded
    assert not {m for m in loaded if m.split(".")[0] in {"textual", "rich"}}
    assert not {m for m in loaded if m.startswith("qaeval_tui.bundled")}


@pytest.mark.parametrize("example", ["real_adapter.py", "real_judge.py"])
def test_the_examples_import_only_the_public_api(example: str) -> None:
    tree = ast.parse((REPO / "examples" / example).read_text(encoding="utf-8"))
    ours = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "qaeval_tui"
    ]
    plain = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.split(".")[0] == "qaeval_tui"
    ]
    assert ours and set(ours) == {"qaeval_tui"} and not plain
