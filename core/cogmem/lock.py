"""One writer per folder store: an inter-process lock on the folder, taken before Chroma opens it.

Chroma's embedded mode (``PersistentClient``) is single-process. Two processes writing one
folder were seen to acknowledge the same explicit id twice (one text silently lost), to fail
searches with ``Error finding id``, to leave records whose embeddings cannot be read, and, when
both created a fresh folder at once, to fail with ``table collections already exists``. So a
:class:`~cogmem.CognitiveMemory` on a folder locks the folder itself: an ``flock`` on the
folder's own descriptor, released by the kernel when its holder dies (a crash never leaves the
folder locked), and held by no file that could be garbled or deleted while it is held (a lock
*file* was: two bytes appended to filelock's SQLite lock file refused every writer, and one
deleted while held admitted a second writer). Locks are per open descriptor, so two objects in
one process exclude each other as two processes do:

* a writer (the default) takes it exclusively: a second opener, in another process or in this
  one, gets :class:`~cogmem.errors.StoreLockedError` naming the holder (pid, host, since when:
  ``cogmem.lock.json`` beside it, a courtesy the lock does not depend on) and pointing to the
  server mode;
* ``read_only=True`` takes it shared: any number of readers, and no writer while they are open.

Where ``flock`` is missing (Windows), filelock's read-write lock on ``cogmem.lock`` stands in.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

import filelock

from .disk import storage_error
from .errors import StorageError, StoreLockedError

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK_NAME", "FolderLock", "lock_folder"]

log = logging.getLogger("cogmem")

LOCK_NAME = "cogmem.lock"
_HOLDER_NAME = "cogmem.lock.json"
# How long an opener waits for filelock's lock before it is refused (the fallback only).
_WAIT_SECONDS = 0.5

Mode = Literal["write", "read"]


class FolderLock:
    """The lock of one folder store, held from :meth:`acquire` until :meth:`release`.

    Args:
        folder: The store's folder (it must exist).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._fd: int | None = None
        self._fallback: filelock.ReadWriteLock | None = None
        self._mode: Mode | None = None

    def acquire(self, mode: Mode) -> None:
        """Take the lock for writing (exclusive) or reading (shared), without waiting.

        Raises:
            StoreLockedError: It is held in a mode that excludes ``mode`` (names the holder).
            OSError: The folder cannot be opened.
        """
        if fcntl is None:  # pragma: no cover - Windows
            self._acquire_fallback(mode)
        else:
            fd = os.open(self.folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            try:
                fcntl.flock(
                    fd, (fcntl.LOCK_EX if mode == "write" else fcntl.LOCK_SH) | fcntl.LOCK_NB
                )
            except BlockingIOError:
                os.close(fd)
                raise self._refusal(mode) from None
            self._fd = fd
        self._mode = mode
        if mode == "write":
            self._write_holder()

    def release(self) -> None:
        """Let go of the lock (idempotent)."""
        if self._mode is None:
            return
        if self._mode == "write":
            with contextlib.suppress(OSError):  # a courtesy, as when written
                (self.folder / _HOLDER_NAME).unlink(missing_ok=True)
        if self._fd is not None:
            os.close(self._fd)  # releases the flock
            self._fd = None
        if self._fallback is not None:  # pragma: no cover - Windows
            self._fallback.release(force=True)
            self._fallback.close()
            self._fallback = None
        self._mode = None

    def _acquire_fallback(self, mode: Mode) -> None:  # pragma: no cover - Windows
        lock = filelock.ReadWriteLock(
            self.folder / LOCK_NAME, timeout=_WAIT_SECONDS, is_singleton=False
        )
        try:
            lock.acquire_write() if mode == "write" else lock.acquire_read()
        except filelock.Timeout:
            lock.close()
            raise self._refusal(mode) from None
        self._fallback = lock

    def _write_holder(self) -> None:
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "mode": "write",
        }
        # Who holds it is a courtesy to the next opener; the lock is what counts.
        with contextlib.suppress(OSError):
            (self.folder / _HOLDER_NAME).write_text(json.dumps(holder), encoding="utf-8")

    def _readers_only(self) -> bool:
        """Whether the lock is held by readers only (a shared probe succeeds)."""
        probe = FolderLock(self.folder)
        try:
            probe.acquire("read")
        except StoreLockedError:
            return False
        except OSError:
            return False
        probe.release()
        return True

    def _refusal(self, mode: Mode) -> StoreLockedError:
        holder: dict[str, object] = {}
        if mode == "write" and self._readers_only():
            who = "processes that opened it with read_only=True"
            holder = {"mode": "read"}
        else:
            try:
                holder = json.loads((self.folder / _HOLDER_NAME).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                holder = {"mode": "write"}
            who = (
                f"process {holder.get('pid', '?')} on {holder.get('host', '?')} "
                f"(since {holder.get('since', '?')})"
            )
        wanted = "write to" if mode == "write" else "read"
        return StoreLockedError(
            f"cannot {wanted} the store at {self.folder}: it is open in {who}. Chroma's "
            "embedded mode allows one process per folder: close it there, or share one "
            "memory between processes through a Chroma server (`chroma run --path "
            f"{self.folder} --port 8000`, then CognitiveMemory(client=cogmem."
            "http_client('localhost', 8000)); see the README's 'A Chroma server')",
            path=str(self.folder),
            holder=holder,
        )


def lock_folder(folder: Path, read_only: bool) -> FolderLock | None:
    """Check that ``folder`` can be a store and lock it: for writing (created if missing), or
    for reading (it must hold a store).

    Returns:
        The lock, held; ``None`` for a read-only open of a folder where no lock can be made
        (a read-only filesystem: no one can write there either, so reading needs no lock).

    Raises:
        StorageError: ``folder`` is a file, cannot be created, holds no store (read-only), or
            cannot be locked for writing.
        StoreLockedError: Another opener holds it in a mode that excludes this one.
    """
    if folder.exists() and not folder.is_dir():
        raise StorageError(
            f"{folder} is a file, not a folder: a folder store keeps several files in a folder",
            path=str(folder),
        )
    if read_only:
        if not (folder / "chroma.sqlite3").is_file():
            raise StorageError(f"no store at {folder} to open read-only", path=str(folder))
    else:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise storage_error("creating the store folder", folder, exc) from exc
    try:
        lock = FolderLock(folder)
        lock.acquire("read" if read_only else "write")
    except StoreLockedError:
        raise
    except Exception as exc:  # the lock file cannot be made or opened: the folder is read-only
        if read_only:
            log.debug("reading %s without a lock (%s): no one can write there either", folder, exc)
            return None
        raise storage_error("locking the store folder", folder, exc, chroma=True) from exc
    return lock
