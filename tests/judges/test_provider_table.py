"""A judge provider is one entry in `PROVIDERS`: a new one speaking a known protocol is configured, keyed and
asked with nothing else added, over the real loopback model server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.config.judge_providers import PROVIDERS, Provider
from tests.llm_server import LLMServer


def test_a_provider_added_to_the_table_is_a_judge_kind_with_its_own_key_and_endpoint(
    tmp_path: Path, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LLMServer() as server:
        acme = Provider(
            kind="acme",
            summary="Acme's OpenAI-compatible endpoint",
            api_key_env="ACME_API_KEY",
            base_url=server.openai_base_url,  # its default host: no base_url in the config
            base_url_env="ACME_BASE_URL",
            protocol="openai-chat",
            env_headers=(("ACME_TEAM", "acme-team"),),
        )
        monkeypatch.setitem(cast(dict[str, Provider], PROVIDERS), "acme", acme)
        monkeypatch.setenv("ACME_API_KEY", "acme-test-7")
        monkeypatch.setenv("ACME_TEAM", "qa")
        config = tmp_path / "qaeval.toml"
        config.write_text('[judge]\nkind = "acme"\nmodel = "acme-1"\n', encoding="utf-8")
        result = CliRunner().invoke(
            app, ["--config", str(config), "run", "--data", str(suite), "--db", str(tmp_path / "r.db"), "--json"]
        )
        assert result.exit_code == 0, result.output
        assert server.calls == 4
        headers = server.requests[0].headers
    run = json.loads(result.stdout)["run"]
    assert run["judge"]["kind"] == "acme" and run["judge_spec"] == "[judge] acme acme-1"
    assert headers["authorization"] == "Bearer acme-test-7" and headers["acme-team"] == "qa"


def test_a_kind_no_provider_declares_is_refused_naming_every_known_kind(tmp_path: Path, suite: Path) -> None:
    config = tmp_path / "qaeval.toml"
    config.write_text('[judge]\nkind = "gemini"\nmodel = "m"\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["--config", str(config), "run", "--data", str(suite)])
    assert result.exit_code == 2
    known = ", ".join(repr(kind) for kind in ("mechanical", *PROVIDERS))
    assert f"qaeval.toml:2: judge.kind: Input should be {known.rsplit(', ', 1)[0]} or " in result.stderr


def test_the_loopback_server_speaks_every_protocol_a_provider_can_name() -> None:
    # The judge tests run on every provider of PROVIDERS (their `kind` fixtures), each pointed at the
    # loopback server by its protocol: a protocol the server was not taught would leave its providers untested.
    from qaeval_tui.core.judges.providers import PROTOCOLS
    from tests.llm_server import PROTOCOL_ROOTS

    assert set(PROTOCOL_ROOTS) == set(PROTOCOLS)
    assert {provider.protocol for provider in PROVIDERS.values()} <= set(PROTOCOLS)
