"""The one way qaeval writes a file: a reader (or a crash) sees the old content or the new, never half.

`write_output` writes what a command was asked to write (reports, artifacts, label exports);
`replace_file` and `append_line_atomically` keep the golden set. The new content goes to a
temporary file in the same folder, `.NAME.XXXXXXXX.tmp` (unique per writer, and never a `.jsonl`
that a loader could take for data), is flushed to disk, and is renamed over the original
(`os.replace` is atomic on one file system); the folder is synced so the rename itself survives a
power cut. JSON never holds NaN or Infinity: strict parsers reject them.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from qaeval_tui.core.errors import QaevalError, UsageError

LOCK_TIMEOUT_S = 30.0
GOLDEN_CASE_KEYS = frozenset({"question", "expected_behavior"})
_SNIFF_LIMIT = 16 * 2**20  # a golden line longer than this is not recognised; none is near it
# mkstemp's random part is 8 characters of [a-z0-9_].
_TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp$")


def _umask_shown() -> int | None:
    """The process umask where the system shows it without changing it (Linux 4.7+), else None."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return None


def _umask_at_import() -> int:
    shown = _umask_shown()
    if shown is not None:
        return shown
    mask = os.umask(0o022)  # elsewhere the only read is a write: done once, at import, before any thread
    os.umask(mask)
    return mask


_UMASK_AT_IMPORT = _umask_at_import()


def new_file_mode() -> int:
    """The mode `open()` would give a new file: 0o666 less the umask (mkstemp's own 0o600 ignores it)."""
    shown = _umask_shown()
    return 0o666 & ~(_UMASK_AT_IMPORT if shown is None else shown)


