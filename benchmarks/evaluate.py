"""Runs cogmem itself on the evaluation sets (design §8); shared by the benchmark scripts.

* LoCoMo: each conversation its own in-process store, each turn an episodic memory
  (``"speaker: text"``, created at its session's date, added in dialogue order), every question
  searched at ``now`` = one day after the last session; recall@k and hit@k against the evidence.
* Knowledge updates: every case's memories in ONE store as semantic memories created
  ``days_ago`` before ``now``; a case succeeds when its current version is in the top 10 above
  every stale version there.

Searches run with ``reinforce=False``: an evaluation must not change what it measures.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

_ROOT = Path(__file__).resolve().parents[1]
for _p in (str(_ROOT / "core"), str(_ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from benchmarks.common import (  # noqa: E402
    EmbeddingCache,
    load_locomo,
    load_updates,
    summarize_locomo,
    update_success,
)
from cogmem import CognitiveMemory, CognitiveMemoryConfig, MemoryInput, Stages  # noqa: E402

__all__ = ["NO_DECAY", "CachedEmbedder", "locomo", "real_embedder", "updates"]

#: What "decay off" means: no retention factor and no version penalty.
NO_DECAY = {"retrieval_score_exponent": 0.0, "version_exponent": 0.0}


class CachedEmbedder:
    """The real embedder behind the on-disk benchmark cache (same vectors, computed once)."""

    def __init__(self, cache: EmbeddingCache) -> None:
        self.cache = cache

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.cache.embed(list(texts))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts).tolist()  # type: ignore[no-any-return]

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0].tolist()  # type: ignore[no-any-return]


def real_embedder() -> tuple[CachedEmbedder, str]:
    """all-MiniLM-L6-v2 through the benchmark cache, and its model id."""
    from cogmem import MiniLMEmbedder

    model = MiniLMEmbedder()
    return CachedEmbedder(EmbeddingCache(model.embed, model.model_id)), model.model_id


def locomo(
    config: CognitiveMemoryConfig,
    embedder: Any,
    *,
    mode: str = "hybrid",
    k: int = 10,
    conversations: Sequence[Any] | None = None,
    stages: Stages | None = None,
) -> dict[str, Any]:
    """LoCoMo recall@k/hit@k (overall and per category) for one configuration (and optional
    retrieval stages)."""
    rows: list[dict[str, Any]] = []
    for conv in conversations if conversations is not None else load_locomo():
        mem = CognitiveMemory(embedder=embedder, config=config, stages=stages)
        mem.add_many(
            [MemoryInput(text=t.text, id=t.id, created_at=t.created_at) for t in conv.turns],
            now=conv.now,
        )
        for q in conv.questions:
            results = mem.search(q.text, top_k=k, mode=mode, now=conv.now, reinforce=False)
            rows.append(
                {"category": q.category, "evidence": q.evidence, "ranked": [r.id for r in results]}
            )
        mem.close()
    return summarize_locomo(rows)


def updates(
    config: CognitiveMemoryConfig,
    embedder: Any,
    *,
    mode: str = "hybrid",
    now: datetime | None = None,
) -> dict[str, Any]:
    """Share of knowledge-update cases whose current version comes first (top 10)."""
    moment = now or datetime(2026, 1, 1, tzinfo=timezone.utc)
    cases = load_updates()
    mem = CognitiveMemory(embedder=embedder, config=config)
    mem.add_many(
        [
            MemoryInput(
                text=m.text,
                id=m.id,
                memory_type="semantic",
                created_at=moment - timedelta(days=m.days_ago),
            )
            for case in cases
            for m in case.memories
        ],
        now=moment,
    )
    ok = 0
    for case in cases:
        results = mem.search(case.query, top_k=10, mode=mode, now=moment, reinforce=False)
        ok += update_success([r.id for r in results], case.current, case.stale)
    mem.close()
    return {"success": round(ok / len(cases), 3), "n": len(cases)}
