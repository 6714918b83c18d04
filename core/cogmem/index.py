"""What cogmem keeps in memory for one namespace: the records, the BM25 index and the timeline.

Chroma is the source of truth; this is derived from it and can always be rebuilt from it. It
exists because reading ~100 records back from Chroma costs more than a whole search should
(Chroma is fast at nearest-neighbour ids, slow at returning metadata), so a search reads
Chroma's ANN index for ids and distances and everything else from here.

* ``records``: every memory of the namespace, a :class:`~cogmem.table.RecordTable` (held as
  columns; a :class:`~cogmem.records.MemoryRecord` is built when one is looked up).
* ``bm25``: the incremental BM25 index of their texts.
* the timeline: the rows in ``(created_at, seq)`` order, for temporal-context lookups.
* ``horizon``: the highest write stamp (``w``, see :mod:`cogmem.store`) it has taken in; what
  other processes wrote since is read from Chroma by stamp (``CognitiveMemory`` catches up
  before each read), and each record's own stamp says whether a version read is newer.

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
from array import array
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import StoreError
from .lexical import BM25Index, Tokenizer
from .records import MemoryRecord
from .table import EPISODIC_CODE, RecordTable

__all__ = ["NamespaceIndex"]

_FORMAT = 4


class NamespaceIndex:
    """Records, BM25 index and timeline of one namespace (not thread-safe; the caller locks).

    Args:
        bm25: An empty (or loaded) BM25 index.
        tokenizer: Turns texts into BM25 tokens.
        namespace: The namespace indexed.
        records: Its records, when loaded (default: none yet).
    """

    def __init__(
        self,
        bm25: BM25Index,
        tokenizer: Tokenizer,
        namespace: str = "default",
        records: RecordTable | None = None,
    ) -> None:
        self.bm25 = bm25
        self.tokenizer = tokenizer
        self.records = RecordTable(namespace) if records is None else records
        self._timeline = array("i")  # rows (int32, as BM25 slots)
        self.horizon = 0
        if len(self.records):
            self._rebuild_timeline()

    def __len__(self) -> int:
        return len(self.records)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self.records

    def ids(self) -> set[str]:
        """The ids held."""
        return set(self.records)

    # ------------------------------------------------------------------ writes
    def add(
        self,
        records: Sequence[MemoryRecord],
        seqs: Sequence[int],
        stamps: Sequence[int] | None = None,
    ) -> None:
        """Index new memories (their ids must not be held), with their write stamps."""
        tokens = self.tokenizer.tokenize_many(r.text for r in records)
        self.bm25.add_many((r.id, t) for r, t in zip(records, tokens))
        marks: Sequence[int | None] = [None] * len(records) if stamps is None else stamps
        rows = [self.records.put(r, seq, w) for r, seq, w in zip(records, seqs, marks)]
        self.horizon = max([self.horizon, *(w for w in marks if w is not None)])
        self._insert(rows)

    def set_stamps(self, ids: Sequence[str], stamps: Sequence[int]) -> None:
        """Record the write stamps of held memories (as just written)."""
        for memory_id, stamp in zip(ids, stamps, strict=True):
            self.records.put_stamp(memory_id, stamp)
        self.horizon = max([self.horizon, *stamps])

    def update(self, records: Iterable[MemoryRecord], stamp: int | None = None) -> None:
        """Replace the mutable fields of held memories (text, creation and seq never change;
        unknown ids are ignored); ``stamp``: the write stamp of these versions."""
        for record in records:
            if record.id in self.records:
                self.records.put(record, stamp=stamp)
        if stamp is not None:
            self.horizon = max(self.horizon, stamp)

    def remove(self, ids: Iterable[str]) -> None:
        """Forget memories (unknown ids are ignored)."""
        gone = [i for i in ids if i in self.records]
        if not gone:
            return
        # Their tokens spare the BM25 index a scan of its postings (it keeps no forward index).
        texts = (self.records.text(self.records.row(i)) for i in gone)
        self.bm25.remove_many(gone, self.tokenizer.tokenize_many(texts))
        if len(gone) == 1:
            at = self._position(self.records.row(gone[0]))
            del self._timeline[at]
            self.records.remove(gone)
        else:
            self.records.remove(gone)
            live = self.records.column("status") != 255
            self._timeline = array("i", (r for r in self._timeline if live[r]))
        if self.records.holes() > max(1024, len(self.records) // 4):
            remap = self.records.compact()
            self._timeline = array("i", remap[np.frombuffer(self._timeline, np.intc)].tolist())

    def _key(self, row: int) -> tuple[float, int]:
        return (float(self._created[row]), int(self._seq[row]))

    @property
    def _created(self) -> np.ndarray[Any, Any]:
        return self.records.column("created")

    @property
    def _seq(self) -> np.ndarray[Any, Any]:
        return self.records.column("seq")

    def _insert(self, rows: list[int]) -> None:
        if not rows:
            return
        created, seq = self._created, self._seq
        new = sorted(rows, key=lambda r: (created[r], seq[r]))
        if not self._timeline or self._key(new[0]) >= self._key(self._timeline[-1]):
            self._timeline.extend(new)  # the usual case: memories arrive in time order
        elif len(new) < 64:
            for row in new:
                at = bisect.bisect_right(self._timeline, self._key(row), key=self._key)
                self._timeline.insert(at, row)
        else:
            self._timeline.extend(new)
            self._rebuild_timeline()

    def _rebuild_timeline(self) -> None:
        live = np.flatnonzero(self.records.column("status") != 255)
        order = np.lexsort((self._seq[live], self._created[live]))
        self._timeline = array("i", live[order].tolist())

    def _position(self, row: int) -> int:
        """Where ``row`` sits on the timeline."""
        at = bisect.bisect_left(self._timeline, self._key(row), key=self._key)
        while self._timeline[at] != row:  # equal keys (same time and seq): look along them
            at += 1
        return at

    # ------------------------------------------------------------------ reads
    def neighbours(self, memory_id: str, span: int, window_seconds: float) -> list[str]:
        """Episodes within ``span`` places of ``memory_id`` on the timeline and
        ``window_seconds`` of it in time (itself excluded), nearest first."""
        if memory_id not in self.records or span <= 0:
            return []
        row = self.records.row(memory_id)
        at = self._position(row)
        created = self._created
        kinds = self.records.column("kind")
        when = float(created[row])
        out: list[tuple[int, str]] = []
        for step in (-1, 1):
            moved = 0
            j = at + step
            while 0 <= j < len(self._timeline) and moved < span:
                other = self._timeline[j]
                if abs(float(created[other]) - when) > window_seconds:
                    break
                moved += 1
                if kinds[other] == EPISODIC_CODE:
                    out.append((moved, self.records.id_at(other)))
                j += step
        return [i for _, i in sorted(out)]

    def fingerprint_matches(self, ids: Iterable[str]) -> bool:
        """True when the BM25 index holds exactly ``ids``."""
        return self.bm25.fingerprint() == BM25Index.fingerprint_of(ids)

    def replace_records(self, stored: Mapping[str, tuple[MemoryRecord, int, int]]) -> None:
        """Make this index hold exactly ``stored`` (id -> record, seq, write stamp), as read
        from Chroma.

        BM25 entries are kept for ids present on both sides (their text cannot have changed);
        the rest are added or removed.
        """
        self.remove([i for i in self.records if i not in stored])
        self.apply(stored)

    def apply(self, stored: Mapping[str, tuple[MemoryRecord, int, int]]) -> tuple[int, int]:
        """Take in records read from Chroma (id -> record, seq, write stamp): new ids are
        added, held ones overwritten (their BM25 entries are kept: the text of a stored
        memory never changes). Returns how many were added and updated."""
        missing = [i for i in stored if i not in self.records]
        held = [i for i in stored if i in self.records]
        for i in held:
            record, _, stamp = stored[i]
            self.records.put(record, stamp=stamp)
        if missing:
            self.add(
                [stored[i][0] for i in missing],
                [stored[i][1] for i in missing],
                [stored[i][2] for i in missing],
            )
        self.horizon = max([self.horizon, *(stored[i][2] for i in held)])
        return len(missing), len(held)

    # ------------------------------------------------------------------ persistence
    def save(self, folder: Path, stem: str, generation: int) -> None:
        """Write ``<stem>.bm25.npz`` and ``<stem>.records.pkl`` atomically."""
        folder.mkdir(parents=True, exist_ok=True)
        self.bm25.save(folder / f"{stem}.bm25.npz")
        if self.records.holes():
            remap = self.records.compact()
            self._timeline = array("i", remap[np.frombuffer(self._timeline, np.intc)].tolist())
        payload = {
            "format": _FORMAT,
            "generation": generation,
            "horizon": self.horizon,
            "tokenizer": _tokenizer_key(self.tokenizer),
            "records": self.records.to_state(),
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
            records = RecordTable.from_state(payload["records"])
            generation = int(payload["generation"])
            horizon = int(payload.get("horizon", 0))
        except StoreError:
            raise
        except Exception as exc:  # pickle raises many types on a damaged file
            raise StoreError(f"{path}: unreadable ({exc})") from exc
        if len(records) != len(bm25) or set(records) != bm25.ids():
            raise StoreError(f"{path}: records and BM25 index hold different memories")
        index = cls(bm25, tokenizer, records.namespace, records)
        index.horizon = horizon
        return index, generation


def _tokenizer_key(tokenizer: Tokenizer) -> str:
    return f"{tokenizer.language}|stem={tokenizer.stem}|stop={len(tokenizer.stopwords)}"
