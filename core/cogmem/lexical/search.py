"""Querying the BM25 index: scores, the best matches, and the matches in ranked chunks.

A mixin of :class:`~cogmem.lexical.index.BM25Index` (one module per concern); the formulas are
:mod:`cogmem.lexical.okapi`. A query costs O(postings of its terms): a dense scratch array is
used only when the postings number at least an eighth of the slots (one scatter-add per term
into it, never a concatenation of every posting). In a large index, the best ``k`` (a search's
``k``, the first chunk of :meth:`Scoring.ranked`) are found without summing every match
(:mod:`cogmem.lexical.topk`: MaxScore, else a float32 screen): the same result. The mean idf
is recomputed lazily, at the first query after a write, in O(vocabulary) numpy work; so are
each term's BM25 terms, which are kept from one query to the next until a write (at most
``TERM_CACHE`` postings): the common words of a large index are weighed once, not at every
query.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from cogmem.checks import check_int
from cogmem.errors import InvalidTypeError, MemoryNotFoundError
from cogmem.idmap import IdMap

from .okapi import floored_idf, idf_floor, length_norm, term_weight
from .postings import I32, I64, Bool, Rows, check_query
from .topk import F64, Term, best, order

__all__ = ["TERM_CACHE", "Scoring"]

TERM_CACHE = 1 << 22
"""Postings whose BM25 terms are kept between queries (12 bytes each: at most 48 MB)."""


class Scoring:
    """The read side of the BM25 index (its state is :class:`BM25Index`'s)."""

    _ids: IdMap
    _vocab: IdMap
    _alive: Bool
    _dl: I32
    _df: I64
    _nslots: int
    _total: int
    _k1: float
    _b: float
    _epsilon: float
    _stats_cache: tuple[int, float, float] | None
    # Each term's live postings and their BM25 terms, kept between queries until the next
    # write (cleared with the stats): at most TERM_CACHE postings, the least recent let go.
    _terms: OrderedDict[int, Term]
    _terms_held: int

    if TYPE_CHECKING:

        def _rows(self, tid: int) -> Rows: ...

        def _tf(self, tid: int, rows: Rows) -> npt.NDArray[Any]: ...

    def _stats(self) -> tuple[int, float, float]:
        """``(N, avgdl, ε · mean_idf)``, cached until the next write."""
        cached = self._stats_cache
        if cached is not None:
            return cached
        self._terms, self._terms_held = OrderedDict(), 0  # every term weighed anew
        n = len(self._ids)
        df = self._df[: len(self._vocab)]
        live = df[df > 0]
        avgdl = self._total / n if n else 0.0
        stats = (n, avgdl, idf_floor(live, n, self._epsilon))
        self._stats_cache = stats
        return stats

    def _parts(self, query_tokens: Sequence[str]) -> list[Term]:
        """Each query term's live postings and BM25 terms, in query order (terms no live
        document holds left out)."""
        query = check_query(query_tokens)
        if not len(self._ids):
            return []
        self._stats()  # after a write: the terms kept are let go before any is read
        vocab, df = self._vocab, self._df
        parts = []
        for token in query:
            tid = vocab.get(token)
            if tid is not None and int(df[tid]) > 0:
                parts.append(self._term(tid))
        return parts

    def _match(self, query_tokens: Sequence[str]) -> tuple[I64, F64]:
        """Slots (ascending) of live documents holding a query term, and their scores."""
        return self._summed(self._parts(query_tokens), self._nslots)

    @staticmethod
    def _summed(parts: Sequence[Term], nslots: int) -> tuple[I64, F64]:
        """Every document the ``parts`` hold (slots ascending, below ``nslots``), and its
        score: its terms summed in query order from 0.0."""
        if not parts:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        slot_parts = [term.slots for term in parts]
        score_parts = [term.contrib for term in parts]
        if len(slot_parts) == 1:
            return slot_parts[0].astype(np.int64), score_parts[0] + 0.0
        if 8 * sum(p.shape[0] for p in slot_parts) >= nslots:
            # A dense scratch, O(slots + postings). Each term's slots are distinct, so one
            # scatter-add per term, in query order, sums each document's terms in the order
            # rank_bm25 does.
            totals = np.zeros(nslots, dtype=np.float64)
            hits = np.zeros(nslots, dtype=np.bool_)
            for slots, contrib in zip(slot_parts, score_parts, strict=True):
                np.add.at(totals, slots, contrib)
                hits[slots] = True
            matched = np.flatnonzero(hits)
            return matched, totals[matched]
        all_slots = np.concatenate(slot_parts)
        all_scores = np.concatenate(score_parts)
        # bincount adds the weights in input order, i.e. in query order, like rank_bm25.
        unique, inverse = np.unique(all_slots, return_inverse=True)
        sums = np.bincount(inverse, weights=all_scores, minlength=unique.shape[0])
        return unique.astype(np.int64), np.asarray(sums, dtype=np.float64)

    def _term(self, tid: int) -> Term:
        """Term ``tid``'s live postings (slots ascending) and each one's BM25 term,
        ``idf · tf·(k1+1) / (tf + k1·norm)``: from the cache, else weighed and cached (the
        arrays are shared: never change them)."""
        terms = self._terms
        part = terms.get(tid)
        if part is not None:
            terms.move_to_end(tid)
            return part
        n, avgdl, floor = self._stats()
        d = int(self._df[tid])
        rows = self._rows(tid)
        slots = rows["slot"].copy()  # contiguous: the gathers below run faster
        tf = self._tf(tid, rows)
        if rows.shape[0] != d:  # some postings are dead
            live = self._alive[slots]
            slots, tf = slots[live], tf[live]
        norm = length_norm(self._dl[slots], avgdl, self._k1, self._b)
        part = Term.weighed(slots, term_weight(tf, floored_idf(d, n, floor), norm, self._k1))
        terms[tid] = part
        self._terms_held += slots.shape[0]
        while self._terms_held > TERM_CACHE and len(terms) > 1:
            self._terms_held -= terms.popitem(last=False)[1].slots.shape[0]
        return part

    _order = staticmethod(order)

    @staticmethod
    def _pairs(ids: IdMap, slots: I64, scores: F64) -> list[tuple[str, float]]:
        key = ids.key
        return [(key(s), sc) for s, sc in zip(slots.tolist(), scores.tolist(), strict=True)]

    def search(self, query_tokens: Sequence[str], k: int | None = None) -> list[tuple[str, float]]:
        """Documents holding at least one query term, best first.

        Args:
            query_tokens: The query's tokens (same tokenizer as the documents); repeats count.
            k: Return at most this many (``None``: all matches).

        Returns:
            ``(doc_id, score)`` pairs by score descending; ties in insertion order.

        Raises:
            InvalidTypeError: ``query_tokens`` is not a sequence of str, or ``k`` not an int.
            InvalidInputError: ``k`` is negative.
        """
        if k is not None:
            check_int(k, "k", low=0)
        parts = self._parts(query_tokens)
        top = self._screened(parts, k) if k is not None else None
        if top is not None:
            return self._pairs(self._ids, *top)
        slots, scores = self._summed(parts, self._nslots)
        order = self._order(scores, k)
        return self._pairs(self._ids, slots[order], scores[order])

    def ranked(
        self, query_tokens: Sequence[str], chunk_size: int = 256
    ) -> Iterator[list[tuple[str, float]]]:
        """Walk the matches of :meth:`search` in chunks, best first.

        Scores are computed when this is called (a snapshot: later writes do not affect the
        iterator). Chunks are sorted lazily by partial selections of growing size (1, 4, 16...
        chunks), so a caller that stops early never pays for sorting every match.

        Args:
            query_tokens: The query's tokens.
            chunk_size: Pairs per chunk (the last may be shorter).

        Returns:
            An iterator of non-empty lists of ``(doc_id, score)``; their concatenation equals
            ``search(query_tokens)``.

        Raises:
            InvalidTypeError: Wrong argument types.
            InvalidInputError: ``chunk_size`` < 1.
        """
        check_int(chunk_size, "chunk_size")
        parts = self._parts(query_tokens)
        top = self._screened(parts, chunk_size)
        if top is None:
            slots, scores = self._summed(parts, self._nslots)
            return self._chunks(self._ids, slots, scores, chunk_size)
        return self._screened_chunks(self._ids, self._nslots, parts, top, chunk_size)

    @classmethod
    def _screened_chunks(
        cls,
        ids: IdMap,
        nslots: int,
        parts: list[Term],
        top: tuple[I64, F64],
        chunk_size: int,
    ) -> Iterator[list[tuple[str, float]]]:
        """The first chunk from the screen; the rest (rarely asked for) from every match,
        summed when asked for (the term arrays are never changed: still a snapshot)."""
        yield cls._pairs(ids, *top)
        if top[0].shape[0] == chunk_size:
            slots, scores = cls._summed(parts, nslots)
            yield from cls._chunks(ids, slots, scores, chunk_size, skip=chunk_size)

    def _screened(self, parts: Sequence[Term], k: int) -> tuple[I64, F64] | None:
        """The best ``k`` documents (slots and scores, best first, ties by slot), exactly as
        :meth:`_summed` and :meth:`_order` give them, without summing every match in float64
        (:func:`cogmem.lexical.topk.best`): None where that would cost no more."""
        return best(parts, self._nslots, k)

    @classmethod
    def _chunks(
        cls, ids: IdMap, slots: I64, scores: F64, chunk_size: int, skip: int = 0
    ) -> Iterator[list[tuple[str, float]]]:
        m = scores.shape[0]
        done = skip
        want = chunk_size + skip
        while done < m:
            # Top `want` by the same total order each round, so each round extends the last.
            order = cls._order(scores, want)
            for start in range(done, order.shape[0], chunk_size):
                part = order[start : start + chunk_size]
                yield cls._pairs(ids, slots[part], scores[part])
            done = order.shape[0]
            want *= 4

    def get_scores(self, query_tokens: Sequence[str]) -> dict[str, float]:
        """Scores of the documents holding at least one query term (others score 0).

        Raises:
            InvalidTypeError: ``query_tokens`` is not a sequence of str.
        """
        slots, scores = self._match(query_tokens)
        key = self._ids.key
        return {key(s): sc for s, sc in zip(slots.tolist(), scores.tolist(), strict=True)}

    def score(self, query_tokens: Sequence[str], doc_ids: Iterable[str]) -> dict[str, float]:
        """Scores of specific documents (0.0 for those holding no query term).

        Costs O(|query| · log(postings)) per document (one vectorised search per term).

        Args:
            query_tokens: The query's tokens.
            doc_ids: Indexed ids.

        Returns:
            ``{doc_id: score}``.

        Raises:
            MemoryNotFoundError: An id is not indexed.
            InvalidTypeError: Wrong argument types.
        """
        query = check_query(query_tokens)
        if isinstance(doc_ids, str) or not isinstance(doc_ids, Iterable):
            raise InvalidTypeError(
                f"doc_ids must be an iterable of str, got {type(doc_ids).__name__}"
            )
        wanted = list(doc_ids)
        slots: list[int] = []
        for doc_id in wanted:
            if not isinstance(doc_id, str):
                raise InvalidTypeError(f"doc_ids must contain str, got {type(doc_id).__name__}")
            slot = self._ids.get(doc_id)
            if slot is None:
                raise MemoryNotFoundError(f"document {doc_id!r} is not in the BM25 index")
            slots.append(slot)
        if not wanted:
            return {}
        n, avgdl, floor = self._stats()
        k1, b = self._k1, self._b
        terms: list[tuple[float, int, Rows] | None] = []
        for token in query:
            tid = self._vocab.get(token)
            d = 0 if tid is None else int(self._df[tid])
            if tid is None or d == 0:
                terms.append(None)
            else:
                terms.append((floored_idf(d, n, floor), tid, self._rows(tid)))
        at = np.asarray(slots, dtype=np.int64)
        norm = length_norm(self._dl[at], avgdl, k1, b)
        total = np.zeros(at.shape[0], dtype=np.float64)
        for term in terms:
            if term is None or term[2].shape[0] == 0:
                continue
            idf, tid, rows = term
            column = rows["slot"]
            j = np.minimum(np.searchsorted(column, at), column.shape[0] - 1)
            hit = column[j] == at
            if hit.any():
                tf = self._tf(tid, rows)[j[hit]].astype(np.float64)
                total[hit] = total[hit] + term_weight(tf, idf, norm[hit], k1)
        return dict(zip(wanted, total.tolist(), strict=True))
