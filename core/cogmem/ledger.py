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
leaves it exact. It holds no descriptor between writes (a store with many namespaces runs
into the process's file limit soon enough); ownership is the journal's ``flock`` and the
folder's lock.
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

from .disk import storage_error

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
    """One writer's ledger.

    Args:
        path: The file (written at the first :meth:`record`).

    Attributes:
        found: What it recorded when opened: the memories its journal must hold (0 for none),
            or ``None`` when it did not check out (a cut then goes unnoticed).

    Raises:
        StorageError: It exists and cannot be read.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        except OSError as exc:
            raise storage_error("reading the add journal's ledger", path, exc) from exc
        self.found: int | None = 0 if not data else decode(data)

    def record(self, memories: int) -> None:
        """Record that the journal holds ``memories`` (not synced: see the module docstring).

        Raises:
            OSError: The write failed.
        """
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.pwrite(fd, encode(memories), 0)
        finally:
            os.close(fd)

    def close(self, *, delete: bool = False) -> None:
        """Let go of it, deleting the file when ``delete``."""
        if delete:
            self.path.unlink(missing_ok=True)


def read_ledger(path: Path) -> int | None:
    """What the ledger at ``path`` records, read without locking it (a read-only open);
    ``None`` when it is absent or does not check out."""
    try:
        return decode(path.read_bytes())
    except OSError:
        return None
