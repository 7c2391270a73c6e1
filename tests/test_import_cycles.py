"""No import circle anywhere in the package, lazy imports included (screens that open each other form one,
and so do two of the core's modules that import each other inside functions)."""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest


def import_cycles(package: str) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    graph = grimp.build_graph(package)
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == module:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in modules:
        if module not in index:
            visit(module)
    return cycles


def test_the_package_has_no_import_circle() -> None:
    assert import_cycles("qaeval_tui") == []


def test_a_circle_drawn_inside_functions_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # grimp sees an import inside a function too: two modules that import each other only lazily
    # form a circle the test above would name.
    package = tmp_path / "circle_probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, other in (("first", "second"), ("second", "first")):
        (package / f"{name}.py").write_text(f"def other():\n    from circle_probe import {other}\n    return {other}\n")
    (package / "alone.py").write_text("from circle_probe import first\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("circle_probe") == [["circle_probe.first", "circle_probe.second"]]
