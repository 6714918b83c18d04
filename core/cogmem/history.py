"""A memory's version history: the chain its ``previous_version`` links make.

Write-time dedup (:mod:`cogmem.dedup`) stores a correction as the newer version of the memory it
updates: the newer names the older as its ``previous_version`` (older <- newer). Read from any
member, :func:`version_chain` gives the whole chain, oldest first. Only hand-made links
(:meth:`~cogmem.memory.CognitiveMemory.restore`) fork a chain or close it into a cycle; a fork
is followed branch by branch, the earlier formed first, and a cycle is walked once. Nothing here
reads Chroma, the lock or the clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from .records import MemoryRecord

__all__ = ["formed", "version_chain"]


def version_chain(
    record: MemoryRecord,
    get: Callable[[str], MemoryRecord | None],
    newer: Callable[[str], Iterable[str]],
) -> list[MemoryRecord]:
    """Every version of the chain ``record`` belongs to, oldest first, ``record`` included.

    Walks back through ``previous_version`` to the oldest version held, then forward through
    the newer versions, depth first: at a fork, the branches in order of ``created_at`` then id
    (so the last version listed is the newest of the latest-formed branch, the one write-time
    dedup treats as the head). Ids already seen are not visited again, so a cycle of hand-made
    links ends: it is listed once, from its earliest formed member, whichever member is asked.
    A link to a memory not held (deleted) ends the walk back there.

    Args:
        record: A member of the chain.
        get: ``memory_id -> record``, ``None`` for a memory not held (a namespace's
            :class:`~cogmem.table.RecordTable` ``.get``).
        newer: ``memory_id -> ids`` of the memories naming it as their ``previous_version``
            (:meth:`~cogmem.table.RecordTable.newer_versions`).

    Returns:
        The versions, oldest first; ``[record]`` for a memory without versions.
    """
    chain: list[MemoryRecord] = []
    visited: set[str] = set()
    pending = [_oldest(record, get)]  # a stack: the next version to list is on top
    while pending:
        current = pending.pop()
        if current.id in visited:
            continue
        visited.add(current.id)
        chain.append(current)
        following = (get(i) for i in newer(current.id) if i not in visited)
        branches = sorted((r for r in following if r is not None), key=formed)
        pending.extend(reversed(branches))  # the earliest formed on top
    return chain


def _oldest(record: MemoryRecord, get: Callable[[str], MemoryRecord | None]) -> MemoryRecord:
    """The version reached from ``record`` back through ``previous_version`` until a version
    names none, or one not held; in a cycle, its earliest formed member."""
    path, at = [record], {record.id: 0}
    while path[-1].previous_version is not None:
        before_id = path[-1].previous_version
        if before_id in at:
            return min(path[at[before_id] :], key=formed)
        before = get(before_id)
        if before is None:
            break
        at[before.id] = len(path)
        path.append(before)
    return path[-1]


def formed(record: MemoryRecord) -> tuple[datetime, str]:
    """The order memories were formed in: creation time, then id (a fork's tie-break)."""
    return (record.created_at, record.id)
