"""Replacing a text file so that a reader (or a crash) sees the old content or the new, never half.

The new content goes to a temporary file in the same folder, is flushed to disk, and then
renamed over the original (`os.replace` is atomic on one file system); the folder is synced so
the rename itself survives a power cut.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

NEW_FILE_MODE = 0o644


def replace_file(path: Path, data: bytes) -> None:
    """Atomically make `data` the whole content of `path`, keeping its permissions."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else NEW_FILE_MODE
    # The suffix is not .jsonl, so a leftover after a crash is never loaded as a golden split.
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


def _sync_folder(folder: Path) -> None:
    if os.name != "posix":
        return  # folders cannot be opened for fsync elsewhere; the rename is still atomic
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
