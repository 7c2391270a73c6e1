"""A config file means what it says: no type coercion, reviewer names that can be used, keys shown as typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.config import DEFAULT_AXES, load_config
from qaeval_tui.core.errors import ConfigError
from qaeval_tui.core.rubric import Axis, Rubric

AXIS = '[[rubric.axes]]\nname = "a"\nanchors = ["x", "y", "z"]\n'


def refused(tmp_path: Path, text: str) -> str:
    (tmp_path / "qaeval.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(cwd=tmp_path)
    assert caught.value.exit_code == 2
    return str(caught.value)


@pytest.mark.parametrize(
    ("text", "located"),
    [
        ("[calibration]\nmin_exact = true\n", "qaeval.toml:2: calibration.min_exact: Input should be a valid number"),
        ("[calibration]\nmin_n = true\n", "qaeval.toml:2: calibration.min_n: Input should be a valid integer"),
        ("[calibration]\ntarget_half_width = true\n", "qaeval.toml:2: calibration.target_half_width:"),
        ("[run]\ntop_k = true\n", "qaeval.toml:2: run.top_k: Input should be a valid integer"),
        ("[run]\nworkers = 1.0\n", "qaeval.toml:2: run.workers: Input should be a valid integer"),
        ("[review]\noverlap = true\n", "qaeval.toml:2: review.overlap: Input should be a valid integer"),
        ("[gate]\nbootstrap_replicates = 1e3\n", "qaeval.toml:2: gate.bootstrap_replicates: Input should be a valid"),
        ("[calibration]\nbootstrap_replicates = 1000.0\n", "calibration.bootstrap_replicates: Input should be"),
        ('[review]\nreviewers = "ana"\n', "qaeval.toml:2: review.reviewers: Input should be a valid tuple"),
        ("[paths]\ngolden = 2026-01-01\n", "qaeval.toml:2: paths.golden: Input should be a valid string"),
        (
            '[[rubric.axes]]\nname = "a"\nscale = [0, true]\nanchors = ["x", "y"]\n',
            "qaeval.toml:3: rubric.axes.0.scale.1: Input should be a valid integer",
        ),
        (
            '[[rubric.axes]]\nname = "a"\nscale = [0, 1.0]\nanchors = ["x", "y"]\n',
            "qaeval.toml:3: rubric.axes.0.scale.1: Input should be a valid integer",
        ),
        (AXIS + "needs_gold = 1\n", "qaeval.toml:4: rubric.axes.0.needs_gold: Input should be a valid boolean"),
        (AXIS + "level = 1\n", "qaeval.toml:4: rubric.axes.0.level:"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_not_coerced(tmp_path: Path, text: str, located: str) -> None:
    assert located in refused(tmp_path, text)


def test_an_int_for_a_float_and_toml_arrays_are_fine(tmp_path: Path) -> None:
    (tmp_path / "qaeval.toml").write_text(
        "[calibration]\nmin_exact = 1\ntarget_half_width = 0.2\n[gate.tolerances]\nmrr = 0\n"
        '[review]\nreviewers = ["ana", "ben"]\n' + AXIS + "scale = [1, 2, 3]\n",
        encoding="utf-8",
    )
    config = load_config(cwd=tmp_path)
    assert config.calibration.min_exact == 1.0 and config.gate.tolerances == {"mrr": 0.0}
    assert config.review.reviewers == ("ana", "ben") and config.rubric.axis("a").scale == (1, 2, 3)


def test_the_rubric_models_stay_lax_for_python_callers() -> None:
    axis = Axis(name="a", scale=[0, 1], anchors=["no", "yes"])  # type: ignore[arg-type]
    assert Rubric(version="2", axes=[axis, *DEFAULT_AXES]).axis("a").scale == (0, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ('"mrr "', "gate.tolerances.'mrr ': unknown metric"),
        ('"mr\\u001b[2Jr"', "gate.tolerances.'mr\\x1b[2Jr': unknown metric"),
        ('"a.b"', "gate.tolerances.'a.b': unknown metric"),
    ],
)
def test_an_odd_key_is_shown_quoted(tmp_path: Path, key: str, shown: str) -> None:
    message = refused(tmp_path, f"[gate.tolerances]\n{key} = 0.1\n")
    assert shown in message and "\x1b" not in message


# -- reviewer names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "located"),
    [
        ('[review]\nreviewers = ["ana", "ev\\u001b[2Jil"]\n', "qaeval.toml:2: review.reviewers.1: 'ev\\x1b[2Jil': use"),
        ('[review]\nreviewers = ["ana", "a\\u202eb"]\n', "qaeval.toml:2: review.reviewers.1: 'a\\u202eb': use"),
        ('[review]\nreviewers = ["ana", "frozen"]\n', "review.reviewers.1: 'frozen': frozen.jsonl would be taken"),
        ('[review]\nreviewers = ["judge-verdicts"]\n', "review.reviewers.0: 'judge-verdicts': judge-verdicts.jsonl"),
        ('[review]\nreviewers = [".hidden"]\n', "review.reviewers.0: '.hidden': .hidden.jsonl would be a hidden"),
        ('[review]\nreviewer = "a b"\n', "qaeval.toml:2: review.reviewer: 'a b': use letters, digits"),
        ('[review]\nreviewer = "Living"\n', "review.reviewer: 'Living': Living.jsonl would be taken for the golden"),
        ('[review]\nreviewer = ""\n', "review.reviewer: '': a reviewer name is required"),
    ],
)
def test_a_configured_reviewer_name_meets_the_rule_of_the_door(tmp_path: Path, text: str, located: str) -> None:
    message = refused(tmp_path, text)
    assert located in message
    assert "\x1b" not in message and "\u202e" not in message


def test_a_bad_configured_reviewer_stops_the_command_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qaeval.toml").write_text('[review]\nreviewers = ["ana", "frozen"]\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["queue"])
    assert result.exit_code == 2 and "review.reviewers.1: 'frozen'" in result.stderr
    assert "Traceback" not in result.output
