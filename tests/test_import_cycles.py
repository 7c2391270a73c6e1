"""No import circle in the package, lazy imports included: screens that open each other form one."""

from __future__ import annotations

import grimp


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


def test_the_tui_has_no_import_circle() -> None:
    assert [cycle for cycle in import_cycles("qaeval_tui") if any(".tui." in name for name in cycle)] == []
