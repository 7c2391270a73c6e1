"""The `[judge]` section: which judge scores a run (DESIGN §3.3).

`kind = "mechanical"` (the default) keeps the judge `[run] judge` names (`module:factory`, the bundled
mechanical judge unless set). Every other kind is a model-judge provider of `PROVIDERS`
(config/judge_providers.py): `"openai"` is any OpenAI-compatible chat-completions endpoint (hosted,
vLLM, Ollama, llama.cpp, LiteLLM: set `base_url`), `"anthropic"` the Anthropic messages API; each is
asked over one pooled async HTTP client (the `qaeval_tui[llm]` extra), read the API key from the environment variable
`api_key_env` names, and refuse (exit 2) a missing or placeholder key before any call.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from qaeval_tui.core.config.judge_ops import JudgePricing
from qaeval_tui.core.config.judge_providers import PROVIDERS
from qaeval_tui.core.config.sections import Section, Seed

JudgeKind = str
"""A judge kind: "mechanical", or the kind of a provider in `PROVIDERS` (config/judge_providers.py)."""


def _known_kind(value: object) -> object:
    """Refuse a kind that is neither "mechanical" nor a provider's, naming every known one as a Literal would
    (the table is read when a config is, so an entry added to it is a kind at once)."""
    kinds = ("mechanical", *PROVIDERS)
    if value not in kinds:
        quoted = [repr(kind) for kind in kinds]
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": f"{', '.join(quoted[:-1])} or {quoted[-1]}"}
        )
    return value


PROMPT_VERSIONS: tuple[str, ...] = ("faithfulness-1",)
"""The prompt templates the package ships (`qaeval_tui/core/judges/prompts/<version>.md`)."""

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Text = Annotated[str, Field(min_length=1)]
MIN_EVIDENCE_CHARS = 8
"""Default shortest evidence: "10 years" passes, "e" (found verbatim in almost any text) does not."""


class JudgeSection(Section):
    kind: Annotated[JudgeKind, BeforeValidator(_known_kind)] = Field(
        default="mechanical",
        description='"mechanical": the `[run] judge` module:factory (the bundled judge by default); '
        + "; ".join(f'"{provider.kind}": {provider.summary}' for provider in PROVIDERS.values())
        + ".",
    )
    model: Text | None = Field(default=None, description=f"Model id sent with every request ({', '.join(PROVIDERS)}).")
    base_url: Text | None = Field(
        default=None, description="Endpoint (e.g. http://localhost:8000/v1 for vLLM); unset: the provider's."
    )
    api_key_env: Text | None = Field(
        default=None,
        description="Environment variable holding the API key (default "
        + " / ".join(provider.api_key_env for provider in PROVIDERS.values())
        + ").",
    )
    temperature: float = Field(
        default=0.0, ge=0, le=2, description="Sampling temperature (0: as repeatable as can be)."
    )
    seed: Seed = Field(default=0, description="Sampling seed sent to endpoints that take one.")
    max_tokens: int = Field(default=1024, ge=16, le=200_000, description="Output-token cap of one reply.")
    timeout_s: float = Field(default=60.0, gt=0, le=3600, description="Seconds one attempt may take, reply included.")
    concurrency: int = Field(default=4, ge=1, le=256, description="Judge calls in flight at once.")
    max_retries: int = Field(
        default=2, ge=0, le=10, description="Retries of a timeout, a network error, HTTP 429 or 5xx (never of 4xx)."
    )
    prompt_version: Text = Field(
        default=PROMPT_VERSIONS[-1], description=f"Prompt template version: {', '.join(PROMPT_VERSIONS)}."
    )
    min_evidence_chars: int = Field(
        default=MIN_EVIDENCE_CHARS,
        ge=1,
        le=1000,
        description="Shortest evidence quote a reader can use (characters, spaces at its ends not counted); a "
        "shorter one is an invalid reply, unless it is a whole source or the whole answer.",
    )

    pricing: JudgePricing | None = Field(
        default=None, description="Token prices for the run's estimated cost ([judge.pricing]); unset: no cost shown."
    )

    @model_validator(mode="after")
    def _complete(self) -> JudgeSection:
        if self.prompt_version not in PROMPT_VERSIONS:
            raise ValueError(f"prompt_version: unknown {self.prompt_version!r}; known: {', '.join(PROMPT_VERSIONS)}")
        if self.api_key_env is not None and not _ENV_NAME.match(self.api_key_env):
            raise ValueError(f"api_key_env: {self.api_key_env!r} is no environment variable name")
        if self.is_model and self.model is None:
            raise ValueError(f'model: required for kind = "{self.kind}" (the model id to ask)')
        return self

    @property
    def is_model(self) -> bool:
        """True when a model judge (a provider of `PROVIDERS`) scores the run instead of `[run] judge`."""
        return self.kind in PROVIDERS

    @property
    def key_env(self) -> str:
        """The environment variable the API key is read from."""
        provider = PROVIDERS.get(self.kind)
        return self.api_key_env or (provider.api_key_env if provider else "")
