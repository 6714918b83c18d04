"""Catching up with other writers of a shared (``client=``) store.

A :class:`~cogmem.namespace.Namespace` keeps its index as a cache of Chroma. Where other
processes write the same collection, it brings in what they added, changed and deleted before
a read (:func:`catch_up`), at most once per ``sync_interval_seconds``; a recall of this process
not yet written is merged into another writer's newer version (:func:`merge_recalls`), so that
neither is lost.
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from .records import MemoryRecord

if TYPE_CHECKING:
    from .index import NamespaceIndex
    from .store import ChromaStore, FloatArray

__all__ = ["catch_up", "merge_recalls"]

# Catching up with other writers re-reads this far behind the newest write stamp taken in
# (ns): a write stamped on the writer's clock just before it reached Chroma, or on a clock up
# to this much behind, is still seen. Re-reading is idempotent (each record's stamp is kept).
SYNC_OVERLAP_NS = 5_000_000_000


def catch_up(
    index: NamespaceIndex,
    store: ChromaStore,
    recalls: dict[str, MemoryRecord],
    since: int | None,
) -> tuple[int, bool]:
    """Bring into ``index`` what other writers did since the catch-up that began at ``since``
    (``None``: since what the index holds). Two Chroma calls when nothing changed:

    * ``get`` of the records whose write stamp ``w`` is above that moment minus
      ``SYNC_OVERLAP_NS`` and whose writer ``wb`` is another: new ids are added, held ones
      overwritten when their stamp is newer (an id deleted and added again is indexed afresh:
      :meth:`~cogmem.index.NamespaceIndex.apply`); ``recalls`` not yet written are merged in;
    * ``count``: when it differs from the index's size, memories were deleted (or an add was
      missed), and the ids are reconciled in full (one ids-only ``get``).

    A packed namespace (:mod:`cogmem.shared_namespaces`) is one call when nothing changed:
    both reads above are filtered ``get`` calls of the shared collection, whose cost grows
    with every user of the store, so its marks are read first (one ``get`` by id) and each
    read is made only when its mark changed since the last look (the written mark: the read
    by stamp; the deleted mark: the ids reconciled). The first look after loading makes both.

    Returns:
        When this catch-up began (ns, the next one's ``since``), and whether the index changed.
    """
    started = time.time_ns()
    marks = store.marks()
    seen = index.marks
    touched = False
    if marks is None or seen is None or marks[0] != seen[0]:
        floor = index.horizon if since is None else since
        # a packed namespace is scanned: what changed comes with its vectors (one call)
        vectors: dict[str, FloatArray] | None = {} if marks is not None else None
        touched = _take_changes(index, store, recalls, floor - SYNC_OVERLAP_NS, vectors)
    stale = store.count() != len(index) if marks is None else seen is None or marks[1] != seen[1]
    if stale:
        touched = _reconcile(index, store, recalls) or touched
    index.marks = marks  # once read and applied: a failed look is made again
    return started, touched


def _take_changes(
    index: NamespaceIndex,
    store: ChromaStore,
    recalls: dict[str, MemoryRecord],
    after: int,
    vectors: dict[str, FloatArray] | None,
) -> bool:
    """Apply what other writers wrote with a stamp above ``after`` (and keep its
    ``vectors``, when asked for); whether anything was."""
    changed = store.changed_since(after, vectors=vectors)
    if not changed:
        return False
    newer = {i: v for i, v in changed.items() if i not in index or v[2] > index.records.stamp(i)}
    for i, (theirs, seq, stamp) in list(newer.items()):
        if i in recalls:
            recalls[i] = merge_recalls(theirs, recalls[i])
            newer[i] = (recalls[i], seq, stamp)
    if newer:
        index.apply(newer)
        if vectors:
            index.keep_vectors({i: vectors[i] for i in newer if i in vectors})
    index.horizon = max(index.horizon, max(v[2] for v in changed.values()))
    return bool(newer)


def _reconcile(index: NamespaceIndex, store: ChromaStore, recalls: dict[str, MemoryRecord]) -> bool:
    """Make the index's ids Chroma's (one ids-only ``get``); whether any differed."""
    stored = set(store.ids())
    gone = [i for i in index.records if i not in stored]
    if gone:
        index.remove(gone)
        for i in gone:
            recalls.pop(i, None)
    fresh = [i for i in stored if i not in index]
    if fresh:
        index.apply(store.stamped(fresh))
    return bool(gone or fresh)


def _later(a: datetime | None, b: datetime | None) -> datetime | None:
    return b if a is None else a if b is None else max(a, b)


def merge_recalls(theirs: MemoryRecord, ours: MemoryRecord) -> MemoryRecord:
    """Another writer's newer version of a memory, with this process's recalls (not yet
    written) kept: the larger stability and access count, the later access, every session,
    the stronger link. Everything else (status, confidence, ...) is theirs."""
    links = dict(theirs.links)
    for other, weight in ours.links.items():
        links[other] = max(weight, links.get(other, 0.0))
    return replace(
        theirs,
        memory_type="core" if ours.memory_type == "core" else theirs.memory_type,
        stability=max(theirs.stability, ours.stability),
        access_count=max(theirs.access_count, ours.access_count),
        last_accessed_at=_later(theirs.last_accessed_at, ours.last_accessed_at),
        session_ids=tuple(dict.fromkeys((*theirs.session_ids, *ours.session_ids))),
        links=links,
        links_updated_at=_later(theirs.links_updated_at, ours.links_updated_at),
    )
