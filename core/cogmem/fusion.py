"""Fusing ranked candidate lists into one relevance in [0, 1]: design §3, seeds 003 and 004.

Weighted reciprocal rank fusion, normalised by its largest possible value::

    rrf(d) = Σ_i w_i / (k + rank_i(d))   +  bonus_i(rank_i(d))
    relevance(d) = rrf(d) / Σ_i (w_i / (k + 1) + bonus_i(1))

ranks from 1, k = 60; a list that does not contain ``d`` adds nothing (a memory found by one list
keeps its one term). The optional top-rank bonus (seed 004) is +0.05 for rank 1 and +0.02 for
ranks 2–3 of each list.

Weighted score fusion (seed 003)::

    relevance(d) = w · max(cos, 0) + (1 − w) · bm25(d) / max_d' bm25(d')      w = 0.7
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["RankedList", "normalize_bm25", "reciprocal_rank_fusion", "weighted_score_fusion"]


@dataclass(frozen=True, slots=True)
class RankedList:
    """One retriever's candidates, best first, and the weight of its vote."""

    ids: Sequence[str]
    weight: float = 1.0


def reciprocal_rank_fusion(
    lists: Sequence[RankedList],
    *,
    k: int = 60,
    rank_bonus: tuple[float, float] = (0.0, 0.0),
) -> dict[str, float]:
    """Weighted RRF normalised to [0, 1].

    Args:
        lists: The ranked lists to fuse (an id appearing twice in one list counts once, at its
            best rank).
        k: The RRF constant.
        rank_bonus: ``(first, top3)``: added per list for rank 1 and for ranks 2–3.

    Returns:
        id -> fused relevance in [0, 1]; 1 means ranked first by every list.
    """
    first, top3 = rank_bonus
    ceiling = sum(lst.weight / (k + 1) + first for lst in lists if lst.weight > 0)
    if ceiling <= 0:
        return {}
    fused: dict[str, float] = {}
    for lst in lists:
        if lst.weight <= 0:
            continue
        seen: set[str] = set()
        for position, doc_id in enumerate(lst.ids, start=1):
            if doc_id in seen:
                continue
            seen.add(doc_id)
            bonus = first if position == 1 else top3 if position <= 3 else 0.0
            fused[doc_id] = fused.get(doc_id, 0.0) + lst.weight / (k + position) + bonus
    return {doc_id: value / ceiling for doc_id, value in fused.items()}


def normalize_bm25(scores: Mapping[str, float]) -> dict[str, float]:
    """BM25 divided by the best BM25 among the candidates, clamped to [0, 1]."""
    best = max(scores.values(), default=0.0)
    if best <= 0:
        return {doc_id: 0.0 for doc_id in scores}
    return {doc_id: min(1.0, max(0.0, value / best)) for doc_id, value in scores.items()}


def weighted_score_fusion(
    cosines: Mapping[str, float], bm25: Mapping[str, float], *, dense_weight: float = 0.7
) -> dict[str, float]:
    """``w · max(cos, 0) + (1 − w) · bm25_norm`` over the union of both candidate sets."""
    norm = normalize_bm25(bm25)
    ids = set(cosines) | set(norm)
    return {
        doc_id: dense_weight * max(0.0, cosines.get(doc_id, 0.0))
        + (1.0 - dense_weight) * norm.get(doc_id, 0.0)
        for doc_id in ids
    }
