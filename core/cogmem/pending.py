"""Adds acknowledged but not yet in Chroma: the buffer that holds them and its journal.

Why: a Chroma ``add`` costs 4-8 ms whatever its size (measured at 100k memories, in memory and
on disk; most of it inside Chroma's own write path), more than half of a whole cogmem search.
So :class:`~cogmem.CognitiveMemory` writes small adds to Chroma in groups
(``config.add_flush_size``). Until its group is written, a memory is held in the namespace's
in-memory index (BM25, records: searchable at once), and its vector in a :class:`PendingAdds`,
which the dense side of a search scans exactly (a few dozen rows) beside Chroma's ANN results.

Durability: on a folder store every buffered add is first appended to the writer's
:class:`AddJournal` and made durable (``fdatasync``) before ``add`` returns; the journal is
emptied once its memories are in Chroma. A process that dies leaves its journal behind, and the
next one to open the namespace writes what Chroma lacks (:func:`claim_orphans`). A private
in-process store needs no journal: nothing outlives its process.

Journal format, one frame per ``add``/``add_many`` call::

    b"CGJ1" | n: u32 LE | crc32(payload): u32 LE | payload: n bytes of UTF-8 JSON

    payload = {"ids": [...], "documents": [...], "metadatas": [...],  # as Chroma stores them
               "dim": d, "vectors": base64 of the float32 little-endian matrix (rows × d)}

A frame is written with one ``write``; if that fails the file is cut back to its previous
length, so a torn or corrupt frame can only be the last, from an add that never returned, and
reading stops there.

Ownership: each writer (one ``CognitiveMemory``) has its own file ``<stem>.<writer>.journal``,
held under an exclusive ``flock`` while it is open. A journal whose lock can be taken belongs to
nobody alive (its owner died: the kernel released the lock) and may be replayed.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import struct
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .errors import StoreError
from .records import MemoryRecord
from .store import from_chroma, to_metadata

try:  # POSIX only; elsewhere folder stores write every add through
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "JOURNALS_SUPPORTED",
    "AddJournal",
    "JournalEntry",
    "PendingAdds",
    "claim_orphans",
]

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float32]

JOURNALS_SUPPORTED = fcntl is not None
"""Whether this platform has ``flock`` (journals, hence buffered adds on folder stores)."""

_MAGIC = b"CGJ1"
_HEADER = struct.Struct("<4sII")  # magic, payload length, crc32 of the payload
_SUFFIX = ".journal"
_sync = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync


@dataclass(frozen=True)
class JournalEntry:
    """One memory read back from a journal."""

    record: MemoryRecord
    seq: int
    vector: FloatArray


def encode_frame(
    records: Sequence[MemoryRecord], seqs: Sequence[int], vectors: FloatArray
) -> bytes:
    """One journal frame holding ``records`` (with their insertion stamps) and ``vectors``."""
    matrix = np.ascontiguousarray(vectors, dtype="<f4")
    payload = json.dumps(
        {
            "ids": [r.id for r in records],
            "documents": [r.text for r in records],
            "metadatas": [to_metadata(r, s) for r, s in zip(records, seqs, strict=True)],
            "dim": int(matrix.shape[1]),
            "vectors": base64.b64encode(matrix.tobytes()).decode("ascii"),
        },
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8", "surrogatepass")
    return _HEADER.pack(_MAGIC, len(payload), zlib.crc32(payload)) + payload


def decode_frames(data: bytes) -> list[JournalEntry]:
    """The entries of every whole, intact frame of ``data``, up to the first that is not."""
    out: list[JournalEntry] = []
    at = 0
    while at + _HEADER.size <= len(data):
        magic, size, crc = _HEADER.unpack_from(data, at)
        payload = data[at + _HEADER.size : at + _HEADER.size + size]
        if magic != _MAGIC or len(payload) != size or zlib.crc32(payload) != crc:
            break  # the torn tail of an add that never returned
        try:
            frame = json.loads(payload.decode("utf-8", "surrogatepass"))
            dim = int(frame["dim"])
            matrix = np.frombuffer(base64.b64decode(frame["vectors"]), dtype="<f4")
            matrix = matrix.reshape(-1, dim).astype(np.float32)
            for i, (memory_id, doc, meta) in enumerate(
                zip(frame["ids"], frame["documents"], frame["metadatas"], strict=True)
            ):
                out.append(
                    JournalEntry(from_chroma(memory_id, doc, meta), int(meta["seq"]), matrix[i])
                )
        except (KeyError, TypeError, ValueError, StoreError) as exc:
            # The checksum matched, so this was written so: a bug, not a crash. Say so loudly.
            raise StoreError(f"journal frame at byte {at} cannot be read: {exc}") from exc
        at += _HEADER.size + size
    return out


class AddJournal:
    """One writer's journal file, held under an exclusive lock while open.

    Not thread-safe: the caller serialises access (``CognitiveMemory`` holds its lock).

    Args:
        path: The file; created if absent.

    Raises:
        StoreError: The file cannot be opened, or another live writer holds it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise StoreError(f"cannot open the add journal {path}: {exc}") from exc
        if not _try_lock(fd):
            os.close(fd)
            raise StoreError(f"the add journal {path} is held by another live writer")
        self._fd: int | None = fd
        self._size = os.fstat(fd).st_size

    @classmethod
    def claim(cls, path: Path) -> AddJournal | None:
        """Open and lock an existing journal, or ``None`` if a live writer holds it (or it is
        gone: another process replayed it first)."""
        try:
            return cls(path) if path.exists() else None
        except StoreError:
            return None

    def entries(self) -> list[JournalEntry]:
        """Every memory the journal holds, in the order written."""
        fd = self._open_fd()
        return decode_frames(os.pread(fd, os.fstat(fd).st_size, 0))

    def append(
        self, records: Sequence[MemoryRecord], seqs: Sequence[int], vectors: FloatArray
    ) -> None:
        """Write one frame and make it durable; on failure nothing of it stays.

        Raises:
            StoreError: The write or the sync failed (e.g. the disk is full).
        """
        fd = self._open_fd()
        frame = encode_frame(records, seqs, vectors)
        try:
            if os.write(fd, frame) != len(frame):
                raise OSError("short write")
            _sync(fd)
        except OSError as exc:
            try:
                os.ftruncate(fd, self._size)
            except OSError as cut:  # the frame's tail stays torn: reading stops there
                log.error("could not cut the journal %s back: %s", self.path, cut)
            raise StoreError(f"cannot write the add journal {self.path}: {exc}") from exc
        self._size += len(frame)

    def clear(self) -> None:
        """Empty the journal (its memories are in Chroma)."""
        fd = self._open_fd()
        if self._size:
            os.ftruncate(fd, 0)
            _sync(fd)
            self._size = 0

    def discard(self) -> None:
        """Empty the journal, delete its file and release it."""
        if self._fd is None:
            return
        self.clear()
        self.path.unlink(missing_ok=True)
        self.release()

    def release(self) -> None:
        """Close the file (releasing the lock) and leave it as it is."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _open_fd(self) -> int:
        if self._fd is None:
            raise StoreError(f"the add journal {self.path} is closed")
        return self._fd


def journal_path(folder: Path, stem: str, writer: str) -> Path:
    """Where writer ``writer`` journals the adds of the namespace whose files are ``stem``."""
    return folder / f"{stem}.{writer}{_SUFFIX}"


def claim_orphans(folder: Path, stem: str) -> list[AddJournal]:
    """The journals of namespace ``stem`` in ``folder`` that no live writer holds, locked for
    the caller (who replays each, then calls :meth:`AddJournal.discard`, or
    :meth:`AddJournal.release` to leave it for later)."""
    if not JOURNALS_SUPPORTED or not folder.is_dir():
        return []
    found = sorted(folder.glob(f"{stem}.*{_SUFFIX}"))
    return [j for j in (AddJournal.claim(p) for p in found) if j is not None]


def _try_lock(fd: int) -> bool:
    if fcntl is None:  # pragma: no cover - Windows
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class PendingAdds:
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

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._rows

    @property
    def ids(self) -> list[str]:
        """The pending ids, in the order added."""
        return list(self._ids)

    def add(
        self, records: Sequence[MemoryRecord], seqs: Sequence[int], vectors: FloatArray
    ) -> None:
        """Hold new memories; journaled first (the commit point), so on error none is held.

        Raises:
            StoreError: The journal could not be written.
        """
        if self.journal is not None:
            self.journal.append(records, seqs, vectors)
        if self.since is None:
            self.since = time.monotonic_ns()
        for r in records:
            self._rows[r.id] = len(self._ids)
            self._ids.append(r.id)
        self._parts.append(np.asarray(vectors, dtype=np.float32))
        self._matrix = None

    def vectors(self, ids: Sequence[str]) -> dict[str, FloatArray]:
        """The vectors (as added) of those ``ids`` that are pending."""
        if not self._ids:
            return {}
        raw = self._raw()
        return {i: raw[self._rows[i]] for i in ids if i in self._rows}

    def matrix(self) -> FloatArray:
        """Every pending vector, as added, one row per id of :attr:`ids`."""
        return self._raw()

    def nearest(self, vectors: FloatArray, k: int) -> list[list[tuple[str, float]]]:
        """For each row of ``vectors``, the ``k`` nearest pending ids by cosine, nearest first.

        Exact: ``cos = (q · v) / (|q| |v|)`` over every pending vector (a few dozen rows).
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
        """Forget every pending memory: they are in Chroma now (the journal is emptied)."""
        if self.journal is not None:
            self.journal.clear()
        self._ids, self._rows, self._parts = [], {}, []
        self._matrix = None
        self.since = None

    def _raw(self) -> FloatArray:
        if len(self._parts) > 1:
            self._parts = [np.concatenate(self._parts)]
        return self._parts[0]
