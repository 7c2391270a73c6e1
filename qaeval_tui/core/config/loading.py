"""Finding, reading and validating the configuration file; errors name file, line and field."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from qaeval_tui.core.config.model import Config
from qaeval_tui.core.config.toml_lines import TomlLines
from qaeval_tui.core.errors import ConfigError
from qaeval_tui.core.rubric import guidelines_path
from qaeval_tui.core.text import one_line


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
    if not data:  # an empty file says nothing to check: the defaults, read without validating them again
        return Config.defaults_at(str(base_dir))
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
    return Config.defaults_at(str(here))
