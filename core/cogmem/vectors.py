"""Embeddings kept beside the index in a file of fixed-size slots, read back by seek and read.

A search needs the embeddings of a few dozen memories (the cosine of a memory found only by
its words; the similarity between versions of a fact). Chroma returns them through a ``get``,
a call as costly as the rest of the search beside its ANN query; held
in RAM they would cost 1.5 KB per memory (150 MB at 100k). Here they sit in a file, one slot
per memory, and a lookup reads its slots (a few microseconds each, from the page cache, which
is not the process's RSS).

Layout: a 32-byte header (magic, dimension), then slots of ``4 + 4 · dim`` bytes::

    crc32(id UTF-8 ‖ vector bytes)   u32, little-endian
    vector                            dim × float32, little-endian

The file is a cache of what Chroma holds, never a source of truth: a slot whose checksum does
not match the id it is read for (a torn write, a stale or foreign file) is reported missing and
read again from Chroma by the caller. Slots are appended and never rewritten in place; the
owner (:class:`~cogmem.index.NamespaceIndex`) records which slot holds which memory, and
:meth:`VectorFile.compacted` copies the live slots into a new file when deletes have left many
dead ones. Not thread-safe: the caller locks.
"""

from __future__ import annotations

import io
import os
import struct
import tempfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = ["VectorFile"]

_MAGIC = b"cogmem-vectors\x00\x01"  # 16 bytes, the last one the format version
_HEADER = struct.Struct("<16sI12x")  # magic, dim, padding to 32 bytes
_CHECK = 4  # bytes of the per-slot checksum
_WRITE_ROWS = 64

FloatArray = npt.NDArray[np.float32]

_advise = getattr(os, "posix_fadvise", None)  # not on macOS or Windows
_WILLNEED = getattr(os, "POSIX_FADV_WILLNEED", 3)


def _checksum(memory_id: str, vector: bytes | memoryview) -> int:
    return zlib.crc32(vector, zlib.crc32(memory_id.encode("utf-8")))


