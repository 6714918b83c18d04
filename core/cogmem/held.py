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

Journal format, one frame per ``add``/``add_many`` call::

    b"CGJ2" | n: u32 LE | crc32(payload): u32 LE | crc32(the 12 bytes before): u32 LE
            | payload: n bytes of UTF-8 JSON

    payload = {"ids": [...], "documents": [...], "metadatas": [...],  # as Chroma stores them
               "dim": d, "vectors": base64 of the float32 little-endian matrix (rows × d)}

A frame is written with one ``write``; if that fails the file is cut back to its previous
length. Reading (:func:`read_frames`) tells three things apart:

* a *torn tail*: the last bytes hold less than a header, or a header that checks out and
  announces more bytes than follow: an add that never returned (its ``write`` was cut short),
  dropped without a word;
* *damage*: a header or payload that does not check out although the bytes are all there, or a
  payload that checks out but cannot be decoded: an acknowledged add the disk garbled. Reading
  resynchronises at the next header that checks out, so one bad frame costs only itself, and
  the damage is reported (offset, length, why);
* the good frames, all of them.

Frames of the first format (``b"CGJ1"``, no header checksum) are still read.

Ownership: each writer (one ``CognitiveMemory``) has its own file ``<stem>.<writer>.journal``,
held under an exclusive ``flock`` while it is open. A journal whose lock can be taken belongs to
nobody alive (its owner died: the kernel released the lock) and may be replayed.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import shutil
import struct
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .chroma_layout import from_chroma, to_metadata
from .disk import storage_error
from .errors import StoreError
from .records import MemoryRecord

try:  # POSIX only; elsewhere folder stores write every add through
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "JOURNALS_SUPPORTED",
    "AddJournal",
    "Damage",
    "HeldAdds",
    "JournalEntry",
    "JournalRead",
    "claim_orphans",
    "mirror_path",
    "read_frames",
    "read_orphans",
    "read_pair",
]

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float32]

JOURNALS_SUPPORTED = fcntl is not None
"""Whether this platform has ``flock`` (journals, hence buffered adds on folder stores)."""

_MAGIC = b"CGJ2"
_HEADER = struct.Struct("<4sIII")  # magic, payload length, crc32 of payload, crc32 of the rest
_OLD_MAGIC = b"CGJ1"
_OLD_HEADER = struct.Struct("<4sII")  # magic, payload length, crc32 of the payload
_SUFFIX = ".journal"
_MIRROR = ".mirror"
_DAMAGED = ".damaged"
_sync = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync


@dataclass(frozen=True)
class JournalEntry:
    """One memory read back from a journal."""

    record: MemoryRecord
    seq: int
    vector: FloatArray


@dataclass(frozen=True)
class Damage:
    """Bytes of a journal that could not be read back although they were written whole.

    Attributes:
        offset: Where they start in the file.
        length: How many bytes were skipped.
        reason: What did not check out.
    """

    offset: int
    length: int
    reason: str


@dataclass(frozen=True)
class JournalRead:
    """What :func:`read_frames` found: every entry of every good frame, and the damage."""

    entries: list[JournalEntry]
    damage: list[Damage]


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
    head = struct.pack("<4sII", _MAGIC, len(payload), zlib.crc32(payload))
    return head + struct.pack("<I", zlib.crc32(head)) + payload


def _decode_payload(payload: bytes) -> list[JournalEntry]:
    """The entries of one frame's payload.

    Raises:
        ValueError: It is not what :func:`encode_frame` writes.
    """
    try:
        frame = json.loads(payload.decode("utf-8", "surrogatepass"))
        dim = int(frame["dim"])
        matrix = np.frombuffer(base64.b64decode(frame["vectors"]), dtype="<f4")
        matrix = matrix.reshape(-1, dim).astype(np.float32)
        return [
            JournalEntry(from_chroma(memory_id, doc, meta), int(meta["seq"]), matrix[i])
            for i, (memory_id, doc, meta) in enumerate(
                zip(frame["ids"], frame["documents"], frame["metadatas"], strict=True)
            )
        ]
    except (KeyError, TypeError, ValueError, StoreError) as exc:
        raise ValueError(f"payload cannot be decoded ({exc})") from exc


