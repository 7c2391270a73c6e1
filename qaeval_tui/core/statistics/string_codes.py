"""Strings to integer codes in sorted order, by sorting their bytes in one array rather than hashing them.

Item ids arrive as a fresh string per label (a store row is new objects), a million of them for a
million labels. Numbering them through a dict is linear in operations but not in time: past a few
hundred thousand distinct ids its table no longer fits the processor's cache and every lookup waits
on memory (measured 25-40x the time for 10x the labels). ASCII ids without NUL, padded with NUL to
the longest (NUL sorts below every other byte, so a prefix still sorts first), are fixed-width byte
strings that order and compare as the ids do; numpy sorts and searches them in one contiguous
array. Ids shaped as `item_id_for` makes them are first decoded from hex (`hex_words`): half the
bytes, and a first word that tells hash ids apart, so equal ids are confirmed on integers, never
by reading the strings again. Any other id takes the dict (or, to align, numpy's unicode strings).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from itertools import count, repeat
from typing import Protocol, overload

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BytesArray = npt.NDArray[np.bytes_]
BoolArray = npt.NDArray[np.bool_]
UIntArray = npt.NDArray[np.uint64]


class _HasItemId(Protocol):
    @property
    def item_id(self) -> str: ...


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


def sorted_codes(names: Sequence[str]) -> tuple[list[str], IntArray]:
    """The distinct names sorted, and each given name's position among them.

    `names` may be a view that reads each name from its label when asked (a slice of them a list):
    ids shaped as `item_id_for` makes them are then read a chunk at a time, and never gathered into
    one list of a million."""
    if not names:
        return [], np.zeros(0, dtype=np.int64)
    words = hex_words(names)
    if words is not None:
        order, first = _word_order(words)
    else:
        names = list(names)
        cells = padded_bytes(names)
        if cells is None:
            return dict_codes(names)
        order, first = _byte_order(cells[0])
    codes = np.empty(len(names), dtype=np.int64)
    codes[order] = np.cumsum(first, dtype=np.int64) - 1
    rows = order[first].tolist()
    return names.pick(rows) if isinstance(names, ItemIds) else list(map(names.__getitem__, rows)), codes


_HEX_DIGITS = b"0123456789abcdef"
_CHUNK = 1 << 15
"""Ids decoded per chunk: a chunk's text stays in the processor's cache, and in memory the allocator reuses."""


def hex_words(names: Sequence[str]) -> UIntArray | None:
    """Ids shaped as `item_id_for` makes them, as unsigned integers that order and compare as the ids
    do (one row per word, one column per id); None for any other ids.

    The shape: one length, lowercase hex digits (an even number of them) and other characters at the
    same places in every id. Two hex digits are one byte, so a 16.16-digit id is two 64-bit words (its
    text is 33 bytes), and the first word alone tells hash ids apart. Read a chunk at a time as one
    text: joined by newlines, it must be as long as the first id makes it, and its non-hex characters, in
    order, exactly the first id's (with the newlines) in the same columns: every id's length and shape at once.
    """
    first = names[0]
    stride = len(first) + 1
    if not first.isascii() or "\n" in first:
        return None
    marks = bytes(character for character in first.encode("ascii") if character not in _HEX_DIGITS)
    columns = [column for column, character in enumerate(first.encode("ascii")) if character not in _HEX_DIGITS]
    digits = len(first) - len(marks)
    if digits == 0 or digits % 2:
        return None
    width = digits // 2
    size, count = len(names), -(-width // 8)
    words = np.empty((count, size), dtype=np.uint64)
    cells = np.zeros((min(_CHUNK, size), count * 8), dtype=np.uint8)
    for start in range(0, size, _CHUNK):
        rows = min(_CHUNK, size - start)
        try:
            text = "\n".join(names[start : start + rows]).encode("ascii")
        except UnicodeEncodeError:
            return None
        if len(text) != rows * stride - 1 or text.translate(None, _HEX_DIGITS) != (marks + b"\n") * (rows - 1) + marks:
            return None
        if text[stride - 1 :: stride] != b"\n" * (rows - 1) or any(
            text[column::stride] != first[column].encode("ascii") * rows for column in columns
        ):
            return None
        decoded = bytes.fromhex(text.translate(None, marks + b"\n").decode("ascii"))
        cells[:rows, :width] = np.frombuffer(decoded, np.uint8).reshape(rows, width)
        words[:, start : start + rows] = cells[:rows].view(">u8").T
    return words


def _word_order(words: UIntArray) -> tuple[IntArray, BoolArray]:
    """`_byte_order` of ids as `hex_words` gives them.

    Sorting plain integers is several times faster than sorting indices by them (`argsort`), so each
    id's number takes the low bits of its first word, and the sorted integers give the order: by the
    first word's high bits, then by position. Runs whose high bits tie but whose words differ (none
    for hash ids) are sorted again by their words."""
    size = words.shape[1]
    shift = np.uint64(max(1, (size - 1).bit_length()))
    packed = words[0] >> shift
    packed <<= shift
    packed |= np.arange(size, dtype=np.uint64)
    packed.sort()
    high = packed >> shift
    tie = high[1:] == high[:-1]
    del high
    packed &= (np.uint64(1) << shift) - np.uint64(1)
    order: IntArray = packed.view(np.int64)
    ordered = [np.take(word, order) for word in words]
    differs = ordered[0][1:] != ordered[0][:-1]
    for word in ordered[1:]:
        differs |= word[1:] != word[:-1]
    clash = tie & differs
    if clash.any():
        run = np.cumsum(np.concatenate(([True], ~tie)))  # each position's run of equal high bits
        unsettled = np.zeros(int(run[-1]) + 1, dtype=bool)
        unsettled[run[1:][clash]] = True
        where = np.flatnonzero(unsettled[run])
        settled = np.lexsort((*(word[where] for word in ordered[::-1]), run[where]))
        order[where] = order[where][settled]
        differs[:] = False
        for word in ordered:
            word[where] = word[where][settled]
            differs |= word[1:] != word[:-1]
    first = np.ones(size, dtype=bool)
    first[1:] = ~tie | differs
    return order, first


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


class ItemIds(Sequence[str]):
    """The item ids of labels or verdicts, each read from its row when asked (a slice of them as a
    list): no list of a million references is built, filled and freed to read each id once."""

    def __init__(self, labels: Sequence[_HasItemId]) -> None:
        self._labels = labels

    def __len__(self) -> int:
        return len(self._labels)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [label.item_id for label in self._labels[index]]
        return self._labels[index].item_id

    def __iter__(self) -> Iterator[str]:
        return (label.item_id for label in self._labels)

    def pick(self, rows: list[int]) -> list[str]:
        """The ids of these rows (a loop in one comprehension, not a method call per id)."""
        labels = self._labels
        return [labels[row].item_id for row in rows]


def first_seen_codes(values: Iterable[Hashable], size: int) -> tuple[IntArray, IntArray]:
    """Each value's number in the order the distinct values are first seen, and the position where
    each is first seen; one pass in C (a dict whose missing keys take the next number), no list."""
    number: defaultdict[Hashable, int] = defaultdict(count().__next__)
    codes = np.fromiter(map(number.__getitem__, values), np.int64, size)
    if size == 0:
        return codes, codes
    highest = np.maximum.accumulate(codes)  # rises exactly where a value is first seen
    return codes, np.flatnonzero(np.concatenate(([True], highest[1:] > highest[:-1])))
