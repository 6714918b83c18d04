"""What a save writes when little changed: the memories changed since the saved index.

Writing a namespace's derived index whole is most of a close at a million memories (1.6 of
2.3 s, design §7), though a session of searches and a few adds changes a few thousand
records. So :class:`~cogmem.index.NamespaceIndex` keeps a :class:`ChangeLog`, the ids added,
updated or removed since the copy on disk was written or read, and while they are few (at most
one in :data:`CHANGES_SHARE` of the memories held) a save writes only them, beside the copy,
in ``<stem>.changes``::

    b"cogmem-changes\\x00\\x01" | XXH3-64 of the body (8 bytes)
        | the check of the records file changed (8 bytes) | the body

The body is a records file's body (:func:`cogmem.records_file.pack_records`): the changed
records with their seq and write stamp, and the rest (generation, horizon, the ids removed).
Every save writes all the changes since the copy, so one file is the whole difference; it is
replaced atomically, and a save whole deletes it. Opening reads the copy, then the changes,
and applies them as records read from Chroma are applied (:meth:`NamespaceIndex.apply`).

Nothing unverified is trusted: a changes file that does not check out is refused (the copy's
own generation, older than Chroma's, then has the records read from Chroma again), and one
made on another copy (a save whole came after it and the process died before deleting it) is
ignored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import xxhash

from .disk import write_atomically
from .errors import StoreError
from .records import MemoryRecord
from .records_file import pack_records, unpack_body
from .table import RecordTable

__all__ = ["CHANGES_SHARE", "ChangeLog", "Changes", "changes_path", "read_changes", "write_changes"]

CHANGES_SHARE = 256
"""A save writes only the changes while there are at most ``len(index) / CHANGES_SHARE`` of
them: then writing them costs at most about a quarter of a whole save, and applying them
adds ~60 µs a change to the open (measured figures: docs/design.md §7)."""

_MAGIC = b"cogmem-changes\x00\x01"
_CHECK = 8  # bytes of an XXH3-64 digest


@dataclass
class ChangeLog:
    """The ids changed since the saved copy an index extends.

    Attributes:
        base: The check of that copy's records file (``None``: the index extends no copy
            that changes can be written on, so nothing is logged and a save is whole).
        touched: Ids added or updated since.
        gone: Ids removed since (an id removed and added again is in both).
    """

    base: bytes | None = None
    touched: set[str] = field(default_factory=set)
    gone: set[str] = field(default_factory=set)

    def touch(self, ids: Iterable[str]) -> None:
        """Log ``ids`` as added or updated."""
        if self.base is not None:
            self.touched.update(ids)

    def drop(self, ids: Iterable[str]) -> None:
        """Log ``ids`` as removed."""
        if self.base is not None:
            dropped = set(ids)
            self.gone |= dropped
            self.touched -= dropped

    def restart(self, base: bytes | None) -> None:
        """Start again from the copy whose check is ``base`` (just written or read)."""
        self.base, self.touched, self.gone = base, set(), set()

    def few(self, held: int) -> bool:
        """Whether a save of an index of ``held`` memories writes the changes alone."""
        changed = len(self.touched) + len(self.gone)
        return self.base is not None and changed * CHANGES_SHARE <= held


@dataclass(frozen=True)
class Changes:
    """A changes file as read.

    Attributes:
        generation: The Chroma write generation the copy and the changes reflect together.
        horizon: The highest write stamp taken in.
        gone: The ids removed since the copy.
        stored: The records added or updated since (id -> record, seq, write stamp), in the
            order they were held.
    """

    generation: int
    horizon: int
    gone: tuple[str, ...]
    stored: dict[str, tuple[MemoryRecord, int, int]]


def changes_path(folder: Path, stem: str) -> Path:
    """Where the changes of ``stem``'s saved index are kept."""
    return folder / f"{stem}.changes"


def write_changes(
    folder: Path, stem: str, records: RecordTable, log: ChangeLog, generation: int, horizon: int
) -> None:
    """Write what ``log`` names (the records as ``records`` holds them now) on its base.

    Raises:
        ValueError: ``log`` has no base.
        OSError: The disk refused (nothing is replaced then).
    """
    if log.base is None:
        raise ValueError("changes are written on a saved copy only")
    part = RecordTable(records.namespace)
    rows = sorted(r for r in map(records.find, log.touched) if r is not None)
    ids = [records.id_at(row) for row in rows]
    seqs, stamps = records.column("seq"), records.column("w")
    for row, record in zip(rows, records.records_of(ids), strict=True):
        if record is not None:
            part.put(record, int(seqs[row]), int(stamps[row]))
    rest = {"generation": generation, "horizon": horizon, "gone": sorted(log.gone)}
    body = pack_records(part.to_state(), rest)
    check = xxhash.xxh3_64()
    for piece in body:
        check.update(piece)
    write_atomically(changes_path(folder, stem), [_MAGIC, check.digest(), log.base, *body])


def read_changes(folder: Path, stem: str, base: bytes | None) -> Changes | None:
    """The changes saved on the copy whose check is ``base``; ``None`` when there are none,
    or they were made on another copy.

    Raises:
        StoreError: The file is unreadable, damaged or of an unknown format.
    """
    if base is None:
        return None  # no changes are written on such a copy: nothing to read
    path = changes_path(folder, stem)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"{path}: unreadable ({exc})") from exc
    at = len(_MAGIC)
    if raw[:at] != _MAGIC:
        raise StoreError(f"{path}: unknown format")
    body = memoryview(raw)[at + 2 * _CHECK :]
    if raw[at : at + _CHECK] != xxhash.xxh3_64_digest(body):
        raise StoreError(f"{path}: its checksum does not match (the file is damaged)")
    if raw[at + _CHECK : at + 2 * _CHECK] != base:
        return None
    try:
        payload = unpack_body(body)
        part = RecordTable.from_state(payload["records"], owned=True)
        ids = part.ids_since(0)  # in the order held; read from a state, row n holds the nth
        seqs, stamps = part.column("seq"), part.column("w")
        stored = {
            record.id: (record, int(seqs[row]), int(stamps[row]))
            for row, record in enumerate(part.records_of(ids))
            if record is not None
        }
        return Changes(
            int(payload["generation"]),
            int(payload["horizon"]),
            tuple(str(i) for i in payload["gone"]),
            stored,
        )
    except StoreError:
        raise
    except Exception as exc:  # a payload of another shape
        raise StoreError(f"{path}: unreadable ({exc})") from exc