class VectorFile:
    """Fixed-dimension embeddings in numbered slots of one file.

    Use :meth:`create` or :meth:`open`; ``path=None`` makes an anonymous temporary file
    (deleted when closed), for stores that keep nothing between runs.

    Attributes:
        dim: The dimension of every vector.
        path: The file, or ``None`` for an anonymous one.
    """

    def __init__(self, fh: io.FileIO, dim: int, path: Path | None) -> None:
        self._fh = fh
        self.dim = dim
        self.path = path
        self._slot_bytes = _CHECK + 4 * dim
        end = fh.seek(0, 2)
        # A write cut short by a crash leaves a partial slot at the end: start after it.
        self._slots = -(-(end - _HEADER.size) // self._slot_bytes)

    @classmethod
    def create(cls, path: Path | None, dim: int) -> VectorFile:
        """A new, empty file at ``path`` (replacing any), or an anonymous one."""
        if dim < 1:
            raise ValueError(f"vectors need a dimension of at least 1, got {dim}")
        # Unbuffered: every access seeks, so a read-ahead buffer would only be thrown away.
        # The VectorFile holds the file open until close().
        fh = (
            tempfile.TemporaryFile(buffering=0)  # noqa: SIM115
            if path is None
            else open(path, "w+b", 0)  # noqa: SIM115
        )
        file = cls(fh, dim, path)
        file._write_at(0, _HEADER.pack(_MAGIC, dim))
        file._slots = 0
        return file

    @classmethod
    def open(cls, path: Path, dim: int | None = None) -> VectorFile | None:
        """The file at ``path``; ``None`` if it is missing, is not a vector file, or holds
        vectors of another dimension than ``dim``."""
        try:
            fh = open(path, "r+b", 0)  # noqa: SIM115 (held until close())
        except OSError:  # missing, or read-only (then it cannot take new slots: start anew)
            return None
        head = fh.read(_HEADER.size) or b""
        magic, held = _HEADER.unpack(head) if len(head) == _HEADER.size else (b"", 0)
        if magic != _MAGIC or held < 1 or (dim is not None and held != dim):
            fh.close()
            return None
        return cls(fh, held, path)

    def __len__(self) -> int:
        """Slots written (live or not)."""
        return self._slots

    def append(self, ids: Sequence[str], vectors: FloatArray) -> list[int]:
        """Write one slot per id; returns their slot numbers.

        Raises:
            ValueError: ``vectors`` is not ``len(ids)`` rows of this file's dimension.
        """
        matrix = np.ascontiguousarray(vectors, dtype="<f4")
        if matrix.shape != (len(ids), self.dim):
            raise ValueError(
                f"expected {len(ids)} vectors of dimension {self.dim}, got shape {matrix.shape}"
            )
        if not ids:
            return []
        first = self._slots
        size = self._slot_bytes
        # In pieces of _WRITE_ROWS slots: a whole batch's copy (1.5 MB per 1,000) would be
        # one more large transient allocation beside the caller's.
        for start in range(0, len(ids), _WRITE_ROWS):
            part = matrix[start : start + _WRITE_ROWS]
            out = np.empty((part.shape[0], size), dtype=np.uint8)
            out[:, _CHECK:] = part.view(np.uint8).reshape(part.shape[0], -1)
            checks = out[:, :_CHECK].view("<u4")
            for n, memory_id in enumerate(ids[start : start + _WRITE_ROWS]):
                checks[n, 0] = _checksum(memory_id, part[n].data)
            self._write_at(_HEADER.size + (first + start) * size, out.data)
        self._slots += len(ids)
        return list(range(first, first + len(ids)))

    def _write_at(self, offset: int, data: bytes | memoryview) -> None:
        view = memoryview(data).cast("B")
        self._fh.seek(offset)
        while view:  # an unbuffered write may take only part
            written = self._fh.write(view)
            if not written:
                raise OSError(f"could not write to the vector file {self.path or '(temporary)'}")
            view = view[written:]

    def read(self, slots: Sequence[int], ids: Sequence[str]) -> list[FloatArray | None]:
        """The vectors in ``slots``, each checked against the id it is read for: ``None``
        where the slot is out of range or holds something else."""
        size = self._slot_bytes
        buf = np.zeros((len(slots), size), dtype=np.uint8)
        out: list[FloatArray | None] = []
        fh = self._fh
        if _advise is not None and len(slots) > 1:
            # Pages evicted from the cache are read from disk: ask for all of them first, so
            # that the disk serves them together rather than one read after another.
            fd = fh.fileno()
            for slot in slots:
                if 0 <= slot < self._slots:
                    _advise(fd, _HEADER.size + slot * size, size, _WILLNEED)
        for n, (slot, memory_id) in enumerate(zip(slots, ids, strict=True)):
            if not 0 <= slot < self._slots:
                out.append(None)
                continue
            fh.seek(_HEADER.size + slot * size)
            row = buf[n]
            if fh.readinto(row.data) != size:
                out.append(None)
                continue
            vector = row[_CHECK:].view("<f4")
            ok = int(row[:_CHECK].view("<u4")[0]) == _checksum(memory_id, vector.data)
            out.append(vector.astype(np.float32, copy=False) if ok else None)
        return out

    def compacted(
        self, slots: Sequence[int], ids: Sequence[str], path: Path | None
    ) -> tuple[VectorFile, list[int]]:
        """A new file at ``path`` holding only ``slots`` (in that order), and their new slot
        numbers (``-1`` where a slot could not be read back). This file is left as it is."""
        fresh = VectorFile.create(path, self.dim)
        kept: list[int] = []
        step = 4096
        try:
            for start in range(0, len(slots), step):
                part_ids = ids[start : start + step]
                got = self.read(slots[start : start + step], part_ids)
                good = [n for n, v in enumerate(got) if v is not None]
                matrix = np.array([got[n] for n in good], dtype=np.float32).reshape(-1, self.dim)
                placed = dict(zip(good, fresh.append([part_ids[n] for n in good], matrix)))
                kept += [placed.get(n, -1) for n in range(len(part_ids))]
        except BaseException:
            fresh.close(delete=True)
            raise
        return fresh, kept

    def close(self, *, delete: bool = False) -> None:
        """Close the file (idempotent); ``delete`` also removes it."""
        self._fh.close()
        if delete and self.path is not None:
            self.path.unlink(missing_ok=True)
