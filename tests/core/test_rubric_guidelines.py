"""Rubric guidelines (issue 13): Markdown inline or in a .md file beside the config, errors located."""

from __future__ import annotations

from pathlib import Path

import pytest

from qaeval_tui.core.config import Config, load_config
from qaeval_tui.core.errors import ConfigError

RUBRIC = """\
[rubric]
version = "2"
guidelines = "docs/general.md"

[[rubric.axes]]
name = "faithfulness"
anchors = ["no", "partly", "yes"]
guidelines = "faith.md"

[[rubric.axes]]
name = "tone"
anchors = ["rude", "fine"]
scale = [0, 1]
guidelines = \"\"\"
## Tone
Score **politeness** only.
\"\"\"
"""


def test_guidelines_files_are_read_relative_to_the_config_and_inline_markdown_is_kept(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "general.md").write_text("# General\nAbstentions score 2.\n", encoding="utf-8")
    (tmp_path / "faith.md").write_text("## Faithfulness\nRead the sources.\n", encoding="utf-8")
    (tmp_path / "qaeval.toml").write_text(RUBRIC, encoding="utf-8")
    rubric = load_config(cwd=tmp_path).rubric
    assert rubric.guidelines == "# General\nAbstentions score 2.\n"
    assert rubric.axis("faithfulness").guidelines == "## Faithfulness\nRead the sources.\n"
    assert rubric.axis("tone").guidelines == "## Tone\nScore **politeness** only.\n"


@pytest.mark.parametrize(
    ("missing", "located"),
    [
        ("faith.md", "qaeval.toml:8: rubric.axes.0.guidelines: cannot read guidelines file faith.md"),
        ("docs/general.md", "qaeval.toml:3: rubric.guidelines: cannot read guidelines file docs/general.md"),
    ],
)
def test_a_missing_guidelines_file_is_a_located_config_error(tmp_path: Path, missing: str, located: str) -> None:
    (tmp_path / "docs").mkdir()
    for name in ("docs/general.md", "faith.md"):
        if name != missing:
            (tmp_path / name).write_text("# ok\n", encoding="utf-8")
    (tmp_path / "qaeval.toml").write_text(RUBRIC, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(cwd=tmp_path)
    assert caught.value.exit_code == 2
    assert located in str(caught.value)


def test_a_guidelines_value_of_the_wrong_type_is_refused_where_it_is(tmp_path: Path) -> None:
    (tmp_path / "qaeval.toml").write_text(
        '[rubric]\nguidelines = 3\n[[rubric.axes]]\nname = "a"\nanchors = ["x", "y", "z"]\n'
    )
    with pytest.raises(ConfigError, match=r"qaeval.toml:2: rubric.guidelines: Input should be a valid string"):
        load_config(cwd=tmp_path)


def test_the_demo_rubric_says_how_to_score_abstentions_uncited_and_partly_supported_answers() -> None:
    general = Config().rubric.guidelines
    for section in ("## Abstentions", "## Answers with no citations", "## Partly supported answers"):
        body = general.split(section, 1)[1].split("\n## ", 1)[0]
        assert "*Worked example.*" in body, section
    assert all(axis.guidelines for axis in Config().rubric.axes)
