"""Sign-in tokens for `qaeval serve` on a SQLite store: one per roster member, shown once, kept hashed.

The file sits beside the store (`qaeval.db` -> `qaeval.db.serve-tokens.json`), readable by its owner
only, and holds for each name the SHA-256 of its token and when it was issued. A token is 32 random
bytes (URL-safe base64), so a plain hash is enough: there is nothing to guess that a slow hash
would protect. Losing the file only means issuing tokens again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from qaeval_tui.core.errors import UsageError

SUFFIX = ".serve-tokens.json"


def token_file(store: Path) -> Path:
    """Where the tokens of the store at `store` are kept."""
    return store.with_name(store.name + SUFFIX)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def read_tokens(path: Path) -> dict[str, str]:
    """name -> token hash; empty when there is no file. A file that is not ours is a UsageError naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: cannot read the sign-in tokens: {exc}; delete it to issue new ones") from None
    people = data.get("people") if isinstance(data, dict) else None
    if not isinstance(people, dict) or not all(
        isinstance(entry, dict) and isinstance(entry.get("sha256"), str) for entry in people.values()
    ):
        raise UsageError(f"{path}: not a qaeval sign-in token file; delete it to issue new ones")
    return {str(name): str(entry["sha256"]) for name, entry in people.items()}


def _write(path: Path, hashes: dict[str, tuple[str, str]]) -> None:
    document = {"people": {name: {"sha256": digest, "issued_at": at} for name, (digest, at) in sorted(hashes.items())}}
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(document, indent=2) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise UsageError(f"{path}: cannot write the sign-in tokens: {exc.strerror or exc}") from None


def issue_tokens(path: Path, names: Iterable[str], *, renew: Iterable[str] = ()) -> dict[str, str]:
    """A new token for each of `names` that has none yet, and for each of `renew` (its old token stops
    working); returns name -> token, the only time a token is seen. Names matched case-insensitively."""
    current = _with_dates(path)
    renewing = {name.casefold() for name in renew}
    known = {name.casefold() for name in current}
    issued: dict[str, str] = {}
    for name in names:
        if name.casefold() in known and name.casefold() not in renewing:
            continue
        for old in [held for held in current if held.casefold() == name.casefold()]:
            del current[old]
        token = secrets.token_urlsafe(32)
        current[name] = (_digest(token), datetime.now(UTC).isoformat(timespec="seconds"))
        issued[name] = token
    if issued:
        _write(path, current)
    return issued


def _with_dates(path: Path) -> dict[str, tuple[str, str]]:
    hashes = read_tokens(path)
    if not hashes:
        return {}
    people = json.loads(path.read_text(encoding="utf-8"))["people"]
    return {name: (digest, str(people[name].get("issued_at", ""))) for name, digest in hashes.items()}


def token_holder(path: Path, name: str, token: str) -> str | None:
    """The name (as the file spells it) whose token `token` is, when that is `name`; else None.

    Every entry is compared in constant time, so the answer's timing tells nothing about which
    names hold tokens."""
    offered = _digest(token)
    found = None
    for holder, digest in read_tokens(path).items():
        if hmac.compare_digest(digest, offered) and holder.casefold() == name.strip().casefold():
            found = holder
    return found
