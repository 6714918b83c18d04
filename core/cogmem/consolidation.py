"""Consolidation: faded memories that say the same thing become one summary (design §6).

::

    candidates  active, not core, not pinned, R(now) < consolidation_retention_threshold (0.20)
    groups      per memory type, greedy: the oldest unassigned candidate and the unassigned
                candidates with cosine ≥ consolidation_similarity (0.70) to it, most similar
                first, up to consolidation_group_size (5) memories; groups of one are left alone
    summary     text = summarizer(texts); type = the group's (episodes: semantic, their gist);
                importance = max, stability = mean, access_count = max;
                links of weight consolidation_link_weight (0.8) to each original;
                created_at = now; id derived from the originals' ids (so a rerun after a crash
                finds the summary it already wrote instead of writing another)
    originals   status "superseded", superseded_by = the summary's id; never deleted

The default summarizer (:class:`ExtractiveSummarizer`) keeps the group's most central sentences
(closest to the mean of all its sentence vectors) within a length limit, in their original
order: not a concatenation. Any ``Callable[[list[str]], str]`` can replace it, e.g. one built
from an LLM by an adapter.

Functions here are pure; :meth:`cogmem.CognitiveMemory.consolidate` does the reading and
writing.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np
import numpy.typing as npt

from .config import CognitiveMemoryConfig
from .embedding import Embedder, embed_texts
from .errors import InvalidInputError, InvalidTypeError
from .records import SUMMARY_KEY, MemoryRecord
from .retention import retention

__all__ = [
    "ConsolidationGroup",
    "ConsolidationReport",
    "ExtractiveSummarizer",
    "MaintenanceReport",
    "Summarizer",
    "candidates",
    "cluster",
    "summary_id",
    "summary_record",
    "superseded",
]

Summarizer = Callable[[list[str]], str]
FloatArray = npt.NDArray[np.float32]
_SUMMARY_NAMESPACE = uuid.UUID("5b0f2a52-8f3c-4a8e-9a51-6c0a2f1d7e11")


@dataclass(frozen=True)
class ConsolidationGroup:
    """One group of originals and the summary that replaces them."""

    summary_id: str
    member_ids: tuple[str, ...]
    memory_type: str
    text: str


@dataclass(frozen=True)
class ConsolidationReport:
    """What :meth:`cogmem.CognitiveMemory.consolidate` merged (or would merge, ``dry_run``).

    Attributes:
        now: The time retention was computed at.
        namespace: The namespace consolidated.
        candidates: How many memories had faded below the threshold.
        groups: The groups formed, each with its summary.
        dry_run: True when nothing was written.
    """

    now: datetime
    namespace: str
    candidates: int
    groups: tuple[ConsolidationGroup, ...]
    dry_run: bool = False

    @property
    def superseded_ids(self) -> list[str]:
        """Every original that became (or would become) superseded."""
        return [i for g in self.groups for i in g.member_ids]

    @property
    def summary_ids(self) -> list[str]:
        """Every summary written (or that would be)."""
        return [g.summary_id for g in self.groups]


@dataclass(frozen=True)
class MaintenanceReport:
    """What :meth:`cogmem.CognitiveMemory.maintain` did.

    Attributes:
        consolidation: The consolidation run.
        contradictions: Pairs the conflict detector judged contradictory (and now marked).
        pairs_checked: How many pairs the detector was asked about.
        links_decayed: How many memories had their links decayed to ``now`` and rewritten.
        conflict_errors: ``(a, b, error)`` for pairs whose detector call raised.
        expired: How many memories had expired by ``now`` (``expires_at``) and were deleted.
    """

    consolidation: ConsolidationReport
    contradictions: tuple[tuple[str, str], ...] = ()
    pairs_checked: int = 0
    links_decayed: int = 0
    conflict_errors: tuple[tuple[str, str, str], ...] = ()
    expired: int = 0


def candidates(
    memories: Sequence[MemoryRecord], now: datetime, config: CognitiveMemoryConfig
) -> list[MemoryRecord]:
    """Active, non-core, non-pinned memories whose retention at ``now`` is below the threshold,
    oldest first."""
    faded = [
        m
        for m in memories
        if m.status == "active"
        and m.memory_type != "core"
        and not m.pinned
        and not m.expired(now)
        and retention(m, now, config) < config.consolidation_retention_threshold
    ]
    return sorted(faded, key=lambda m: (m.created_at, m.id))


def cluster(
    memories: Sequence[MemoryRecord], vectors: FloatArray, config: CognitiveMemoryConfig
) -> list[list[int]]:
    """Greedy groups (indexes into ``memories``) of one type, cosine ≥ the threshold to the
    group's first (oldest) memory, 2 to ``consolidation_group_size`` each, in input order."""
    if len(memories) != len(vectors):
        raise InvalidInputError(f"{len(memories)} memories but {len(vectors)} vectors")
    if not memories:
        return []
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    sims = unit @ unit.T
    taken = np.zeros(len(memories), dtype=bool)
    groups: list[list[int]] = []
    for seed in range(len(memories)):
        if taken[seed]:
            continue
        kind = memories[seed].memory_type
        others = [
            j
            for j in np.argsort(-sims[seed], kind="stable").tolist()
            if j != seed
            and not taken[j]
            and memories[j].memory_type == kind
            and sims[seed, j] >= config.consolidation_similarity
        ]
        members = [seed, *others[: config.consolidation_group_size - 1]]
        if len(members) >= 2:
            taken[members] = True
            groups.append(sorted(members))
    return groups


