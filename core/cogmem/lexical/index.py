"""The incremental BM25 (Okapi) index: documents added and removed one at a time or in
batches, scored exactly as ``rank_bm25.BM25Okapi`` on the live documents.

State and writes live here; querying is :mod:`cogmem.lexical.search`, saving and loading
:mod:`cogmem.lexical.persistence`, the formulas :mod:`cogmem.lexical.okapi`, the postings
layout :mod:`cogmem.lexical.postings`.

Costs: ``add`` and ``remove`` cost O(tokens of the document), amortised. Postings are sorted by
(term, slot) in two exactly sized CSR levels: a *base*, and a *tail* holding what was added
since the last merge. A batch of additions rebuilds the tail in O(tail + batch + vocabulary);
the tail is merged into the base, in place, when it outgrows a sixteenth of it (O(postings),
amortised over the postings that made it grow). Per-document arrays grow by a quarter in place
(``realloc``). ``remove`` leaves a tombstone (document frequency and total length are adjusted
at once, dead postings are skipped when queried). There is no forward index: ``remove`` checks
the document's terms in their postings, O(its terms · log postings), when given the tokens it
was indexed with, and otherwise scans the postings, O(postings), once per
:meth:`~BM25Index.remove_many` call. When dead slots exceed a quarter of all slots the index
compacts itself in O(postings), amortised over the removals that caused it.

Memory: 5 bytes per posting; per document an ``int32`` length, a flag and its id in an
:class:`~cogmem.idmap.IdMap`; per term 24 bytes of arrays and its entry in the vocabulary's
IdMap; no Python object per posting, document or term (measured sizes: ``docs/design.md`` §5).

Not thread-safe: the caller serialises every call, reads included (queries refresh cached
statistics).
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from cogmem.checks import check_name, check_real
from cogmem.errors import DuplicateIdError, InvalidTypeError
from cogmem.idmap import IdMap

from .persistence import Persistence
from .postings import (
    I32,
    I64,
    POSTING,
    TF_CAP,
    Bool,
    Compacted,
    Rows,
    count_tokens,
    destinations,
    id_hash,
    merge_csr,
    raw,
    reserve,
    stable_argsort,
)
from .search import Scoring
from .topk import Term

__all__ = ["BM25Index"]


class BM25Index(Scoring, Persistence):
    """An incremental BM25 (Okapi) index over tokenized documents keyed by string ids.

    Scores equal ``rank_bm25.BM25Okapi`` built on the live documents (see the module docstring).
    Not thread-safe: the caller holds a lock around every call.

    Args:
        k1: Term-frequency saturation, ``0 <= k1 <= 1000``.
        b: Length normalisation, ``0 <= b <= 1``.
        epsilon: Floor factor for negative idfs (``ε · mean_idf``), ``0 <= epsilon <= 1000``.

    Raises:
        InvalidTypeError: A parameter is not a real number.
        InvalidInputError: A parameter is out of range or not finite.
    """

    _COMPACT_MIN_DEAD = 16
    # The tail is merged into the base when it holds more than this many rows and more than
    # a sixteenth of the base's (merges cost O(postings), so they are amortised over that many).
    _MERGE_MIN = 1 << 14
    _MOVE_CHUNK = 1 << 15  # rows moved at a time by merges (their extra memory: ~1 MiB)

    def __init__(self, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25) -> None:
        self._k1 = check_real(k1, "k1", 0.0, 1000.0)
        self._b = check_real(b, "b", 0.0, 1.0)
        self._epsilon = check_real(epsilon, "epsilon", 0.0, 1000.0)
        self._reset()

    # -- state ---------------------------------------------------------------------------------

    def _reset(self) -> None:
        # Documents, by slot (insertion order).
        # Ids by slot. Only appended to between compactions, which install a new map (ranked()
        # snapshots rely on it); a removed document's slot still names it.
        self._ids = IdMap()
        self._alive: Bool = np.zeros(0, dtype=np.bool_)
        self._dl: I32 = np.zeros(0, dtype=np.int32)
        self._nslots = 0
        self._ndead = 0
        self._total = 0  # tokens in live documents
        self._xor = 0
        # Inverted index: postings in two CSR levels, each sorted by (term, slot). The
        # base holds everything up to the last merge, the tail what was added since (slots
        # above the base's), so term t's postings are _base[_bptr[t]:_bptr[t + 1]] followed by
        # _tail[_tptr[t]:_tptr[t + 1]]. Both are exactly sized (_bptr, _tptr: terms + 1).
        self._vocab = IdMap()  # term -> term id (never removed from between compactions)
        self._base: Rows = np.zeros(0, dtype=POSTING)
        self._bptr: I64 = np.zeros(1, dtype=np.int64)
        self._tail: Rows = np.zeros(0, dtype=POSTING)
        self._tptr: I64 = np.zeros(1, dtype=np.int64)
        self._big: dict[int, dict[int, int]] = {}  # term id -> slot -> tf, for tf >= TF_CAP
        self._df: I64 = np.zeros(0, dtype=np.int64)  # live document frequency
        self._stats_cache: tuple[int, float, float] | None = None
        self._terms: OrderedDict[int, Term] = OrderedDict()  # cogmem.lexical.search
        self._terms_held = 0

    # -- properties ----------------------------------------------------------------------------

    @property
    def k1(self) -> float:
        """Term-frequency saturation parameter."""
        return self._k1

    @property
    def b(self) -> float:
        """Length-normalisation parameter."""
        return self._b

    @property
    def epsilon(self) -> float:
        """Floor factor applied to the mean idf for negative idfs."""
        return self._epsilon

    @property
    def avgdl(self) -> float:
        """Mean live document length in tokens (0.0 when empty)."""
        return self._total / len(self._ids) if len(self._ids) else 0.0

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._ids

    def ids(self) -> set[str]:
        """The ids of the live documents (a new set)."""
        return set(self._ids.keys())

    @property
    def id_map(self) -> IdMap:
        """The live documents' ids and slots (the index's own map: read it, never change
        it)."""
        return self._ids

    def __repr__(self) -> str:
        return (
            f"BM25Index(k1={self._k1}, b={self._b}, epsilon={self._epsilon}, "
            f"documents={len(self)}, terms={int(np.count_nonzero(self._df))})"
        )

    # -- writes --------------------------------------------------------------------------------

    def add(self, doc_id: str, tokens: Sequence[str]) -> None:
        """Index one document; O(its tokens), amortised.

        Args:
            doc_id: Its id (non-empty str, not already indexed).
            tokens: Its tokens (e.g. from :class:`Tokenizer`); may be empty.

        Raises:
            DuplicateIdError: ``doc_id`` is already indexed (an :class:`InvalidInputError`);
                the index is unchanged.
            InvalidTypeError: Wrong argument types; the index is unchanged.
        """
        check_name(doc_id, "doc_id")
        length, counts = count_tokens(tokens, "tokens")
        for token in counts:
            if not isinstance(token, str):
                raise InvalidTypeError(f"tokens must contain str, got {type(token).__name__}")
        if doc_id in self._ids:
            raise DuplicateIdError(f"document {doc_id!r} is already indexed; remove it first")

        self._append([doc_id], [length], [counts])

    def add_many(self, items: Iterable[tuple[str, Sequence[str]]]) -> int:
        """Index several documents at once (all or nothing).

        Faster per document than :meth:`add` for large batches: postings are grouped per term,
        so the Python work per term is paid once per batch instead of once per document.

        Args:
            items: ``(doc_id, tokens)`` pairs.

        Returns:
            How many documents were added.

        Raises:
            DuplicateIdError: An id is already indexed or repeated in ``items``; nothing added.
            InvalidTypeError: Wrong item types; nothing is added.
        """
        if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
            raise InvalidTypeError(
                f"items must be an iterable of (doc_id, tokens), got {type(items).__name__}"
            )
        ids: list[str] = []
        lengths: list[int] = []
        counters: list[Counter[str]] = []
        seen: set[str] = set()
        for item in items:
            if not isinstance(item, tuple) or len(item) != 2:
                raise InvalidTypeError("items must contain (doc_id, tokens) tuples")
            doc_id = check_name(item[0], "doc_id")
            length, counts = count_tokens(item[1], "tokens")
            if doc_id in self._ids or doc_id in seen:
                raise DuplicateIdError(f"document {doc_id!r} is already indexed or repeated")
            seen.add(doc_id)
            ids.append(doc_id)
            lengths.append(length)
            counters.append(counts)
        if ids:
            self._append(ids, lengths, counters)
        return len(ids)

    def _add_terms(self, old_terms: int) -> None:
        """Make room for the terms the vocabulary gained since it had ``old_terms``."""
        new_terms = len(self._vocab)
        if new_terms > old_terms:
            reserve(vars(self), "_df", new_terms)
            # New terms have no postings yet: their pointers repeat the last one.
            more = new_terms - old_terms
            self._bptr = np.concatenate((self._bptr, np.repeat(self._bptr[-1:], more)))
            self._tptr = np.concatenate((self._tptr, np.repeat(self._tptr[-1:], more)))

    def _reserve_slots(self, end: int) -> None:
        arrays = vars(self)
        reserve(arrays, "_alive", end)
        reserve(arrays, "_dl", end)

    def _append(self, ids: list[str], lengths: list[int], counters: list[Counter[str]]) -> None:
        """Add new documents in bulk; checks the token types, then mutates (all or nothing)."""
        count = len(ids)
        first = self._nslots
        end = first + count
        terms: list[str] = []
        tfs: list[int] = []
        uniques: list[int] = []
        for counts in counters:
            terms.extend(counts.keys())
            tfs.extend(counts.values())
            uniques.append(len(counts))
        # Term ids, looked up once per distinct term of the batch; new terms get the next ids.
        # Only new terms can be non-str: they are checked before anything changes.
        vocab = self._vocab
        old_terms = len(vocab)
        tid_of: dict[str, int] = {}
        new_terms: list[str] = []
        for term in dict.fromkeys(terms):
            tid = vocab.get(term)
            if tid is None:
                if not isinstance(term, str):
                    raise InvalidTypeError(f"tokens must contain str, got {type(term).__name__}")
                tid = old_terms + len(new_terms)
                new_terms.append(term)
            tid_of[term] = tid
        vocab.extend(new_terms)
        self._add_terms(old_terms)
        postings = len(terms)
        tids: I32 = np.fromiter(map(tid_of.__getitem__, terms), dtype=np.int32, count=postings)
        del tid_of

        self._reserve_slots(end)
        self._alive[first:end] = True
        self._dl[first:end] = lengths

        if postings:
            order = stable_argsort(tids)  # stable: slots stay ascending within a term
            sorted_tids = tids[order]
            rows = np.empty(postings, dtype=POSTING)
            rows["slot"] = np.repeat(np.arange(first, end, dtype=np.int32), uniques)[order]
            exact = np.fromiter(tfs, dtype=np.int64, count=postings)[order]
            rows["tf"] = np.minimum(exact, TF_CAP)
            for at in np.flatnonzero(exact >= TF_CAP).tolist():
                big = self._big.setdefault(int(sorted_tids[at]), {})
                big[int(rows["slot"][at])] = int(exact[at])
            del order, exact
            per_term = np.bincount(sorted_tids, minlength=len(vocab))
            self._df[: len(vocab)] += per_term
            self._tail, self._tptr = merge_csr(self._tail, self._tptr, rows, per_term)
            if self._tail.shape[0] > max(self._MERGE_MIN, self._base.shape[0] // 16):
                self._merge_tail()

        self._ids.extend(ids)
        self._nslots = end
        self._total += sum(lengths)
        xor = self._xor
        for doc_id in ids:
            xor ^= id_hash(doc_id)
        self._xor = xor
        self._stats_cache = None

    def _merge_tail(self) -> None:
        """Move the tail's postings into the base, in place; O(postings).

        The base is grown with ``ndarray.resize`` (no second copy of it), then its rows are
        moved up from the last to the first in chunks of ``_MOVE_CHUNK``, each to its final
        place: row ``i`` of term ``t`` moves up by ``_tptr[t]`` (the tail rows of the terms
        before ``t``), and tail row ``j`` of term ``t`` lands at ``_bptr[t + 1] + j``. A row
        only moves to a higher index, so the rows below the chunk being moved are still
        unread. Extra memory: one chunk.
        """
        tail, tptr, bptr = self._tail, self._tptr, self._bptr
        count, added = self._base.shape[0], tail.shape[0]
        if not added:
            return
        try:
            self._base.resize(count + added, refcheck=True)
        except ValueError:  # a view of it exists: copy
            grown = np.empty(count + added, dtype=POSTING)
            raw(grown)[:count] = raw(self._base)
            self._base = grown
        base, moved, chunk = raw(self._base), raw(tail), self._MOVE_CHUNK
        for lo in reversed(range(0, count, chunk)):
            hi = min(lo + chunk, count)
            base[destinations(bptr, tptr, lo, hi)] = base[lo:hi].copy()
        for lo in range(0, added, chunk):
            hi = min(lo + chunk, added)
            base[destinations(tptr, bptr[1:], lo, hi)] = moved[lo:hi]
        del base, moved
        self._bptr = bptr + tptr
        self._tail = np.zeros(0, dtype=POSTING)
        self._tptr = np.zeros_like(tptr)

    def _tf(self, tid: int, rows: Rows) -> npt.NDArray[Any]:
        """The exact term frequencies of ``rows`` (postings of term ``tid``, slots ascending):
        ``rows["tf"]`` itself unless the term has a tf of ``TF_CAP`` or more."""
        tf = rows["tf"]
        big = self._big.get(tid)
        if not big:
            return tf
        exact = tf.astype(np.int64)
        slots = rows["slot"]
        for slot, value in big.items():
            at = int(np.searchsorted(slots, slot))
            if at < slots.shape[0] and int(slots[at]) == slot:
                exact[at] = value
        return exact

    def _rows(self, tid: int) -> Rows:
        """The postings rows of term ``tid`` (dead slots included), slots ascending."""
        b0, b1 = self._bptr[tid : tid + 2].tolist()
        t0, t1 = self._tptr[tid : tid + 2].tolist()
        if t0 == t1:
            return self._base[b0:b1]
        if b0 == b1:
            return self._tail[t0:t1]
        both = np.concatenate((raw(self._base[b0:b1]), raw(self._tail[t0:t1])))
        return both.view(POSTING)

    def remove(self, doc_id: str, tokens: Sequence[str] | None = None) -> bool:
        """Remove one document.

        Args:
            doc_id: Its id.
            tokens: The tokens it was indexed with, if the caller still has them: its terms are
                then checked in their postings, O(its terms · log postings). Without them, or
                when they do not match what was indexed, the postings are scanned for its
                slot, O(postings) (the index keeps no forward index, to save its memory).

        Returns:
            True if it was indexed, False if it was not (nothing changes then).

        Raises:
            InvalidTypeError: ``doc_id`` is not a str.
        """
        return self.remove_many([doc_id], None if tokens is None else [tokens]) == 1

    def remove_many(
        self, doc_ids: Iterable[str], tokens: Iterable[Sequence[str]] | None = None
    ) -> int:
        """Remove several documents; absent (or repeated) ids are ignored.

        Args:
            doc_ids: The ids.
            tokens: The tokens each was indexed with, in the same order (optional, see
                :meth:`remove`); the documents whose tokens are missing or do not match are
                found by one scan of the postings for all of them.

        Returns:
            How many were removed.

        Raises:
            InvalidTypeError: An id is not a str, or ``tokens`` has another length than
                ``doc_ids``; nothing is removed.
        """
        if isinstance(doc_ids, str) or not isinstance(doc_ids, Iterable):
            raise InvalidTypeError(
                f"doc_ids must be an iterable of str, got {type(doc_ids).__name__}"
            )
        ids = list(doc_ids)
        for doc_id in ids:
            if not isinstance(doc_id, str):
                raise InvalidTypeError(f"doc_ids must contain str, got {type(doc_id).__name__}")
        given: list[Sequence[str] | None] = [None] * len(ids) if tokens is None else list(tokens)
        if len(given) != len(ids):
            raise InvalidTypeError(f"{len(given)} token lists for {len(ids)} doc_ids")
        slots: dict[int, str] = {}
        terms: list[npt.NDArray[np.intp]] = []
        unknown: list[int] = []
        for doc_id, toks in zip(ids, given, strict=True):
            slot = self._ids.get(doc_id)
            if slot is None or slot in slots:
                continue
            slots[slot] = doc_id
            found = None if toks is None else self._terms_given(slot, toks)
            if found is None:
                unknown.append(slot)
            else:
                terms.append(found)
        if not slots:
            return 0
        if unknown:
            terms.append(self._terms_scanned(np.array(sorted(unknown), dtype=np.int64)))
        gone = np.fromiter(slots, dtype=np.int64, count=len(slots))
        for doc_id in slots.values():
            self._ids.pop(doc_id)
            self._xor ^= id_hash(doc_id)
        self._alive[gone] = False
        self._total -= int(self._dl[gone].sum())
        for found in terms:
            np.subtract.at(self._df, found, 1)
        self._ndead += len(slots)
        self._stats_cache = None
        if self._ndead >= self._COMPACT_MIN_DEAD and 4 * self._ndead > self._nslots:
            self.compact()
        return len(slots)

    def _terms_given(self, slot: int, tokens: Sequence[str]) -> npt.NDArray[np.intp] | None:
        """The term ids of ``slot``, from the tokens it was indexed with; ``None`` if they do not
        match its postings. O(terms · log postings).

        Every term must hold the slot with the tokens' count as tf, and the counts must add
        up to the document's length: as each posting has tf >= 1, no posting is then left out.
        """
        try:
            counts = Counter(tokens)
        except TypeError:  # an unhashable token
            return None
        if sum(counts.values()) != int(self._dl[slot]):
            return None
        tids: list[int] = []
        for term, count in counts.items():
            tid = self._vocab.get(term)
            if tid is None:
                return None
            rows = self._rows(tid)
            slots = rows["slot"]
            at = int(np.searchsorted(slots, slot))
            if at == rows.shape[0] or int(slots[at]) != slot:
                return None
            tf = int(rows["tf"][at])
            if (self._big.get(tid, {}).get(slot, -1) if tf == TF_CAP else tf) != count:
                return None
            tids.append(tid)
        return np.array(tids, dtype=np.intp)

    def _terms_scanned(self, slots: I64) -> npt.NDArray[np.intp]:
        """The term ids of every posting of ``slots``, one per posting: one scan of the
        postings, O(postings · min(slots, log slots)) (``np.isin``)."""
        found: list[npt.NDArray[np.intp]] = []
        for rows, ptr in ((self._base, self._bptr), (self._tail, self._tptr)):
            where = np.flatnonzero(np.isin(rows["slot"], slots))
            found.append(np.searchsorted(ptr, where, side="right") - 1)
        return np.concatenate(found)

    def clear(self) -> None:
        """Remove every document."""
        self._reset()

    def compact(self) -> None:
        """Drop tombstones and unused terms, renumbering slots; O(postings).

        Runs automatically when dead slots exceed a quarter of all slots. Scores, ids and the
        order of ties are unchanged. Does nothing when there is nothing to drop.
        """
        terms = len(self._vocab)
        if self._ndead or int(np.count_nonzero(self._df[:terms])) != terms:
            self._compact()

    def _compact(self) -> tuple[Rows, I64]:
        """Compact (see :meth:`compact`); returns the postings rows and their term pointer."""
        slots = self._nslots
        alive = self._alive[:slots]
        terms = len(self._vocab)
        self._merge_tail()
        live_terms = self._df[:terms] > 0
        if alive.all() and live_terms.all():  # nothing removed: the merged base is compact
            return self._base, self._bptr
        plen = np.diff(self._bptr)

        slot_map = np.cumsum(alive, dtype=np.int64) - 1
        term_map = np.cumsum(live_terms, dtype=np.int64) - 1
        rows: Rows = self._base
        row_terms = np.repeat(np.arange(terms, dtype=np.int64), plen)
        keep = alive[rows["slot"]]
        rows = raw(rows)[keep].view(POSTING)  # a new array
        rows["slot"] = slot_map[rows["slot"]]
        big = {
            int(term_map[tid]): {int(slot_map[s]): tf for s, tf in entries.items() if alive[s]}
            for tid, entries in self._big.items()
            if live_terms[tid]
        }
        nlive_terms = int(np.count_nonzero(live_terms))
        counts = np.bincount(term_map[row_terms[keep]], minlength=nlive_terms)
        ptr = np.zeros(nlive_terms + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])

        ids = self._ids.compacted(np.flatnonzero(alive))
        vocab = self._vocab.compacted(np.flatnonzero(live_terms))
        dl = self._dl[:slots][alive]
        xor, total = self._xor, self._total
        self._install(Compacted(ids, dl, vocab, rows, ptr, {t: e for t, e in big.items() if e}))
        self._xor, self._total = xor, total
        return rows, ptr

    def _install(self, state: Compacted) -> None:
        """Replace the whole state by compacted arrays (no dead slots, no unused terms)."""
        self._reset()
        n = len(state.ids)
        self._ids = state.ids
        self._alive = np.ones(n, dtype=np.bool_)
        self._dl = np.array(state.dl, dtype=np.int32)  # a writable copy
        self._nslots = n
        self._vocab = state.vocab
        self._base = state.rows
        self._bptr = state.ptr
        self._big = state.big
        self._tptr = np.zeros_like(state.ptr)
        self._df = np.diff(state.ptr)

    # -- fingerprint ---------------------------------------------------------------------------

    def fingerprint(self) -> tuple[int, int]:
        """``(count, xor)`` of the live ids: count and XOR of their 64-bit BLAKE2b hashes.

        Maintained incrementally (O(1)). Compare with :meth:`fingerprint_of` of the ids the
        index should hold; equal fingerprints mean the same set (up to a 2**-64 accident).
        """
        return len(self._ids), self._xor

    @staticmethod
    def fingerprint_of(doc_ids: Iterable[str]) -> tuple[int, int]:
        """The :meth:`fingerprint` an index holding exactly ``set(doc_ids)`` would have.

        Raises:
            InvalidTypeError: An id is not a str.
        """
        if isinstance(doc_ids, str) or not isinstance(doc_ids, Iterable):
            raise InvalidTypeError(
                f"doc_ids must be an iterable of str, got {type(doc_ids).__name__}"
            )
        unique = set(doc_ids)
        xor = 0
        for doc_id in unique:
            if not isinstance(doc_id, str):
                raise InvalidTypeError(f"doc_ids must contain str, got {type(doc_id).__name__}")
            xor ^= id_hash(doc_id)
        return len(unique), xor

    # -- introspection -------------------------------------------------------------------------

    def nbytes(self) -> int:
        """Bytes held by the index's numpy arrays (capacity included; dictionaries excluded)."""
        arrays: list[npt.NDArray[Any]] = [
            self._alive, self._dl, self._df,
            self._base, self._bptr, self._tail, self._tptr,
        ]  # fmt: skip
        return sum(a.nbytes for a in arrays)

    def stats(self) -> dict[str, int | float]:
        """Sizes: documents, dead_slots, terms, postings, total_tokens, avgdl, array_bytes."""
        return {
            "documents": len(self._ids),
            "dead_slots": self._ndead,
            "terms": int(np.count_nonzero(self._df)),
            "postings": int(self._df.sum()),
            "total_tokens": self._total,
            "avgdl": self.avgdl,
            "array_bytes": self.nbytes(),
        }