def _header_at(data: bytes, at: int) -> tuple[int, int, int] | None:
    """``(header size, payload size, payload crc)`` of a header that checks out at ``at``."""
    if data[at : at + 4] == _MAGIC and at + _HEADER.size <= len(data):
        _, size, crc, check = _HEADER.unpack_from(data, at)
        if zlib.crc32(data[at : at + _HEADER.size - 4]) == check:
            return _HEADER.size, size, crc
        return None
    if data[at : at + 4] == _OLD_MAGIC and at + _OLD_HEADER.size <= len(data):
        _, size, crc = _OLD_HEADER.unpack_from(data, at)
        return _OLD_HEADER.size, size, crc
    return None


def _next_header(data: bytes, start: int) -> int:
    """The offset of the next header that checks out at or after ``start`` (or the end)."""
    at = start
    while True:
        found = [i for i in (data.find(_MAGIC, at), data.find(_OLD_MAGIC, at)) if i >= 0]
        if not found:
            return len(data)
        at = min(found)
        if _header_at(data, at) is not None:
            return at
        at += 1


def read_frames(data: bytes) -> JournalRead:
    """Every good frame of ``data``, past any damage, and the damage (see the module docstring
    for how a torn tail is told from damage)."""
    entries: list[JournalEntry] = []
    damage: list[Damage] = []
    at = 0
    while at < len(data):
        header = _header_at(data, at)
        rest = data[at : at + 4]
        if header is None and len(data) - at < _HEADER.size and _MAGIC.startswith(rest):
            break  # a torn header: the tail of an add that never returned
        if header is None:
            nxt = _next_header(data, at + 1)
            damage.append(Damage(at, nxt - at, "not a frame header that checks out"))
            at = nxt
            continue
        head, size, crc = header
        end = at + head + size
        if end > len(data):
            nxt = _next_header(data, at + 1)
            if nxt == len(data):
                break  # a torn tail: this add never returned
            damage.append(Damage(at, nxt - at, "frame runs past the next frame"))
            at = nxt
            continue
        payload = data[at + head : end]
        if zlib.crc32(payload) != crc:
            nxt = end if head == _HEADER.size else _next_header(data, at + 1)
            damage.append(Damage(at, nxt - at, "payload checksum does not match"))
            at = nxt
            continue
        try:
            entries.extend(_decode_payload(payload))
        except ValueError as exc:
            damage.append(Damage(at, end - at, f"checksum matches but {exc}"))
        at = end
    return JournalRead(entries, damage)


def decode_frames(data: bytes) -> list[JournalEntry]:
    """The entries of every good frame of ``data`` (damage skipped; see :func:`read_frames`)."""
    return read_frames(data).entries


