"""Ids to row numbers without a Python object per id: record ids, BM25 ids and terms.

A ``dict[str, int]`` beside a ``list[str]`` costs about 150 bytes per id at 100k ids: the str
object (~50 bytes plus its characters), a dict entry and its share of the hash index (~50), an
int object per row above 256 (32) and a list slot (8). An :class:`IdMap` keeps the ids as UTF-8
in one buffer with their ``int64`` end offsets, their CRC-32 and a hole flag per row, and an
open-addressing table (linear probing, at most half full) of ``int32`` rows: 13 bytes per id
plus its UTF-8 bytes plus 4 to 8 bytes of table, and nothing for the garbage collector to walk.

Rows are numbered in insertion order. Removing an id leaves its row as a hole (its bytes are
kept, so :meth:`IdMap.key` still answers for it: a snapshot taken before the removal stays
readable); :meth:`IdMap.compacted` squeezes holes out into a new map. The hash is CRC-32 of
the UTF-8 bytes (``zlib.crc32``), the same in every process, so a saved map is read back
as it was written (:meth:`IdMap.packed`, :meth:`IdMap.from_packed`), nothing hashed again
and no Python str made.

Costs: a lookup encodes and hashes the id, probes the table and compares one id's bytes,
O(len(id)), about 0.7 µs (a dict: 0.06 µs); adding is amortised O(len(id)); building a map
of ``n`` ids is O(n) (vectorised table build, and distinct ids checked by comparing the bytes
of equal hashes); reading a packed one O(n) in numpy.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from zlib import crc32

import numpy as np
import numpy.typing as npt

__all__ = ["IdMap", "Packed"]

_EMPTY = -1  # table slot holding no row
_MIN_TABLE = 8
_SPOT_CHECKS = 64  # rows of a packed map hashed again and looked up on reading

Packed = tuple[bytes, npt.NDArray[np.int64], npt.NDArray[np.uint32], npt.NDArray[np.int32]]
"""A map's live ids as saved: UTF-8 bytes, each id's end offset in them, each id's CRC-32, and
the open-addressing table of rows (``-1``: an empty slot)."""


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
        encoded = [_encode(k) for k in ids]
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        hashes = np.fromiter(map(crc32, encoded), dtype=np.uint32, count=len(encoded))
        self._fill(b"".join(encoded), np.cumsum(lengths), hashes)

    def _fill(
        self,
        buf: bytes,
        ends: npt.NDArray[np.int64],
        hashes: npt.NDArray[np.uint32],
        table: npt.NDArray[np.int32] | None = None,
    ) -> None:
        """Hold the ids of ``buf`` (cut at ``ends``, hashed ``hashes``) as rows 0, 1, 2...,
        placed by ``table`` when given (else a table is built, and the ids checked distinct).

        Raises:
            ValueError: An id appears twice.
        """
        self._buf = buf if isinstance(buf, bytearray) else bytearray(buf)
        self._ends: array[int] = array("q")
        self._ends.frombytes(np.ascontiguousarray(ends, dtype=np.int64).view(np.uint8).data)
        self._hashes: array[int] = array("I")
        self._hashes.frombytes(np.ascontiguousarray(hashes, dtype=np.uint32).view(np.uint8).data)
        rows = len(self._ends)
        self._gone = bytearray(rows)  # 1 for a removed row
        self._live = rows
        if table is not None:
            self._table = array("i")
            self._table.frombytes(np.ascontiguousarray(table, dtype=np.intc).view(np.uint8).data)
            self._mask = len(self._table) - 1
            return
        size = _table_size(rows)
        self._mask = size - 1
        self._table = _build_table(hashes, np.arange(rows, dtype=np.int64), size)
        if _repeats(self._buf, ends, hashes):
            raise ValueError("ids must be distinct")

    @classmethod
    def from_packed(cls, packed: Packed) -> IdMap:
        """The map :meth:`packed` described (rows 0, 1, 2... in its order), its hash table
        taken as saved.

        The bytes, hashes and table are trusted as a map wrote them (the file they come from
        is checked as a whole by its reader): their shapes are checked, every row is placed
        once, and up to 64 ids spread over the map are hashed again and looked up, which
        catches a file of another hash or table. O(n) in numpy. Bytes given as a
        ``bytearray`` are the map's own from then on (taken without a copy).

        Raises:
            ValueError: Any of that does not hold.
        """
        buf, ends, hashes, table = packed
        n = ends.shape[0] if ends.ndim == 1 else -1
        if ends.dtype != np.int64 or hashes.dtype != np.uint32 or hashes.shape != (n,):
            raise ValueError("packed ids: offsets must be int64 and hashes uint32, one each")
        if n and (int(ends[-1]) != len(buf) or int(ends[0]) < 0):
            raise ValueError("packed ids: the offsets do not end with the bytes")
        if n > 1 and bool((np.diff(ends) < 0).any()):
            raise ValueError("packed ids: offsets go backwards")
        size = table.shape[0] if table.ndim == 1 else 0
        if table.dtype != np.int32 or size < _table_size(n) or size & (size - 1):
            raise ValueError("packed ids: the table is not a power of two above twice the ids")
        placed = table[table != _EMPTY]
        if placed.shape != (n,) or (n and (int(placed.min()) < 0 or int(placed.max()) >= n)):
            raise ValueError("packed ids: the table does not place every row once")
        if n and bool((np.bincount(placed, minlength=n) != 1).any()):
            raise ValueError("packed ids: the table does not place every row once")
        out = cls()
        out._fill(buf, ends, hashes, table)
        spread = np.linspace(0, max(n - 1, 0), _SPOT_CHECKS if n else 0).astype(np.int64)
        for row in np.unique(spread).tolist():
            key = bytes(out.key_bytes(row))
            if crc32(key) != int(hashes[row]):
                raise ValueError("packed ids: a hash is not its id's")
            if out._find(key) is None:
                raise ValueError("packed ids: the table does not find an id")
        return out

    def packed(self) -> Packed:
        """The live ids, in row order, and the table that finds them, as
        :meth:`from_packed` reads them."""
        if self._live != len(self._ends):
            return self.compacted(np.flatnonzero(np.frombuffer(self._gone, np.uint8) == 0)).packed()
        return (
            bytes(self._buf),
            np.frombuffer(self._ends, dtype=np.int64).copy(),
            np.frombuffer(self._hashes, dtype=np.uint32).copy(),
            np.frombuffer(self._table, dtype=np.intc).astype(np.int32),
        )

    def same_ids(self, other: IdMap) -> bool:
        """Whether both hold the same live ids. O(n) bytes compared when they hold them in
        one order (maps filled alike do); else O(n) lookups."""
        if self._live != other._live:
            return False
        if (
            self._live == len(self._ends) == len(other._ends)
            and self._ends == other._ends
            and self._buf == other._buf
        ):
            return True
        return all(key in other for key in self.keys())

    def same_rows(self, other: IdMap) -> bool:
        """Whether both hold the same ids in the same rows, with no holes (O(n) bytes)."""
        return (
            self._live == len(self._ends) == other._live == len(other._ends)
            and self._ends == other._ends
            and self._buf == other._buf
        )

    def copy(self) -> IdMap:
        """A map of the same live ids, renumbered 0, 1, 2... in row order (this map's own,
        without holes, as it is), that changes apart from this one."""
        return self.compacted(np.flatnonzero(np.frombuffer(self._gone, np.uint8) == 0))

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
        slot = self._find(_encode(key))
        return None if slot is None else int(self._table[slot])

    def _find(self, encoded: bytes) -> int | None:
        """The table slot holding the id whose UTF-8 is ``encoded``, or ``None``."""
        table, hashes, ends, mask = self._table, self._hashes, self._ends, self._mask
        h = crc32(encoded)
        slot = h & mask
        while True:
            row = table[slot]
            if row == _EMPTY:
                return None
            if hashes[row] == h:
                start = ends[row - 1] if row else 0
                if self._buf[start : ends[row]] == encoded:
                    return slot
            slot = (slot + 1) & mask

    def key(self, row: int) -> str:
        """The id of ``row`` (a hole's too: the id it held)."""
        end = self._ends[row]
        start = self._ends[row - 1] if row else 0
        return self._buf[start:end].decode("utf-8", "surrogatepass")

    def key_bytes(self, row: int) -> bytearray:
        """The UTF-8 of the id of ``row``."""
        return self._buf[self._ends[row - 1] if row else 0 : self._ends[row]]

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
        encoded = _encode(key)
        h = crc32(encoded)
        self._buf += encoded
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
        slot = self._find(_encode(key))
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

        O(len(rows)) in numpy (every row kept: the buffers and table copied as they are);
        this map is unchanged.
        """
        at = np.asarray(rows, dtype=np.int64)
        ends = np.frombuffer(self._ends, dtype=np.int64)
        starts = np.concatenate(([0], ends[:-1]))
        out = IdMap()
        if at.shape[0] == ends.shape[0]:  # every row, so none is a hole: nothing moves
            out._buf, out._ends, out._hashes = self._buf[:], self._ends[:], self._hashes[:]
            out._gone, out._live = bytearray(at.shape[0]), at.shape[0]
            out._table, out._mask = self._table[:], self._mask
            return out
        keep = np.zeros(ends.shape[0], dtype=np.bool_)
        keep[at] = True
        kept = np.repeat(keep, ends - starts)
        out._buf = bytearray(np.frombuffer(self._buf, dtype=np.uint8)[kept].tobytes())
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


def _repeats(
    buf: bytes | bytearray, ends: npt.NDArray[np.int64], hashes: npt.NDArray[np.uint32]
) -> bool:
    """Whether an id of ``buf`` (cut at ``ends``) appears twice: only ids of one hash are
    compared, by their bytes."""
    if hashes.shape[0] < 2:
        return False
    order = np.argsort(hashes, kind="stable")
    ordered = hashes[order]
    shared = np.flatnonzero(ordered[1:] == ordered[:-1])
    if not shared.shape[0]:
        return False
    starts = np.concatenate(([0], ends[:-1]))
    seen: dict[int, set[bytes]] = {}
    for at in np.unique(np.concatenate((shared, shared + 1))).tolist():
        row = int(order[at])
        key = bytes(buf[int(starts[row]) : int(ends[row])])
        same = seen.setdefault(int(ordered[at]), set())
        if key in same:
            return True
        same.add(key)
    return False
