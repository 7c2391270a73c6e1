"""Strings to integer codes in sorted order, by sorting their bytes in one array rather than hashing them.

Item ids arrive as a fresh string per label (a store row is new objects), a million of them for a
million labels. Numbering them through a dict is linear in operations but not in time: past a few
hundred thousand distinct ids its table no longer fits the processor's cache and every lookup waits
on memory (measured 25-40x the time for 10x the labels). ASCII ids without NUL, padded with NUL to
the longest (NUL sorts below every other byte, so a prefix still sorts first), are fixed-width byte
strings that order and compare as the ids do; numpy sorts and searches them in one contiguous
array. Any other id takes the dict (or, to align, numpy's unicode strings).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BytesArray = npt.NDArray[np.bytes_]
BoolArray = npt.NDArray[np.bool_]


def padded_bytes(*groups: Sequence[str]) -> list[BytesArray] | None:
    """Each group of names as fixed-width byte strings of one common width, ordered and equal as the
    names are; None when a name is not ASCII, holds a NUL, or every name is empty."""
    joined = ["".join(names) for names in groups]
    if not all(text.isascii() and "\0" not in text for text in joined):
        return None
    lengths = [np.fromiter(map(len, names), np.int64, len(names)) for names in groups]
    width = max((int(sizes.max()) for sizes in lengths if sizes.size), default=0)
    if width == 0:
        return None
    arrays: list[BytesArray] = []
    for names, text, sizes in zip(groups, joined, lengths, strict=True):
        if sizes.size and int(sizes.min()) != width:
            text = "".join(map(str.ljust, names, repeat(width), repeat("\0")))
        arrays.append(np.frombuffer(text.encode("ascii"), dtype=f"S{width}"))
    return arrays


def sorted_codes(names: list[str]) -> tuple[list[str], IntArray]:
    """The distinct names sorted, and each given name's position among them."""
    cells = padded_bytes(names)
    if not names or cells is None:
        return dict_codes(names)
    order, first = _byte_order(cells[0])
    codes = np.empty(len(names), dtype=np.int64)
    codes[order] = np.cumsum(first, dtype=np.int64) - 1
    return list(map(names.__getitem__, order[first].tolist())), codes


def _byte_order(strings: BytesArray) -> tuple[IntArray, BoolArray]:
    """An order that sorts `strings`, and which positions in it start a new distinct string.

    Sorting integers is several times faster than sorting strings, so the strings are sorted by the
    eight bytes from the first position where they differ (read as one big-endian integer, which
    orders as the bytes do). Where that window holds every varying position, equal integers are
    equal strings; else neighbours are compared whole, and the runs of equal integers holding
    different strings (a few for hash ids) are sorted again by the strings themselves.
    """
    size, width = strings.size, strings.dtype.itemsize
    grid = strings.view(np.uint8).reshape(size, width)
    varying = np.flatnonzero(grid.min(axis=0) != grid.max(axis=0))
    first = np.zeros(size, dtype=bool)
    first[:1] = True
    if varying.size == 0:
        return np.arange(size, dtype=np.int64), first
    window = np.zeros((size, 8), dtype=np.uint8)
    taken = grid[:, varying[0] : varying[0] + 8]
    window[:, : taken.shape[1]] = taken
    key = window.view(">u8").ravel().astype(np.uint64)
    order: IntArray = np.argsort(key).astype(np.int64)
    ordered_keys = key[order]
    tie = ordered_keys[1:] == ordered_keys[:-1]
    if varying[-1] < varying[0] + 8:
        first[1:] = ~tie
        return order, first
    ordered = strings[order]
    differs = ordered[1:] != ordered[:-1]
    clash = tie & differs
    if clash.any():
        run = np.cumsum(np.concatenate(([True], ~tie)))  # each position's run of equal keys
        unsettled = np.zeros(int(run[-1]) + 1, dtype=bool)
        unsettled[run[1:][clash]] = True
        where = np.flatnonzero(unsettled[run])
        settled = np.lexsort((ordered[where], run[where]))
        order[where] = order[where][settled]
        ordered[where] = ordered[where][settled]
        differs = ordered[1:] != ordered[:-1]
    first[1:] = differs
    return order, first


def dict_codes(names: list[str]) -> tuple[list[str], IntArray]:
    """`sorted_codes` through a dict (C-level loops): the way for a few distinct names, whose table
    stays in cache, and for names `padded_bytes` cannot hold."""
    ordered = sorted(dict.fromkeys(names))
    rank_of = dict(zip(ordered, range(len(ordered)), strict=True))
    return ordered, np.fromiter(map(rank_of.__getitem__, names), np.int64, len(names))
