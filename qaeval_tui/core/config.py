"""Configuration (DESIGN §8.1): a typed model with documented defaults.

Read from `--config PATH`, else `./qaeval.toml`, else `[tool.qaeval]` in `./pyproject.toml`,
else the defaults below. Relative paths are resolved against the config file's folder.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from qaeval_tui.core.default_guidelines import AXIS_GUIDELINES, GENERAL_GUIDELINES
from qaeval_tui.core.errors import ConfigError
from qaeval_tui.core.limits import MAX_SEED
from qaeval_tui.core.rubric import Axis, Rubric, guidelines_path
from qaeval_tui.core.text import one_line

DEFAULT_AXES: tuple[Axis, ...] = (
    Axis(
        name="faithfulness",
        guidelines=AXIS_GUIDELINES["faithfulness"],
        anchors=(
            "The answer states something its sources contradict or do not contain.",
            "Mostly supported, but at least one detail goes beyond what the sources say.",
            "Every claim in the answer is supported by the sources.",
        ),
    ),
    Axis(
        name="citation_correctness",
        guidelines=AXIS_GUIDELINES["citation_correctness"],
        anchors=(
            "A citation points to a source that does not support its claim, or a needed citation is missing.",
            "Citations are relevant, but at least one points to a weaker source than the one that supports it.",
            "Every citation points to the passage that supports its claim.",
        ),
    ),
    Axis(
        name="answer_correctness",
        needs_gold=True,
        guidelines=AXIS_GUIDELINES["answer_correctness"],
        anchors=(
            "Wrong, missing, or it refused a question it should have answered (or answered one it should refuse).",
            "Partly right: the key fact is there but incomplete, or mixed with an error.",
            "Right in substance: matches the gold answer, or correctly abstains.",
        ),
    ),
)


class Section(BaseModel):
    # NaN or an infinity in a setting never means anything: refuse it where the file is read.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


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
    from qaeval_tui.core.review.label_export import reviewer_name_problem  # light: no store, no statistics

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
    store: str = Field(default=".qaeval/qaeval.db", description="SQLite store (created on first use).")
    labels: str = Field(default="labels", description="Folder of label exports, one JSONL file per reviewer.")
    inbox: str = Field(
        default="golden/inbox/misses.jsonl", description="Production-miss file `qaeval inbox import` reads by default."
    )
    living: str = Field(default="golden/living.jsonl", description="File promotions append to.")


class RunConfig(Section):
    adapter: str = Field(
        default="qaeval_tui.bundled.hub:make_reference_hub", description="module:factory of the system under test."
    )
    judge: str = Field(
        default="qaeval_tui.bundled.mechanical_judge:make_mechanical_judge", description="module:factory of the judge."
    )
    workers: int = Field(default=1, ge=1, le=64, description="Parallel adapter calls.")
    top_k: int = Field(default=3, ge=1, description="k for retrieval recall@k / precision@k.")


class GateConfig(Section):
    tolerances: dict[MetricName, Tolerance] = Field(
        default_factory=lambda: {
            "faithfulness_rate": 0.02,
            "answer_correctness": 0.02,
            "citation_precision": 0.01,
            "citation_coverage": 0.01,
            "abstention_recall": 0.0,
            "over_refusal_rate": 0.0,
            "retrieval_recall_at_k": 0.02,
            "mrr": 0.02,
            "ndcg": 0.02,
            "multi_step_task_success": 0.0,
        },
        description="Largest allowed drop per headline metric (rise, for over_refusal_rate).",
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
    target_half_width: float = Field(
        default=0.10, gt=0, lt=1, description="CI half-width the 'labels needed' figure aims for."
    )
    bootstrap_replicates: int = Field(default=1000, ge=100, description="Bootstrap replicates for alpha CIs.")
    seed: Seed = Field(default=0, description="Seed of every bootstrap.")


ROLES = ("reviewer", "curator")
Role = Literal["reviewer", "curator"]


class RosterMember(Section):
    """One person of the team (`[review] roster`): a name and what they do."""

    name: ReviewerName
    roles: tuple[Role, ...] = Field(
        default=("reviewer",), description="reviewer (labels) and/or curator (curates, adjudicates)."
    )

    @field_validator("roles")
    @classmethod
    def _some_role(cls, roles: tuple[Role, ...]) -> tuple[Role, ...]:
        if not roles:
            raise ValueError(f"a member needs at least one role: {' or '.join(ROLES)}")
        return roles


def _team_reviewers(data: Any) -> Any:
    """Without `reviewers`, the default queue is built for the roster's reviewers (as far as they read as such)."""
    if not isinstance(data, dict) or "reviewers" in data or not isinstance(data.get("roster"), tuple | list):
        return data
    from qaeval_tui.core.review.label_export import reviewer_name_problem  # light: no store, no statistics

    names = []
    for member in data["roster"]:
        if (
            isinstance(member, dict)
            and isinstance(member.get("name"), str)
            and not reviewer_name_problem(member["name"])
        ):
            roles = member.get("roles", ("reviewer",))
            if isinstance(roles, tuple | list) and "reviewer" in roles:
                names.append(member["name"])
    return {**data, "reviewers": tuple(names)} if names else data


