"""The best ``k`` BM25 matches of a large index, without summing every match in float64.

Each step below gives exactly what summing every match in float64 and ranking the sums gives
(:meth:`~cogmem.lexical.search.Scoring._summed`, then :func:`order`): the same documents, the
same scores bit for bit, ties by slot. They only skip work.

* **MaxScore** (Turtle & Flood, 1995; :func:`pruned`). A document's score is a sum of at most
  one term per query word, each at most that word's largest term. Take a lower bound ``θ`` of the
  ``k``-th best score; the words whose largest terms sum below ``θ`` (smallest first) cannot
  put a document among the best ``k`` on their own, so only the documents holding one of the
  other, *essential* words are summed. ``θ`` is the ``k``-th best exact score among the
  documents of the query's rarest words (any ``k`` documents bound it from below). Common
  words have small terms: a query that holds one rare word sums that word's documents only.
* **The float32 screen** (:func:`screened`), where the essential words are common: every
  match is summed once in float32 and those near the top are summed again exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .postings import I32, I64

__all__ = [
    "SCREEN_SLOTS",
    "Term",
    "best",
    "exact",
    "order",
    "pruned",
    "screen_margin",
    "screen_pays",
    "screened",
]

F64 = npt.NDArray[np.float64]

SCREEN_SLOTS = 1 << 16
"""Below this many slots, every match is summed exactly (it costs little)."""

PRUNE_SHARE = 32
"""MaxScore is taken when the documents it sums, times the query's words, are at most
``1 / PRUNE_SHARE`` of the query's postings: a document is looked up in every word's postings
(a binary search, about 30 times the cost of the screen's scatter-add of one posting)."""

SEED = 4
"""MaxScore's lower bound is taken from this many times ``k`` documents."""

_TINY = 1e-30  # the smallest BM25 term the float32 screen trusts (float32's is ~1e-38)


class Term(NamedTuple):
    """One query word's live postings (slots ascending) and BM25 terms, with their range."""

    slots: I32
    contrib: F64
    low: float
    high: float

    @classmethod
    def weighed(cls, slots: I32, contrib: F64) -> Term:
        """The term of ``slots`` and their ``contrib``, its least and largest found once."""
        if not contrib.shape[0]:
            return cls(slots, contrib, 0.0, 0.0)
        return cls(slots, contrib, float(contrib.min()), float(contrib.max()))


def order(scores: F64, k: int | None) -> I64:
    """Indices of the top ``k`` (all if None) by score descending, then index ascending."""
    m = scores.shape[0]
    neg = -scores
    if k is None or k >= m:
        return np.argsort(neg, kind="stable")
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    threshold = np.partition(neg, k - 1)[k - 1]
    candidates = np.flatnonzero(neg <= threshold)
    return candidates[np.argsort(neg[candidates], kind="stable")[:k]]


def exact(parts: Sequence[Term], slots: npt.NDArray[np.integer[Any]]) -> F64:
    """The scores of ``slots`` (ascending), each looked up in every word's postings and its
    terms summed in query order from 0.0, as a full summation does: the same float64 result."""
    at = slots.astype(np.int32, copy=False)  # searched as the postings are: no copy of them
    total = np.zeros(at.shape[0], dtype=np.float64)
    for term in parts:
        column = term.slots
        j = np.minimum(np.searchsorted(column, at), column.shape[0] - 1)
        hit = column[j] == at
        total[hit] += term.contrib[j[hit]]
    return total


def _top(parts: Sequence[Term], slots: npt.NDArray[np.integer[Any]], k: int) -> tuple[I64, F64]:
    """The best ``k`` of ``slots`` (ascending), summed exactly: slots and scores, best first."""
    scores = exact(parts, slots)
    best_k = order(scores, k)
    return slots[best_k].astype(np.int64), scores[best_k]


def screen_margin(terms: int) -> float:
    """How far below the ``k``-th best float32 sum a document may be and still be among the
    best ``k`` exactly: ``(terms + 1) · 2⁻²⁰``, unitless.

    A sum of ``t`` positive float64 terms, each rounded to float32 and added in float32, is
    within ``ε = 2t · 2⁻²⁴`` of its exact value (relative). The ``k``-th best float32 sum is then
    at most ``(1 + ε)`` times the ``k``-th best exact one, and every document of the best ``k``
    at least ``(1 − ε)`` times it: a margin of ``4ε ≤ (t + 1) · 2⁻²⁰`` keeps them all.
    """
    return (terms + 1) * 2.0**-20


def screen_pays(parts: Sequence[Term], nslots: int, k: int) -> bool:
    """Whether ranking the best ``k`` without summing every match saves anything: two words
    or more (one is ranked as it is), ``k`` well below the matches, a large index, and
    positive BM25 terms (a zero or negative idf, in a tiny corpus, sums exactly)."""
    if len(parts) < 2 or nslots < SCREEN_SLOTS or not 1 <= k < nslots:
        return False
    postings = sum(term.slots.shape[0] for term in parts)
    if 8 * postings < nslots or k * 16 > postings:
        return False
    return all(not term.slots.shape[0] or term.low > _TINY for term in parts)


def _rarest(parts: Sequence[Term], k: int) -> Term | None:
    """The word of fewest documents among those holding at least ``k`` (None: no word does)."""
    enough = [t for t in parts if t.slots.shape[0] >= k]
    return min(enough, key=lambda t: t.slots.shape[0]) if enough else None


def _threshold(parts: Sequence[Term], k: int) -> float | None:
    """A lower bound of the ``k``-th best score: the ``k``-th best exact score among the
    ``SEED · k`` documents where the rarest word holding ``k`` weighs most (any ``k`` documents
    bound it from below). None when no word holds ``k``."""
    rare = _rarest(parts, k)
    if rare is None:
        return None
    past = rare.contrib.shape[0] - SEED * k  # the seed: what follows this in a partition
    seed = rare.slots if past <= 0 else rare.slots[np.argpartition(rare.contrib, past)[past:]]
    scores = exact(parts, np.sort(seed))
    return float(np.partition(scores, scores.shape[0] - k)[scores.shape[0] - k])


def _essential(parts: Sequence[Term], theta: float) -> list[Term]:
    """The words a document must hold to reach ``θ``: every word but those, smallest largest
    term first, whose largest terms sum below ``θ`` (with a relative slack for the order the
    sum is taken in: ``words · 2⁻⁵⁰``)."""
    slack = 1.0 + len(parts) * 2.0**-50
    by_high = sorted(parts, key=lambda t: t.high)
    below = 0.0
    for n, term in enumerate(by_high):
        if (below + term.high) * slack >= theta:
            return by_high[n:]
        below += term.high
    return []


def pruned(parts: Sequence[Term], k: int) -> tuple[I64, F64] | None:
    """The best ``k`` (slots and scores, best first, ties by slot) by MaxScore, or None where
    the essential words' documents are too many for it to pay (:data:`PRUNE_SHARE`).

    Exact: a document holding none of the essential words scores at most the sum of the other
    words' largest terms, below ``θ``, so below the ``k``-th best; it is never among them, ties
    included.
    """
    postings = sum(term.slots.shape[0] for term in parts)
    budget = postings // (PRUNE_SHARE * len(parts))
    if max(parts, key=lambda t: t.high).slots.shape[0] > budget:  # always essential
        return None
    theta = _threshold(parts, k)
    if theta is None:
        return None
    essential = _essential(parts, theta)
    if not 0 < len(essential) < len(parts) or sum(t.slots.shape[0] for t in essential) > budget:
        return None
    # At least k documents score θ or more (those θ was taken from), each holding an
    # essential word: the best k are among the essential words' documents.
    slots = np.unique(np.concatenate([t.slots for t in essential]))
    return _top(parts, slots, k)


def screened(parts: Sequence[Term], nslots: int, k: int) -> tuple[I64, F64]:
    """The best ``k`` by the float32 screen: every match summed once in float32 into a dense
    scratch; those within :func:`screen_margin` of a lower bound of the ``k``-th best float32
    sum summed again exactly. The bound is the ``k``-th best float32 sum among the documents of
    the rarest word holding ``k`` (any ``k`` bound it), so the partial sort reads those, not
    every slot."""
    rough = np.zeros(nslots, dtype=np.float32)
    for term in parts:
        np.add.at(rough, term.slots, term.contrib.astype(np.float32))
    rare = _rarest(parts, k)
    among = rough if rare is None else rough[rare.slots]
    kth = float(np.partition(among, among.shape[0] - k)[among.shape[0] - k])
    floor = kth * (1.0 - screen_margin(len(parts))) if kth > 0 else 0.0
    near = np.flatnonzero(rough > floor) if floor == 0 else np.flatnonzero(rough >= floor)
    return _top(parts, near, k)


def best(parts: Sequence[Term], nslots: int, k: int) -> tuple[I64, F64] | None:
    """The best ``k`` (slots and scores, best first, ties by slot) by MaxScore, else by the
    float32 screen; None where summing every match costs no more (:func:`screen_pays`)."""
    if not screen_pays(parts, nslots, k):
        return None
    found = pruned(parts, k)
    return found if found is not None else screened(parts, nslots, k)
