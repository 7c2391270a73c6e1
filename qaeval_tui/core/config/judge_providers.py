"""The model judges `[judge] kind` can name: one declaration per provider, in `PROVIDERS`.

A provider is its defaults (the environment variable its API key is read from, its endpoint and the
variable that overrides it, headers its SDK takes from the environment) and the wire protocol it
speaks, named here and defined in `qaeval_tui/core/judges/providers.py` (`PROTOCOLS`), which is
imported only when a judge of that kind is built: reading a config never loads the HTTP client.
A provider that speaks a protocol already there (an OpenAI-compatible host) is one entry here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    """One model-judge provider: the `[judge] kind` that picks it, its defaults and its wire protocol."""

    kind: str
    """The `[judge] kind` value (also the judge's name in a run: `<kind>-judge`)."""
    summary: str
    """What it asks, as the config's reference describes the kind."""
    api_key_env: str
    """The environment variable the API key is read from unless `[judge] api_key_env` names another."""
    base_url: str
    """The endpoint asked unless `[judge] base_url` or `base_url_env` names another."""
    base_url_env: str
    """The environment variable (the provider SDK's) that overrides `base_url`."""
    protocol: str
    """The wire protocol it speaks: a key of `PROTOCOLS` in `qaeval_tui/core/judges/providers.py`."""
    env_headers: tuple[tuple[str, str], ...] = ()
    """(environment variable, header): headers sent when the variable is set, as the provider's SDK does."""


PROVIDERS: Mapping[str, Provider] = {
    provider.kind: provider
    for provider in (
        Provider(
            kind="openai",
            summary="an OpenAI-compatible chat-completions endpoint",
            api_key_env="OPENAI_API_KEY",
            base_url="https://api.openai.com/v1",
            base_url_env="OPENAI_BASE_URL",
            protocol="openai-chat",
            env_headers=(("OPENAI_ORG_ID", "openai-organization"), ("OPENAI_PROJECT_ID", "openai-project")),
        ),
        Provider(
            kind="anthropic",
            summary="the Anthropic messages API",
            api_key_env="ANTHROPIC_API_KEY",
            base_url="https://api.anthropic.com",
            base_url_env="ANTHROPIC_BASE_URL",
            protocol="anthropic-messages",
        ),
    )
}
"""Every model-judge provider, by `[judge] kind`."""


def provider_of(kind: str) -> Provider:
    """The provider `kind` names; ValueError for a kind that is no model judge (the config refuses it first)."""
    try:
        return PROVIDERS[kind]
    except KeyError:
        raise ValueError(f"{kind!r} is no model judge; known: {', '.join(PROVIDERS)}") from None


def kinds_in_words() -> str:
    """The providers' kinds as a message lists them: `"openai" or "anthropic"`."""
    quoted = [f'"{kind}"' for kind in PROVIDERS]
    return " or ".join(quoted) if len(quoted) <= 2 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