def replace_file(path: Path, data: bytes) -> None:
    """Atomically make `data` the whole content of `path`, keeping its permissions (a new file: as the umask says)."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else new_file_mode()
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _sync_folder(path.parent)


def write_output(path: Path, text: str) -> None:
    """Make `text` the whole content of a file a command was asked to write, or fail changing nothing.

    Any failure is one `UsageError` "PATH: cannot write: reason" (exit 2): a folder, a parent that
    is a file, no permission, a read-only or full disk; a golden split is refused the same way. An
    existing file keeps its permissions; a link keeps pointing where it did and its file gets the
    text; a pipe or a terminal (`/dev/stdout`) is written straight through, as there is nothing to
    replace.
    """
    try:
        try:
            info: os.stat_result | None = path.stat()
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise UsageError(f"{path}: cannot write: it is a folder")
        golden = golden_split_problem(path) if info is not None and stat.S_ISREG(info.st_mode) else None
        if golden is not None:
            raise UsageError(f"{path}: refused: {golden}; write the output elsewhere")
        data = text.encode("utf-8")
        if info is not None and not stat.S_ISREG(info.st_mode):
            with path.open("wb") as stream:
                stream.write(data)
            return
        real = Path(os.path.realpath(path))
        real.parent.mkdir(parents=True, exist_ok=True)
        replace_file(real, data)
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {why_not_written(path, exc)}") from exc


def golden_split_problem(path: Path) -> str | None:
    """Why `path` is a golden split that no output may replace, or None.

    Sniffed, not looked up: its first non-blank line is a JSON object with a golden case's keys
    (`question` and `expected_behavior`) and no `item_id` (a label or verdict line). So a copy of the
    golden folder, or one that is not the configured one, is recognised too. Only a regular file is
    read (never a pipe or a terminal), and only its first line.
    """
    try:
        if not path.is_file():
            return None
        with path.open("rb") as handle:
            first = b""
            while not first.strip():
                first = handle.readline(_SNIFF_LIMIT)
                if not first:
                    return None
    except OSError:
        return None
    try:
        data = json.loads(first)
    except (ValueError, RecursionError):
        return None
    if isinstance(data, dict) and data.keys() >= GOLDEN_CASE_KEYS and "item_id" not in data:
        return f"{path.name} is a golden split (its first line is a golden case)"
    return None


def check_output_target(path: Path) -> None:
    """UsageError now when `path` can clearly never be written (a folder, or under a file) or is a golden split.

    Commands that run a suite call it for every output path first, so a typo in `--junit` costs
    a second, not a whole run; `write_output` still catches whatever only the write itself finds.
    """
    if path.is_dir():
        raise UsageError(f"{path}: cannot write: it is a folder")
    golden = golden_split_problem(path)
    if golden is not None:
        raise UsageError(f"{path}: refused: {golden}; write the output elsewhere")
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                raise UsageError(f"{path}: cannot write: {folder} is a file, not a folder")
            return


def why_not_written(path: Path, exc: OSError) -> str:
    """The reason in words: a file standing where a folder must be, else what the system said."""
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                return f"{folder} is a file, not a folder"
            break
    return exc.strerror or str(exc)


def append_line_atomically(path: Path, line: str) -> bytes | None:
    """Add one line at the end of `path` (created if missing); returns the previous content (None: no file).

    A last line without a newline gets one first, so the new line never joins it.
    """
    before = path.read_bytes() if path.exists() else None
    old = before or b""
    separator = b"\n" if old and not old.endswith(b"\n") else b""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, old + separator + line.encode("utf-8") + b"\n")
    return before


def restore_file(path: Path, before: bytes | None) -> None:
    """Put back what `append_line_atomically` returned: the old content, or no file at all."""
    if before is None:
        path.unlink(missing_ok=True)
        _sync_folder(path.parent)
    else:
        replace_file(path, before)


def remove_leftover_temps(folder: Path, belongs: Callable[[str], bool]) -> list[Path]:
    """Delete the temporary files a killed writer left in `folder`, for target names `belongs` accepts.

    Call it only while holding the lock every writer of those files takes: then no temporary file
    there is still being written.
    """
    removed = []
    for candidate in sorted(folder.glob(".*.tmp")):
        match = _TEMP_NAME.match(candidate.name)
        if match and belongs(match["name"]) and candidate.is_file() and not candidate.is_symlink():
            try:
                candidate.unlink(missing_ok=True)
            except OSError:
                continue  # housekeeping only: a leftover that cannot go stays, harmless, and is not reported
            removed.append(candidate)
    return removed


@contextlib.contextmanager
def held_lock(lock_file: Path, *, timeout: float = LOCK_TIMEOUT_S, optional: bool = False) -> Iterator[bool]:
    """Hold an exclusive lock on `lock_file` (created if missing) against every other process, on any OS.

    UsageError when another process holds it past `timeout`, or when it cannot be created, unless
    `optional`: then the body runs unlocked (a folder no one can write holds no writer to wait for).
    Yields whether the lock is held.
    """
    from filelock import FileLock, Timeout

    lock = FileLock(lock_file, timeout=timeout)
    held = True
    try:
        lock_file.parent.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except Timeout as exc:  # before OSError: filelock's Timeout is a TimeoutError
        raise UsageError(f"{lock_file}: another qaeval held this lock for {timeout:.0f} s; try again") from exc
    except OSError as exc:
        if not optional:
            raise UsageError(f"{lock_file}: cannot lock: {why_not_written(lock_file, exc)}") from exc
        held = False
    try:
        yield held
    finally:
        if held:
            lock.release()


def non_finite_number(data: Any, where: str = "") -> tuple[str, float] | None:
    """Where `data` holds a NaN or an infinity (`metrics.mrr`, `cases[3].score`) and that number, or None."""
    if isinstance(data, float):
        return None if math.isfinite(data) else (where or "(the value)", data)
    children: Any = ()
    if isinstance(data, Mapping):
        children = ((f"{where}.{key}" if where else str(key), value) for key, value in data.items())
    elif isinstance(data, list | tuple):
        children = ((f"{where}[{index}]", value) for index, value in enumerate(data))
    for place, value in children:
        found = non_finite_number(value, place)
        if found is not None:
            return found
    return None


def require_finite(data: Any, destination: str) -> None:
    """QaevalError (exit 2) naming the field when `data` holds a number JSON cannot: nothing is written."""
    found = non_finite_number(data)
    if found is not None:
        where, value = found
        raise QaevalError(
            f"{destination}: cannot write {where} = {value}: JSON has no NaN or Infinity "
            "(strict parsers reject them); nothing was written"
        )


def strict_json(data: Any, destination: str, **options: Any) -> str:
    """`json.dumps` that refuses NaN and Infinity with a message naming `destination` and the field."""
    require_finite(data, destination)
    return json.dumps(data, allow_nan=False, **options)


def _sync_folder(folder: Path) -> None:
    if os.name != "posix":
        return  # folders cannot be opened for fsync elsewhere; the rename is still atomic
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
