"""What cogmem keeps in memory for one namespace: the records, the BM25 index and the timeline.

Chroma is the source of truth; this is derived from it and can always be rebuilt from it. It
exists because reading ~100 records back from Chroma costs more than a whole search should
(Chroma is fast at nearest-neighbour ids, slow at returning metadata), so a search reads
Chroma's ANN index for ids and distances and everything else from here.

* ``records``: every memory of the namespace as a :class:`~cogmem.records.MemoryRecord`.
* ``bm25``: the incremental BM25 index of their texts.
* the timeline: ``(created_at, seq, id)`` in order, for temporal-context lookups.

Persistence: :meth:`NamespaceIndex.save` writes it beside a persistent store together with the
*generation* it reflects. cogmem bumps the generation kept in the Chroma collection's metadata
before the first write after each save, so on open a saved index whose generation differs from
Chroma's is known to be stale (another process wrote, or this one died between the two writes)
and the records are read again from Chroma; BM25 and timeline are reconciled by id (text,
creation time and seq never change for a stored memory).
"""

from __future__ import annotations

import bisect
import os
import pickle
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import StoreError
from .lexical import BM25Index, Tokenizer
from .records import MemoryRecord
from .store import from_chroma, to_metadata

__all__ = ["NamespaceIndex", "TimelineEntry"]

_FORMAT = 2


@dataclass(frozen=True, order=True, slots=True)
class TimelineEntry:
    """A memory's place in time: sort key ``(created_at, seq, id)``."""

    created_at: float
    seq: int
    id: str
    episodic: bool