def summary_id(member_ids: Sequence[str]) -> str:
    """The id of the summary of these originals (the same for the same set, in any order)."""
    return str(uuid.uuid5(_SUMMARY_NAMESPACE, "\x1f".join(sorted(member_ids))))


def summary_record(
    members: Sequence[MemoryRecord], text: str, now: datetime, config: CognitiveMemoryConfig
) -> MemoryRecord:
    """The summary memory of a group (see the module docstring for its fields)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("the summarizer returned an empty summary")
    first = members[0]
    sessions = dict.fromkeys(s for m in members for s in m.session_ids)
    tags = dict.fromkeys(t for m in members for t in m.tags)
    return MemoryRecord(
        id=summary_id([m.id for m in members]),
        text=text.strip(),
        created_at=now,
        # Consolidation turns episodes into knowledge: the gist of several episodes is a
        # semantic memory (it is no event of its own, so it has no temporal context either).
        memory_type="semantic" if first.memory_type == "episodic" else first.memory_type,
        importance=max(m.importance for m in members),
        confidence=max(m.confidence for m in members),
        stability=float(np.mean([m.stability for m in members])),
        access_count=max(m.access_count for m in members),
        session_ids=tuple(sessions),
        tags=tuple(tags),
        namespace=first.namespace,
        links={m.id: config.consolidation_link_weight for m in members},
        links_updated_at=now,
        metadata={SUMMARY_KEY: len(members)},
    )


def superseded(member: MemoryRecord, summary: MemoryRecord) -> MemoryRecord:
    """The original as it is kept once ``summary`` replaces it."""
    return replace(member, status="superseded", superseded_by=summary.id)


class ExtractiveSummarizer:
    """The group's most central sentences, within a length limit, in their original order.

    Sentences come from ``segtok``; each is embedded, and its centrality is its cosine to the
    mean of the group's sentence vectors. Sentences are taken most central first, skipping
    near-repeats (cosine ≥ 0.95 to one already taken) and those that do not fit, until
    ``min(max_chars, max(longest sentence, half of all the text))`` characters.

    Args:
        embedder: Any cogmem embedder (the memory's own, usually).
        max_chars: The longest summary, in characters.
    """

    def __init__(self, embedder: Embedder, max_chars: int = 400) -> None:
        if isinstance(max_chars, bool) or not isinstance(max_chars, int):
            raise InvalidTypeError("max_chars must be an int")
        if max_chars < 20:
            raise InvalidInputError(f"max_chars must be >= 20, got {max_chars}")
        self._embedder = embedder
        self._max_chars = max_chars

    def __call__(self, texts: list[str]) -> str:
        from segtok.segmenter import split_multi

        sentences = [s.strip() for text in texts for s in split_multi(text) if s.strip()]
        if not sentences:
            raise InvalidInputError("nothing to summarize")
        vectors = embed_texts(self._embedder, sentences)
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        centre = unit.mean(axis=0)
        order = np.argsort(-(unit @ centre), kind="stable").tolist()
        total = sum(len(s) for s in sentences)
        limit = min(self._max_chars, max(max(len(s) for s in sentences), total // 2))
        chosen: list[int] = []
        used = 0
        for i in order:
            if any(float(unit[i] @ unit[j]) >= 0.95 for j in chosen):
                continue
            cost = len(sentences[i]) + (1 if chosen else 0)
            if used + cost > limit:
                continue
            chosen.append(i)
            used += cost
        if not chosen:  # the most central sentence alone is too long: cut it
            return str(sentences[order[0]])[: self._max_chars]
        return " ".join(sentences[i] for i in sorted(chosen))
