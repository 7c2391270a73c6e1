"""qaeval_tui: keep a retrieval-augmented QA system's evaluation honest.

The names in `__all__` are the public API for people who write a system adapter or a judge, and
they are stable (a test pins them); everything else is internal and may move.

- `SystemAdapter`: anything with `answer(view: CaseView) -> SUTOutput` (an optional `name` labels
  its runs). A `CaseView` holds an opaque id, the question and the frozen `Source` passages.
- `SUTOutput` and `Citation`: what the system hands back.
- `JudgeClient` (also `Judge`): anything with a pinned `config: JudgeConfig` and
  `score(case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult`; a `Rubric` is a
  version and its `Axis` list. A model judge records what its call cost in a `JudgeCall` (model ids,
  tokens, one `Attempt` per request) and raises `JudgeFailure` for a failed call (an error verdict).

The names load on first use, so `import qaeval_tui` and `qaeval --help` stay fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from qaeval_tui.core.models.golden import GoldenCase, Source
    from qaeval_tui.core.models.run import Attempt, CaseView, Citation, JudgeConfig, SUTOutput
    from qaeval_tui.core.rubric import Axis, Rubric
    from qaeval_tui.core.running.adapters import SystemAdapter
    from qaeval_tui.core.running.judge import JudgeCall, JudgeClient, JudgeFailure, JudgeResult
    from qaeval_tui.core.running.judge import JudgeClient as Judge

_HOMES: dict[str, tuple[str, str]] = {
    "Attempt": ("qaeval_tui.core.models.run", "Attempt"),
    "Axis": ("qaeval_tui.core.rubric", "Axis"),
    "CaseView": ("qaeval_tui.core.models.run", "CaseView"),
    "Citation": ("qaeval_tui.core.models.run", "Citation"),
    "GoldenCase": ("qaeval_tui.core.models.golden", "GoldenCase"),
    "Judge": ("qaeval_tui.core.running.judge", "JudgeClient"),
    "JudgeCall": ("qaeval_tui.core.running.judge", "JudgeCall"),
    "JudgeClient": ("qaeval_tui.core.running.judge", "JudgeClient"),
    "JudgeConfig": ("qaeval_tui.core.models.run", "JudgeConfig"),
    "JudgeFailure": ("qaeval_tui.core.running.judge", "JudgeFailure"),
    "JudgeResult": ("qaeval_tui.core.running.judge", "JudgeResult"),
    "Rubric": ("qaeval_tui.core.rubric", "Rubric"),
    "SUTOutput": ("qaeval_tui.core.models.run", "SUTOutput"),
    "Source": ("qaeval_tui.core.models.golden", "Source"),
    "SystemAdapter": ("qaeval_tui.core.running.adapters", "SystemAdapter"),
}

__all__ = [
    "Attempt",
    "Axis",
    "CaseView",
    "Citation",
    "GoldenCase",
    "Judge",
    "JudgeCall",
    "JudgeClient",
    "JudgeConfig",
    "JudgeFailure",
    "JudgeResult",
    "Rubric",
    "SUTOutput",
    "Source",
    "SystemAdapter",
    "__version__",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home[0]), home[1])
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
