"""CONTRIBUTING.md stays true: every file a recipe names exists, and every name it quotes is in the files it names."""

from __future__ import annotations

import re

from tests.conftest import REPO

GUIDE = REPO / "CONTRIBUTING.md"
RECIPES = (
    "A gate metric",
    "A curator screen",
    "A store table on both backends",
    "A judge provider",
    "A trace importer",
)

_QUOTED = re.compile(r"`([^`]+)`")
_PATH = re.compile(r"[\w.-]+(/[\w.-]+)*/?")
_FILE_SUFFIXES = (".py", ".md", ".toml", ".json", ".jsonl", ".xml", ".svg", ".tcss")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def sections() -> dict[str, str]:
    """Each `##`/`###` heading of the guide and the text under it."""
    parts = re.split(r"^#{2,3} (.+)$", GUIDE.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def named_paths(text: str) -> list[str]:
    """The repository paths quoted in `text` (a word of a quoted command counts too; `<name>` files are new)."""
    found = []
    for quoted in _QUOTED.findall(text):
        for word in quoted.split():
            if "<" in word or not _PATH.fullmatch(word):
                continue
            if "/" in word or word.endswith(_FILE_SUFFIXES):
                found.append(word)
    return found


def quoted_names(text: str) -> list[str]:
    """The code names quoted in `text`: constants, classes and snake_case functions (a call's parentheses dropped)."""
    names = []
    for quoted in _QUOTED.findall(text):
        name = quoted.split("(")[0]
        if len(name) > 1 and _IDENTIFIER.fullmatch(name) and ("_" in name or any(c.isupper() for c in name)):
            names.append(name)
    return names


def test_every_file_a_recipe_names_exists() -> None:
    named = named_paths(GUIDE.read_text(encoding="utf-8"))
    assert len(named) >= 40  # the recipes name their files; a guide that names none would pass vacuously
    assert sorted({path for path in named if not (REPO / path).exists()}) == []


def test_every_recipe_is_there_and_names_files() -> None:
    found = sections()
    for recipe in RECIPES:
        assert recipe in found, f"CONTRIBUTING.md has no recipe {recipe!r}"
        assert named_paths(found[recipe]), f"the recipe {recipe!r} names no file"


def test_every_code_name_a_section_quotes_is_in_a_file_it_names() -> None:
    missing = []
    for title, body in sections().items():
        texts = [
            (REPO / path).read_text(encoding="utf-8")
            for path in named_paths(body)
            if (REPO / path).is_file() and path.endswith(".py")
        ]
        for name in quoted_names(body):
            if not any(re.search(rf"\b{re.escape(name)}\b", text) for text in texts):
                missing.append(f"{title}: {name}")
    assert missing == []


def test_the_readme_development_section_links_the_guide() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    development = readme.split("\n## Development\n", 1)[1].split("\n## ", 1)[0]
    assert "(CONTRIBUTING.md)" in development
