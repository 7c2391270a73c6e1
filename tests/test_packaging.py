"""What pyproject.toml says about the package is true: the version is written once (in the package,
read by setuptools and by `qaeval --version`), and every package-data pattern names files that exist."""

from __future__ import annotations

import tomllib
from importlib.metadata import version

import qaeval_tui
from tests.conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_is_written_once_and_the_installed_metadata_agrees() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project.get("dynamic", [])
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "qaeval_tui.__version__"}
    assert version("qaeval_tui") == qaeval_tui.__version__


def test_every_package_data_pattern_matches_a_file() -> None:
    for package, patterns in PYPROJECT["tool"]["setuptools"]["package-data"].items():
        root = REPO / package.replace(".", "/")
        for pattern in patterns:
            assert any(root.glob(pattern)), f"package-data {package}: {pattern!r} matches no file"
