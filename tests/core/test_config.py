"""Configuration lookup order, defaults, and clear errors for invalid files."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from qaeval_tui.core.config import Config, JudgeSection, ReviewConfig, RosterMember, Section, load_config
from qaeval_tui.core.config.model import DEFAULT_AXES
from qaeval_tui.core.errors import ConfigError
from qaeval_tui.core.rubric import Axis, Rubric


def test_defaults_have_three_anchored_axes(tmp_path: Path) -> None:
    config = load_config(cwd=tmp_path)
    assert config.rubric.axis_names == ("faithfulness", "citation_correctness", "answer_correctness")
    for axis in config.rubric.axes:
        assert axis.scale == (0, 1, 2) and len(axis.anchors) == 3 and axis.level == "ordinal"
    assert [a.name for a in config.rubric.axes if a.needs_gold] == ["answer_correctness"]
    assert config.calibration.min_exact == 0.70
    assert config.path(config.paths.golden) == tmp_path / "golden"


def _sections() -> list[type[Section]]:
    found, waiting = [], [Section]
    while waiting:
        for sub in waiting.pop().__subclasses__():
            found.append(sub)
            waiting.append(sub)
    return found


def test_defaults_read_without_validating_are_what_validating_nothing_makes(tmp_path: Path) -> None:
    # A section given nothing, and a config without a file (or with an empty one), skip pydantic's
    # validation (config/sections.py: Section): what they hold must be what validation would build.
    sections = _sections()
    assert {Config, JudgeSection, ReviewConfig, RosterMember} <= set(sections)
    for section in sections:
        if any(field.is_required() for field in section.model_fields.values()):
            with pytest.raises(ValidationError, match="Field required"):
                section()  # still validated: nothing given is refused
            continue
        given, validated = section(), section.model_validate({})
        assert given == validated and given.model_dump() == validated.model_dump(), section.__name__
        assert given.model_fields_set == validated.model_fields_set == set()
    with pytest.raises(ValidationError, match="frozen"):
        Config().base_dir = "elsewhere"  # type: ignore[misc]
    # The default axes and rubric are constants built unvalidated: validating them changes nothing.
    rubric = Config().rubric
    assert rubric.axes == DEFAULT_AXES
    assert all(Axis.model_validate(axis.model_dump()) == axis for axis in DEFAULT_AXES)
    assert Rubric.model_validate(rubric.model_dump()) == rubric
    made = Config.model_validate({"base_dir": str(tmp_path)}, strict=True)
    for text in (None, "", "# nothing set yet\n"):
        if text is not None:
            (tmp_path / "qaeval.toml").write_text(text, encoding="utf-8")
        loaded = load_config(cwd=tmp_path)
        assert loaded == made and loaded.model_fields_set == made.model_fields_set == {"base_dir"}


def test_qaeval_toml_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.qaeval.calibration]\nmin_exact = 0.5\n")
    assert load_config(cwd=tmp_path).calibration.min_exact == 0.5
    (tmp_path / "qaeval.toml").write_text("[calibration]\nmin_exact = 0.9\n")
    assert load_config(cwd=tmp_path).calibration.min_exact == 0.9


def test_explicit_config_with_custom_rubric(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "my.toml"
    path.parent.mkdir()
    path.write_text(
        '[rubric]\nversion = "2"\n[[rubric.axes]]\nname = "helpful"\nscale = [1, 2, 3, 4, 5]\nlevel = "interval"\n'
        'anchors = ["a", "b", "c", "d", "e"]\n[paths]\ngolden = "data"\n'
    )
    config = load_config(path)
    assert config.rubric.version == "2" and config.rubric.axis("helpful").scale == (1, 2, 3, 4, 5)
    assert config.path(config.paths.golden) == path.parent / "data"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[calibration]\nmin_exact = 2\n", "calibration.min_exact"),
        ("[nonsense]\nx = 1\n", "nonsense"),
        ('[[rubric.axes]]\nname = "a"\nscale = [0, 1]\nanchors = ["only one"]\n', "anchors"),
        ('[[rubric.axes]]\nname = "a"\nscale = [1, 0]\nanchors = ["x", "y"]\n', "increasing"),
        ("[run\n", "invalid TOML"),
        ("[gate.tolerances]\nmrr = nan\n", "gate.tolerances.mrr: Input should be a finite number"),
        ("[gate.tolerances]\nmrrr = 0.1\n", "gate.tolerances.mrrr: unknown metric"),
        ("[review]\nseed = -7\n", "review.seed: Input should be greater than or equal to 0"),
    ],
)
def test_invalid_config_is_a_config_error_naming_the_field(tmp_path: Path, text: str, fragment: str) -> None:
    (tmp_path / "qaeval.toml").write_text(text)
    with pytest.raises(ConfigError, match=fragment) as caught:
        load_config(cwd=tmp_path)
    assert caught.value.exit_code == 2


def test_missing_explicit_config_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")


@pytest.mark.parametrize(
    ("text", "located"),
    [
        # The line of the value itself, in a plain table, a misspelled key, and an array of tables.
        ("[run]\nworkers = 2\n\n[gate.tolerances]\nmrr = 0.02\nndcg = inf\n", "qaeval.toml:6: gate.tolerances.ndcg:"),
        ("[gate.tolerances]\nmrr = 0.02\nmrrr = 0.1\n", "qaeval.toml:3: gate.tolerances.mrrr: unknown metric"),
        (
            '[rubric]\nversion = "1"\n[[rubric.axes]]\nname = "a"\nscale = [0, 1]\nanchors = ["x", "y"]\n'
            '[[rubric.axes]]\nname = "b"\nscale = [1, 0]\nanchors = ["x", "y"]\n',
            "qaeval.toml:7: rubric.axes.1: scale:",  # a rule across the axis's fields: its header
        ),
        # A value inside an inline table is placed on the key that holds it.
        ("[gate]\ntolerances = { mrr = -1 }\n", "qaeval.toml:2: gate.tolerances.mrr:"),
        # A section that should not exist is placed on its header.
        ("[run]\nworkers = 1\n[nonsense]\nx = 1\n", "qaeval.toml:3: nonsense:"),
    ],
)
def test_a_config_error_names_the_line_of_the_bad_value(tmp_path: Path, text: str, located: str) -> None:
    (tmp_path / "qaeval.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(cwd=tmp_path)
    assert located in str(caught.value), str(caught.value)


def test_a_pyproject_config_error_names_the_line_in_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.qaeval.review]\nseed = -1\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml:5: review.seed:"):
        load_config(cwd=tmp_path)
