"""Assembling results for a prompt: token counting, budgeted packing, MMR, rendering (design §4).

Packing is greedy: results are taken in score order until ``top_k`` results or ``token_budget``
tokens; a result that does not fit is skipped and the next one tried.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from .errors import CogmemError, InvalidInputError
from .records import MemoryRecord, SearchResult
from .wording import install_hint

__all__ = [
    "TokenCounter",
    "char_token_count",
    "mmr_order",
    "pack",
    "render",
    "tiktoken_counter",
]

TokenCounter = Callable[[str], int]


def char_token_count(text: str) -> int:
    """Tokens estimated as ``ceil(len(text) / 4)`` (seed 000), at least 1."""
    return max(1, math.ceil(len(text) / 4))


@lru_cache(maxsize=4)
def tiktoken_counter(encoding: str = "cl100k_base") -> TokenCounter:
    """A counter backed by tiktoken's ``encoding``.

    Raises:
        CogmemError: tiktoken is not installed or cannot load the encoding (it downloads
            encodings on first use; offline machines need them in ``TIKTOKEN_CACHE_DIR``).
    """
    try:
        import tiktoken
    except ImportError as exc:
        raise CogmemError(
            f"token_counter='tiktoken' needs tiktoken: {install_hint('tiktoken')}"
        ) from exc
    try:
        enc = tiktoken.get_encoding(encoding)
    except Exception as exc:  # network or cache failures come in many types
        raise CogmemError(
            f"tiktoken could not load the {encoding!r} encoding ({exc}); it downloads it on "
            "first use, so offline set TIKTOKEN_CACHE_DIR to a folder that has it, or use "
            "token_counter='chars'"
        ) from exc

    def count(text: str) -> int:
        return len(enc.encode(text, disallowed_special=()))

    return count


def pack(
    results: Sequence[SearchResult],
    *,
    top_k: int,
    token_budget: int | None = None,
    min_score: float = 0.0,
    count_tokens: TokenCounter = char_token_count,
) -> list[SearchResult]:
    """Greedy packing in the given order.

    Args:
        results: Best first.
        top_k: At most this many results.
        token_budget: At most this many tokens in all (``None``: no limit).
        min_score: Results scoring below this are dropped.
        count_tokens: Tokens of one memory's text.

    Returns:
        The packed results, in the given order.
    """
    if top_k < 1:
        raise InvalidInputError(f"top_k must be >= 1, got {top_k}")
    packed: list[SearchResult] = []
    used = 0
    for result in results:
        if len(packed) >= top_k:
            break
        if result.score < min_score:
            continue
        if token_budget is not None:
            cost = count_tokens(result.memory.text)
            if used + cost > token_budget:
                continue
            used += cost
        packed.append(result)
    return packed


def mmr_order(
    results: Sequence[SearchResult],
    vectors: Sequence[npt.NDArray[np.float32]],
    *,
    lambda_: float = 0.6,
) -> list[SearchResult]:
    """Maximal marginal relevance order (seed 004), for aggregation queries.

    ``next = argmax λ · score_norm(d) − (1 − λ) · max_{s ∈ selected} cos(d, s)`` where
    ``score_norm`` is the score divided by the best score.
    """
    if not results:
        return []
    matrix = np.stack([np.asarray(v, dtype=np.float32) for v in vectors])
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32)
    best = max(r.score for r in results) or 1.0
    relevance = np.array([r.score / best for r in results])
    remaining = list(range(len(results)))
    chosen: list[int] = []
    max_sim = np.zeros(len(results))  # similarity to the chosen ones, clipped at 0
    while remaining:
        values = lambda_ * relevance[remaining] - (1 - lambda_) * max_sim[remaining]
        pick = remaining[int(np.argmax(values))]
        chosen.append(pick)
        remaining.remove(pick)
        max_sim = np.maximum(max_sim, matrix @ matrix[pick])
    return [results[i] for i in chosen]


def _age(days: float) -> str:
    if days < 1:
        hours = days * 24
        return f"{hours:.0f}h" if hours >= 1 else "now"
    if days < 60:
        return f"{days:.0f}d"
    if days < 730:
        return f"{days / 30.4:.0f}mo"
    return f"{days / 365.25:.1f}y"


def render(
    results: Sequence[SearchResult],
    now: datetime,
    *,
    ids: bool = False,
    text: Callable[[MemoryRecord], str] | None = None,
) -> str:
    """Format results for a prompt, one Markdown list item each.

    ``- [semantic] User prefers dark mode (confidence 0.8, age 3d)``; with ``ids``, the
    memory id first in the parentheses (``(id 9f2c..., confidence 0.8, age 3d)``), so that a
    model can name the memory to a tool. A memory of several lines (an exchange: what was
    said, then the reply) keeps them, its later lines indented under its item, so that every
    line starting with ``- `` is one memory. ``text``: what to show of a memory (default its
    text; the LangChain middleware shows a store item's value as text, not as JSON).
    """
    lines = []
    for result in results:
        m = result.memory
        age = max(0.0, (now - m.created_at).total_seconds() / 86400)
        named = f"id {m.id}, " if ids else ""
        said = m.text if text is None else text(m)
        shown = "\n  ".join(part for part in said.splitlines() if part.strip()) or said
        lines.append(
            f"- [{m.memory_type}] {shown} ({named}confidence {m.confidence:g}, age {_age(age)})"
        )
    return "\n".join(lines)
