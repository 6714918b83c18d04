"""One writer per folder store: an inter-process lock on the folder, taken before Chroma opens it.

Chroma's embedded mode (``PersistentClient``) is single-process. Two processes writing one
folder were seen to acknowledge the same explicit id twice (one text silently lost), to fail
searches with ``Error finding id``, to leave records whose embeddings cannot be read, and, when
both created a fresh folder at once, to fail with ``table collections already exists``. So a
:class:`~cogmem.CognitiveMemory` on a folder takes ``<folder>/cogmem.lock`` (filelock's
:class:`~filelock.ReadWriteLock`, SQLite-backed: released by the kernel when its holder dies,
so a crash never leaves the folder locked):

* a writer (the default) takes it exclusively: a second opener, in another process or in this
  one, gets :class:`~cogmem.errors.StoreLockedError` naming the holder (pid, host, since when:
  ``cogmem.lock.json`` beside the lock) and pointing to the server mode;
* ``read_only=True`` takes it shared: any number of readers, and no writer while they are open.
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

__all__ = ["LOCK_NAME", "FolderLock", "lock_folder"]

log = logging.getLogger("cogmem")

LOCK_NAME = "cogmem.lock"
_HOLDER_NAME = "cogmem.lock.json"
# How long an opener waits for the lock before it is refused: long enough to ride out the
# moment another opener spends creating the lock's database, short enough to refuse at once.
_WAIT_SECONDS = 0.5

Mode = Literal["write", "read"]


class FolderLock:
    """The lock of one folder store, held from :meth:`acquire` until :meth:`release`.

    Args:
        folder: The store's folder (it must exist).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = filelock.ReadWriteLock(
            folder / LOCK_NAME, timeout=_WAIT_SECONDS, is_singleton=False
        )
        self._mode: Mode | None = None

    def acquire(self, mode: Mode) -> None:
        """Take the lock for writing (exclusive) or reading (shared), waiting at most half a
        second.

        Raises:
            StoreLockedError: It is held in a mode that excludes ``mode`` (names the holder).
        """
        try:
            if mode == "write":
                self._lock.acquire_write()
            else:
                self._lock.acquire_read()
        except filelock.Timeout:
            raise self._refusal(mode) from None
        self._mode = mode
        if mode == "write":
            self._write_holder()

    def release(self) -> None:
        """Let go of the lock (idempotent)."""
        if self._mode is None:
            return
        if self._mode == "write":
            (self.folder / _HOLDER_NAME).unlink(missing_ok=True)
        self._lock.release(force=True)
        self._lock.close()
        self._mode = None

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
        probe = filelock.ReadWriteLock(self.folder / LOCK_NAME, blocking=False, is_singleton=False)
        try:
            probe.acquire_read()
        except filelock.Timeout:
            return False
        finally:
            probe.close()
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
