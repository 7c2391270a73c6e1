"""`[judge]`: the judge kind and its settings, credentials refused before any call (exit 2, never another
judge), the config hash covering what changes a verdict, and a run through a configured model judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.config import Config, load_config
from qaeval_tui.core.config.judge import JudgeSection
from qaeval_tui.core.config.judge_providers import PROVIDERS
from qaeval_tui.core.errors import ConfigError
from qaeval_tui.core.judges.factory import api_key, configured_judge
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.store.sqlite import Store
from tests.core.run_fixtures import RUBRIC
from tests.llm_server import LLMServer, Reply, base_url_for, provider_keys


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "qaeval.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_default_judge_is_the_mechanical_one() -> None:
    section = Config().judge
    assert section.kind == "mechanical" and not section.is_model and section.temperature == 0


def test_a_model_judge_reads_every_setting(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            '[judge]\nkind = "openai"\nmodel = "qwen2.5-7b"\nbase_url = "http://localhost:8000/v1"\n'
            'api_key_env = "VLLM_KEY"\ntemperature = 0\nseed = 7\nmax_tokens = 800\ntimeout_s = 30\n'
            'concurrency = 16\nmax_retries = 3\nprompt_version = "faithfulness-1"\n',
        )
    )
    judge = config.judge
    assert (judge.kind, judge.model, judge.base_url, judge.key_env) == (
        "openai",
        "qwen2.5-7b",
        "http://localhost:8000/v1",
        "VLLM_KEY",
    )
    assert (judge.seed, judge.max_tokens, judge.timeout_s, judge.concurrency, judge.max_retries) == (7, 800, 30, 16, 3)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('kind = "openai"', 'qaeval.toml:1: judge: Value error, model: required for kind = "openai"'),
        ('kind = "gemini"\nmodel = "m"', "qaeval.toml:2: judge.kind: Input should be 'mechanical', 'openai'"),
        ('kind = "openai"\nmodel = "m"\nconcurrency = 0', "qaeval.toml:4: judge.concurrency: Input should be greater"),
        ('kind = "openai"\nmodel = "m"\nprompt_version = "v9"', "prompt_version: unknown 'v9'"),
        ('kind = "openai"\nmodel = "m"\napi_key_env = "MY KEY"', "api_key_env: 'MY KEY' is no environment variable"),
        ('kind = "anthropic"\nmodel = "m"\ntemperature = "0"', "qaeval.toml:4: judge.temperature: Input should be"),
    ],
)
def test_an_invalid_judge_section_is_a_located_config_error(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, "[judge]\n" + body + "\n"))
    assert message.replace("Value error, ", "") in str(caught.value) or message in str(caught.value)


@pytest.mark.parametrize(
    ("environ", "said"),
    [
        ({}, "which is not set"),
        ({"OPENAI_API_KEY": "  "}, "which is empty"),
        ({"OPENAI_API_KEY": "sk-..."}, "placeholder"),
        ({"OPENAI_API_KEY": "your-api-key-here"}, "placeholder"),
        ({"OPENAI_API_KEY": "<paste your key>"}, "placeholder"),
        ({"OPENAI_API_KEY": "${OPENAI_API_KEY}"}, "placeholder"),
        ({"OPENAI_API_KEY": "changeme"}, "placeholder"),
    ],
)
def test_missing_or_placeholder_credentials_are_refused(environ: dict[str, str], said: str) -> None:
    section = JudgeSection(kind="openai", model="m")
    with pytest.raises(ConfigError, match=said) as caught:
        api_key(section, environ)
    assert "$OPENAI_API_KEY" in str(caught.value) and "no judge was asked" in str(caught.value)


def test_a_real_looking_key_is_taken() -> None:
    section = JudgeSection(kind="anthropic", model="m", api_key_env="ANT")
    assert api_key(section, {"ANT": "sk-ant-api03-Qx7yourd9"}) == "sk-ant-api03-Qx7yourd9"


def _hash(section: JudgeSection, rubric: Rubric = RUBRIC) -> str:
    return configured_judge(section, rubric, {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}).config.config_hash()


def test_the_config_hash_covers_what_changes_a_verdict_and_nothing_else() -> None:
    base = JudgeSection(kind="openai", model="m", base_url="http://127.0.0.1:9/v1")
    same = _hash(base)
    for change in ({"kind": "anthropic"}, {"model": "m2"}, {"temperature": 0.5}, {"seed": 3}, {"max_tokens": 99}):
        assert _hash(base.model_copy(update=change)) != same, change
    for change in ({"timeout_s": 5.0}, {"concurrency": 9}, {"max_retries": 0}, {"base_url": "http://127.0.0.1:8/v1"}):
        assert _hash(base.model_copy(update=change)) == same, change  # how it is asked, not what it answers
    axis = RUBRIC.axes[0]
    reanchored = RUBRIC.model_copy(
        update={"axes": (axis.model_copy(update={"anchors": ("no", "partly", "yes")}), *RUBRIC.axes[1:])}
    )
    assert _hash(base, reanchored) != same  # same rubric version, other anchors: another judge


def test_the_prompt_template_text_is_in_the_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    from qaeval_tui.core.judges import prompt

    base = JudgeSection(kind="openai", model="m")
    before = _hash(base)
    monkeypatch.setitem(prompt.TEMPLATES, "faithfulness-1", prompt.TEMPLATES["faithfulness-1"] + "Be strict.\n")
    assert _hash(base) != before


def test_every_configurable_prompt_version_ships_a_template() -> None:
    from qaeval_tui.core.config.judge import PROMPT_VERSIONS
    from qaeval_tui.core.judges.prompt import TEMPLATES

    assert set(PROMPT_VERSIONS) == set(TEMPLATES)


def _config_for(tmp_path: Path, server: LLMServer, kind: str = "openai", extra: str = "") -> Path:
    url = base_url_for(server, kind)
    return write(tmp_path, f'[judge]\nkind = "{kind}"\nmodel = "m"\nbase_url = "{url}"\nconcurrency = 4\n{extra}')


def test_run_without_the_key_exits_2_before_any_call(
    tmp_path: Path, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with LLMServer() as server:
        config = _config_for(tmp_path, server)
        result = CliRunner().invoke(
            app, ["--config", str(config), "run", "--data", str(suite), "--db", str(tmp_path / "r.db")]
        )
        assert server.calls == 0
    assert result.exit_code == 2 and "$OPENAI_API_KEY" in result.stderr and "not set" in result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "r.db").exists()


@pytest.mark.parametrize("kind", list(PROVIDERS))
def test_run_with_a_configured_model_judge_records_the_contract(
    tmp_path: Path, suite: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    for variable, key in provider_keys().items():
        monkeypatch.setenv(variable, key)
    out = tmp_path / "run.json"
    with LLMServer() as server:
        server.script(Reply.status(500))
        result = CliRunner().invoke(
            app,
            [
                *["--config", str(_config_for(tmp_path, server, kind)), "run", "--data", str(suite)],
                *["--db", str(tmp_path / "r.db"), "--out", str(out)],
            ],
        )
        assert result.exit_code == 0, result.output
        assert server.calls == 5  # four cases, one retried
    artifact = json.loads(out.read_text())
    verdicts = [c["verdict"] for c in artifact["cases"]]
    assert artifact["run"]["judge"]["kind"] == kind and artifact["run"]["judge_spec"] == f"[judge] {kind} m"
    assert sorted(v["retries"] for v in verdicts) == [0, 0, 0, 1]
    assert {v["requested_model"] for v in verdicts} == {"m"} and all(v["usage"]["input_tokens"] for v in verdicts)
    with Store.open(tmp_path / "r.db") as store:
        assert len(store.verdicts()) == 4


def test_judge_option_still_overrides_a_configured_model_judge(
    tmp_path: Path, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # the configured judge is never built: no key needed
    with LLMServer() as server:
        config = _config_for(tmp_path, server)
        result = CliRunner().invoke(
            app,
            [
                *["--config", str(config), "run", "--data", str(suite), "--db", str(tmp_path / "r.db")],
                *["--judge", "qaeval_tui.bundled.mechanical_judge:make_mechanical_judge"],
            ],
        )
        assert server.calls == 0
    assert result.exit_code == 0, result.output
