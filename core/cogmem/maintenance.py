"""Maintenance of one namespace: consolidation, conflict checks and link decay, step by step.

:func:`consolidate` and :func:`maintain` (behind :meth:`CognitiveMemory.consolidate` and
:meth:`CognitiveMemory.maintain`) run these steps, taking the memory's lock only around the
ones that read or write (a summarizer or a conflict detector may be a slow model call, made
with the lock released)::

    consolidation   faded          the candidates and their vectors         (reads)
                    summarize      groups -> summaries                      (the summarizer)
                    supersede      the originals, marked                    (to write)
    conflicts       conflict_pairs close active pairs not judged yet        (reads)
                    judge          the detector's verdicts                  (the detector)
    links           decayed_links  links decayed to now, faded ones dropped (to write)

The rules themselves (candidates, clustering, summary records) are
:mod:`cogmem.consolidation`; link decay is :mod:`cogmem.associations`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from .associations import prune_links
from .config import CognitiveMemoryConfig
from .consolidation import (
    ConsolidationGroup,
    ConsolidationReport,
    ExtractiveSummarizer,
    MaintenanceReport,
    Summarizer,
    cluster,
    summary_record,
    superseded,
)
from .consolidation import candidates as consolidation_candidates
from .embedding import Embedder, embed_texts
from .errors import MemoryNotFoundError
from .namespace import Namespace
from .namespaces import Namespaces
from .records import MemoryRecord
from .store import FloatArray

__all__ = [
    "ConflictDetector",
    "Summary",
    "Verdicts",
    "conflict_pairs",
    "consolidate",
    "contradictions",
    "decayed_links",
    "faded",
    "judge",
    "maintain",
    "purge_expired",
    "report",
    "summarize",
    "supersede",
]

ConflictDetector = Callable[[str, str], bool]
Lock = AbstractContextManager[object]


def consolidate(
    spaces: Namespaces,
    lock: Lock,
    embedder: Embedder,
    now: datetime,
    summarizer: Summarizer | None,
    *,
    namespace: str,
    dry_run: bool,
    progress: bool | None,
) -> ConsolidationReport:
    """Merge faded, similar memories of one namespace into summaries (design §6); behind
    :meth:`CognitiveMemory.consolidate`.

    Candidates are active, non-core, non-pinned memories with R(now) below
    ``consolidation_retention_threshold``; each group of 2 to ``consolidation_group_size``
    similar ones (cosine ≥ ``consolidation_similarity``, same type) becomes one summary
    linked to its originals, which become ``superseded`` (never deleted: ``deep_recall``
    finds them). Summaries are written before their originals are marked, and a summary's
    id is derived from its originals, so an interrupted run is completed by running again;
    consolidating again at the same ``now`` changes nothing.

    Args:
        spaces: The memory's namespaces.
        lock: The memory's lock, held around the reads and the writes (not around the
            summarizer, which may be a slow model call).
        embedder: Embeds the summaries (and is the default summarizer's).
        now: The time retention is computed at.
        summarizer: texts -> summary text; default :class:`ExtractiveSummarizer` on the
            embedder.
        namespace: The namespace to consolidate.
        dry_run: Only report what would be merged.
        progress: A progress bar over the groups (tqdm); default: on a terminal, for
            more than 20 groups.
    """
    config = spaces.context.config
    with lock:
        found = spaces.get(namespace)
        if found is None:
            return ConsolidationReport(now, namespace, 0, (), dry_run)
        candidates, vectors = faded(found, now, config)
    summarize_texts = summarizer or ExtractiveSummarizer(embedder)
    summaries = summarize(candidates, vectors, now, config, summarize_texts, progress)
    done = report(now, namespace, len(candidates), summaries, dry_run)
    if dry_run or not summaries:
        return done
    with lock:
        found = spaces.require(namespace)  # again: it may have been closed since
        new = [s.record for s in summaries if s.record.id not in found]
        if new:
            spaces.store_new(new, embed_texts(embedder, [r.text for r in new]))
        found.update(supersede(found, summaries))
    return done


def maintain(
    spaces: Namespaces,
    lock: Lock,
    embedder: Embedder,
    now: datetime,
    summarizer: Summarizer | None,
    detector: ConflictDetector | None,
    *,
    namespace: str,
) -> MaintenanceReport:
    """Consolidation, conflict detection and link decay for one namespace, for a scheduler;
    behind :meth:`CognitiveMemory.maintain`.

    * :meth:`consolidate` at ``now``.
    * With a ``conflict_detector`` (``(text_a, text_b) -> bool``, e.g. from an LLM through
      an adapter): up to ``conflict_pairs`` (50) pairs of active memories at cosine above
      ``conflict_similarity`` (0.85), around the ``conflict_scan`` (1,000) most recent, not
      yet judged by this object; pairs judged contradictory are recorded with
      :meth:`contradict`. A detector that raises on a pair is reported in
      ``conflict_errors`` and that pair is asked again next time.
    * Links decayed to ``now`` and faded ones dropped.

    Expired memories (``expires_at <= now``) are deleted first; the report counts them.
    Running it twice with the same ``now`` changes nothing the second time.
    """
    config = spaces.context.config
    expired = purge_expired(spaces, lock, now, namespace=namespace)
    consolidated = consolidate(
        spaces, lock, embedder, now, summarizer, namespace=namespace, dry_run=False, progress=None
    )
    verdicts = Verdicts([], [], [])
    with lock:
        found = spaces.get(namespace)
        pairs = [] if detector is None or found is None else conflict_pairs(found, config)
    if detector is not None and found is not None:

        def text_of(memory_id: str) -> str:
            with lock:  # the namespace again: it may have been closed since (Namespaces.trim)
                record = spaces.require(namespace).synced(offline=True).records.get(memory_id)
            if record is None:
                raise MemoryNotFoundError(f"no memory with id {memory_id!r} in {namespace!r}")
            return record.text

        verdicts = judge(pairs, detector, text_of)
        with lock:
            found = spaces.require(namespace)
            found.judged.update(verdicts.judged)  # not asked again by this memory
            for a, b in verdicts.contradicting:
                found.update(contradictions(found.records.get(a), found.records.get(b)))
    decayed: list[MemoryRecord] = []
    if found is not None:
        with lock:
            found = spaces.require(namespace)
            decayed = decayed_links(found, now, config)
            if decayed:
                found.remember(decayed)
                found.write_recalls()
    return MaintenanceReport(
        consolidated,
        tuple(verdicts.contradicting),
        len(verdicts.judged) + len(verdicts.failed),
        len(decayed),
        tuple(verdicts.failed),
        expired,
    )


def purge_expired(spaces: Namespaces, lock: Lock, now: datetime, *, namespace: str) -> int:
    """Delete the memories of ``namespace`` whose ``expires_at`` has come by ``now``; returns
    how many (one delete for all of them)."""
    with lock:
        found = spaces.get(namespace)
        if found is None:
            return 0
        expired = [r.id for r in found.records.values() if r.expired(now)]
        if expired:
            found.delete(expired)
    return len(expired)


def contradictions(a: MemoryRecord | None, b: MemoryRecord | None) -> list[MemoryRecord]:
    """``a`` and ``b`` as recording that they contradict each other (those that do not yet);
    nothing when either is gone."""
    if a is None or b is None:
        return []
    return [
        replace(m, contradicts=(*m.contradicts, other.id))
        for m, other in ((a, b), (b, a))
        if other.id not in m.contradicts
    ]


@dataclass(frozen=True)
class Summary:
    """A summary to write, and the originals it replaces."""

    record: MemoryRecord
    members: list[MemoryRecord]


def faded(
    namespace: Namespace, now: datetime, config: CognitiveMemoryConfig
) -> tuple[list[MemoryRecord], FloatArray]:
    """The consolidation candidates (active, not core or pinned, R < threshold) with their
    vectors, one row each (a candidate whose vector cannot be read is left out)."""
    found = consolidation_candidates(list(namespace.synced().records.values()), now, config)
    vectors = namespace.vectors([m.id for m in found])
    found = [m for m in found if m.id in vectors]
    if not found:
        return [], np.zeros((0, 1), np.float32)
    return found, np.stack([vectors[m.id] for m in found])


def summarize(
    faded: list[MemoryRecord],
    vectors: FloatArray,
    now: datetime,
    config: CognitiveMemoryConfig,
    summarizer: Summarizer,
    progress: bool | None,
) -> list[Summary]:
    """Group the faded memories and summarize each group (a tqdm bar over the groups: on a
    terminal for more than 20 groups, or as ``progress`` says)."""
    from tqdm.auto import tqdm

    groups = cluster(faded, vectors, config)
    show = (len(groups) > 20) if progress is None else progress
    hidden = True if not show else (None if progress is None else False)
    out: list[Summary] = []
    for group in tqdm(groups, desc="consolidating", unit="group", disable=hidden):
        members = [faded[i] for i in group]
        text = summarizer([m.text for m in members])
        out.append(Summary(summary_record(members, text, now, config), members))
    return out


def report(
    now: datetime, namespace: str, candidates: int, summaries: Sequence[Summary], dry_run: bool
) -> ConsolidationReport:
    """What a consolidation merged (or, with ``dry_run``, would merge)."""
    groups = tuple(
        ConsolidationGroup(
            s.record.id, tuple(m.id for m in s.members), s.record.memory_type, s.record.text
        )
        for s in summaries
    )
    return ConsolidationReport(now, namespace, candidates, groups, dry_run)


def supersede(namespace: Namespace, summaries: Sequence[Summary]) -> list[MemoryRecord]:
    """The originals as superseded by their summaries, from the records as they are now (a
    search may have reinforced one meanwhile), skipping any deleted meanwhile."""
    records = namespace.records
    current = [(records.get(m.id), s.record) for s in summaries for m in s.members]
    return [superseded(c, s) for c, s in current if c is not None]


def conflict_pairs(namespace: Namespace, config: CognitiveMemoryConfig) -> list[tuple[str, str]]:
    """Pairs of active memories at cosine > ``conflict_similarity`` not judged here yet,
    around the ``conflict_scan`` most recent, newest first; at most ``conflict_pairs``."""
    records = namespace.records
    recent = sorted(
        (m for m in records.values() if m.status == "active"),
        key=lambda m: (m.created_at, m.id),
        reverse=True,
    )[: config.conflict_scan]
    if len(recent) < 2:
        return []
    vectors = namespace.vectors([m.id for m in recent])
    rows = [m for m in recent if m.id in vectors]
    found = namespace.nearest(np.stack([vectors[m.id] for m in rows]), min(len(namespace), 6))
    pairs: list[tuple[str, str]] = []
    for m, near in zip(rows, found, strict=True):
        for other, cosine in near:
            if other == m.id or cosine <= config.conflict_similarity:
                continue
            a, b = sorted((m.id, other))
            partner = records.get(other)
            if (
                partner is None
                or partner.status != "active"
                or other in m.contradicts
                or (a, b) in namespace.judged
                or (a, b) in pairs
            ):
                continue
            pairs.append((a, b))
            if len(pairs) >= config.conflict_pairs:
                return pairs
    return pairs


@dataclass(frozen=True)
class Verdicts:
    """What a conflict detector said about some pairs.

    Attributes:
        judged: The pairs it answered (not asked again by this memory).
        contradicting: Those it judged contradictory.
        failed: ``(a, b, error)`` for the pairs it raised on (asked again next time).
    """

    judged: list[tuple[str, str]]
    contradicting: list[tuple[str, str]]
    failed: list[tuple[str, str, str]]


def judge(
    pairs: Sequence[tuple[str, str]],
    detector: ConflictDetector,
    text_of: Callable[[str], str],
) -> Verdicts:
    """Ask ``detector`` about each pair; a detector that raises (a model timing out) is
    recorded for that pair and does not stop the others."""
    judged: list[tuple[str, str]] = []
    contradicting: list[tuple[str, str]] = []
    failed: list[tuple[str, str, str]] = []
    for a, b in pairs:
        try:
            verdict = detector(text_of(a), text_of(b))
        except Exception as exc:  # a model timing out must not stop the maintenance
            failed.append((a, b, f"{type(exc).__name__}: {exc}"))
            continue
        judged.append((a, b))
        if verdict:
            contradicting.append((a, b))
    return Verdicts(judged, contradicting, failed)


def decayed_links(
    namespace: Namespace, now: datetime, config: CognitiveMemoryConfig
) -> list[MemoryRecord]:
    """The memories whose links decay to ``now`` changes (faded links dropped)."""
    records = namespace.records
    out = []
    for memory_id in list(records):
        record = records[memory_id]
        pruned = prune_links(record, now, config) if record.links else None
        if pruned is not None:
            out.append(pruned)
    return out
