"""The README's picture of the core's layers is the import contract `make lint` checks, and its
architecture table names every package of the core."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
ARCHITECTURE = README.split("\n## Architecture\n", 1)[1].split("\n## ", 1)[0]


def layers_contract() -> dict[str, Any]:
    """The contract that layers the core's packages, as pyproject.toml declares it."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = pyproject["tool"]["importlinter"]["contracts"]
    [contract] = [c for c in contracts if c["type"] == "layers" and c.get("containers") == ["qaeval_tui.core"]]
    return dict(contract)


def test_the_readme_draws_the_layers_the_contract_checks() -> None:
    diagram = ARCHITECTURE.split("```text\n", 1)[1].split("```", 1)[0]
    assert diagram.splitlines() == layers_contract()["layers"]


def test_the_contract_places_every_package_and_module_of_the_core() -> None:
    contract = layers_contract()
    assert contract["exhaustive"] is True
    placed = {name.strip() for layer in contract["layers"] for name in re.split(r"[|:]", str(layer))}
    core = REPO / "qaeval_tui" / "core"
    children = {p.stem for p in core.glob("*.py") if p.name != "__init__.py"}
    children |= {p.name for p in core.iterdir() if (p / "__init__.py").is_file()}
    assert placed == children


def test_the_architecture_table_names_every_package_of_the_core() -> None:
    named = set(re.findall(r"^\| `core/(\w+)` \|", ARCHITECTURE, flags=re.MULTILINE))
    core = REPO / "qaeval_tui" / "core"
    assert named == {p.name for p in core.iterdir() if (p / "__init__.py").is_file()}