class ReviewConfig(Section):
    roster: tuple[RosterMember, ...] = Field(
        default=(),
        description="The team: who reviews and who curates. When set, only these names can review (case-insensitive).",
    )
    reviewer: ReviewerName | None = Field(
        default=None, description="Default reviewer name (else QAEVAL_REVIEWER, else asked)."
    )
    reviewers: tuple[ReviewerName, ...] = Field(
        default=("ana", "ben", "chloe"),
        description="Reviewers the default queue is built for (default: the roster's reviewers, if a roster is set).",
    )
    overlap: int = Field(default=2, ge=1, description="How many reviewers label each item.")
    seed: Seed = Field(default=7, description="Seed of the assignment and per-reviewer order.")
    idle_cutoff_seconds: float = Field(
        default=300.0, gt=0, allow_inf_nan=False, description="A pause between keys longer than this counts as this."
    )
    keys: dict[str, str] = Field(default_factory=dict, description="Action name -> key, overriding default bindings.")

    @model_validator(mode="before")
    @classmethod
    def _derive_reviewers(cls, data: Any) -> Any:
        return _team_reviewers(data)

    @field_validator("roster")
    @classmethod
    def _one_person_one_name(cls, roster: tuple[RosterMember, ...]) -> tuple[RosterMember, ...]:
        seen: dict[str, str] = {}
        for member in roster:
            other = seen.get(member.name.casefold())
            if other is not None:
                raise ValueError(f"{other!r} and {member.name!r} are the same person (names are case-insensitive)")
            seen[member.name.casefold()] = member.name
        return roster

    @field_validator("reviewer")
    @classmethod
    def _default_on_the_team(cls, name: str | None, info: ValidationInfo) -> str | None:
        roster = info.data.get("roster", ())
        return None if name is None else _on_roster(name, roster)

    @field_validator("reviewers")
    @classmethod
    def _queue_on_the_team(cls, names: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        roster = info.data.get("roster", ())
        return tuple(_on_roster(name, roster) for name in names)


def _on_roster(name: str, roster: tuple[RosterMember, ...]) -> str:
    """`name` in the roster's spelling; ValueError when a roster is set and `name` is not on it."""
    if not roster:
        return name
    for member in roster:
        if member.name.casefold() == name.casefold():
            return member.name
    raise ValueError(f"{name!r} is not in review.roster ({', '.join(m.name for m in roster)})")


class Config(Section):
    """The whole configuration; every field has a default."""

    rubric: Rubric = Field(
        default_factory=lambda: Rubric(version="1", axes=DEFAULT_AXES, guidelines=GENERAL_GUIDELINES)
    )
    paths: PathsConfig = Field(default_factory=PathsConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    gate: GateConfig = Field(default_factory=GateConfig)
    calibration: CalibrationConfig = Field(default_factory=CalibrationConfig)
    review: ReviewConfig = Field(default_factory=ReviewConfig)
    base_dir: str = Field(default=".", description="Folder relative paths are resolved against (set by the loader).")

    def path(self, value: str) -> Path:
        """Resolve a configured path against the config file's folder."""
        candidate = Path(value)
        return candidate if candidate.is_absolute() else Path(self.base_dir) / candidate


def _tuples(value: Any) -> Any:
    """TOML arrays as tuples: every sequence of the config is a tuple, and strict validation takes no list for one."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: _tuples(item) for key, item in value.items()}
    return value


_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _field_name(loc: tuple[str | int, ...]) -> str:
    """`gate.tolerances.mrr`; a key holding a space or an odd character quoted (`gate.tolerances.'mrr '`)."""
    parts = (part if isinstance(part, int) or _PLAIN_KEY.match(part) else repr(part) for part in loc)
    return one_line(".".join(str(part) for part in parts)) or "(config)"


def _from_mapping(data: dict[str, Any], origin: str, base_dir: Path, lines: TomlLines | None = None) -> Config:
    try:
        # Strict for what a file says (`true` is not 1, `1.0` is not a worker count, `1e3` not a count of
        # replicates); the models stay lax for the Python that builds them (an int for a float is fine).
        config = Config.model_validate({**_tuples(data), "base_dir": str(base_dir)}, strict=True)
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            loc = tuple(part for part in error["loc"] if part != "[key]")
            field = _field_name(loc)
            line = None if lines is None else lines.line_of(loc)
            where = origin if line is None else f"{origin}:{line}"
            problems.append(f"{where}: {field}: {one_line(error['msg'].removeprefix('Value error, '))}")
        raise ConfigError("invalid configuration:\n" + "\n".join(problems)) from exc
    return _with_guidelines(config, origin, lines)


def _with_guidelines(config: Config, origin: str, lines: TomlLines | None) -> Config:
    """The rubric with every `guidelines` that names a .md file replaced by the file's text."""

    def read(value: str, loc: tuple[str | int, ...]) -> str:
        name = guidelines_path(value)
        if name is None:
            return value
        line = None if lines is None else lines.line_of(loc)
        where = f"{origin}:{line}: {_field_name(loc)}" if line is not None else f"{origin}: {_field_name(loc)}"
        try:
            return config.path(name).read_bytes().decode("utf-8")
        except OSError as exc:
            raise ConfigError(f"{where}: cannot read guidelines file {one_line(name)}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{where}: guidelines file {one_line(name)} is not UTF-8 (byte {exc.start})") from None

    rubric = config.rubric
    axes = tuple(
        axis.model_copy(update={"guidelines": read(axis.guidelines, ("rubric", "axes", index, "guidelines"))})
        for index, axis in enumerate(rubric.axes)
    )
    general = read(rubric.guidelines, ("rubric", "guidelines"))
    return config.model_copy(update={"rubric": rubric.model_copy(update={"axes": axes, "guidelines": general})})


class TomlLines:
    """Which line of a TOML file set a key, so a config error names it as path:line: field.

    tomllib gives values, not positions. Headers (`[gate.tolerances]`, `[[rubric.axes]]`) and
    `key = value` lines are enough for a config: a problem inside an inline table or a multi-line
    array is placed on the line of the key that holds it.
    """

    _HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    _KEY = re.compile(r"^\s*([A-Za-z0-9_.\-\"' ]+?)\s*=")

    def __init__(self, text: str, prefix: tuple[str, ...] = ()) -> None:
        self._places: dict[tuple[str | int, ...], int] = {}
        table: tuple[str | int, ...] = ()
        arrays: dict[tuple[str, ...], int] = {}
        for number, line in enumerate(text.split("\n"), start=1):
            header = self._HEADER.match(line)
            if header:
                names = self._names(header[2])
                if header[1] == "[[":
                    arrays[names] = arrays.get(names, -1) + 1
                    table = (*names, arrays[names])
                else:
                    table = names
                self._places.setdefault(table, number)
                continue
            key = self._KEY.match(line)
            if key:
                self._places.setdefault((*table, *self._names(key[1])), number)
        self._prefix = prefix

    @staticmethod
    def _names(dotted: str) -> tuple[str, ...]:
        return tuple(part.strip().strip("\"'") for part in dotted.split("."))

    def line_of(self, loc: tuple[str | int, ...]) -> int | None:
        """The line of `loc` (a pydantic error location), or of the nearest enclosing key that has one."""
        full = (*self._prefix, *loc)
        for end in range(len(full), 0, -1):
            line = self._places.get(full[:end])
            if line is not None:
                return line
        return None


def _read_toml(path: Path) -> tuple[dict[str, Any], str]:
    """The parsed file and its text (for the line of a bad value)."""
    try:
        text = path.read_bytes().decode("utf-8")
        return tomllib.loads(text), text
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def load_config(explicit: str | Path | None = None, cwd: Path | None = None) -> Config:
    """Find and validate the configuration. Raises ConfigError (exit 2) when invalid."""
    here = cwd or Path.cwd()
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(f"{path}: config file not found")
        data, text = _read_toml(path)
        return _from_mapping(data, str(path), path.parent, TomlLines(text))
    local = here / "qaeval.toml"
    if local.is_file():
        data, text = _read_toml(local)
        return _from_mapping(data, str(local.name), here, TomlLines(text))
    pyproject = here / "pyproject.toml"
    if pyproject.is_file():
        data, text = _read_toml(pyproject)
        section = data.get("tool", {}).get("qaeval")
        if section is not None:
            if not isinstance(section, dict):
                raise ConfigError("pyproject.toml: tool.qaeval: must be a table")
            return _from_mapping(section, "pyproject.toml", here, TomlLines(text, ("tool", "qaeval")))
    return Config(base_dir=str(here))
