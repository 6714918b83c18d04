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

* the embeddings of a namespace that is scanned rather than queried through Chroma's HNSW index
  (:meth:`NamespaceIndex.limit_vectors`), in a :class:`~cogmem.vectors.VectorFile` (read from
  disk, not held in RAM): the scan reads them all. What is not there (memories another process
  wrote, a store from before vector files) is read from Chroma by the caller and kept with
  :meth:`NamespaceIndex.keep_vectors`. A larger namespace keeps none: Chroma's index holds
  them, and its query returns the nearest ones' vectors with their distances.

Persistence: :meth:`NamespaceIndex.save` writes it beside a persistent store together with the
*generation* it reflects, each array its own Zstandard frame (:mod:`cogmem.array_frames`).
Both files are verified before they are trusted: the records file opens with a check of the
rest and of the BM25 file (:mod:`cogmem.records_file`), and the records' values are
range-checked (:meth:`RecordTable.from_state`); anything that does not check out is rebuilt
from Chroma,
so a damaged cache never reaches a search or, through a reinforcement, Chroma itself. cogmem
bumps the generation kept in the Chroma collection's metadata before the first write after
each save, so on open a saved index whose generation differs from Chroma's is known to be
stale (another process wrote, or this one died between the two writes) and the records are
read again from Chroma; BM25 and timeline are reconciled by id (text, creation time and seq
never change for a stored memory). A loaded index builds its timeline when first asked (a
search of facts never asks). A store with a single writer keeps its vector file beside
(``<stem>.<token>.vectors``, named in the saved records); elsewhere the
file is an anonymous temporary one, filled again as searches need vectors.
"""

from __future__ import annotations

import bisect
import contextlib
import io
import logging
import math
import re
import uuid
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import records_file
from .aside import run_aside
from .changes import ChangeLog, changes_path, read_changes, write_changes
from .disk import write_atomically
from .errors import StoreError
from .lexical import BM25Index, Tokenizer
from .listing import matching
from .records import MemoryRecord
from .table import EPISODIC_CODE, RecordTable
from .vectors import FloatArray, VectorFile

__all__ = ["NamespaceIndex"]

log = logging.getLogger("cogmem")

# A vector file is rewritten on save when it holds more dead slots than this, and than a
# quarter of its live ones (deleted memories leave dead slots behind).
_MIN_DEAD_SLOTS = 4096


class NamespaceIndex:
    """Records, BM25 index and timeline of one namespace (not thread-safe; the caller locks).

    Args:
        bm25: An empty (or loaded) BM25 index.
        tokenizer: Turns texts into BM25 tokens.
        namespace: The namespace indexed.
        records: Its records, when loaded (default: none yet).
        vector_home: ``(folder, stem)`` where the vector file is kept between runs (a store
            with a single writer); default: an anonymous temporary file.
    """

    def __init__(
        self,
        bm25: BM25Index,
        tokenizer: Tokenizer,
        namespace: str = "default",
        records: RecordTable | None = None,
        *,
        vector_home: tuple[Path, str] | None = None,
    ) -> None:
        self.bm25 = bm25
        self.tokenizer = tokenizer
        self.records = RecordTable(namespace) if records is None else records
        # rows (int32, as BM25 slots) in (created, seq) order; None: not built since loading
        # (built on first use: a search of facts never needs it)
        self._line: array[int] | None = array("i") if records is None else None
        self.horizon = 0
        #: A packed namespace's written and deleted marks at the last catch-up (``None``: not
        #: looked at since loading; :func:`cogmem.catchup.catch_up`).
        self.marks: tuple[str, str] | None = None
        #: Count the calls that added and that removed memories (a memory's vector changes
        #: only with them; an id added again is removed first).
        self.adds = 0
        self.removes = 0
        #: What changed since the saved copy this index extends (a save then writes only
        #: that while it is little: :mod:`cogmem.changes`).
        self.changes = ChangeLog()
        self._vector_home = vector_home
        self._vectors: VectorFile | None = None  # created with the first vector kept
        self._vector_limit = math.inf  # see limit_vectors

    def __len__(self) -> int:
        return len(self.records)

    @property
    def _timeline(self) -> array[int]:
        line = self._line
        if line is None:
            line = self._line = self._built_timeline()
        return line

    @_timeline.setter
    def _timeline(self, rows: array[int]) -> None:
        self._line = rows

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self.records

    # ------------------------------------------------------------------ writes
    def add(
        self,
        records: Sequence[MemoryRecord],
        seqs: Sequence[int],
        stamps: Sequence[int] | None = None,
        vectors: FloatArray | None = None,
    ) -> None:
        """Index new memories (their ids must not be held), with their write stamps and, when
        given, their embeddings (one row each). All or nothing: if it fails, none is held."""
        self.adds += 1
        tokens = self.tokenizer.tokenize_many(r.text for r in records)
        self.bm25.add_many((r.id, t) for r, t in zip(records, tokens))
        try:
            marks: Sequence[int | None] = [None] * len(records) if stamps is None else stamps
            rows = [self.records.put(r, seq, w) for r, seq, w in zip(records, seqs, marks)]
            self._insert(rows)
        except BaseException:
            indexed = [(r.id, t) for r, t in zip(records, tokens) if r.id in self.bm25]
            self.bm25.remove_many([i for i, _ in indexed], [t for _, t in indexed])
            self.records.remove([r.id for r in records])
            self._rebuild_timeline()
            raise
        self.horizon = max([self.horizon, *(w for w in marks if w is not None)])
        self.changes.touch(r.id for r in records)
        if vectors is not None:
            self._keep(rows, [r.id for r in records], vectors)

    def set_stamps(self, ids: Sequence[str], stamps: Sequence[int]) -> None:
        """Record the write stamps of held memories (as just written)."""
        for memory_id, stamp in zip(ids, stamps, strict=True):
            self.records.put_stamp(memory_id, stamp)
        self.horizon = max([self.horizon, *stamps])
        self.changes.touch(ids)

    def update(self, records: Iterable[MemoryRecord], stamp: int | None = None) -> None:
        """Replace the mutable fields of held memories (text, creation and seq never change;
        unknown ids are ignored); ``stamp``: the write stamp of these versions."""
        for record in records:
            if record.id in self.records:
                self.records.put(record, stamp=stamp)
                self.changes.touch((record.id,))
        if stamp is not None:
            self.horizon = max(self.horizon, stamp)

    def remove(self, ids: Iterable[str]) -> None:
        """Forget memories (unknown ids are ignored)."""
        gone = [i for i in ids if i in self.records]
        if not gone:
            return
        self.removes += 1
        self.changes.drop(gone)
        # Their tokens spare the BM25 index a scan of its postings (it keeps no forward index).
        texts = (self.records.text(self.records.row(i)) for i in gone)
        self.bm25.remove_many(gone, self.tokenizer.tokenize_many(texts))
        if self._line is None:  # not built: it will be built from the records left
            self.records.remove(gone)
        elif len(gone) == 1:
            at = self._position(self.records.row(gone[0]))
            del self._timeline[at]
            self.records.remove(gone)
        else:
            self.records.remove(gone)
            live = self.records.column("status") != 255
            self._timeline = array("i", (r for r in self._timeline if live[r]))
        if self.records.holes() > max(1024, len(self.records) // 4):
            self._renumber(self.records.compact())

    def _keyer(self) -> Callable[[int], tuple[float, int]]:
        """The timeline's sort key of a row, ``(created, seq)``, over columns fetched once (a
        bisection calls it ~17 times)."""
        created, seq = self._created, self._seq
        return lambda row: (float(created[row]), int(seq[row]))

    @property
    def _created(self) -> np.ndarray[Any, Any]:
        return self.records.column("created")

    @property
    def _seq(self) -> np.ndarray[Any, Any]:
        return self.records.column("seq")

    def _insert(self, rows: list[int]) -> None:
        if not rows or self._line is None:  # not built: it will be built with these rows
            return
        created, seq = self._created, self._seq
        new = sorted(rows, key=lambda r: (created[r], seq[r]))
        key = self._keyer()
        if not self._timeline or key(new[0]) >= key(self._timeline[-1]):
            self._timeline.extend(new)  # the usual case: memories arrive in time order
        elif len(new) < 64:
            for row in new:
                at = bisect.bisect_right(self._timeline, key(row), key=key)
                self._timeline.insert(at, row)
        else:
            self._timeline.extend(new)
            self._rebuild_timeline()

    def _renumber(self, remap: np.ndarray[Any, Any]) -> None:
        """Renumber the timeline's rows after the records were compacted (``remap``: old row
        -> new)."""
        if self._line is not None:
            self._line = array("i", remap[np.frombuffer(self._line, np.intc)].tolist())

    def _rebuild_timeline(self) -> None:
        self._line = self._built_timeline()

    def _built_timeline(self) -> array[int]:
        """The live rows in ``(created, seq)`` order."""
        live = np.flatnonzero(self.records.column("status") != 255)
        order = np.lexsort((self._seq[live], self._created[live]))
        return array("i", live[order].tolist())

    def _position(self, row: int) -> int:
        """Where ``row`` sits on the timeline."""
        key = self._keyer()
        at = bisect.bisect_left(self._timeline, key(row), key=key)
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

    # ------------------------------------------------------------------ embeddings
    def vectors(self, ids: Iterable[str]) -> dict[str, FloatArray]:
        """The embeddings of ``ids`` kept in the vector file. Ids not held, with no vector
        kept, or whose slot does not check out are absent (and the last are forgotten, so that
        :meth:`keep_vectors` takes them again)."""
        file = self._vectors
        if file is None:
            return {}
        records = self.records
        slots = records.column("vec")
        wanted: list[tuple[str, int, int]] = []  # (id, row, slot)
        for memory_id in ids:
            row = records.find(memory_id)
            if row is not None and slots[row] >= 0:
                wanted.append((memory_id, row, int(slots[row])))
        wanted.sort(key=lambda w: w[2])  # in file order
        got = file.read([w[2] for w in wanted], [w[0] for w in wanted])
        bad = [w[1] for w, vector in zip(wanted, got) if vector is None]
        if bad:
            records.set_vector_slots(bad, [-1] * len(bad))
        return {w[0]: vector for w, vector in zip(wanted, got) if vector is not None}

    def keep_vectors(self, found: Mapping[str, FloatArray]) -> int:
        """Keep the embeddings of held memories that have none kept (e.g. read from Chroma);
        returns how many were written (none past the limit: Chroma holds them)."""
        if self._past_limit():
            return 0
        records = self.records
        slots = records.column("vec")
        rows: list[int] = []
        ids: list[str] = []
        for memory_id in found:
            row = records.find(memory_id)
            if row is not None and slots[row] < 0:
                rows.append(row)
                ids.append(memory_id)
        if not rows:
            return 0
        return self._keep(rows, ids, np.stack([found[i] for i in ids]))

    def limit_vectors(self, limit: float) -> None:
        """Keep embeddings only while the index holds at most ``limit`` memories; past that,
        the vector file is deleted and none is kept (the caller reads them from Chroma).

        A namespace that Chroma's HNSW index answers holds every vector there already; a
        second float32 copy would be most of what the folder store adds to Chroma's size
        (design §7).
        """
        self._vector_limit = limit
        if len(self.records) > limit:
            self._drop_vectors()

    def _past_limit(self) -> bool:
        """Whether the index holds more memories than vectors are kept for (the vector file
        is then let go)."""
        if len(self.records) > self._vector_limit:
            self._drop_vectors()
            return True
        return False

    def _drop_vectors(self) -> None:
        file, self._vectors = self._vectors, None
        if file is None:
            return
        self.records.forget_vector_slots()
        try:
            file.close(delete=True)
        except OSError as exc:  # left over, it costs disk, never correctness
            log.warning("could not delete the vector file %s: %s", file.path, exc)

    def _keep(self, rows: list[int], ids: list[str], vectors: FloatArray) -> int:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(ids) or not ids:
            return 0
        if self._past_limit():
            return 0
        try:
            file = self._vectors
            if file is None:
                file = self._vectors = self._new_vector_file(matrix.shape[1])
            if file.dim != matrix.shape[1]:  # another embedder's vectors: read from Chroma
                return 0
            self.records.set_vector_slots(rows, file.append(ids, matrix))
        except OSError as exc:  # a cache: the vectors stay readable from Chroma
            log.warning("vectors not kept in the vector file (read from Chroma instead): %s", exc)
            return 0
        return len(rows)

    def _new_vector_file(self, dim: int) -> VectorFile:
        """A new vector file: in the index's folder, or an anonymous temporary one (also when
        the folder refuses it, e.g. read-only)."""
        if self._vector_home is None:
            return VectorFile.create(None, dim)
        folder, stem = self._vector_home
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{stem}.{uuid.uuid4().hex[:12]}.vectors"
            _drop_vector_files(folder, stem, keep=None)
            return VectorFile.create(path, dim)
        except OSError as exc:
            log.warning("vectors kept in a temporary file, not in %s: %s", folder, exc)
            self._vector_home = None
            return VectorFile.create(None, dim)

    def close(self) -> None:
        """Close the vector file (kept on disk if it has a home). The index stays readable;
        vectors are then read from Chroma again."""
        if self._vectors is not None:
            self._vectors.close(delete=self._vectors.path is None)
            self._vectors = None
            self.records.forget_vector_slots()

    def replace_records(self, stored: Mapping[str, tuple[MemoryRecord, int, int]]) -> None:
        """Make this index hold exactly ``stored`` (id -> record, seq, write stamp), as read
        from Chroma.

        BM25 entries are kept for ids present on both sides as the same memory (see
        :meth:`apply`); the rest are added or removed.
        """
        self.remove([i for i in self.records if i not in stored])
        self.apply(stored)

    def apply(self, stored: Mapping[str, tuple[MemoryRecord, int, int]]) -> tuple[int, int]:
        """Take in records read from Chroma (id -> record, seq, write stamp): new ids are
        added, held ones overwritten (their BM25 entries are kept: the text of a stored
        memory never changes). An id held under another insertion ``seq`` or text was
        deleted and added again (by this writer before a crash, or by another): it is
        indexed afresh, its old postings, timeline place and vector dropped. Returns how many
        were added and updated."""
        self.remove([i for i in stored if i in self.records and self._readded(i, stored[i])])
        missing = [i for i in stored if i not in self.records]
        held = [i for i in stored if i in self.records]
        for i in held:
            record, _, stamp = stored[i]
            self.records.put(record, stamp=stamp)
        self.changes.touch(held)
        if missing:
            self.add(
                [stored[i][0] for i in missing],
                [stored[i][1] for i in missing],
                [stored[i][2] for i in missing],
            )
        self.horizon = max([self.horizon, *(stored[i][2] for i in held)])
        return len(missing), len(held)

    def _readded(self, memory_id: str, stored: tuple[MemoryRecord, int, int]) -> bool:
        """Whether ``stored`` is another memory under a held id: a new insertion (``seq``)
        or another text (ids are the user's, and may be re-used after a delete)."""
        record, seq, _ = stored
        held = self.records
        return held.seq(memory_id) != seq or held.text(held.row(memory_id)) != record.text

    # ------------------------------------------------------------------ persistence
    def save(self, folder: Path, stem: str, generation: int) -> None:
        """Save the index beside the store: only what changed since the saved copy it extends
        while that is little and no vector file is kept (:mod:`cogmem.changes`), else whole.

        Whole, ``<stem>.bm25.npz`` and ``<stem>.records.pkl`` are written atomically; the
        records name the vector file when it is kept in ``folder`` (rewritten first if
        deletes left it mostly dead)."""
        folder.mkdir(parents=True, exist_ok=True)
        file = self._vectors
        kept = file is not None and file.path is not None and file.path.parent == folder
        if not kept and self.changes.few(len(self.records)):
            write_changes(folder, stem, self.records, self.changes, generation, self.horizon)
            return
        bm25_path = folder / f"{stem}.bm25.npz"
        if self.records.holes():
            self._renumber(self.records.compact())
        replaced: VectorFile | None = None
        if file is not None and kept:
            slots = self.records.column("vec")
            live = np.flatnonzero(slots >= 0)
            if len(file) - len(live) > max(_MIN_DEAD_SLOTS, len(live) // 4):
                path = folder / f"{stem}.{uuid.uuid4().hex[:12]}.vectors"
                ids = [self.records.id_at(int(r)) for r in live]
                fresh, moved = file.compacted(slots[live].tolist(), ids, path)
                self.records.set_vector_slots(live.tolist(), moved)
                replaced, file = file, fresh
                self._vectors = fresh
        state = self.records.to_state()  # copies: the records may change once this returns
        if not kept:
            state["columns"]["vec"][:] = -1
        rest = {
            "generation": generation,
            "horizon": self.horizon,
            "tokenizer": _tokenizer_key(self.tokenizer),
            "vectors": file.path.name if kept and file is not None and file.path else None,
        }
        # The records are compressed on a thread while the BM25 file is written (Zstandard
        # releases the GIL); then the file is written, its head holding the checks of the
        # rest and of the BM25 file.
        pieces = run_aside(lambda: records_file.pack_records(state, rest))
        try:
            # The records hold the BM25 index's ids in its order: its file leaves them out.
            self.bm25.save(bm25_path, ids_held=self.records.id_map)
        finally:
            body = pieces()
        head = records_file.head(body, bm25_path.read_bytes())
        write_atomically(folder / f"{stem}.records.pkl", [head, *body])
        self.changes.restart(None if kept else records_file.own_check(head))
        with contextlib.suppress(OSError):  # changes on another copy are never read
            changes_path(folder, stem).unlink(missing_ok=True)
        if replaced is not None:
            replaced.close(delete=True)

    @staticmethod
    def saved(folder: Path, stem: str) -> bool:
        """Whether ``folder`` holds a saved index of ``stem`` (current or not)."""
        return (folder / f"{stem}.bm25.npz").exists()

    @staticmethod
    def saved_size(folder: Path, stem: str) -> int:
        """How many memories the saved index of ``stem`` holds, read from its BM25 file's
        head alone (unchecked: a hint, 0 when unreadable)."""
        return BM25Index.saved_count(folder / f"{stem}.bm25.npz")

    @classmethod
    def load(
        cls, folder: Path, stem: str, tokenizer: Tokenizer, *, keep_vectors: bool = False
    ) -> tuple[NamespaceIndex, int]:
        """Read what :meth:`save` wrote (the copy, then the changes made on it); returns the
        index and the generation it reflects.

        Args:
            folder: Where it was saved.
            stem: The namespace's file stem.
            tokenizer: The tokenizer the store uses (must be the one saved with).
            keep_vectors: Reopen the vector file named in the records and keep vectors in
                ``folder`` from now on (a store with a single writer); other vector files of
                ``stem`` there are deleted. Otherwise no vector is taken from ``folder``.

        Raises:
            StoreError: Missing, corrupt, from another tokenizer, or the files disagree.
        """
        path = folder / f"{stem}.records.pkl"
        bm25_path = folder / f"{stem}.bm25.npz"
        try:
            raw = path.read_bytes()
            bm25_raw = bm25_path.read_bytes()
        except OSError as exc:
            raise StoreError(f"{path}: unreadable ({exc})") from exc
        payload = records_file.read_records(path, raw, bm25_path, bm25_raw)
        check = records_file.own_check(raw)
        del raw
        if payload.get("tokenizer") != _tokenizer_key(tokenizer):
            raise StoreError(f"{path}: written with another tokenizer")
        try:
            records = RecordTable.from_state(payload["records"], owned=payload["format"] >= 8)
            generation = int(payload["generation"])
            horizon = int(payload.get("horizon", 0))
            name = payload.get("vectors")
        except StoreError:
            raise
        except Exception as exc:  # a payload of another shape
            raise StoreError(f"{path}: unreadable ({exc})") from exc
        bm25 = BM25Index.load(io.BytesIO(bm25_raw), name=str(bm25_path), ids_held=records.id_map)
        if not records.id_map.same_ids(bm25.id_map):
            raise StoreError(f"{path}: records and BM25 index hold different memories")
        home = (folder, stem) if keep_vectors else None
        index = cls(bm25, tokenizer, records.namespace, records, vector_home=home)
        index.horizon = horizon
        named = isinstance(name, str) and re.fullmatch(
            rf"{re.escape(stem)}\.[0-9a-f]+\.vectors", name
        )
        if keep_vectors and named:
            index._vectors = VectorFile.open(folder / str(name))
        if index._vectors is None:
            records.forget_vector_slots()
        if keep_vectors:
            try:
                _drop_vector_files(folder, stem, keep=str(name) if index._vectors else None)
            except OSError as exc:  # left over files cost disk, never correctness
                log.warning("could not delete old vector files in %s: %s", folder, exc)
        # Changes are written only on a copy that names no vector file.
        index.changes.restart(check if name is None else None)
        changes = read_changes(folder, stem, index.changes.base)
        if changes is not None:
            index.remove(changes.gone)
            index.apply(changes.stored)
            index.horizon = max(index.horizon, changes.horizon)
            generation = changes.generation
        return index, generation


def _drop_vector_files(folder: Path, stem: str, keep: str | None) -> None:
    """Delete ``stem``'s vector files in ``folder`` other than ``keep`` (left by a run that
    died before saving, or by a rewrite)."""
    for path in matching(folder, stem, ".vectors"):
        if path.name != keep:
            path.unlink(missing_ok=True)


def _tokenizer_key(tokenizer: Tokenizer) -> str:
    return f"{tokenizer.language}|stem={tokenizer.stem}|stop={len(tokenizer.stopwords)}"
