"""Memories matched by their best passage: one vector per passage, the best cosine counts.

A memory has one vector, its whole text's. A record that is several texts in one (a LangGraph
store item indexed at several paths: a title, a summary, a list of tags) is matched better by
each text apart, as LangGraph's stores do: the item scores by the passage nearest the query,
not by the average meaning of all of them. :class:`Passages` gives that to a search::

    cos(q, m) = max(cos(q, v_m), max_p cos(q, v_p))      p over the passages of m

where ``v_m`` is the memory's own vector and ``v_p`` each passage's. It applies to the
memories a search finds (by their whole vector or their words): a passage finds nothing by
itself.

The passages of a memory are read from its record (``texts_of``, the caller's rule) and
embedded with the memory's embedder on first use; the vectors are kept in a bounded cache,
keyed by the text, in RAM only (derived from the stored text, never written anywhere).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .embedding.protocol import embed_texts
from .errors import InvalidInputError, InvalidTypeError
from .records import MemoryRecord
from .scan import unit_rows
from .store import FloatArray

__all__ = ["Passages", "best_cosines", "rescored"]

TextsOf = Callable[[MemoryRecord], Sequence[str]]


class Passages:
    """The passages of each memory, and their vectors, for searches that score by the best.

    Setup: ``memory.search(query, passages=Passages(memory.embedder, texts_of))`` where
    ``texts_of(record)`` returns the record's passages (none, or one, leaves its own vector
    alone). Keep one ``Passages`` per memory and pass it to each search: its cache is what
    spares re-embedding.

    Attributes:
        embedder: Embeds the passages (the memory's own embedder: the same space as the query).
        texts_of: A record's passages.
        size: At most this many passage vectors are kept (least recently used go first).
    """

    def __init__(self, embedder: Any, texts_of: TextsOf, *, size: int = 4096) -> None:
        if not callable(texts_of):
            raise InvalidTypeError(f"texts_of must be a callable, got {type(texts_of).__name__}")
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise InvalidInputError(f"size must be a positive int, got {size!r}")
        self.embedder = embedder
        self.texts_of = texts_of
        self.size = size
        self._cache: OrderedDict[str, FloatArray] = OrderedDict()

    def vectors(self, texts: Iterable[str]) -> dict[str, FloatArray]:
        """The vector of each text: cached ones, the rest embedded in one batch."""
        wanted = list(dict.fromkeys(texts))
        missing = [t for t in wanted if t not in self._cache]
        if missing:
            for text, vector in zip(missing, embed_texts(self.embedder, missing), strict=True):
                self._cache[text] = vector
        found = {}
        for text in wanted:
            self._cache.move_to_end(text)
            found[text] = self._cache[text]
        while len(self._cache) > self.size:
            self._cache.popitem(last=False)
        return found

    def cosines(self, query: FloatArray, records: Iterable[MemoryRecord]) -> dict[str, float]:
        """Each record's best passage cosine to ``query`` (records of fewer than two
        passages are left out: their own vector is their only passage)."""
        texts = {r.id: list(self.texts_of(r)) for r in records}
        texts = {i: t for i, t in texts.items() if len(t) > 1}
        if not texts:
            return {}
        vectors = self.vectors(t for group in texts.values() for t in group)
        return best_cosines(query, {i: [vectors[t] for t in group] for i, group in texts.items()})


def rescored(
    query: FloatArray,
    passages: Passages,
    records: Iterable[MemoryRecord],
    cosine: Mapping[str, float],
    dense_rank: Mapping[str, int],
) -> tuple[dict[str, float], dict[str, int]]:
    """A search's cosines once each memory's best passage counts, and its dense list
    reordered by them (a memory found only by its words gains a cosine, not a dense rank)."""
    best = passages.cosines(query, records)
    better = {i: max(c, best.get(i, c)) for i, c in cosine.items()}
    order = sorted(dense_rank, key=lambda i: (-better[i], dense_rank[i]))
    return better, {i: n for n, i in enumerate(order, start=1)}


def best_cosines(query: FloatArray, passages: dict[str, Sequence[FloatArray]]) -> dict[str, float]:
    """``max_p cos(q, v_p)`` for each memory's passage vectors (0 for a zero vector)."""
    unit = unit_rows(np.atleast_2d(query))[0]
    return {i: float(np.max(unit_rows(np.stack(list(g))) @ unit)) for i, g in passages.items()}
