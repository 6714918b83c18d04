"""Associations between memories: co-retrieval links, their decay, spreading activation (design §6).

A memory's ``links`` map other memory ids to a weight in (0, 1], written at
``links_updated_at``. Weights fade with time and grow when two memories are recalled together::

    w(now)      = w · exp(−Δt / τ_link)            Δt in days since links_updated_at, τ_link = 90
    co-recall   w ← min(1, w(now) + link_gain)     link_gain = 0.1, both directions
    spreading   rel(n) = max over paths  rel(seed) · Π (w(now) · hop_decay)     hop_decay = 0.5,
                along links w(now) ≥ 0.3, at most graph_expansion_hops (1) hops from a seed

Consolidation links a summary to each original at 0.8, so a summary that answers a query can
lead (with ``deep_recall``) to the originals it replaced.

All functions are pure: they take ``now`` and return new records.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from itertools import combinations

from .config import CognitiveMemoryConfig
from .records import MemoryRecord

__all__ = ["current_links", "prune_links", "spread", "strengthen_links"]

#: Links that have faded below this weight are dropped when a memory's links are rewritten.
_FORGOTTEN = 0.01


def current_links(
    memory: MemoryRecord, now: datetime, config: CognitiveMemoryConfig
) -> dict[str, float]:
    """The memory's link weights as of ``now``: ``w · exp(−Δt / link_time_constant_days)``."""
    if not memory.links:
        return {}
    since = memory.links_updated_at or memory.created_at
    days = max(0.0, (now - since).total_seconds() / 86400.0)
    factor = math.exp(-days / config.link_time_constant_days)
    return {other: weight * factor for other, weight in memory.links.items()}


def _rewritten(memory: MemoryRecord, links: Mapping[str, float], now: datetime) -> MemoryRecord:
    kept = {other: w for other, w in links.items() if w >= _FORGOTTEN}
    return replace(memory, links=kept, links_updated_at=now if kept else None)


def strengthen_links(
    memories: Sequence[MemoryRecord], now: datetime, config: CognitiveMemoryConfig
) -> list[MemoryRecord]:
    """Link every pair of ``memories`` (recalled together): ``w ← min(1, w(now) + link_gain)``.

    Returns the memories with their links brought to ``now`` and strengthened, in order.
    """
    links = {m.id: current_links(m, now, config) for m in memories}
    for a, b in combinations([m.id for m in memories], 2):
        if a == b:
            continue
        links[a][b] = min(1.0, links[a].get(b, 0.0) + config.link_gain)
        links[b][a] = min(1.0, links[b].get(a, 0.0) + config.link_gain)
    return [_rewritten(m, links[m.id], now) for m in memories]


def prune_links(
    memory: MemoryRecord, now: datetime, config: CognitiveMemoryConfig
) -> MemoryRecord | None:
    """The memory with its links decayed to ``now`` (faded ones dropped), or ``None`` when
    nothing would change (no links, or already written at ``now``)."""
    if not memory.links or memory.links_updated_at == now:
        return None
    return _rewritten(memory, current_links(memory, now, config), now)


def spread(
    seeds: Mapping[str, float],
    neighbours: Callable[[str], Mapping[str, float]],
    config: CognitiveMemoryConfig,
) -> dict[str, tuple[float, str]]:
    """Spreading activation from ``seeds`` (id -> relevance) along links.

    Args:
        seeds: The memories found by the query, with their relevance.
        neighbours: id -> its current link weights (e.g. :func:`current_links`).
        config: ``link_threshold`` (0.3), ``hop_decay`` (0.5), ``graph_expansion_hops`` (1).

    Returns:
        id -> (inherited relevance, the seed it came from) for memories reached through links:
        ``rel(seed) · Π (w · hop_decay)``, the best path kept. A seed may be reached too (from
        another seed); the caller keeps whichever relevance is higher.
    """
    best: dict[str, tuple[float, str]] = {}
    frontier = {memory_id: (rel, memory_id) for memory_id, rel in seeds.items()}
    for _ in range(config.graph_expansion_hops):
        reached: dict[str, tuple[float, str]] = {}
        for memory_id, (rel, origin) in frontier.items():
            for other, weight in neighbours(memory_id).items():
                if weight < config.link_threshold or other == memory_id:
                    continue
                value = rel * weight * config.hop_decay
                if value > reached.get(other, (0.0, ""))[0] and value > best.get(other, (0.0,))[0]:
                    reached[other] = (value, origin)
        best.update(reached)
        frontier = reached
        if not frontier:
            break
    return best
