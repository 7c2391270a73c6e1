"""Stable content hashes: independent of key order and whitespace in the source file."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any


def canonical_json(value: Any) -> str:
    """Serialise with sorted keys and no insignificant whitespace."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(value: Any) -> str:
    """sha256 of the canonical JSON of `value`, as hex."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def suite_hash(case_hashes: Iterable[str]) -> str:
    """Hash of the sorted case hashes: the same cases in any file order give the same suite."""
    digest = hashlib.sha256()
    for value in sorted(case_hashes):
        digest.update(value.encode("ascii"))
        digest.update(b"\n")
    return digest.hexdigest()


def item_id_for(case_hash: str, output_hash: str) -> str:
    """A review item's id: the case's content hash plus the system output's hash (DESIGN §3.5)."""
    return f"{case_hash[:16]}.{output_hash[:16]}"
