"""A namespace's memories held column by column: compact in RAM, quick to save and load.

One :class:`~cogmem.records.MemoryRecord` costs about a kilobyte as a Python object (a slotted
dataclass, two datetimes, two read-only dicts, a timeline entry). Held as columns (a float or
int per field in NumPy arrays, the texts as UTF-8 in one buffer, the ids in an
:class:`~cogmem.idmap.IdMap`, the rarely-set fields in a sparse side table) a memory costs
87 bytes of columns, about 20 bytes of id map beside its id's UTF-8, and its text's UTF-8, with
no Python object of its own; a whole namespace saves and loads as a few arrays instead of one
object per memory. Columns grow by a quarter, in place where they can (so up to a quarter of
their capacity is unused); the text buffer by an eighth (``bytearray``). At 100k memories
(SciFact and LoCoMo sentences, ids like ``m12345``): about 30 MB of RSS, 15 MB of it texts.

:class:`RecordTable` is a read-only :class:`~collections.abc.Mapping` from id to
``MemoryRecord`` for its readers: a record is built when it is looked up, which a search does
for its ~100 candidates, never for the whole namespace. Writers call :meth:`RecordTable.put`
and :meth:`RecordTable.remove`.

Rows are stable between writes. A removed row is left as a hole and reused by nobody; holes
are squeezed out (:meth:`RecordTable.compact`) when they outnumber a quarter of the live rows,
which renumbers rows, so callers that keep rows (the timeline) are told the new numbers.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from frozendict import frozendict

from .checks import EARLIEST, LATEST
from .errors import StoreError
from .idmap import IdMap
from .records import MEMORY_TYPES, STATUSES, MemoryRecord, assemble_record

__all__ = ["RecordTable"]

_NAN = float("nan")
_DEAD = 255  # status code of a removed row
_TYPE_CODE = {t: i for i, t in enumerate(MEMORY_TYPES)}
_STATUS_CODE = {s: i for i, s in enumerate(STATUSES)}
EPISODIC_CODE = _TYPE_CODE["episodic"]

# name -> dtype of every numeric column; times are UTC epoch seconds, NaN for "never".
_COLUMNS: dict[str, type[np.generic]] = {
    "created": np.float64,
    "accessed": np.float64,
    "links_at": np.float64,
    "importance": np.float64,
    "confidence": np.float64,
    "stability": np.float64,
    "access_count": np.int64,
    "seq": np.int64,
    "w": np.int64,  # write stamp of the version held (ns; 0: unknown, e.g. an old store)
    # Offset of the text's UTF-8 bytes in the text buffer. Texts are stored in row order, so
    # a text ends where the next row's begins (the last one at the end of the buffer).
    "text_at": np.int64,
    # Slot of the embedding in the namespace's vector file (cogmem.vectors); -1: not there.
    "vec": np.int32,
    "kind": np.uint8,
    "status": np.uint8,
    "pinned": np.bool_,
}

# The columns a MemoryRecord is built from.
_RECORD_COLUMNS = (
    "created",
    "accessed",
    "links_at",
    "importance",
    "confidence",
    "stability",
    "access_count",
    "text_at",
    "kind",
    "status",
    "pinned",
)


class _Extras(NamedTuple):
    """The fields most memories leave empty, kept only for the rows that set one."""

    session_ids: tuple[str, ...]
    tags: tuple[str, ...]
    links: Mapping[str, float]
    metadata: Mapping[str, Any]
    superseded_by: str | None
    namespace: str | None  # only when it differs from the table's
    contradicts: tuple[str, ...] = ()
    previous_version: str | None = None
    expires_at: datetime | None = None

    @classmethod
    def of(cls, *fields: Any) -> _Extras:
        """Extras whose ``links`` and ``metadata`` are immutable copies (so that records can
        share them, see :func:`~cogmem.records.assemble_record`)."""
        extras = cls(*fields)
        return extras._replace(links=frozendict(extras.links), metadata=frozendict(extras.metadata))

    def state(self) -> tuple[Any, ...]:
        """As saved: plain tuples, dicts and strings."""
        return tuple(self._replace(links=dict(self.links), metadata=dict(self.metadata)))


_NO_EXTRAS = _Extras.of((), (), {}, {}, None, None, (), None, None)


def _out_of_range(cols: Mapping[str, npt.NDArray[Any]], n: int) -> str | None:
    """The first column whose values a record cannot hold (a unit value outside [0, 1], a
    time that is not finite, a negative count), or ``None``."""
    for name in ("importance", "confidence", "stability"):
        col = cols[name][:n]
        if not np.all((col >= 0.0) & (col <= 1.0)):  # NaN fails too
            return name
    low, high = EARLIEST.timestamp(), LATEST.timestamp()
    for name in ("created", "accessed", "links_at"):
        col = cols[name][:n]
        when = col if name == "created" else col[~np.isnan(col)]  # NaN: never
        if not np.all((when >= low) & (when < high)):
            return name
    if n and int(cols["access_count"][:n].min()) < 0:
        return "access_count"
    return None


def _ts(value: datetime | None) -> float:
    return _NAN if value is None else value.timestamp()


def _dt(value: float) -> datetime | None:
    return None if value != value else datetime.fromtimestamp(value, tz=timezone.utc)


class RecordTable(Mapping[str, MemoryRecord]):
    """Every memory of one namespace, by id, stored column-wise (not thread-safe).

    Args:
        namespace: The namespace its records belong to (a record naming another one is kept
            exactly, at a small cost).
    """

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self._ids = IdMap()  # id <-> row, holes where ids were removed
        # Texts as UTF-8 in one buffer (a str object costs ~50 bytes beyond its characters).
        self._text_buf = bytearray()
        self._extras: dict[int, _Extras] = {}
        # id -> ids of the memories that name it as their previous version (write-time dedup)
        self._newer: dict[str, set[str]] = {}
        self._cols: dict[str, npt.NDArray[Any]] = {
            name: np.zeros(16, dtype=dtype) for name, dtype in _COLUMNS.items()
        }
        self._rows = 0  # rows in use, holes included

    # ------------------------------------------------------------------ Mapping
    def __getitem__(self, memory_id: str) -> MemoryRecord:
        row = self._ids.get(memory_id)
        if row is None:
            raise KeyError(memory_id)
        return self._record(row, memory_id)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._ids

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids.keys())

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def id_map(self) -> IdMap:
        """The ids and their rows (the table's own map: read it, never change it)."""
        return self._ids

    # ------------------------------------------------------------------ rows
    def row(self, memory_id: str) -> int:
        """The row of ``memory_id`` (``KeyError`` if absent)."""
        row = self._ids.get(memory_id)
        if row is None:
            raise KeyError(memory_id)
        return row

    def find(self, memory_id: str) -> int | None:
        """The row of ``memory_id``, or ``None`` if absent."""
        return self._ids.get(memory_id)

    def column(self, name: str) -> npt.NDArray[Any]:
        """A read-only view of one numeric column over every row (holes included)."""
        view = self._cols[name][: self._rows]
        view.flags.writeable = False
        return view

    def id_at(self, row: int) -> str:
        """The id held in ``row`` (a live row)."""
        if not self._ids.is_live(row):
            raise KeyError(row)
        return self._ids.key(row)

    @property
    def rows(self) -> int:
        """Rows in use, holes included: a new memory takes row ``rows``."""
        return self._rows

    def ids_since(self, row: int) -> list[str]:
        """The ids of the live rows from ``row`` on, in row order (the memories put since
        :attr:`rows` was ``row``, when nothing was compacted in between)."""
        ids = self._ids
        return [ids.key(r) for r in range(row, self._rows) if ids.is_live(r)]

    def seq(self, memory_id: str) -> int:
        """The insertion stamp of ``memory_id``."""
        return int(self._cols["seq"][self.row(memory_id)])

    def stamp(self, memory_id: str) -> int:
        """The write stamp of the version of ``memory_id`` held (0 if unknown)."""
        return int(self._cols["w"][self.row(memory_id)])

    def put_stamp(self, memory_id: str, stamp: int) -> None:
        """Set the write stamp of the version of ``memory_id`` held."""
        self._cols["w"][self.row(memory_id)] = stamp

    def set_vector_slots(self, rows: Sequence[int], slots: Sequence[int]) -> None:
        """Record where the embeddings of ``rows`` are kept (``-1``: nowhere)."""
        self._cols["vec"][np.asarray(rows, dtype=np.int64)] = slots

    def forget_vector_slots(self) -> None:
        """Record that no embedding is kept anywhere (the vector file is gone)."""
        self._cols["vec"][: self._rows] = -1

    def text(self, row: int) -> str:
        """The text held in ``row``."""
        at = self._cols["text_at"]
        end = int(at[row + 1]) if row + 1 < self._rows else len(self._text_buf)
        return self._text_buf[int(at[row]) : end].decode("utf-8")

    def record(self, row: int) -> MemoryRecord:
        """The record held in ``row`` (a live row)."""
        return self._record(row, self.id_at(row))

    def _record(self, row: int, memory_id: str) -> MemoryRecord:
        return self._build([row], [memory_id])[0]

    def records_of(self, ids: Sequence[str]) -> list[MemoryRecord | None]:
        """The records of ``ids`` (``None`` for an id not held), built from each column once
        rather than field by field: a search builds dozens."""
        out: list[MemoryRecord | None] = [None] * len(ids)
        at: list[int] = []
        rows: list[int] = []
        for n, memory_id in enumerate(ids):
            row = self._ids.get(memory_id)
            if row is not None:
                at.append(n)
                rows.append(row)
        for n, record in zip(at, self._build(rows, [ids[n] for n in at]), strict=True):
            out[n] = record
        return out

    def _build(self, rows: list[int], ids: list[str]) -> list[MemoryRecord]:
        c = self._cols
        if len(rows) > 3:  # one gather per column
            where = np.asarray(rows, dtype=np.int64)
            col = {name: c[name][where].tolist() for name in _RECORD_COLUMNS}
        else:
            col = {name: [c[name].item(r) for r in rows] for name in _RECORD_COLUMNS}
        at = c["text_at"]
        buf = self._text_buf
        last = self._rows - 1
        out = []
        for n, (row, memory_id) in enumerate(zip(rows, ids, strict=True)):
            created = _dt(col["created"][n])
            if created is None:  # never: created is always set
                raise StoreError(f"memory {memory_id!r} has no creation time")
            extra = self._extras.get(row, _NO_EXTRAS)
            end = at.item(row + 1) if row < last else len(buf)
            out.append(
                assemble_record(
                    (
                        memory_id,
                        buf[col["text_at"][n] : end].decode("utf-8"),
                        created,
                        MEMORY_TYPES[col["kind"][n]],
                        col["importance"][n],
                        col["confidence"][n],
                        col["stability"][n],
                        _dt(col["accessed"][n]),
                        col["access_count"][n],
                        extra.session_ids,
                        STATUSES[col["status"][n]],
                        extra.superseded_by,
                        col["pinned"][n],
                        extra.tags,
                        self.namespace if extra.namespace is None else extra.namespace,
                        extra.links,
                        _dt(col["links_at"][n]),
                        extra.metadata,
                        extra.contradicts,
                        extra.previous_version,
                        extra.expires_at,
                    )
                )
            )
        return out

    # ------------------------------------------------------------------ writes
    def put(self, record: MemoryRecord, seq: int | None = None, stamp: int | None = None) -> int:
        """Store ``record``: a new id takes a new row (``seq`` required), a held one is
        overwritten in place (its text and seq are kept). ``stamp``: the write stamp of this
        version (default: keep the one held, 0 for a new row). Returns the row."""
        row = self._ids.get(record.id)
        if row is None:
            if seq is None:
                raise ValueError(f"a new memory needs its seq: {record.id!r}")
            row = self._append(record.id, record.text)
            self._cols["seq"][row] = seq
            self._cols["w"][row] = 0
            self._cols["vec"][row] = -1
        if stamp is not None:
            self._cols["w"][row] = stamp
        self._write(row, record)
        return row

    def _append(self, memory_id: str, text: str) -> int:
        row = self._rows
        if row == len(self._cols["seq"]):
            self._reserve(row + 1)
        self._rows += 1
        self._ids.append(memory_id)
        encoded = text.encode("utf-8")
        self._cols["text_at"][row] = len(self._text_buf)
        self._text_buf += encoded
        return row

    def _reserve(self, rows: int) -> None:
        """Room for ``rows`` rows in every column: capacity grows by a quarter (amortised O(1)
        per row, at most 25% unused), in place where it can (``ndarray.resize``, a realloc:
        a large column's pages are remapped, not copied; a column something else views, e.g.
        a :meth:`column` still held, is copied instead)."""
        cols = self._cols
        for name in cols:
            held = cols[name].shape[0]
            if rows <= held:
                continue
            capacity = max(rows, held + held // 4, 16)
            try:
                cols[name].resize(capacity, refcheck=True)
            except ValueError:  # a view of it is held: copy
                grown = np.zeros(capacity, dtype=cols[name].dtype)
                grown[:held] = cols[name]
                cols[name] = grown

    def newer_versions(self, memory_id: str) -> list[str]:
        """The ids of the memories held that name ``memory_id`` as their ``previous_version``
        (its newer versions, recorded by write-time dedup), sorted."""
        return sorted(self._newer.get(memory_id, ()))

    def _link(self, newer: str, older: str | None, *, add: bool) -> None:
        if older is None:
            return
        if add:
            self._newer.setdefault(older, set()).add(newer)
        elif older in self._newer:
            self._newer[older].discard(newer)
            if not self._newer[older]:
                del self._newer[older]

    def _write(self, row: int, r: MemoryRecord) -> None:
        before = self._extras.get(row)
        if before is not None:
            self._link(r.id, before.previous_version, add=False)
        self._link(r.id, r.previous_version, add=True)
        c = self._cols
        c["created"][row] = r.created_at.timestamp()
        c["accessed"][row] = _ts(r.last_accessed_at)
        c["links_at"][row] = _ts(r.links_updated_at)
        c["importance"][row] = r.importance
        c["confidence"][row] = r.confidence
        c["stability"][row] = r.stability
        c["access_count"][row] = r.access_count
        c["kind"][row] = _TYPE_CODE[r.memory_type]
        c["status"][row] = _STATUS_CODE[r.status]
        c["pinned"][row] = r.pinned
        namespace = None if r.namespace == self.namespace else r.namespace
        if (
            r.session_ids
            or r.tags
            or r.links
            or r.metadata
            or r.superseded_by is not None
            or namespace is not None
            or r.contradicts
            or r.previous_version is not None
            or r.expires_at is not None
        ):
            self._extras[row] = _Extras.of(
                tuple(r.session_ids),
                tuple(r.tags),
                r.links,
                r.metadata,
                r.superseded_by,
                namespace,
                tuple(r.contradicts),
                r.previous_version,
                r.expires_at,
            )
        else:
            self._extras.pop(row, None)

    def remove(self, ids: Sequence[str]) -> list[int]:
        """Forget ``ids`` (unknown ones are ignored); returns the rows they held."""
        rows = []
        for memory_id in ids:
            row = self._ids.pop(memory_id)
            if row is None:
                continue
            rows.append(row)
            extra = self._extras.pop(row, None)
            if extra is not None:
                self._link(memory_id, extra.previous_version, add=False)
            self._cols["status"][row] = _DEAD
        return rows

    def holes(self) -> int:
        """Rows freed by :meth:`remove` and not yet squeezed out."""
        return self._rows - len(self._ids)

    def compact(self) -> npt.NDArray[np.int64]:
        """Squeeze out the holes (rows and text bytes). Returns old row -> new row (-1: hole)."""
        live = np.flatnonzero(self._cols["status"][: self._rows] != _DEAD)
        remap = np.full(self._rows, -1, dtype=np.int64)
        remap[live] = np.arange(len(live))
        buf = self._text_buf
        lengths = self._text_lengths()[live]
        starts = self._cols["text_at"][live].tolist()
        self._text_buf = bytearray(
            b"".join(buf[a : a + n] for a, n in zip(starts, lengths.tolist(), strict=True))
        )
        for name, col in self._cols.items():
            fresh = np.zeros(max(16, len(live)), dtype=col.dtype)
            fresh[: len(live)] = col[live]
            self._cols[name] = fresh
        self._cols["text_at"][: len(live)] = np.cumsum(lengths) - lengths
        self._ids = self._ids.compacted(live)
        self._extras = {int(remap[row]): extra for row, extra in self._extras.items()}
        self._rows = len(live)
        return remap

    def _text_lengths(self) -> npt.NDArray[np.int64]:
        """The UTF-8 length of every row's text (holes included)."""
        ends = np.append(self._cols["text_at"][: self._rows], len(self._text_buf))
        return np.diff(ends)

    # ------------------------------------------------------------------ persistence
    def to_state(self) -> dict[str, Any]:
        """Everything held, compacted, as plain lists, bytes and arrays (for pickling).

        The columns include ``text_len`` (derived here from ``text_at``), as saved states
        always had it."""
        if self.holes():
            self.compact()
        columns = {name: col[: self._rows].copy() for name, col in self._cols.items()}
        columns["text_len"] = self._text_lengths()
        return {
            "namespace": self.namespace,
            "id_packed": self._ids.packed(),
            "text": bytes(self._text_buf),
            "columns": columns,
            "extras": {row: extra.state() for row, extra in self._extras.items()},
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any], *, owned: bool = False) -> RecordTable:
        """The table :meth:`to_state` described.

        Args:
            state: What :meth:`to_state` returned (``text_len`` may be left out: ``text_at``
                gives it).
            owned: The state's arrays, its text (a ``bytearray``) and its ids' bytes are the
                table's from now on, taken without a copy (nothing else may hold them).

        Raises:
            StoreError: The state is inconsistent (lengths or columns differ).
        """
        table = cls(str(state["namespace"]))
        try:
            if "id_packed" in state:
                ids = IdMap.from_packed(state["id_packed"])
            else:  # saved before ids were packed: a list of str
                ids = IdMap([str(i) for i in state["ids"]])
        except ValueError as exc:
            raise StoreError(f"saved records: {exc}") from exc
        given = state["text"]
        text = given if owned and isinstance(given, bytearray) else bytearray(given)
        columns = state["columns"]
        n = len(ids)
        # Tables saved before write stamps existed lack "w": their stamps are unknown (0);
        # before vector files, "vec": no embedding is kept (-1).
        if set(columns) | {"w", "vec", "text_len"} != {*_COLUMNS, "text_len"}:
            raise StoreError("saved records: ids, texts and columns do not match")
        for name, dtype in _COLUMNS.items():
            default = np.full(n, -1 if name == "vec" else 0)
            col = np.asarray(columns.get(name, default), dtype=dtype)
            if col.shape != (n,):
                raise StoreError(f"saved records: column {name!r} has shape {col.shape}")
            keep = owned and col.flags.writeable and col.flags.c_contiguous and n
            table._cols[name] = col if keep else col.copy() if n else np.zeros(16, dtype=dtype)
        at = table._cols["text_at"][:n]
        ends = np.append(at[1:], len(text))
        if "text_len" in columns:
            lengths = np.asarray(columns["text_len"], dtype=np.int64)
            if lengths.shape != (n,):
                raise StoreError(f"saved records: column 'text_len' has shape {lengths.shape}")
            in_order = np.array_equal(at + lengths, ends)
        else:
            in_order = bool((ends >= at).all())
        if n and (
            int(table._cols["kind"].max()) >= len(MEMORY_TYPES)
            or int(table._cols["status"].max()) >= len(STATUSES)
            or int(at[0]) != 0
            or not in_order
        ):
            raise StoreError(
                "saved records: unknown memory type or status code, or texts cut or out of order"
            )
        bad = _out_of_range(table._cols, n)
        if bad:
            raise StoreError(f"saved records: {bad} out of range")
        table._ids = ids
        table._text_buf = text
        table._extras = {int(row): _Extras.of(*extra) for row, extra in state["extras"].items()}
        for row, extra in table._extras.items():
            table._link(ids.key(row), extra.previous_version, add=True)
        table._rows = n
        return table
