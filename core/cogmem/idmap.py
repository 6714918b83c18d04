"""Ids to row numbers without a Python object per id: record ids, BM25 ids and terms.

A ``dict[str, int]`` beside a ``list[str]`` costs about 150 bytes per id at 100k ids: the str
object (~50 bytes plus its characters), a dict entry and its share of the hash index (~50), an
int object per row above 256 (32) and a list slot (8). An :class:`IdMap` keeps the ids as UTF-8
in one buffer with their ``int64`` end offsets, the low 32 bits of their ``hash()`` and a hole
flag per row, and an open-addressing table (linear probing, at most half full) of ``int32``
rows: 13 bytes per id plus its UTF-8 bytes plus 4 to 8 bytes of table, and nothing for the
garbage collector to walk.

Rows are numbered in insertion order. Removing an id leaves its row as a hole (its bytes are
kept, so :meth:`IdMap.key` still answers for it: a snapshot taken before the removal stays
readable); :meth:`IdMap.compacted` squeezes holes out into a new map. Hashes are Python's
``hash`` of the str, so they are never saved: a loaded map hashes its ids again.

Costs: a lookup hashes the id (cached in the str), probes the table and decodes one id to
compare, O(len(id)), about 0.7 µs (a dict: 0.06 µs); adding is amortised O(len(id)); building
a map of ``n`` ids is O(n) (vectorised table build).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["IdMap"]

_EMPTY = -1  # table slot holding no row
_LOW = 0xFFFFFFFF  # the low 32 bits of hash() are kept: the table never has 2**32 slots
_MIN_TABLE = 8


def _encode(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")


def _table_size(count: int) -> int:
    """The smallest power of two at least twice ``count`` (a table at most half full)."""
    size = _MIN_TABLE
    while size < 2 * count:
        size *= 2
    return size


def _build_table(
    hashes: npt.NDArray[np.uint32], rows: npt.NDArray[np.int64], size: int
) -> array[int]:
    """An open-addressing table of ``size`` slots holding ``rows`` at their hashes' places.

    Linear probing, built in rounds: each round places, for every free slot wanted, the
    first row wanting it; the others move one slot on. Every row ends up reachable from its
    home slot through occupied slots only, as if inserted one by one. O(rows · longest probe).
    """
    mask = size - 1
    table = np.full(size, _EMPTY, dtype=np.intc)
    pending = rows
    where = hashes[rows].astype(np.int64) & mask
    while pending.shape[0]:
        free = np.flatnonzero(table[where] == _EMPTY)
        slots, first = np.unique(where[free], return_index=True)
        winners = free[first]
        table[slots] = pending[winners]
        stay = np.ones(pending.shape[0], dtype=np.bool_)
        stay[winners] = False
        pending = pending[stay]
        where = (where[stay] + 1) & mask
    out: array[int] = array("i")
    out.frombytes(table.tobytes())
    return out


class IdMap:
    """Distinct str ids numbered by insertion (rows), with holes where ids were removed.

    Args:
        ids: Initial ids, rows 0, 1, 2... in order (must be distinct).

    Raises:
        ValueError: ``ids`` repeats an id.
    """

    __slots__ = ("_buf", "_ends", "_gone", "_hashes", "_live", "_mask", "_table")

    def __init__(self, ids: Iterable[str] = ()) -> None:
        keys = list(ids)
        encoded = [_encode(k) for k in keys]
        self._buf = bytearray(b"".join(encoded))
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        self._ends: array[int] = array("q")
        self._ends.frombytes(np.cumsum(lengths).tobytes())
        del encoded, lengths
        hashes = np.fromiter((hash(k) & _LOW for k in keys), dtype=np.uint32, count=len(keys))
        self._hashes: array[int] = array("I")
        self._hashes.frombytes(hashes.tobytes())
        self._gone = bytearray(len(keys))  # 1 for a removed row
        self._live = len(keys)
        size = _table_size(len(keys))
        self._mask = size - 1
        self._table = _build_table(hashes, np.arange(len(keys), dtype=np.int64), size)
        if len(keys) and len(set(keys)) != len(keys):
            raise ValueError("ids must be distinct")

    # ------------------------------------------------------------------ reads
    def __len__(self) -> int:
        """Live ids (holes excluded)."""
        return self._live

    @property
    def rows(self) -> int:
        """Rows in use, holes included."""
        return len(self._ends)

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None

    def get(self, key: object) -> int | None:
        """The row of ``key``, or ``None`` when it is not held (any non-str: ``None``)."""
        if not isinstance(key, str):
            return None
        slot = self._find(key, hash(key) & _LOW)
        return None if slot is None else int(self._table[slot])

    def _find(self, key: str, h: int) -> int | None:
        """The table slot holding ``key`` (hash ``h``), or ``None``."""
        table, hashes, ends, mask = self._table, self._hashes, self._ends, self._mask
        slot = h & mask
        while True:
            row = table[slot]
            if row == _EMPTY:
                return None
            if hashes[row] == h:
                start = ends[row - 1] if row else 0
                if self._buf[start : ends[row]].decode("utf-8", "surrogatepass") == key:
                    return slot
            slot = (slot + 1) & mask

    def key(self, row: int) -> str:
        """The id of ``row`` (a hole's too: the id it held)."""
        end = self._ends[row]
        start = self._ends[row - 1] if row else 0
        return self._buf[start:end].decode("utf-8", "surrogatepass")

    def keys(self, rows: Iterable[int] | None = None) -> list[str]:
        """The ids of ``rows`` (default: of every live row, in row order).

        O(rows); when every id is ASCII the buffer is decoded once and sliced (~0.1 µs an id
        instead of ~0.35)."""
        if rows is None:
            gone = self._gone
            rows = [r for r in range(len(self._ends)) if not gone[r]]
        if not self._buf.isascii():
            key = self.key
            return [key(r) for r in rows]
        text, ends = self._buf.decode("ascii"), self._ends
        return [text[ends[r - 1] if r else 0 : ends[r]] for r in rows]

    def is_live(self, row: int) -> bool:
        """Whether ``row`` holds an id (not a hole)."""
        return not self._gone[row]

    # ------------------------------------------------------------------ writes
    def append(self, key: str) -> int:
        """Give ``key`` (not held; unchecked) the next row; returns it. Amortised O(len(key))."""
        row = len(self._ends)
        h = hash(key) & _LOW
        self._buf += _encode(key)
        self._ends.append(len(self._buf))
        self._hashes.append(h)
        self._gone.append(0)
        self._live += 1
        if 2 * self._live > len(self._table):
            self._rehash(_table_size(self._live))
        else:
            self._place(row, h)
        return row

    def extend(self, keys: Sequence[str]) -> int:
        """:meth:`append` each of ``keys`` (none held, distinct; unchecked); returns the first
        row they took."""
        first = len(self._ends)
        for key in keys:
            self.append(key)
        return first

    def _place(self, row: int, h: int) -> None:
        table, mask = self._table, self._mask
        slot = h & mask
        while table[slot] != _EMPTY:
            slot = (slot + 1) & mask
        table[slot] = row

    def _rehash(self, size: int) -> None:
        hashes = np.frombuffer(self._hashes, dtype=np.uint32)
        live = np.flatnonzero(np.frombuffer(self._gone, dtype=np.uint8) == 0)
        self._table = _build_table(hashes, live, size)
        self._mask = size - 1

    def pop(self, key: str) -> int | None:
        """Remove ``key``; returns the row it held (now a hole), or ``None`` if not held."""
        if not isinstance(key, str):
            return None
        slot = self._find(key, hash(key) & _LOW)
        if slot is None:
            return None
        table, hashes, mask = self._table, self._hashes, self._mask
        row = table[slot]
        # Backward-shift deletion: pull later rows of the probe run into the gap when their
        # home slot is not cyclically within (gap, here].
        gap = slot
        here = slot
        while True:
            here = (here + 1) & mask
            other = table[here]
            if other == _EMPTY:
                break
            home = hashes[other] & mask
            if (here > gap and (home <= gap or home > here)) or (here < gap and gap >= home > here):
                table[gap] = other
                gap = here
        table[gap] = _EMPTY
        self._gone[row] = 1
        self._live -= 1
        return row

    def compacted(self, rows: Sequence[int] | npt.NDArray[np.int64]) -> IdMap:
        """A new map holding the ids of ``rows`` (live rows, ascending), renumbered 0, 1, 2...

        O(len(rows)); this map is unchanged.
        """
        at = np.asarray(rows, dtype=np.int64)
        ends = np.frombuffer(self._ends, dtype=np.int64)
        starts = np.concatenate(([0], ends[:-1]))
        buf = self._buf
        out = IdMap()
        out._buf = bytearray(
            b"".join(buf[a:b] for a, b in zip(starts[at].tolist(), ends[at].tolist()))
        )
        out._ends = array("q")
        out._ends.frombytes(np.cumsum(ends[at] - starts[at]).tobytes())
        hashes = np.frombuffer(self._hashes, dtype=np.uint32)[at]
        out._hashes = array("I")
        out._hashes.frombytes(hashes.tobytes())
        out._gone = bytearray(at.shape[0])
        out._live = at.shape[0]
        size = _table_size(at.shape[0])
        out._mask = size - 1
        out._table = _build_table(hashes, np.arange(at.shape[0], dtype=np.int64), size)
        return out

    def nbytes(self) -> int:
        """Bytes held (buffers and table, capacity excluded)."""
        return (
            len(self._buf)
            + len(self._gone)
            + self._ends.itemsize * len(self._ends)
            + self._hashes.itemsize * len(self._hashes)
            + self._table.itemsize * len(self._table)
        )
