"""How many memories a writer's add journal must hold, kept beside it, so that a journal cut
or deleted in both copies is found out and reported instead of read as a shorter one.

The journal of held adds (:mod:`cogmem.held`) is written twice, so bytes the disk garbles in
one copy are read from the other. But both copies cut at the same frame boundary, or both
deleted, look exactly like a journal that held less. So each writer also keeps a *ledger*,
``<stem>.<writer>.ledger``, of 16 bytes::

    b"CGL1" | memories: u64 LE | crc32(the 12 bytes before): u32 LE

rewritten in place (one ``pwrite``) after each append is durable in both copies, and set to 0
before the journal is emptied. It is not synced: after a power cut it can only be behind the
journal (it is written after it), which hides a cut but never invents one; a killed process
leaves it exact. Its owner holds it under an exclusive ``flock``, as it holds the journal, so
a ledger whose lock can be taken belongs to a dead writer.
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

from .disk import storage_error
from .errors import StoreError

try:  # POSIX only (as journals are)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["LEDGER_SUFFIX", "Ledger", "ledger_path"]

LEDGER_SUFFIX = ".ledger"
_MAGIC = b"CGL1"
_BODY = struct.Struct("<4sQ")
_CHECK = struct.Struct("<I")
SIZE = _BODY.size + _CHECK.size


def ledger_path(journal: Path) -> Path:
    """The ledger of the journal at ``journal`` (``<stem>.<writer>.journal``)."""
    return journal.with_suffix(LEDGER_SUFFIX)


def encode(memories: int) -> bytes:
    """The 16 bytes recording ``memories``."""
    body = _BODY.pack(_MAGIC, memories)
    return body + _CHECK.pack(zlib.crc32(body))


def decode(data: bytes) -> int | None:
    """The count ``data`` records; ``None`` when it is not a ledger that checks out (empty,
    cut, garbled)."""
    if len(data) != SIZE:
        return None
    magic, memories = _BODY.unpack_from(data)
    (check,) = _CHECK.unpack_from(data, _BODY.size)
    if magic != _MAGIC or zlib.crc32(data[: _BODY.size]) != check:
        return None
    return int(memories)


class Ledger:
    """One writer's ledger, locked while open.

    Args:
        path: The file (created holding 0 if absent).

    Attributes:
        found: What it recorded when opened: the memories its journal must hold (0 for a new
            one), or ``None`` when it did not check out (a cut then goes unnoticed).

    Raises:
        StorageError: It cannot be opened.
        StoreError: A live writer holds it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise storage_error("opening the add journal's ledger", path, exc) from exc
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise StoreError(f"the ledger {path} is held by another live writer") from None
        self._fd: int | None = fd
        try:
            data = os.pread(fd, SIZE + 1, 0)
        except OSError as exc:
            self.close()
            raise storage_error("reading the add journal's ledger", path, exc) from exc
        self.found: int | None = 0 if not data else decode(data)

    def record(self, memories: int) -> None:
        """Record that the journal holds ``memories`` (not synced: see the module docstring).

        Raises:
            OSError: The write failed.
        """
        if self._fd is not None:
            os.pwrite(self._fd, encode(memories), 0)

    def close(self, *, delete: bool = False) -> None:
        """Close the file (releasing the lock), deleting it first when ``delete``."""
        if self._fd is None:
            return
        if delete:
            self.path.unlink(missing_ok=True)
        os.close(self._fd)
        self._fd = None


def read_ledger(path: Path) -> int | None:
    """What the ledger at ``path`` records, read without locking it (a read-only open);
    ``None`` when it is absent or does not check out."""
    try:
        return decode(path.read_bytes())
    except OSError:
        return None
