"""Optional retrieval stages: query expansion, HyDE and reranking (design §3, seed 004).

Each is a plain callable, off by default; the adapters build them from a framework's models
(``langchain_cogmem.expander_from``, ``reranker_from``, ...):

* ``expand(query) -> list[str]``: other phrasings of the query;
* ``hyde(query) -> str``: a hypothetical memory that would answer it (HyDE);
* ``rerank(query, texts) -> list[float]``: a relevance score per text (higher is better).

Every query variant (the query, each expansion, the HyDE text) is searched like the query, and
its fused relevances make one ranked list; the lists are fused with weights (the query 2.0,
each variant 1.0) and a top-rank bonus::

    relevance(d) = Σ_v w_v · (rel_v(d) + bonus(rank_v(d))) / Σ_v w_v · (1 + bonus(1))
    bonus(1) = 0.05, bonus(2..3) = 0.02, else 0

so relevance stays in [0, 1]. A reranker then reorders the ``k_rerank`` most relevant memories:
they keep the same relevance values, handed out in the reranker's order (its scores need no
scale of their own). Decay and penalties apply afterwards, as they do to any relevance. Each
memory's explanation names the lists that found it and at which rank, its bonus and the
reranker's score (:attr:`cogmem.records.Explanation.stages`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .errors import StageError
from .store import FloatArray

__all__ = [
    "Expand",
    "Hyde",
    "Rerank",
    "Stages",
    "Variant",
    "call_expand",
    "call_hyde",
    "call_rerank",
    "fuse_lists",
    "rank_bonus",
    "reranked",
]

Expand = Callable[[str], Sequence[str]]
Hyde = Callable[[str], str]
Rerank = Callable[[str, Sequence[str]], Sequence[float]]


@dataclass(frozen=True)
class Stages:
    """The optional stages of a memory's searches; each ``None`` (off) by default.

    Setup: ``CognitiveMemory(stages=Stages(rerank=reranker_from(CrossEncoderReranker(...))))``;
    ``memory.stages = Stages()`` turns them off again.

    Attributes:
        expand: ``query -> list[str]``, other phrasings searched beside the query.
        hyde: ``query -> str``, a hypothetical answer searched beside it.
        rerank: ``(query, texts) -> list[float]``, one score per text, higher is better.
    """

    expand: Expand | None = None
    hyde: Hyde | None = None
    rerank: Rerank | None = None

    def __post_init__(self) -> None:
        for name in ("expand", "hyde", "rerank"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise StageError(f"stages.{name} must be a callable, got {type(value).__name__}")


@dataclass(frozen=True)
class Variant:
    """One list of a search: the query itself or a variant of it, and its weight."""

    name: str
    text: str
    vector: FloatArray
    weight: float


def call_expand(expand: Expand, query: str) -> list[str]:
    """The expansions of ``query``: distinct, non-blank, not the query itself.

    Raises:
        StageError: The callable raised, or returned something other than a list of str.
    """
    try:
        raw = expand(query)
    except Exception as exc:
        raise StageError(f"query expansion failed: {exc}") from exc
    if isinstance(raw, str) or not isinstance(raw, Sequence):
        raise StageError(f"expand must return a list of str, got {type(raw).__name__}")
    if not all(isinstance(text, str) for text in raw):
        raise StageError("expand must return a list of str")
    seen = {query.strip().casefold()}
    out = []
    for text in raw:
        key = text.strip().casefold()
        if key and key not in seen:
            seen.add(key)
            out.append(text.strip())
    return out


def call_hyde(hyde: Hyde, query: str) -> str:
    """The hypothetical memory for ``query`` (``""``: none).

    Raises:
        StageError: The callable raised, or returned something other than a str.
    """
    try:
        text = hyde(query)
    except Exception as exc:
        raise StageError(f"HyDE failed: {exc}") from exc
    if not isinstance(text, str):
        raise StageError(f"hyde must return a str, got {type(text).__name__}")
    return text.strip()


def call_rerank(rerank: Rerank, query: str, texts: Sequence[str]) -> list[float]:
    """One finite score per text.

    Raises:
        StageError: The callable raised, or did not return one finite number per text.
    """
    try:
        raw = rerank(query, list(texts))
    except Exception as exc:
        raise StageError(f"reranking failed: {exc}") from exc
    try:
        scores = [float(s) for s in raw]
    except (TypeError, ValueError) as exc:
        raise StageError(f"rerank must return numbers: {exc}") from exc
    if len(scores) != len(texts) or not all(math.isfinite(s) for s in scores):
        raise StageError(
            f"rerank must return one finite score per text: {len(texts)} texts, got {scores[:5]}"
        )
    return scores


def rank_bonus(rank: int, first: float, top3: float) -> float:
    """The top-rank bonus of a list's ``rank`` (1-based): ``first`` for 1, ``top3`` for 2–3."""
    return first if rank == 1 else top3 if rank <= 3 else 0.0


def fuse_lists(
    lists: Sequence[tuple[str, float, Mapping[str, float]]], first: float, top3: float
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Fuse per-list relevances into one, in [0, 1], and say what each list contributed.

    ``relevance(d) = Σ_v w_v · (rel_v(d) + bonus(rank_v(d))) / Σ_v w_v · (1 + first)``.

    Args:
        lists: ``(name, weight, relevance by id)`` per list; a list ranks its ids by relevance
            (ties by id).
        first, top3: The top-rank bonus.

    Returns:
        The fused relevance by id, and per id the notes ``{"<name> #": rank, "rank bonus": b}``
        (``b`` as it counts in the fused relevance).
    """
    ceiling = sum(weight * (1.0 + first) for _, weight, _ in lists if weight > 0)
    if ceiling <= 0:
        return {}, {}
    total: dict[str, float] = {}
    notes: dict[str, dict[str, float]] = {}
    for name, weight, relevance in lists:
        if weight <= 0:
            continue
        order = sorted(relevance, key=lambda i: (-relevance[i], i))
        for rank, memory_id in enumerate(order, start=1):
            bonus = rank_bonus(rank, first, top3)
            total[memory_id] = total.get(memory_id, 0.0) + weight * (relevance[memory_id] + bonus)
            note = notes.setdefault(memory_id, {})
            note[f"{name} #"] = rank
            if bonus:
                note["rank bonus"] = note.get("rank bonus", 0.0) + weight * bonus / ceiling
    return {i: value / ceiling for i, value in total.items()}, notes


def reranked(
    relevance: Mapping[str, float], scores: Mapping[str, float]
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """The relevances of the reranked memories handed out again in the reranker's order.

    The memories in ``scores`` (the ``k_rerank`` most relevant) keep the same set of relevance
    values; the best reranker score gets the highest. Ties keep the relevance order.

    Returns:
        The new relevance by id (every id of ``relevance``), and per reranked id the notes
        ``{"rerank": score, "rerank #": rank}``.
    """
    chosen = sorted(scores, key=lambda i: (-relevance[i], i))
    values = [relevance[i] for i in chosen]
    order = sorted(chosen, key=lambda i: -scores[i])  # stable: ties keep the relevance order
    out = dict(relevance)
    notes: dict[str, dict[str, float]] = {}
    for rank, (memory_id, value) in enumerate(zip(order, values), start=1):
        out[memory_id] = value
        notes[memory_id] = {"rerank": scores[memory_id], "rerank #": rank}
    return out, notes
