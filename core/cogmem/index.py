"""What cogmem derives from Chroma for one namespace: the BM25 index and the timeline.

Both hold only what never changes for a stored memory (its text, creation time, insertion
stamp and whether it is an episode), so they are exactly right whenever they hold the same set
of ids as Chroma: :meth:`NamespaceIndex.reconcile` compares fingerprints and adds or removes the
difference. They are saved beside a persistent store and reloaded on open; a missing, corrupt or
stale file only costs a rebuild from Chroma.

The timeline orders memories by ``(created_at, seq)`` so that the temporal context of a memory
(the memories formed just before and after it) is a lookup, not a Chroma query.
"""

from __future__ import annotations

import bisect
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import StoreError
from .lexical import BM25Index, Tokenizer

__all__ = ["NamespaceIndex", "TimelineEntry"]

_TIMELINE_VERSION = 1


@dataclass(frozen=True, order=True, slots=True)
class TimelineEntry:
    """A memory's place in time: sort key ``(created_at, seq, id)``."""

    created_at: float
    seq: int
    id: str
    episodic: bool


class NamespaceIndex:
    """BM25 index and timeline of one namespace (not thread-safe; the caller locks)."""

    def __init__(self, bm25: BM25Index, tokenizer: Tokenizer) -> None:
        self.bm25 = bm25
        self.tokenizer = tokenizer
        self._entries: dict[str, TimelineEntry] = {}
        self._timeline: list[TimelineEntry] = []

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._entries

    def ids(self) -> set[str]:
        """The ids held."""
        return set(self._entries)

    def add(self, items: Sequence[tuple[TimelineEntry, str]]) -> None:
        """Index new memories: ``(timeline entry, text)`` pairs."""
        tokens = self.tokenizer.tokenize_many(text for _, text in items)
        self.bm25.add_many((entry.id, toks) for (entry, _), toks in zip(items, tokens))
        new = sorted(entry for entry, _ in items)
        for entry in new:
            self._entries[entry.id] = entry
        if len(new) == 1:
            bisect.insort(self._timeline, new[0])
        elif not self._timeline or new[0] >= self._timeline[-1]:
            self._timeline.extend(new)  # the usual case: memories arrive in time order
        else:
            self._timeline.extend(new)
            self._timeline.sort()  # Timsort merges the two sorted runs in linear time

    def remove(self, ids: Iterable[str]) -> None:
        """Forget memories (unknown ids are ignored)."""
        gone = [i for i in ids if i in self._entries]
        if not gone:
            return
        self.bm25.remove_many(gone)
        for memory_id in gone:
            entry = self._entries.pop(memory_id)
            at = bisect.bisect_left(self._timeline, entry)
            del self._timeline[at]

    def neighbours(self, memory_id: str, span: int, window_seconds: float) -> list[str]:
        """Episodes within ``span`` places of ``memory_id`` on the timeline and ``window_seconds``
        of it in time (itself excluded), nearest first."""
        entry = self._entries.get(memory_id)
        if entry is None or span <= 0:
            return []
        at = bisect.bisect_left(self._timeline, entry)
        out: list[tuple[int, str]] = []
        for step in (-1, 1):
            moved = 0
            j = at + step
            while 0 <= j < len(self._timeline) and moved < span:
                other = self._timeline[j]
                if abs(other.created_at - entry.created_at) > window_seconds:
                    break
                moved += 1
                if other.episodic:
                    out.append((moved, other.id))
                j += step
        return [memory_id for _, memory_id in sorted(out)]

    def fingerprint_matches(self, ids: Iterable[str]) -> bool:
        """True when this index holds exactly ``ids``."""
        return self.bm25.fingerprint() == BM25Index.fingerprint_of(ids)

    # ------------------------------------------------------------------ persistence
    def save(self, folder: Path, stem: str) -> None:
        """Write ``<stem>.bm25.npz`` and ``<stem>.timeline.npz`` atomically."""
        folder.mkdir(parents=True, exist_ok=True)
        self.bm25.save(folder / f"{stem}.bm25.npz")
        entries = self._timeline
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(
                    fh,
                    version=np.array([_TIMELINE_VERSION]),
                    tokenizer=np.array([_tokenizer_key(self.tokenizer)]),
                    ids=np.array([e.id for e in entries], dtype=object).astype(str),
                    created_at=np.array([e.created_at for e in entries], dtype=np.float64),
                    seq=np.array([e.seq for e in entries], dtype=np.int64),
                    episodic=np.array([e.episodic for e in entries], dtype=bool),
                )
            os.replace(tmp, folder / f"{stem}.timeline.npz")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, folder: Path, stem: str, tokenizer: Tokenizer) -> NamespaceIndex:
        """Read what :meth:`save` wrote.

        Raises:
            StoreError: Missing, corrupt, from another tokenizer, or the two files disagree.
        """
        bm25 = BM25Index.load(folder / f"{stem}.bm25.npz")
        path = folder / f"{stem}.timeline.npz"
        try:
            with np.load(path, allow_pickle=False) as data:
                if int(data["version"][0]) != _TIMELINE_VERSION:
                    raise StoreError(f"{path}: unknown timeline version")
                if str(data["tokenizer"][0]) != _tokenizer_key(tokenizer):
                    raise StoreError(f"{path}: written with another tokenizer")
                ids = data["ids"].tolist()
                created = data["created_at"].tolist()
                seqs = data["seq"].tolist()
                episodic = data["episodic"].tolist()
        except StoreError:
            raise
        except Exception as exc:  # numpy/zip raise many types on a damaged file
            raise StoreError(f"{path}: unreadable timeline ({exc})") from exc
        index = cls(bm25, tokenizer)
        for memory_id, c, s, e in zip(ids, created, seqs, episodic):
            entry = TimelineEntry(float(c), int(s), str(memory_id), bool(e))
            index._entries[entry.id] = entry
        index._timeline = sorted(index._entries.values())
        if set(index._entries) != bm25.ids():
            raise StoreError(f"{path}: timeline and BM25 index hold different memories")
        return index


def _tokenizer_key(tokenizer: Tokenizer) -> str:
    return f"{tokenizer.language}|stem={tokenizer.stem}|stop={len(tokenizer.stopwords)}"