class AddJournal:
    """One writer's journal, held under an exclusive lock while open: every frame is written to
    the file and to its mirror (``<name>.mirror``), each made durable before ``append``
    returns, so that a frame the disk garbles in one copy is read from the other.

    Not thread-safe: the caller serialises access (``CognitiveMemory`` holds its lock).

    Args:
        path: The file (its mirror beside it); created if absent.

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
        self._fds: tuple[int, int] | None = (fd, copy)
        self._sizes = [os.fstat(fd).st_size, os.fstat(copy).st_size]

    @classmethod
    def claim(cls, path: Path) -> AddJournal | None:
        """Open and lock an existing journal, or ``None`` if a live writer holds it (or it is
        gone: another process replayed it first)."""
        try:
            return cls(path) if path.exists() else None
        except StoreError:
            return None

    def entries(self) -> list[JournalEntry]:
        """Every memory the journal holds in good frames, in the order written."""
        return self.read().entries

    def read(self) -> JournalRead:
        """Every memory the journal and its mirror hold in good frames, and the damage that
        neither copy could make good (see :func:`read_pair`)."""
        fd, copy = self._open_fds()
        return read_pair(
            os.pread(fd, os.fstat(fd).st_size, 0), os.pread(copy, os.fstat(copy).st_size, 0)
        )

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

    def clear(self) -> None:
        """Empty the journal (its memories are in Chroma)."""
        fds = self._open_fds()
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
        self.release()
        return target

    def release(self) -> None:
        """Close the files (releasing the lock) and leave them as they are."""
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None

    def _open_fds(self) -> tuple[int, int]:
        if self._fds is None:
            raise StoreError(f"the add journal {self.path} is closed")
        return self._fds


def mirror_path(path: Path) -> Path:
    """Where the mirror of the journal at ``path`` is kept."""
    return path.with_name(f"{path.name}{_MIRROR}")


def read_pair(data: bytes, mirror: bytes | None) -> JournalRead:
    """What a journal and its mirror hold together: the entries of either copy's good frames
    (each memory once, in the order written), and damage only where neither copy is whole
    (when one copy reads without damage, it holds every frame: nothing is lost)."""
    first = read_frames(data)
    if mirror is None:
        return first
    second = read_frames(mirror)
    seen: set[str] = set()
    entries: list[JournalEntry] = []
    for entry in sorted([*first.entries, *second.entries], key=lambda e: e.seq):
        if entry.record.id not in seen:
            seen.add(entry.record.id)
            entries.append(entry)
    damage = [] if not first.damage or not second.damage else [*first.damage, *second.damage]
    return JournalRead(entries, damage)


def journal_path(folder: Path, stem: str, writer: str) -> Path:
    """Where writer ``writer`` journals the adds of the namespace whose files are ``stem``."""
    return folder / f"{stem}.{writer}{_SUFFIX}"


def claim_orphans(folder: Path, stem: str) -> list[AddJournal]:
    """The journals of namespace ``stem`` in ``folder`` that no live writer holds, locked for
    the caller (who replays each, then calls :meth:`AddJournal.discard`, or
    :meth:`AddJournal.release` to leave it for later)."""
    if not JOURNALS_SUPPORTED or not folder.is_dir():
        return []
    _restore_from_mirrors(folder, stem)
    found = sorted(folder.glob(f"{stem}.*{_SUFFIX}"))
    return [j for j in (AddJournal.claim(p) for p in found) if j is not None]


def _restore_from_mirrors(folder: Path, stem: str) -> None:
    """Bring back a journal whose file is gone but whose mirror is there (a copy of it)."""
    for mirror in sorted(folder.glob(f"{stem}.*{_SUFFIX}{_MIRROR}")):
        primary = mirror.with_name(mirror.name[: -len(_MIRROR)])
        if not primary.exists():
            log.warning("the add journal %s was missing: restored from its mirror", primary)
            shutil.copyfile(mirror, primary)


def read_orphans(folder: Path, stem: str) -> list[JournalEntry]:
    """What the journals of namespace ``stem`` in ``folder`` hold, read without claiming them
    (for a read-only store, whose open excludes every writer: they are all orphans)."""
    out: list[JournalEntry] = []
    if not folder.is_dir():
        return out
    names = {p.name for p in folder.glob(f"{stem}.*{_SUFFIX}")}
    names |= {p.name[: -len(_MIRROR)] for p in folder.glob(f"{stem}.*{_SUFFIX}{_MIRROR}")}
    for path in (folder / name for name in sorted(names)):
        try:
            copy = mirror_path(path)
            mirror = copy.read_bytes() if copy.exists() else None
            data = path.read_bytes() if path.exists() else mirror or b""
            out.extend(read_pair(data, mirror).entries)
        except OSError as exc:
            log.warning("could not read the add journal %s: %s", path, exc)
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

    def _raw(self) -> FloatArray:
        if len(self._parts) > 1:
            self._parts = [np.concatenate(self._parts)]
        return self._parts[0]
