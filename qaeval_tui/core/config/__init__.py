"""Configuration (DESIGN §8.1): a typed model with documented defaults.

Read from `--config PATH`, else `./qaeval.toml`, else `[tool.qaeval]` in `./pyproject.toml`,
else the defaults. Relative paths are resolved against the config file's folder. The package
splits the sections (`sections`, `team`), the whole model (`model`) and the loader (`loading`).
"""

from qaeval_tui.core.config.judge import JudgeSection
from qaeval_tui.core.config.loading import load_config
from qaeval_tui.core.config.model import DEFAULT_AXES, Config
from qaeval_tui.core.config.sections import (
    CalibrationConfig,
    GateConfig,
    HttpSystemConfig,
    PathsConfig,
    RunConfig,
    Section,
)
from qaeval_tui.core.config.team import ROLES, ReviewConfig, Role, RosterMember

__all__ = [
    "DEFAULT_AXES",
    "ROLES",
    "CalibrationConfig",
    "Config",
    "GateConfig",
    "HttpSystemConfig",
    "JudgeSection",
    "PathsConfig",
    "ReviewConfig",
    "Role",
    "RosterMember",
    "RunConfig",
    "Section",
    "load_config",
]
