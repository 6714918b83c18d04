"""Whether a Chroma folder may have been written since a moment: one ``stat`` instead of queries.

A folder store (``path=``) catches up with other writers before a read when
``sync_interval_seconds`` have passed since its last catch-up (see ``CognitiveMemory._sync``).
The catch-up is two Chroma calls (a filtered ``get`` and a ``count``) whose cost grows with the
store: ~20 ms at 100k memories. An agent that searches every few seconds would pay it on every
search, while in almost every case nothing was written meanwhile.

Every Chroma write (add, update, delete, by any process or object) changes ``chroma.sqlite3``
(or its journal files): its modification time, usually its size. So a catch-up can first take a
:func:`folder_stamp`, and the next one can be skipped while the stamp is unchanged.

One subtlety: file times come from a coarse kernel clock (a tick of 1-10 ms), so a write in the
same tick as the previous one can leave the time unchanged, and an overwrite inside the file can
leave the size unchanged. A stamp is therefore trusted only if the files had been still for
``settle_ns`` when it was taken: any later write then carries a later time. When they had not,
:func:`folder_stamp` returns ``None`` and the next read catches up in full.

This relies on a local filesystem (network filesystems may cache file attributes; Chroma's
SQLite is not meant for them either).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SETTLE_NS", "WATCHED", "FolderStamp", "folder_stamp"]

WATCHED = ("chroma.sqlite3", "chroma.sqlite3-journal", "chroma.sqlite3-wal")
SETTLE_NS = 100_000_000  # 100 ms: well above a coarse clock tick


@dataclass(frozen=True)
class FolderStamp:
    """``(name, inode, size, mtime_ns)`` of each watched file (absent files: zeros)."""

    files: tuple[tuple[str, int, int, int], ...]


def folder_stamp(folder: Path, now_ns: int, settle_ns: int = SETTLE_NS) -> FolderStamp | None:
    """The stamp of ``folder``'s Chroma files at ``now_ns``, if they have been still long enough.

    Args:
        folder: The Chroma persistent folder.
        now_ns: The current time, ns since the epoch (the clock file times are taken from).
        settle_ns: How long the files must have been unmodified for the stamp to be trusted.

    Returns:
        The stamp, or ``None`` when a watched file was modified less than ``settle_ns`` before
        ``now_ns`` (or lies in the future: a clock that went back) or cannot be read.
    """
    files: list[tuple[str, int, int, int]] = []
    for name in WATCHED:
        try:
            st = os.stat(folder / name)
        except FileNotFoundError:
            files.append((name, 0, 0, 0))
            continue
        except OSError:
            return None
        if now_ns - st.st_mtime_ns < settle_ns:  # also a time in the future
            return None
        files.append((name, st.st_ino, st.st_size, st.st_mtime_ns))
    return FolderStamp(tuple(files))
