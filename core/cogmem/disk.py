"""The disk under a folder store: free space before a write, its errors as cogmem's, and a
file written whole or not at all.

Why a free-space check: Chroma's embedded store does not survive running out of disk. The
write that fills it fails with ``database or disk is full``; later writes in the same process
fail too, even after space is freed, and one pattern seen here (a small add after the failed
one) blocks forever inside Chroma's Rust code while holding the GIL, so the whole process stops.
A new process opens the store again once there is room. So cogmem makes sure Chroma never meets
a full disk: before each write to a folder store it asks the filesystem (``statvfs``, a few
microseconds) for what the write may need plus a reserve, and refuses with
:class:`~cogmem.errors.DiskFullError` when it is not there. Nothing is written then, and the
same call succeeds once space is freed.

What a write may need is an estimate, generous on purpose (measured growth of a Chroma folder
is ~4 KB per memory at dimension 256 with short texts)::

    bytes(add of n memories) = n · (12 · dim + 4 · text bytes + 4096)
    bytes(update of n)       = n · 4096

The reserve (``config.disk_reserve_mb``, 64 MiB by default) covers what no estimate sees:
SQLite's temporary files and Chroma's compaction of its log into segments.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from .errors import DiskFullError, StorageError

__all__ = [
    "add_bytes",
    "check_space",
    "free_bytes",
    "is_disk_full",
    "storage_error",
    "update_bytes",
    "write_atomically",
]

_PER_RECORD = 4096
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)
# How Chroma (through SQLite) words a full disk; its errors carry no errno.
_FULL_WORDS = ("disk is full", "no space left", "database or disk is full", "quota exceeded")


def add_bytes(dim: int, texts: Sequence[str]) -> int:
    """What adding memories of these ``texts`` at dimension ``dim`` may take on disk (bytes)."""
    return sum(12 * dim + 4 * len(t.encode("utf-8", "surrogatepass")) + _PER_RECORD for t in texts)


def update_bytes(count: int) -> int:
    """What rewriting the metadata of ``count`` memories may take on disk (bytes)."""
    return count * _PER_RECORD


def free_bytes(path: Path) -> int | None:
    """Bytes free for this process on the filesystem of ``path`` (``None`` if it cannot be
    told, e.g. no ``statvfs`` on this platform or the folder is gone)."""
    statvfs = getattr(os, "statvfs", None)
    if statvfs is None:  # pragma: no cover - Windows
        return None
    try:
        stats = statvfs(path)
    except OSError:
        return None
    return int(stats.f_bavail) * int(stats.f_frsize)


def check_space(path: Path, needed: int, reserve: int) -> None:
    """Refuse a write that would leave less than ``reserve`` bytes free under ``path``.

    Raises:
        DiskFullError: ``needed + reserve`` bytes are not free (names the path and the bytes).
    """
    free = free_bytes(path)
    if free is not None and free < needed + reserve:
        raise DiskFullError(
            f"not enough free disk space under {path}: {_mb(free)} free, a write of up to "
            f"{_mb(needed)} needs {_mb(needed + reserve)} (a reserve of {_mb(reserve)} is kept: "
            "Chroma does not survive a full disk). Nothing was written; free space and retry "
            "(config.disk_reserve_mb sets the reserve)",
            path=str(path),
        )


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) says the disk or a quota is full."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _NO_SPACE:
            return True
        if any(word in str(current).lower() for word in _FULL_WORDS):
            return True
        current = current.__cause__ or current.__context__
    return False


_CHROMA_HINT = (
    "Chroma's embedded store writes to its folder even to open it, so the folder must be "
    "writable; copy a read-only store to a writable folder to read it"
)


def storage_error(
    action: str, path: Path | str, exc: BaseException, *, chroma: bool = False
) -> StorageError:
    """The cogmem error for a failed read or write of ``path`` (the caller raises it ``from
    exc``): :class:`~cogmem.errors.DiskFullError` for a full disk, else
    :class:`~cogmem.errors.StorageError`, each naming the path and what the disk said.

    ``chroma``: Chroma's own files failed (a read-only folder cannot hold a store at all)."""
    where = str(path)
    if is_disk_full(exc):
        return DiskFullError(
            f"{action} failed: the disk under {where} is full ({exc}); free space and retry",
            path=where,
        )
    hint = ""
    said = str(exc).lower()
    if (isinstance(exc, OSError) and exc.errno in _READ_ONLY) or any(
        word in said for word in ("readonly", "read-only", "unable to open database")
    ):
        hint = f"; {_CHROMA_HINT if chroma else 'the folder is read-only for this process'}"
    return StorageError(f"{action} failed for {where}: {exc}{hint}", path=where)


def _mb(value: int) -> str:
    return f"{value / 2**20:.1f} MiB"


def write_atomically(path: Path, pieces: Iterable[bytes | memoryview]) -> None:
    """Write ``pieces`` back to back as ``path``: to a temporary file in its folder, synced,
    renamed over it and the folder synced, so ``path`` is the old file or the new one, never
    a part, and stays so through a power cut.

    Raises:
        OSError: The disk refused; ``path`` is as it was and no temporary file is left.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            for piece in pieces:
                fh.write(piece)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if hasattr(os, "O_DIRECTORY"):  # the rename itself, on a POSIX system
        with contextlib.suppress(OSError):
            folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
