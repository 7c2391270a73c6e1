"""The judge `[judge]` configures, its credentials checked before any call (exit 2 when missing)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from qaeval_tui.core.config.judge import JudgeSection
from qaeval_tui.core.errors import ConfigError
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.judge import JudgeClient

_PLACEHOLDER = re.compile(
    r"^(<.*>|\$\{?\w+\}?|x+|\*+|sk-(x+|\.+|\*+)|none|null|todo|tbd|changeme|secret|dummy|key|api[-_]?key)$"
    r"|\.\.\.|(?<![a-z0-9])(your|replace|change[-_ ]?me|placeholder|paste|insert)(?![a-z0-9])",
    re.IGNORECASE,
)
"""A value written in an example, not a key: `<key>`, `${VAR}`, `sk-...`, `your-api-key-here`, `changeme`."""


def api_key(section: JudgeSection, environ: Mapping[str, str] | None = None) -> str:
    """The API key from the environment variable `api_key_env` names; ConfigError when missing or a placeholder.

    A missing key never switches to another judge: the run stops before any call.
    """
    env = os.environ if environ is None else environ
    name = section.key_env
    value = env.get(name)
    why = f'[judge] kind = "{section.kind}" reads its API key from ${name} (judge.api_key_env)'
    if value is None or not value.strip():
        raise ConfigError(f"{why}, which is {'not set' if value is None else 'empty'}; no judge was asked")
    if _PLACEHOLDER.search(value.strip()):
        raise ConfigError(f"{why}, which holds a placeholder, not a key; no judge was asked")
    return value.strip()


def configured_judge(
    section: JudgeSection, rubric: Rubric, environ: Mapping[str, str] | None = None, *, backoff_s: float = 0.5
) -> JudgeClient:
    """The model judge `section` describes (its kind a provider of `PROVIDERS`), its HTTP client imported only now."""
    key = api_key(section, environ)
    try:
        from qaeval_tui.core.judges.client import ModelJudge  # aiohttp: the `llm` extra
    except ImportError as exc:
        missing = exc.name or "a package"
        raise ConfigError(f'[judge] kind = "{section.kind}" needs {missing!r}: pip install "qaeval_tui[llm]"') from None

    return ModelJudge(section, rubric, key, backoff_s=backoff_s)
