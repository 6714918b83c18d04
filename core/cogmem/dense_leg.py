"""The dense side of a namespace: its nearest memories, their vectors, and their width.

A mixin of :class:`~cogmem.namespace.Namespace` (the state is the namespace's). Up to
``EXACT_SCAN`` memories (a packed namespace at any size) a dense query is an exact scan of the
namespace's own vectors (:mod:`cogmem.scan`); past it, Chroma's HNSW index answers, with the
held adds scanned beside it, and holds the vectors: the namespace keeps no copy of them
(:meth:`~cogmem.index.NamespaceIndex.limit_vectors`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .aside import run_aside
from .errors import DimensionMismatchError
from .filters import Where
from .held import HeldAdds
from .index import NamespaceIndex
from .scan import ExactScan, top_k, unit_rows
from .store import ChromaStore, FloatArray
from .table import RecordTable

__all__ = ["DenseLeg"]


class DenseLeg:
    """Nearest memories, vectors and vector width of one namespace."""

    name: str
    _store: ChromaStore
    _held: HeldAdds | None
    _scan: ExactScan
    _exact: float
    _width: int | None
    _saved: bool

    if TYPE_CHECKING:

        @property
        def index(self) -> NamespaceIndex: ...

        @property
        def records(self) -> RecordTable: ...

        def write_held(self) -> None: ...

    def nearest(
        self,
        vectors: FloatArray,
        k: int,
        *,
        blas: bool = True,
        found_vectors: dict[str, FloatArray] | None = None,
    ) -> list[list[tuple[str, float]]]:
        """For each row of ``vectors``, the ``k`` nearest memories as ``(id, cosine)``, nearest
        first: in a namespace of at most ``EXACT_SCAN`` memories (a packed one of any size)
        an exact scan of them all (:mod:`cogmem.scan`; ``blas`` as in
        :func:`~cogmem.scan.top_k`), else Chroma's ANN results merged with an exact scan of
        the held adds. ``found_vectors``, when given, takes the embeddings Chroma returned
        (such a namespace keeps none: :meth:`vectors` would ask Chroma again)."""
        return self.nearest_soon(vectors, k, blas=blas, found_vectors=found_vectors, aside=False)()

    def nearest_soon(
        self,
        vectors: FloatArray,
        k: int,
        *,
        blas: bool = True,
        found_vectors: dict[str, FloatArray] | None = None,
        aside: bool = True,
    ) -> Callable[[], list[list[tuple[str, float]]]]:
        """:meth:`nearest`, to be taken by calling what this returns; with ``aside``, Chroma's
        query runs on a thread of its own meanwhile (:mod:`cogmem.aside`: it releases the GIL,
        so the caller's own work overlaps it). Read nothing of the namespace's Chroma
        collection, nor ``found_vectors``, before taking the result."""
        if len(self.index) <= self._exact:
            scanned = self._scan.nearest(self.index, self.vectors, vectors, k, blas=blas)
            return lambda: scanned
        held = self._held
        in_chroma = min(k, len(self.index) - (len(held) if held else 0))

        def query() -> list[list[tuple[str, float]]]:
            if in_chroma <= 0:
                return [[] for _ in range(len(vectors))]
            return self._store.nearest_many(vectors, in_chroma, found=found_vectors)

        chroma = run_aside(query) if aside and in_chroma > 0 else query

        def merged() -> list[list[tuple[str, float]]]:
            found = chroma()
            if not held:
                return found
            return [
                sorted(ours + theirs, key=lambda pair: -pair[1])[:k]
                for ours, theirs in zip(found, held.nearest(vectors, k), strict=True)
            ]

        return merged

    def nearest_where(self, vector: FloatArray, k: int, where: Where) -> list[tuple[str, float]]:
        """The ``k`` nearest memories under a Chroma ``where``, after the held adds are written
        so that Chroma sees them: an exact scan of the memories it allows when they are at
        most ``EXACT_SCAN`` (Chroma's filtered HNSW query can leave out some of a narrow
        filter's memories: one of two, in about one query in twenty), else Chroma's filtered
        query."""
        self.write_held()
        records = self.records
        allowed = [i for i in self._store.ids(where) if i in records]
        if len(allowed) > self._exact:
            return [(i, c) for i, c in self._store.nearest(vector, k, where) if i in records]
        found = self.vectors(allowed)
        if not found:
            return []
        ids = list(found)
        return top_k(ids, unit_rows(np.stack([found[i] for i in ids])), vector, k)[0]

    def vectors(self, ids: Sequence[str]) -> dict[str, FloatArray]:
        """The embeddings of ``ids``: from the index's vector file, the held adds, and Chroma
        for the rest (which the vector file then keeps). Unknown ids are absent."""
        return self.vectors_soon(ids, aside=False)()

    def vectors_soon(
        self, ids: Sequence[str], *, aside: bool = True
    ) -> Callable[[], dict[str, FloatArray]]:
        """:meth:`vectors`, to be taken by calling what this returns; with ``aside``, what
        Chroma is asked for is read on a thread of its own meanwhile (:mod:`cogmem.aside`).
        What the namespace holds is read now, and kept (the vector file) when taken."""
        index = self.index
        found = index.vectors(ids)
        rest = [i for i in ids if i not in found]
        if rest and self._held:
            found.update(self._held.vectors(rest))
            rest = [i for i in rest if i not in found]
        if not rest:
            return lambda: found
        store = self._store

        def read() -> dict[str, FloatArray]:
            return store.vectors(rest)

        fetch = run_aside(read) if aside else read

        def taken() -> dict[str, FloatArray]:
            fetched = fetch()
            found.update(fetched)
            if index.keep_vectors(fetched):
                self._saved = False
            return found

        return taken

    # ------------------------------------------------------------------ vector widths
    def width(self) -> int | None:
        """The width of the namespace's vectors, once anything holds one."""
        if self._width is None:
            if self._held:
                self._width = int(self._held.matrix().shape[1])
            else:
                self._width = self._store.dimension()
        return self._width

    def check_width(self, width: int, what: str) -> None:
        """Refuse vectors of another width than the namespace holds.

        Raises:
            DimensionMismatchError: It holds vectors of another width (names both).
        """
        held = self.width()
        if held is not None and held != width:
            raise DimensionMismatchError(
                f"{what} have dimension {width}, but namespace {self.name!r} of this store "
                f"holds vectors of dimension {held}: open it with the embedder it was built "
                "with (or re-embed it: export, then import into a new store with --re-embed)"
            )

    def claim_width(self, width: int) -> None:
        """Record the namespace's width before its first vector is written."""
        if self.width() is None:
            self._store.set_dimension(width)
            self._width = width
