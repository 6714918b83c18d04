"""The exact nearest neighbours of a small namespace, from its own vectors, without Chroma.

Up to ``EXACT_SCAN`` memories, a dense query (a search's, or write-time dedup's) is answered
by a scan of every memory's unit vector, ``cos = V̂ · q / |q|``, top ``k`` by cosine then id.
It is exact (an HNSW query is not): about 0.3 ms at 2,000 memories of 384 dimensions and
0.8 ms at 10,000, against 1–2 ms for Chroma's query (the two cost about the same near
16,000). It leaves Chroma's index of the namespace unloaded: no four open files per
namespace in Chroma's index cache. It also steps around a fault of Chroma's embedded store
(1.5): the index of a collection under its ``hnsw:sync_threshold`` (1,000) is never written
to disk, and once Chroma's cache lets go of it, a query fails with "Error creating hnsw
segment reader: Nothing found on disk". A collection queried through Chroma here has more
memories than that, so its index was written.

A packed namespace (:mod:`cogmem.shared_namespaces`) is scanned whatever its size: the shared
collection's index is never asked (a packed namespace of 100,000 memories would keep 150 MB
and scan in about 8 ms, extrapolated from the figures above).

The unit vectors are kept (1.5 MB per 1,000 memories of 384 dimensions, 24 MB at most in a
collection of its own):
after adds only the new memories' vectors are read, after a remove all of them again
(:attr:`cogmem.index.NamespaceIndex.adds` and ``removes``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .index import NamespaceIndex
from .store import FloatArray

__all__ = ["EXACT_SCAN", "ExactScan", "top_k"]

#: Namespaces of at most this many memories are searched by :class:`ExactScan`; a filter
#: that leaves at most this many is scanned in any namespace.
EXACT_SCAN = 16_000

_EMPTY: FloatArray = np.zeros((0, 0), dtype=np.float32)


def unit_rows(matrix: FloatArray) -> FloatArray:
    """Each row divided by its length (a zero row stays zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32, copy=False)


def top_k(
    ids: Sequence[str], units: FloatArray, queries: FloatArray, k: int, *, blas: bool = True
) -> list[list[tuple[str, float]]]:
    """For each query row, the ``k`` rows of ``units`` most similar to it as ``(id, cosine)``,
    by cosine then id.

    Args:
        blas: Multiply through BLAS (its own threads: the fastest in a process doing nothing
            else). ``False``: numpy's single-threaded ``einsum``, for a caller that has
            another thread at work (a write, whose texts are parsed meanwhile): BLAS's
            threads then wait for a core (design §6, write-time dedup).
    """
    if not ids or k <= 0:
        return [[] for _ in range(len(queries))]
    rows = unit_rows(np.atleast_2d(np.asarray(queries, dtype=np.float32)))
    sims = units @ rows.T if blas else np.einsum("ij,kj->ik", units, rows)
    out = []
    for column in sims.T:
        take = min(k, len(ids))
        best = np.argpartition(-column, take - 1)[:take] if take < len(ids) else range(len(ids))
        order = sorted(best, key=lambda n: (-float(column[n]), ids[n]))
        out.append([(ids[n], float(column[n])) for n in order])
    return out


class ExactScan:
    """One namespace's unit vectors, kept for exact scans until its memories change.

    Not thread-safe: the caller locks.
    """

    def __init__(self) -> None:
        self._index: NamespaceIndex | None = None
        self._adds, self._removes = -1, -1
        self._rows = 0  # rows of the index's table read so far
        self._ids: list[str] = []
        self._units: FloatArray = _EMPTY

    def nearest(
        self,
        index: NamespaceIndex,
        vectors_of: Callable[[list[str]], dict[str, FloatArray]],
        queries: FloatArray,
        k: int,
        *,
        blas: bool = True,
    ) -> list[list[tuple[str, float]]]:
        """For each row of ``queries``, the ``k`` nearest of ``index``'s memories;
        ``vectors_of`` gives the vectors of ids (each read once, then kept); ``blas`` as in
        :func:`top_k`."""
        table = index.records
        if self._index is not index or self._removes != index.removes or table.rows < self._rows:
            self.forget()
        if self._adds != index.adds:
            new = table.ids_since(self._rows)  # the rows added since: O(new), not O(all)
            self._rows = table.rows
            found = vectors_of(new)
            new = [i for i in new if i in found]
            if new:
                self._append(unit_rows(np.stack([found[i] for i in new])))
                self._ids += new
        self._index, self._adds, self._removes = index, index.adds, index.removes
        return top_k(self._ids, self._units[: len(self._ids)], queries, k, blas=blas)

    def _append(self, rows: FloatArray) -> None:
        """Put ``rows`` after the kept ones; the buffer grows by half when full (amortised
        O(rows): a single add does not copy every vector kept)."""
        have, width = len(self._ids), rows.shape[1]
        if self._units.shape[0] < have + len(rows) or self._units.shape[1] != width:
            grown = np.empty((max(have + len(rows), have * 3 // 2, 64), width), np.float32)
            if have:
                grown[:have] = self._units[:have]
            self._units = grown
        self._units[have : have + len(rows)] = rows

    def forget(self) -> None:
        """Let go of the vectors (the namespace is closed, or memories were removed)."""
        self._index, self._adds, self._removes, self._rows = None, -1, -1, 0
        self._ids, self._units = [], _EMPTY
