"""The BM25 (Okapi) formulas, one small function each, as ``rank_bm25.BM25Okapi`` computes them.

For a query ``Q`` (tokens, repeats allowed) and a document ``D``::

    score(D, Q)   = Σ_{q ∈ Q} term_weight(f(q, D), idf(q), length_norm(|D|))
    term_weight   = idf · f · (k1 + 1) / (f + length_norm)
    length_norm   = k1 · (1 − b + b · |D| / avgdl)
    idf(q)        = ln(N − n(q) + 0.5) − ln(n(q) + 0.5), replaced by ε · mean idf when < 0

``f(q, D)``: how many times ``q`` occurs in ``D``; ``|D|``: its length in tokens; ``avgdl``: the
mean length over the ``N`` live documents; ``n(q)``: the live documents holding ``q``; ``mean
idf``: the mean of the raw idf over every term of the live corpus (negative in tiny corpora, so
scores can be). Operations run in rank_bm25's order, so scores agree with it bit for bit (but
for the rounding of the mean idf, summed by numpy). Scores are unitless.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = ["floored_idf", "idf_floor", "length_norm", "raw_idf", "term_weight"]

F64 = npt.NDArray[np.float64]


def raw_idf(df: npt.ArrayLike, n: int) -> F64:
    """``ln(N − df + 0.5) − ln(df + 0.5)`` for each document frequency ``df``."""
    live = np.asarray(df)
    return np.asarray(np.log(n - live + 0.5) - np.log(live + 0.5), dtype=np.float64)


def idf_floor(df: npt.ArrayLike, n: int, epsilon: float) -> float:
    """``ε · mean idf`` over the live terms' document frequencies ``df`` (0 when none)."""
    live = np.asarray(df)
    if n == 0 or live.size == 0:
        return 0.0
    return epsilon * (float(raw_idf(live, n).sum()) / live.size)


def floored_idf(df: int, n: int, floor: float) -> float:
    """A term's idf: raw, or ``floor`` when negative (an idf of exactly 0 is kept, as in
    rank_bm25)."""
    idf = math.log(n - df + 0.5) - math.log(df + 0.5)
    return floor if idf < 0 else idf


def length_norm(dl: npt.ArrayLike, avgdl: float, k1: float, b: float) -> F64:
    """``k1 · (1 − b + b · |D| / avgdl)`` for each document length ``dl`` (0 when ``avgdl`` is:
    no document holds a term then)."""
    lengths = np.asarray(dl)
    if avgdl <= 0:
        return np.zeros(lengths.shape[0], dtype=np.float64)
    return np.asarray(k1 * (1 - b + b * lengths / avgdl), dtype=np.float64)


def term_weight(tf: npt.ArrayLike, idf: float, norm: F64, k1: float) -> F64:
    """``idf · f · (k1 + 1) / (f + length_norm)``: what one query term adds to each document."""
    f = np.asarray(tf)
    return np.asarray(idf * (f * (k1 + 1) / (f + norm)), dtype=np.float64)
