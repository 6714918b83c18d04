"""Adds acknowledged but not yet in Chroma: the buffer that holds them and its journal.

Why: a Chroma ``add`` costs 4-8 ms whatever its size (measured at 100k memories, in memory and
on disk; most of it inside Chroma's own write path), more than half of a whole cogmem search.
So :class:`~cogmem.CognitiveMemory` writes small adds to Chroma in groups
(``config.add_flush_size``). Until its group is written, a memory is held in the namespace's
in-memory index (BM25, records: searchable at once), and its vector in a :class:`HeldAdds`,
which the dense side of a search scans exactly (a few dozen rows) beside Chroma's ANN results.

Durability: on a folder store every buffered add is first appended to the writer's
:class:`AddJournal` and made durable (``fdatasync``) before ``add`` returns, in two files: the
journal and its mirror (``<name>.mirror``), so that bytes the disk garbles in one copy are read
from the other (:func:`read_pair`); the journal is emptied once its memories are in Chroma. A
process that dies leaves its journal behind, and the next one to open the namespace writes what
Chroma lacks (:func:`claim_orphans`). A private in-process store needs no journal: nothing
outlives its process.

The bytes of a journal, and how they are read back past damage, are
:mod:`cogmem.frames`. Both copies cut at one frame boundary, or both deleted, would read as a
shorter journal: each writer's :class:`~cogmem.ledger.Ledger` beside them records how many
memories they must hold, and what falls short is reported as lost
(:attr:`~cogmem.frames.JournalRead.missing`).

Ownership: each writer (one ``CognitiveMemory``) has its own file ``<stem>.<writer>.journal``,
held under an exclusive ``flock`` while it is open. A journal whose lock can be taken belongs to
nobody alive (its owner died: the kernel released the lock) and may be replayed.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .disk import storage_error
from .errors import StoreError
from .frames import JournalEntry, JournalRead, encode_frame, read_pair
from .ledger import LEDGER_SUFFIX, Ledger, ledger_path, read_ledger
from .listing import matching
from .records import MemoryRecord

try:  # POSIX only; elsewhere folder stores write every add through
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "JOURNALS_SUPPORTED",
    "AddJournal",
    "HeldAdds",
    "claim_orphans",
    "journal_path",
    "mirror_path",
    "read_orphan_journals",
]

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float32]

JOURNALS_SUPPORTED = fcntl is not None
"""Whether this platform has ``flock`` (journals, hence buffered adds on folder stores)."""

_SUFFIX = ".journal"
_MIRROR = ".mirror"
_DAMAGED = ".damaged"
_sync = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync


class AddJournal:
    """One writer's journal, held under an exclusive lock while open: every frame is written to
    the file and to its mirror (``<name>.mirror``), each made durable before ``append``
    returns, so that a frame the disk garbles in one copy is read from the other.

    Not thread-safe: the caller serialises access (``CognitiveMemory`` holds its lock).

    Its :class:`~cogmem.ledger.Ledger` records how many memories the two hold.

    Args:
        path: The file (its mirror and ledger beside it); created if absent.

    Raises:
        StorageError: A file cannot be opened.
        StoreError: Another live writer holds it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.mirror = mirror_path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise storage_error("opening the add journal", path, exc) from exc
        if not _try_lock(fd):
            os.close(fd)
            raise StoreError(f"the add journal {path} is held by another live writer")
        try:
            copy = os.open(self.mirror, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            os.close(fd)
            raise storage_error("opening the add journal's mirror", self.mirror, exc) from exc
        try:
            self._ledger = Ledger(ledger_path(path))
        except StoreError:  # unreadable: the journal is not taken
            os.close(fd)
            os.close(copy)
            raise
        self._fds: tuple[int, int] | None = (fd, copy)
        self._sizes = [os.fstat(fd).st_size, os.fstat(copy).st_size]
        self._count = self._ledger.found or 0  # memories the journal holds

    @classmethod
    def claim(cls, path: Path) -> AddJournal | None:
        """Open and lock an existing journal (or one whose ledger is left), or ``None`` if a
        live writer holds it (or it is gone: another process replayed it first)."""
        try:
            return cls(path) if path.exists() or ledger_path(path).exists() else None
        except StoreError:
            return None

    def entries(self) -> list[JournalEntry]:
        """Every memory the journal holds in good frames, in the order written."""
        return self.read().entries

    def read(self) -> JournalRead:
        """Every memory the journal and its mirror hold in good frames, and the damage that
        neither copy could make good (see :func:`read_pair`)."""
        fd, copy = self._open_fds()
        read = read_pair(
            os.pread(fd, os.fstat(fd).st_size, 0), os.pread(copy, os.fstat(copy).st_size, 0)
        )
        return replace(read, expected=self._ledger.found)

    def append(
        self, records: Sequence[MemoryRecord], seqs: Sequence[int], vectors: FloatArray
    ) -> None:
        """Write one frame to both copies and make them durable; on failure nothing of it
        stays.

        Raises:
            DiskFullError: The disk is full (nothing of the frame stays).
            StorageError: A write or a sync failed otherwise.
        """
        fds = self._open_fds()
        frame = encode_frame(records, seqs, vectors)
        try:
            for fd in fds:
                if os.write(fd, frame) != len(frame):
                    raise OSError("short write")
                _sync(fd)
        except OSError as exc:
            for fd, size in zip(fds, self._sizes, strict=True):
                try:
                    os.ftruncate(fd, size)
                except OSError as cut:  # the frame's tail stays torn: dropped when read
                    log.error("could not cut the journal %s back: %s", self.path, cut)
            raise storage_error("writing the add journal", self.path, exc) from exc
        self._sizes = [size + len(frame) for size in self._sizes]
        self._count += len(records)
        self._record(self._count)

    def cut_back(self, sizes: Sequence[int], count: int) -> None:
        """Undo the last appends: both copies back to ``sizes`` bytes, the ledger to
        ``count`` memories (ledger first, so a crash between never counts them short).

        Raises:
            StorageError: A copy could not be cut (the ledger is then left as it was).
        """
        fds = self._open_fds()
        self._count = count
        self._record(count)
        try:
            for fd, size in zip(fds, sizes, strict=True):
                os.ftruncate(fd, size)
                _sync(fd)
        except OSError as exc:
            raise storage_error("cutting the add journal back", self.path, exc) from exc
        self._sizes = list(sizes)

    @property
    def mark(self) -> tuple[list[int], int]:
        """Where the journal stands: both copies' sizes and the memories it holds (for
        :meth:`cut_back`)."""
        return list(self._sizes), self._count

    def clear(self) -> None:
        """Empty the journal (its memories are in Chroma): its ledger first, so that a crash
        in between leaves a journal replayed again (harmless), never one counted short."""
        fds = self._open_fds()
        if self._count:
            self._count = 0
            self._record(0)
        for n, fd in enumerate(fds):
            if self._sizes[n]:
                os.ftruncate(fd, 0)
                _sync(fd)
                self._sizes[n] = 0

    def discard(self) -> None:
        """Empty the journal, delete its files and release it."""
        if self._fds is None:
            return
        self.clear()
        self.mirror.unlink(missing_ok=True)
        self.path.unlink(missing_ok=True)
        self._ledger.close(delete=True)
        self.release()

    def set_aside(self) -> Path:
        """Keep both files under names that no one replays (``<name>.damaged-<UTC time>``,
        and its mirror beside) and release them; returns where the journal went."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = self.path.with_name(f"{self.path.name}{_DAMAGED}-{stamp}")
        n = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.name}{_DAMAGED}-{stamp}-{n}")
            n += 1
        if self.mirror.exists():
            os.replace(self.mirror, target.with_name(f"{target.name}{_MIRROR}"))
        os.replace(self.path, target)
        self._ledger.close(delete=True)  # what it counted is in the report
        self.release()
        return target

    def release(self) -> None:
        """Close the files (releasing the lock) and leave them as they are."""
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None
        self._ledger.close()

    def _record(self, memories: int) -> None:
        try:
            self._ledger.record(memories)
        except OSError as exc:  # behind, it hides a later cut; it never invents a loss
            log.warning("could not update the ledger of %s: %s", self.path, exc)

    def _open_fds(self) -> tuple[int, int]:
        if self._fds is None:
            raise StoreError(f"the add journal {self.path} is closed")
        return self._fds


def mirror_path(path: Path) -> Path:
    """Where the mirror of the journal at ``path`` is kept."""
    return path.with_name(f"{path.name}{_MIRROR}")


def journal_path(folder: Path, stem: str, writer: str) -> Path:
    """Where writer ``writer`` journals the adds of the namespace whose files are ``stem``."""
    return folder / f"{stem}.{writer}{_SUFFIX}"


def claim_orphans(folder: Path, stem: str) -> list[AddJournal]:
    """The journals of namespace ``stem`` in ``folder`` that no live writer holds, locked for
    the caller (who replays each, then calls :meth:`AddJournal.discard`, or
    :meth:`AddJournal.release` to leave it for later)."""
    if not JOURNALS_SUPPORTED or not folder.is_dir():
        return []
    found = set(_restore_from_mirrors(folder, stem))
    found |= set(matching(folder, stem, _SUFFIX))
    # A ledger whose journal is gone (both copies deleted): claimed with empty copies, so the
    # adds it counts are reported lost, not forgotten.
    found |= {p.with_suffix(_SUFFIX) for p in matching(folder, stem, LEDGER_SUFFIX)}
    return [j for j in (AddJournal.claim(p) for p in sorted(found)) if j is not None]


def _restore_from_mirrors(folder: Path, stem: str) -> list[Path]:
    """Bring back each journal whose file is gone but whose mirror is there (a copy of it);
    returns the journals brought back."""
    restored = []
    for mirror in matching(folder, stem, f"{_SUFFIX}{_MIRROR}"):
        primary = mirror.with_name(mirror.name[: -len(_MIRROR)])
        if not primary.exists():
            log.warning("the add journal %s was missing: restored from its mirror", primary)
            shutil.copyfile(mirror, primary)
            restored.append(primary)
    return restored


def read_orphan_journals(folder: Path, stem: str) -> list[tuple[Path, JournalRead]]:
    """What each journal of namespace ``stem`` in ``folder`` holds, read without claiming it
    (for a read-only store, whose open excludes every writer: they are all orphans)."""
    out: list[tuple[Path, JournalRead]] = []
    if not folder.is_dir():
        return out
    names = {p.name for p in matching(folder, stem, _SUFFIX)}
    names |= {p.name[: -len(_MIRROR)] for p in matching(folder, stem, f"{_SUFFIX}{_MIRROR}")}
    names |= {p.with_suffix(_SUFFIX).name for p in matching(folder, stem, LEDGER_SUFFIX)}
    for path in (folder / name for name in sorted(names)):
        try:
            copy = mirror_path(path)
            mirror = copy.read_bytes() if copy.exists() else None
            data = path.read_bytes() if path.exists() else mirror or b""
            read = read_pair(data, mirror)
        except OSError as exc:
            log.warning("could not read the add journal %s: %s", path, exc)
            continue
        out.append((path, replace(read, expected=read_ledger(ledger_path(path)))))
    return out


def _try_lock(fd: int) -> bool:
    if fcntl is None:  # pragma: no cover - Windows
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class HeldAdds:
    """The memories of one namespace added but not yet written to Chroma: their ids and
    vectors (the records themselves live in the namespace's index), and the journal that makes
    them durable (``None`` for an in-process store).

    Not thread-safe: the caller locks.
    """

    def __init__(self, journal: AddJournal | None = None) -> None:
        self.journal = journal
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}
        self._parts: list[FloatArray] = []
        self._matrix: FloatArray | None = None  # unit rows, built when first queried
        self.since: int | None = None  # time.monotonic_ns() of the oldest, for age flushes
        self._last: tuple[list[str], tuple[list[int], int] | None] | None = None

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._rows

    @property
    def ids(self) -> list[str]:
        """The held ids, in the order added."""
        return list(self._ids)

    def add(
        self, records: Sequence[MemoryRecord], seqs: Sequence[int], vectors: FloatArray
    ) -> None:
        """Hold new memories; journaled first (the commit point), so on error none is held.

        Raises:
            StoreError: The journal could not be written.
        """
        mark = None if self.journal is None else self.journal.mark
        if self.journal is not None:
            self.journal.append(records, seqs, vectors)
        self._last = ([r.id for r in records], mark)
        if self.since is None:
            self.since = time.monotonic_ns()
        for r in records:
            self._rows[r.id] = len(self._ids)
            self._ids.append(r.id)
        self._parts.append(np.asarray(vectors, dtype=np.float32))
        self._matrix = None

    def take_back(self, ids: Sequence[str]) -> bool:
        """Forget the last add, when it is exactly ``ids`` (a call that failed after it),
        from memory and from the journal; ``False`` (nothing done) for any other ids.

        Raises:
            StorageError: The journal could not be cut back (the memories stay held).
        """
        if self._last is None or sorted(self._last[0]) != sorted(ids):
            return False
        taken, mark = self._last
        if self.journal is not None and mark is not None:
            self.journal.cut_back(*mark)
        self._last = None
        keep = len(self._ids) - len(taken)
        raw = self._raw()[:keep]
        for memory_id in taken:
            del self._rows[memory_id]
        self._ids = self._ids[:keep]
        self._parts = [raw] if keep else []
        self._matrix = None
        if not self._ids:
            self.since = None
        return True

    def vectors(self, ids: Sequence[str]) -> dict[str, FloatArray]:
        """The vectors (as added) of those ``ids`` that are held."""
        if not self._ids:
            return {}
        raw = self._raw()
        return {i: raw[self._rows[i]] for i in ids if i in self._rows}

    def matrix(self) -> FloatArray:
        """Every held vector, as added, one row per id of :attr:`ids`."""
        return self._raw()

    def nearest(self, vectors: FloatArray, k: int) -> list[list[tuple[str, float]]]:
        """For each row of ``vectors``, the ``k`` nearest held ids by cosine, nearest first.

        Exact: ``cos = (q · v) / (|q| |v|)`` over every held vector (a few dozen rows).
        """
        queries = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        if not self._ids or k <= 0:
            return [[] for _ in range(len(queries))]
        if self._matrix is None:
            raw = self._raw()
            self._matrix = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-12)
        norms = np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-12)
        sims = (queries / norms) @ self._matrix.T
        top = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        return [
            [(self._ids[j], float(row[j])) for j in order]
            for row, order in zip(sims, top, strict=True)
        ]

    def written(self) -> None:
        """Forget every held memory: they are in Chroma now (the journal is emptied)."""
        if self.journal is not None:
            self.journal.clear()
        self._ids, self._rows, self._parts = [], {}, []
        self._matrix = None
        self.since = None
        self._last = None

    def _raw(self) -> FloatArray:
        if len(self._parts) > 1:
            self._parts = [np.concatenate(self._parts)]
        return self._parts[0]
