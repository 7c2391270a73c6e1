"""The plain sections of the configuration (DESIGN §8.1): paths, run (and a system over HTTP), gate, calibration."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from qaeval_tui.core.limits import MAX_SEED
from qaeval_tui.core.models.label import reviewer_name_problem


class Section(BaseModel):
    # NaN or an infinity in a setting never means anything: refuse it where the file is read.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, defer_build=True)

    def __init__(self, /, **data: Any) -> None:
        """Validate `data`; a section given nothing takes its defaults without building a validator.

        Pydantic never validates a default (validate_default is off), so validating nothing would
        return exactly the defaults (its model validators pass them unchanged); skipping it keeps
        pydantic's schema building (and its scan of installed packages for plugins) off paths that
        read only the defaults, like the review app's start without a config file. A section with a
        required field validates as ever (and refuses the missing field). tests/core/test_config.py
        checks that every section given nothing is what validating nothing makes.
        """
        if data or not _all_defaults(type(self)):
            super().__init__(**data)
            return
        defaults = type(self).model_construct()
        for slot in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"):
            object.__setattr__(self, slot, getattr(defaults, slot))

    # Pydantic validates a section nested in another (a [table] of the file) by calling the class's
    # __init__ when it is not its own, which would drop the strictness the loader validates with: this
    # one only adds a shortcut for nothing given, so pydantic is told to keep validating nested data
    # itself (as pydantic's RootModel and pydantic-settings mark theirs).
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]


def _all_defaults(section: type[Section]) -> bool:
    """Every field of `section` has a default."""
    found = _DEFAULTS_ONLY.get(section)
    if found is None:
        found = _DEFAULTS_ONLY[section] = not any(field.is_required() for field in section.model_fields.values())
    return found


_DEFAULTS_ONLY: dict[type[Section], bool] = {}


# A tolerance is a number from 0 to 1 (every metric is a rate); TOML true or "0.02" is a mistake, not 1.0 or 0.02.
Tolerance = Annotated[float, Field(strict=True, ge=0, le=1)]


def _known_metric(name: str) -> str:
    """A misspelled metric would otherwise be found only after a whole run, or never be gated."""
    from qaeval_tui.core.running.metrics import METRIC_NAMES  # only when a config names tolerances

    if name not in METRIC_NAMES:
        raise ValueError(f"unknown metric; known: {', '.join(METRIC_NAMES)}")
    return name


MetricName = Annotated[str, AfterValidator(_known_metric)]


def _reviewer_name(name: str) -> str:
    """The rule a name typed at the door meets: no hidden characters, no file that clashes with a split."""
    problem = reviewer_name_problem(name)
    if problem is not None:
        raise ValueError(f"{name!r}: {problem}")
    return name


ReviewerName = Annotated[str, AfterValidator(_reviewer_name)]

# A seed is a whole number from 0 to 2^63 - 1 (numpy refuses negative seeds; 1.5 seeds nothing; the
# store keeps the review seed in a signed 64-bit column).
Seed = Annotated[int, Field(strict=True, ge=0, le=MAX_SEED)]


class PathsConfig(Section):
    golden: str = Field(default="golden", description="Golden files or folder loaded by default.")
    store: str = Field(
        default=".qaeval/qaeval.db", description="SQLite store (created on first use) or a postgresql:// URL."
    )
    labels: str = Field(default="labels", description="Folder of label exports, one JSONL file per reviewer.")
    inbox: str = Field(
        default="golden/inbox/misses.jsonl", description="Production-miss file `qaeval inbox import` reads by default."
    )
    living: str = Field(default="golden/living.jsonl", description="File promotions append to.")


class HttpSystemConfig(Section):
    url: Annotated[str, Field(min_length=1)] = Field(
        description="Endpoint each case is POSTed to (http:// or https://)."
    )
    timeout_s: float = Field(
        default=30.0, gt=0, le=3600, description="Seconds one attempt may take, the whole reply included."
    )
    max_retries: int = Field(
        default=3, ge=0, le=20, description="Further attempts after a timeout, a network error, a 5xx or a 429."
    )
    concurrency: int = Field(default=8, ge=1, le=64, description="Requests in flight at once.")
    max_reply_bytes: int = Field(
        default=10_000_000,
        ge=1_000,
        le=1_000_000_000,
        description="Largest reply body read (after any content encoding); a larger one ends the case, unread.",
    )
    backoff_s: float = Field(
        default=0.5, gt=0, le=60, description="First wait before a retry; doubles each time (with jitter)."
    )
    max_wait_s: float = Field(
        default=60.0, gt=0, le=3600, description="Longest wait between attempts; a longer Retry-After ends the case."
    )
    headers: dict[str, str] = Field(
        default_factory=dict, description="Extra request headers (no secrets: use token_env)."
    )
    token_env: Annotated[str, Field(min_length=1)] | None = Field(
        default=None, description="Environment variable holding a bearer token, sent as `Authorization: Bearer ...`."
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value


class RunConfig(Section):
    adapter: str = Field(
        default="qaeval_tui.bundled.hub:make_reference_hub", description="module:factory of the system under test."
    )
    judge: str = Field(
        default="qaeval_tui.bundled.mechanical_judge:make_mechanical_judge", description="module:factory of the judge."
    )
    workers: int = Field(default=1, ge=1, le=64, description="Parallel adapter calls.")
    processes: int = Field(
        default=0,
        ge=0,
        le=64,
        description="Worker processes a run's cases are shared among: 1 runs them in this process; 0 (the "
        "default) picks one a core where it pays (a model judge, 5,000 judged cases or more, more than one core).",
    )
    samples: int = Field(
        default=1,
        ge=1,
        le=100,
        description="Runs of each case (a system whose answers vary): each is judged; a case's values are the means.",
    )
    top_k: int = Field(default=3, ge=1, description="k for retrieval recall@k / precision@k.")
    http: HttpSystemConfig | None = Field(
        default=None, description='The system served over HTTP, used when adapter = "http" (README: over HTTP).'
    )


class GateConfig(Section):
    tolerances: dict[MetricName, Tolerance] = Field(
        default_factory=dict,
        description="Largest allowed drop per metric (rise, for over_refusal_rate), over each metric's declared "
        "default (`tolerance` in core/running/metric_table.py).",
    )
    gated: tuple[MetricName, ...] | None = Field(
        default=None,
        description="The metrics Tier 2 gates (each with its tolerance); the others are shown as information. "
        "Unset: every metric with a tolerance.",
    )
    bootstrap_replicates: int = Field(default=2000, ge=100, description="Paired bootstrap replicates per delta.")
    seed: Seed = Field(default=0, description="Seed of the paired bootstrap.")
    mode: Literal["tolerance", "statistical"] = Field(
        default="tolerance",
        description="tolerance: block a drop beyond its tolerance; statistical: block only a significant one, "
        "refuse (exit 3) a tolerance below the minimum detectable effect.",
    )
    calibration: Annotated[str, Field(min_length=1)] | None = Field(
        default=None,
        description="Calibration artifact (`qaeval calibrate --out`) the gate reads judge trust from.",
    )
    require_trusted: bool = Field(
        default=False, description="A gated judge metric whose axis is not TRUSTED (or uncalibrated) fails Tier 2."
    )
    judge_metrics: Literal["judge", "ppi"] = Field(
        default="judge",
        description='Judge-scored metrics gate on "judge" (the judge mean, paired case by case with the baseline) '
        "or \"ppi\" (the prediction-powered estimate from the labels on the run's cases, against the baseline's).",
    )

    @field_validator("gated")
    @classmethod
    def _gated_once_each(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is None:
            return value
        seen: set[str] = set()
        for name in value:
            if name in seen:
                raise ValueError(f"{name!r} is listed twice")
            if name == "deterministic_pass_rate":
                raise ValueError("deterministic_pass_rate is Tier 1 (every check green), not a Tier 2 metric")
            seen.add(name)
        return value


class CalibrationConfig(Section):
    min_exact: float = Field(
        default=0.70,
        ge=0,
        le=1,
        description="Exact agreement each axis needs (its lower bound, by default) for TRUSTED.",
    )
    min_n: int = Field(default=20, ge=1, description="Fewer judged items than this on an axis: INSUFFICIENT.")
    rule: Literal["interval", "point"] = Field(
        default="interval",
        description="`interval`: verdicts on interval bounds; `point`: on point estimates (said in every output).",
    )
    min_reviewers: int = Field(
        default=2, ge=1, description="Blind reviewers an item needs for a human consensus (else an adjudication)."
    )
    chance_floor: float = Field(
        default=0.0,
        ge=-1,
        lt=1,
        description="TRUSTED needs the lower bound of alpha (judge as a coder) above this.",
    )
    anytime: bool = Field(
        default=True,
        description="TRUSTED also needs exact agreement's anytime-valid lower bound (it holds however often "
        "calibrate is re-run as labels accumulate) to clear min_exact.",
    )
    human_bar: bool = Field(
        default=True,
        description="TRUSTED also needs the judge to agree with the reviewers about as often as they agree with "
        "each other (the lower bound of the gap at or above -human_margin).",
    )
    human_margin: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="How much less often than a reviewer the judge may agree with the other reviewers.",
    )
    target_half_width: float = Field(
        default=0.10, gt=0, lt=1, description="CI half-width the 'labels needed' figure aims for."
    )
    bootstrap_replicates: int = Field(default=1000, ge=100, description="Bootstrap replicates for alpha CIs.")
    seed: Seed = Field(default=0, description="Seed of every bootstrap.")