class NamespaceIndex:
    """Records, BM25 index and timeline of one namespace (not thread-safe; the caller locks).

    Args:
        bm25: An empty (or loaded) BM25 index.
        tokenizer: Turns texts into BM25 tokens.
    """

    def __init__(self, bm25: BM25Index, tokenizer: Tokenizer) -> None:
        self.bm25 = bm25
        self.tokenizer = tokenizer
        self.records: dict[str, MemoryRecord] = {}
        self.seqs: dict[str, int] = {}
        self._timeline: list[TimelineEntry] = []

    def __len__(self) -> int:
        return len(self.records)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self.records

    def ids(self) -> set[str]:
        """The ids held."""
        return set(self.records)

    # ------------------------------------------------------------------ writes
    def add(self, records: Sequence[MemoryRecord], seqs: Sequence[int]) -> None:
        """Index new memories (their ids must not be held)."""
        tokens = self.tokenizer.tokenize_many(r.text for r in records)
        self.bm25.add_many((r.id, t) for r, t in zip(records, tokens))
        entries = []
        for record, seq in zip(records, seqs):
            self.records[record.id] = record
            self.seqs[record.id] = seq
            entries.append(_entry(record, seq))
        self._insert(entries)

    def update(self, records: Iterable[MemoryRecord]) -> None:
        """Replace the mutable fields of held memories (text and creation never change)."""
        for record in records:
            old = self.records.get(record.id)
            if old is None:
                continue
            self.records[record.id] = record
            if (old.memory_type == "episodic") != (record.memory_type == "episodic"):
                self._remove_entries([old])
                self._insert([_entry(record, self.seqs[record.id])])

    def remove(self, ids: Iterable[str]) -> None:
        """Forget memories (unknown ids are ignored)."""
        gone = [self.records[i] for i in ids if i in self.records]
        if not gone:
            return
        self.bm25.remove_many(r.id for r in gone)
        self._remove_entries(gone)
        for record in gone:
            del self.records[record.id]
            del self.seqs[record.id]

    def _insert(self, entries: list[TimelineEntry]) -> None:
        new = sorted(entries)
        if len(new) == 1:
            bisect.insort(self._timeline, new[0])
        elif not self._timeline or (new and new[0] >= self._timeline[-1]):
            self._timeline.extend(new)  # the usual case: memories arrive in time order
        else:
            self._timeline.extend(new)
            self._timeline.sort()  # Timsort merges the two sorted runs in linear time

    def _remove_entries(self, records: Iterable[MemoryRecord]) -> None:
        for record in records:
            entry = _entry(record, self.seqs[record.id])
            at = bisect.bisect_left(self._timeline, entry)
            if at < len(self._timeline) and self._timeline[at].id == record.id:
                del self._timeline[at]

    # ------------------------------------------------------------------ reads
    def neighbours(self, memory_id: str, span: int, window_seconds: float) -> list[str]:
        """Episodes within ``span`` places of ``memory_id`` on the timeline and
        ``window_seconds`` of it in time (itself excluded), nearest first."""
        record = self.records.get(memory_id)
        if record is None or span <= 0:
            return []
        entry = _entry(record, self.seqs[memory_id])
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
        return [i for _, i in sorted(out)]

    def fingerprint_matches(self, ids: Iterable[str]) -> bool:
        """True when the BM25 index holds exactly ``ids``."""
        return self.bm25.fingerprint() == BM25Index.fingerprint_of(ids)

    def replace_records(self, stored: Mapping[str, tuple[MemoryRecord, int]]) -> None:
        """Make this index hold exactly ``stored`` (id -> record, seq), as read from Chroma.

        BM25 entries are kept for ids present on both sides (their text cannot have changed);
        the rest are added or removed.
        """
        present = set(self.records)
        self.remove(present - set(stored))
        missing = [i for i in stored if i not in self.records]
        self.update(stored[i][0] for i in stored if i in self.records)
        if missing:
            self.add([stored[i][0] for i in missing], [stored[i][1] for i in missing])

    # ------------------------------------------------------------------ persistence
    def save(self, folder: Path, stem: str, generation: int) -> None:
        """Write ``<stem>.bm25.npz`` and ``<stem>.records.pkl`` atomically."""
        folder.mkdir(parents=True, exist_ok=True)
        self.bm25.save(folder / f"{stem}.bm25.npz")
        payload = {
            "format": _FORMAT,
            "generation": generation,
            "tokenizer": _tokenizer_key(self.tokenizer),
            "rows": [
                (r.id, r.text, to_metadata(r, self.seqs[r.id])) for r in self.records.values()
            ],
        }
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, folder / f"{stem}.records.pkl")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, folder: Path, stem: str, tokenizer: Tokenizer) -> tuple[NamespaceIndex, int]:
        """Read what :meth:`save` wrote; returns the index and the generation it reflects.

        Raises:
            StoreError: Missing, corrupt, from another tokenizer, or the two files disagree.
        """
        bm25 = BM25Index.load(folder / f"{stem}.bm25.npz")
        path = folder / f"{stem}.records.pkl"
        try:
            with path.open("rb") as fh:
                payload: dict[str, Any] = pickle.load(fh)
            if payload.get("format") != _FORMAT:
                raise StoreError(f"{path}: unknown format")
            if payload.get("tokenizer") != _tokenizer_key(tokenizer):
                raise StoreError(f"{path}: written with another tokenizer")
            rows = payload["rows"]
            generation = int(payload["generation"])
        except StoreError:
            raise
        except Exception as exc:  # pickle raises many types on a damaged file
            raise StoreError(f"{path}: unreadable ({exc})") from exc
        index = cls(bm25, tokenizer)
        entries = []
        for memory_id, text, meta in rows:
            record = from_chroma(memory_id, text, meta)
            index.records[memory_id] = record
            index.seqs[memory_id] = int(meta["seq"])
            entries.append(_entry(record, index.seqs[memory_id]))
        index._timeline = sorted(entries)
        if set(index.records) != bm25.ids():
            raise StoreError(f"{path}: records and BM25 index hold different memories")
        return index, generation


def _entry(record: MemoryRecord, seq: int) -> TimelineEntry:
    return TimelineEntry(
        record.created_at.timestamp(), seq, record.id, record.memory_type == "episodic"
    )


def _tokenizer_key(tokenizer: Tokenizer) -> str:
    return f"{tokenizer.language}|stem={tokenizer.stem}|stop={len(tokenizer.stopwords)}"
