"""One namespace of a memory: its Chroma collection and everything kept beside it.

A :class:`Namespace` owns, for one namespace:

* its Chroma collection (:class:`~cogmem.store.ChromaStore`), the source of truth;
* its derived index (:class:`~cogmem.index.NamespaceIndex`: records, BM25, timeline, vectors),
  loaded from the copy saved beside a folder store when that copy is current, else read from
  Chroma, and saved again on :meth:`Namespace.flush`;
* the adds held back from Chroma (:class:`~cogmem.held.HeldAdds`) and, on a folder store, their
  journal; it alone decides when they must reach Chroma (before any other write, a filtered
  scan, or when the group is full or old), and on loading it writes what dead writers'
  journals hold (:mod:`cogmem.recovery`);
* the recalls written behind (reinforcements not yet in Chroma);
* the write *generation* that tells a saved index from a stale one, and the catch-up with
  other writers of a shared (``client=``) store.

What every namespace of one memory shares is a :class:`StoreContext`. A namespace is not
thread-safe: :class:`~cogmem.CognitiveMemory` calls it under its lock.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import recovery
from .catchup import catch_up
from .clients import drop_collection
from .config import CognitiveMemoryConfig
from .dedup import only_reinforces
from .dense_leg import DenseLeg
from .disk import add_bytes
from .errors import CogmemConnectionError, ReadOnlyError, StoreError
from .frames import JournalEntry
from .held import AddJournal, HeldAdds, journal_path
from .index import NamespaceIndex
from .lexical import BM25Index, Tokenizer
from .records import MemoryRecord
from .scan import EXACT_SCAN, ExactScan
from .shared_namespaces import PackedNamespace
from .store import ChromaStore, FloatArray
from .table import RecordTable
from .warmup import Warming, start_warming

__all__ = ["EXACT_SCAN", "Namespace", "StoreContext"]

log = logging.getLogger("cogmem")


@dataclass
class StoreContext:
    """What the namespaces of one memory share.

    Attributes:
        client: The Chroma client.
        writer: This memory's writer token (``wb``), on every write.
        config: The memory's configuration.
        tokenizer: The BM25 tokenizer.
        folder: A folder store's folder (``None`` for in-process and server stores).
        index_dir: Where derived indexes and journals are kept (``None``: nowhere).
        read_only: Opened with ``read_only=True``: nothing is written.
        private: An in-process store under a name cogmem chose: nothing else can reach it.
        sole_writer: Nothing else writes it (private, or a locked folder): no catch-up.
        sync_interval_ns: The least time between two catch-ups with other writers.
        buffered: Whether small adds are held back and written in groups (turned off for good
            when a journal cannot be opened).
    """

    client: Any
    writer: str
    config: CognitiveMemoryConfig
    tokenizer: Tokenizer
    folder: Path | None
    index_dir: Path | None
    read_only: bool
    private: bool
    sole_writer: bool
    sync_interval_ns: int
    buffered: bool

    def refuse_writes(self) -> None:
        """Raise :class:`ReadOnlyError` on a store opened with ``read_only=True``."""
        if self.read_only:
            raise ReadOnlyError(
                f"the store at {self.folder} was opened with read_only=True; open it without "
                "to write (one writer at a time)"
            )


class Namespace(DenseLeg):
    """One namespace's collection, derived index, held adds, recalls and generation.

    Args:
        name: The namespace.
        stem: The file stem of its index and journals (a digest of ``name``).
        store: Its Chroma collection.
        context: What it shares with the memory's other namespaces.
    """

    def __init__(self, name: str, stem: str, store: ChromaStore, context: StoreContext) -> None:
        self.name = name
        self._stem = stem
        self._store = store
        self._ctx = context
        self._index: NamespaceIndex | None = None
        self._generation = 0  # the Chroma generation the index reflects
        self._saved = False  # the saved copy of the index is current
        self._bumped = False  # this object has bumped the generation since loading/saving
        self._synced_at: int | None = None  # when the last catch-up began (ns)
        self._recalls: dict[str, MemoryRecord] = {}  # reinforcements not written yet
        self._held: HeldAdds | None = None
        self._scan = ExactScan()
        # Up to how many memories a dense query is an exact scan: always in a packed
        # namespace (the shared collection's index is never asked: cogmem.shared_namespaces).
        self._exact = math.inf if isinstance(store.collection, PackedNamespace) else EXACT_SCAN
        self._width: int | None = None
        self._warming: Warming | None = None  # Chroma loading its index (cogmem.warmup)
        #: Pairs (a, b) a conflict detector has judged here (see cogmem.maintenance).
        self.judged: set[tuple[str, str]] = set()

    # ------------------------------------------------------------------ reading
    @property
    def store(self) -> ChromaStore:
        """The Chroma collection (read it only after :meth:`write_held` to see every add)."""
        return self._store

    @property
    def held_ids(self) -> list[str]:
        """The adds acknowledged but not written to Chroma yet, in the order added."""
        return [] if self._held is None else self._held.ids

    @property
    def index(self) -> NamespaceIndex:
        """The derived index, loaded on first use (no catch-up: see :meth:`synced`)."""
        return self._index if self._index is not None else self._load()

    @property
    def records(self) -> RecordTable:
        """Every memory held, by id (read-only mapping)."""
        return self.index.records

    def __len__(self) -> int:
        return len(self.index)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self.index

    def synced(self, *, offline: bool = False) -> NamespaceIndex:
        """The index, caught up with what other writers added, updated and deleted.

        Two Chroma calls when nothing changed, one for a packed namespace
        (:func:`cogmem.catchup.catch_up`), none right after a load that read Chroma (the
        load is this read's catch-up); a recall not yet written is merged into another
        writer's newer version, so that neither is lost.

        A sole writer never catches up: a private in-process store, and a folder store, which
        is locked while open (:mod:`cogmem.lock`). So only a ``client=`` store pays the calls
        (at most once per ``sync_interval_seconds``).

        Args:
            offline: For reads that need nothing else from Chroma (get, memories, count): an
                unreachable server leaves the index as held instead of raising.
        """
        loading = self._index is None
        index = self.index
        if self._ctx.sole_writer or (loading and self._synced_at is not None):
            return index  # a load that read Chroma is this read's catch-up
        last = self._synced_at
        if last is not None and time.time_ns() - last < self._ctx.sync_interval_ns:
            return index  # caught up moments ago (config.sync_interval_seconds)
        try:
            return self._catch_up(index)
        except CogmemConnectionError as exc:
            if not offline:
                raise
            log.warning("reading namespace %r as held: %s", self.name, exc)
            return index

    def tokens(self, text: str) -> list[str]:
        """``text`` as BM25 tokens."""
        return self.index.tokenizer(text)

    def ranked(self, tokens: Sequence[str], chunk_size: int) -> Iterable[list[tuple[str, float]]]:
        """Every memory matching ``tokens``, best BM25 score first, in chunks."""
        return self.index.bm25.ranked(tokens, chunk_size=chunk_size)

    def bm25_scores(self, tokens: Sequence[str], ids: Sequence[str]) -> dict[str, float]:
        """The BM25 score of each of ``ids`` for ``tokens``."""
        return self.index.bm25.score(tokens, ids)

    def neighbours(self, memory_id: str, span: int, window_seconds: float) -> list[str]:
        """Memories formed within ``span`` places and ``window_seconds`` of ``memory_id``."""
        return self.index.neighbours(memory_id, span, window_seconds)

    def taken(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are stored. The index knows this object's writes and every write
        where it is the sole writer; elsewhere Chroma is asked too."""
        index = self.index
        found = {i for i in ids if i in index}
        if not found and not self._ctx.sole_writer:
            found = self._store.existing(ids)
        return found

    # ------------------------------------------------------------------ writing
    def add(self, records: list[MemoryRecord], vectors: FloatArray, *, may_hold: bool) -> None:
        """Store new memories (ids checked free by the caller): held back from Chroma when
        ``may_hold`` and the store buffers adds, else written at once. Either all are stored
        or none."""
        self.claim_width(int(vectors.shape[1]))
        if may_hold and self._ctx.buffered and self._hold(records, vectors):
            return
        index = self.index  # loaded first, so this write is incremental
        self._will_write()
        store = self._chroma()  # the held adds first, in order
        seqs, stamps = store.add(records, vectors)
        try:
            index.add(records, seqs, vectors=vectors)
            index.set_stamps([r.id for r in records], stamps)
        except BaseException:
            self.take_back([r.id for r in records])
            raise
        store.pace(len(index))

    def update(self, records: Sequence[MemoryRecord]) -> None:
        """Rewrite stored memories (status, links, ...): to Chroma, then the index. A recall
        not yet written for one of them is superseded by the record given. The held adds are
        written first only when one of ``records`` is among them."""
        if not records:
            return
        self._will_write()
        held = self._held
        store = self._chroma() if held and any(r.id in held for r in records) else self._store
        try:
            stamp = store.update(records)
        except StoreError:
            self._take_in_what_chroma_holds([r.id for r in records])
            raise
        self.index.update(records, stamp)
        for record in records:
            self._recalls.pop(record.id, None)

    def rewrite(self, records: Sequence[MemoryRecord]) -> None:
        """Write back stored memories a write changed (:func:`cogmem.dedup.merged`, relinks).
        A change that only reinforces one (stability, last access, session ids: what a recall
        changes) is written behind as a recall is (:meth:`remember`); any other is written
        through (:meth:`update`)."""
        table = self.records
        behind: list[MemoryRecord] = []
        through: list[MemoryRecord] = []
        for r in records:
            reinforces = r.id in table and only_reinforces(table[r.id], r)
            (behind if reinforces else through).append(r)
        self.update(through)
        self.index.update(behind)  # written with the next recalls, or at flush
        self._recalls.update((r.id, r) for r in behind)

    def delete(self, ids: Sequence[str]) -> None:
        """Forget memories for good (in Chroma and the index)."""
        if not ids:
            return
        index = self.index
        for memory_id in ids:
            self._recalls.pop(memory_id, None)
        self._will_write()
        store = self._chroma()
        try:
            store.delete(ids)
        except StoreError as exc:
            left = self._take_in_what_chroma_holds(ids)
            if left:
                raise
            log.warning("Chroma raised on a delete it had applied (done): %s", exc)
        index.remove(ids)

    def _take_in_what_chroma_holds(self, ids: Sequence[str]) -> list[str]:
        """After a write to ``ids`` that Chroma raised on (it may have been applied, in part):
        the index takes Chroma's versions of them, and forgets those it no longer holds.
        Returns the ids Chroma holds; logs, and returns all, when it cannot be read."""
        try:
            held = self._store.stamped(ids)
        except StoreError as exc:
            log.error(
                "namespace %r: after a failed write, Chroma could not be read back (%s); "
                "reopen the store to see what it holds",
                self.name,
                exc,
            )
            return list(ids)
        index = self.index
        gone = [i for i in ids if i not in held and i in index]
        if gone:
            index.remove(gone)
        changed = {
            i: v for i, v in held.items() if i not in index or v[2] != index.records.stamp(i)
        }
        if changed:
            index.apply(changed)
        self._saved = False
        return list(held)

    def forget(self, ids: Sequence[str]) -> None:
        """Drop from the index memories Chroma no longer holds (taken back while loading)."""
        if ids:
            self.index.remove(ids)
            self._saved = False

    def take_back(self, ids: Sequence[str]) -> None:
        """Delete memories a failed call had just stored (logs what it cannot reach): held
        ones leave the journal too (they are its last frame), the others leave Chroma."""
        try:
            if self._held is not None and self._held.take_back(ids):
                self.index.remove(ids)
                return
            self._store.delete(ids, undo=True)
            self.index.remove(ids)
        except Exception as exc:  # the store is unreachable: say what remains
            log.error("could not take back %d memories of %r: %s", len(ids), self.name, exc)

    def remember(self, updated: Sequence[MemoryRecord]) -> None:
        """Apply recalled (reinforced) records now in memory, and to Chroma in batches of
        ``reinforcement_flush_size`` (written behind)."""
        self.index.update(updated)
        self._recalls.update((m.id, m) for m in updated)
        if len(self._recalls) >= self._ctx.config.reinforcement_flush_size:
            self.write_recalls()

    def write_recalls(self) -> None:
        """Write the recalls not yet in Chroma (kept for the next try if the write fails)."""
        if self._recalls:
            self._will_write()
            stamp = self._chroma().update(list(self._recalls.values()))
            self.index.update(self._recalls.values(), stamp)
        self._recalls.clear()

    @property
    def packed_key(self) -> str | None:
        """The digest of a packed namespace (``None``: a collection of its own)."""
        return self._store.packed_key

    def unwritten_recalls(self) -> dict[str, MemoryRecord]:
        """The recalls not yet written to Chroma (a copy)."""
        return dict(self._recalls)

    def keep_unwritten(self, recalls: Mapping[str, MemoryRecord]) -> None:
        """After a write-out that failed: ``recalls`` are still to be written (a recall made
        since wins), and the next write raises the write generation again."""
        self._recalls = {**recalls, **self._recalls}
        self._bumped = False
        self._saved = False

    def write_held(self) -> None:
        """Write the held adds to Chroma (as the index holds them now: a recall since is
        included) and empty their journal. On failure they stay held. A read-only store's held
        adds are a dead writer's, shown and never written."""
        held = self._held
        if not held or self._ctx.read_only:
            return
        table = self.records
        ids = [i for i in held.ids if i in table]
        vectors = held.vectors(ids)
        self._will_write()
        _, stamps = self._store.add(
            [table[i] for i in ids],
            np.stack([vectors[i] for i in ids]) if ids else held.matrix()[:0],
            seqs=[table.seq(i) for i in ids],
        )
        self.index.set_stamps(ids, stamps)
        held.written()
        self._store.pace(len(self.index))

    def flush(self) -> None:
        """Write held adds and recalls, and save the index beside a folder store."""
        if self._index is None or self._ctx.read_only:
            return
        self.write_held()
        self.write_recalls()
        if self._ctx.index_dir is not None and not self._saved:
            self._save(self._ctx.index_dir)

    def close(self, *, flushed: bool) -> None:
        """Let go of the journal and the index's files. ``flushed``: everything held was
        written (the journal is deleted); else the journal is left for the next open."""
        doubt = self._store.unsettled()
        if doubt:
            log.error(
                "namespace %r: a failed Chroma add could not be taken back; Chroma may still "
                "hold %d of its memories, which would appear on the next open: %s",
                self.name,
                len(doubt),
                doubt[:20],
            )
        if self._held is not None and self._held.journal is not None:
            if flushed:
                self._held.journal.discard()
            else:
                self._held.journal.release()
        self._held = None
        self._scan.forget()
        if self._warming is not None:
            self._warming.wait()
        if self._index is not None:
            self._index.close()

    def drop(self) -> None:
        """Delete the namespace's records (an in-process store nothing else can reach)."""
        if self._warming is not None:
            self._warming.wait()
        collection = self._store.collection
        if isinstance(collection, PackedNamespace):
            collection.drop()
        else:
            drop_collection(self._ctx.client, collection.name)

    # ------------------------------------------------------------------ internals
    def _chroma(self) -> ChromaStore:
        """The collection, with the held adds written first (so that Chroma is complete)."""
        self.write_held()
        return self._store

    def _will_write(self) -> None:
        """Before the first write since the index was loaded or saved: bump the generation in
        Chroma, so that every saved copy (this process's or another's) is known to be stale
        until it is saved again."""
        if self._bumped:
            return
        self._ctx.refuse_writes()
        if self._index is None:
            self._load()  # its generation is the one to bump
        generation = max(self._generation, self._store.generation()) + 1
        self._store.set_generation(generation)
        self._generation = generation
        self._bumped = True
        self._saved = False

    def _save(self, folder: Path) -> None:
        """Save the index beside the store. It is a cache: when the disk refuses, say so and
        go on (the next open rebuilds it from Chroma)."""
        from .disk import storage_error

        try:
            self.index.save(folder, self._stem, self._generation)
        except OSError as exc:
            log.warning(
                "could not save the index of namespace %r in %s (%s); it will be rebuilt from "
                "Chroma on the next open",
                self.name,
                folder,
                storage_error("saving the index", folder, exc),
            )
            return
        self._saved = True
        self._bumped = False

    def _load(self) -> NamespaceIndex:
        """Load the index from its saved copy when that is current, else read the records
        from Chroma (BM25 reconciled by id); then write what dead writers' journals hold."""
        ctx, cfg = self._ctx, self._ctx.config
        started = time.time_ns()
        generation, marks = self._store.generation_and_marks()  # before the records are read
        index, saved = None, None
        # A single writer keeps its vector file beside the index; elsewhere another process
        # could be appending to it (or, read-only, nothing may be written), so vectors go to
        # a temporary file (see cogmem.vectors).
        keep = ctx.sole_writer and ctx.index_dir is not None and not ctx.read_only
        if ctx.index_dir is not None and NamespaceIndex.saved(ctx.index_dir, self._stem):
            # a packed namespace is always scanned: its size is never read for this
            big = self._exact < math.inf and (
                NamespaceIndex.saved_size(ctx.index_dir, self._stem) > self._exact
            )
            if big and self._warming is None:
                self._warming = start_warming(self._store)
            try:
                index, saved = NamespaceIndex.load(
                    ctx.index_dir, self._stem, ctx.tokenizer, keep_vectors=keep
                )
                bm25 = index.bm25
                if (bm25.k1, bm25.b, bm25.epsilon) != (cfg.bm25_k1, cfg.bm25_b, cfg.bm25_epsilon):
                    index, saved = None, None
            except StoreError as exc:
                log.warning("rebuilding the index of namespace %r: %s", self.name, exc)
                index, saved = None, None
        if index is None:
            index = NamespaceIndex(
                BM25Index(k1=cfg.bm25_k1, b=cfg.bm25_b, epsilon=cfg.bm25_epsilon),
                ctx.tokenizer,
                self.name,
                vector_home=(ctx.index_dir, self._stem)
                if keep and ctx.index_dir is not None
                else None,
            )
        if saved is None or saved != generation:
            # A packed namespace is scanned: its vectors come with its records (one call).
            vectors: dict[str, FloatArray] | None = {} if self._exact == math.inf else None
            index.replace_records(self._store.all_records(vectors=vectors))
            if vectors:
                index.keep_vectors(vectors)
            index.marks = marks
            self._synced_at = None if ctx.sole_writer else started
        else:
            self._saved = True
        index.limit_vectors(self._exact)  # past it, Chroma's HNSW index holds the vectors
        self._index = index
        self._generation = generation
        if not ctx.read_only:
            self._store.pace(len(index))
        if ctx.index_dir is not None:
            recovery.recover(self, self._stem, ctx.index_dir, read_only=ctx.read_only)
        return index

    def write_back(self, entries: Sequence[JournalEntry]) -> tuple[int, int]:
        """Write journaled memories a dead writer acknowledged (:mod:`cogmem.recovery`) to
        Chroma and the index; returns how many were written and how many were refused for a
        vector width the namespace does not hold."""
        width = self.width()
        if width is None and entries:
            width = len(entries[0].vector)
        fits = [e for e in entries if len(e.vector) == width]
        if fits and width is not None:
            self.claim_width(width)
            records = [e.record for e in fits]
            self._will_write()
            matrix = np.stack([e.vector for e in fits])
            seqs, stamps = self._store.add(records, matrix, seqs=[e.seq for e in fits])
            self.index.add(records, seqs, stamps, vectors=matrix)
        return len(fits), len(entries) - len(fits)

    def show_held(self, entries: Sequence[JournalEntry]) -> None:
        """On a read-only store: index journaled memories a dead writer left (no writer can be
        alive while it is open), held in memory beside Chroma's, never written."""
        records = [e.record for e in entries]
        seqs = [e.seq for e in entries]
        matrix = np.stack([e.vector for e in entries])
        self.index.add(records, seqs, vectors=matrix)
        if self._held is None:
            self._held = HeldAdds(None)
        self._held.add(records, seqs, matrix)

    def _hold(self, records: list[MemoryRecord], vectors: FloatArray) -> bool:
        """Hold new memories back from Chroma (indexed, and journaled on a folder store);
        ``False`` if they must be written at once (no journal could be opened). The held
        group is written first when these would overfill it, or when it is older than
        ``sync_interval_seconds`` on a store other processes may read."""
        ctx = self._ctx
        held = self._held
        if held is None:
            journal = None
            if not ctx.private and ctx.index_dir is not None:
                path = journal_path(ctx.index_dir, self._stem, ctx.writer)
                try:
                    journal = AddJournal(path)
                except StoreError as exc:
                    log.warning("writing every add at once: %s", exc)
                    ctx.buffered = False
                    return False
            held = self._held = HeldAdds(journal)
        aged = (
            not ctx.private
            and held.since is not None
            and time.monotonic_ns() - held.since >= ctx.sync_interval_ns
        )
        if aged or len(held) + len(records) > ctx.config.add_flush_size:
            self.write_held()
        # Held or not, these reach Chroma: the space they will take is there, or nothing is.
        self._store.before_write(add_bytes(int(vectors.shape[1]), [r.text for r in records]))
        index = self.index
        seqs = self._store.next_seqs(len(records))
        index.add(records, seqs, vectors=vectors)
        try:
            held.add(records, seqs, vectors)  # the commit point: journaled, or nothing
        except BaseException:
            index.remove([r.id for r in records])
            raise
        return True

    def _catch_up(self, index: NamespaceIndex) -> NamespaceIndex:
        started, changed = catch_up(index, self._chroma(), self._recalls, self._synced_at)
        if changed:
            self._saved = False
        self._synced_at = started
        return index
