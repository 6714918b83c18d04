"""How a memory is laid out in Chroma, and read back: pure mappers, inverse to each other.

Each memory is one Chroma record: the text as the document, an explicit embedding (cogmem never
lets Chroma embed), and flat metadata. The fields Chroma filters on have keys of their own (each
tag a boolean key ``tag:<name>``, each user metadata key prefixed ``m.``); the rest are packed
into one JSON string (see :func:`to_metadata`), which also keeps the exact creation time and user
metadata (Chroma may round the last bit of a float key). Times are UTC epoch seconds (float).

Every add and update also writes a *write stamp* ``w`` (int, ns since the epoch on the writer's
clock, increasing within a process; a key of its own, since Chroma filters on it) and the
writer's token ``wb`` (packed; read from a key of its own in stores written before it was
packed), so that another process can read what changed since it last looked instead of reading
the whole collection. Records written before the stamp existed have none and count as stamp 0.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from .errors import StoreError
from .records import MemoryRecord

__all__ = [
    "CHROMA_SYNC",
    "DELETED_KEY",
    "DIMENSION_KEY",
    "EARLY_SYNC",
    "GENERATION_KEY",
    "PACKED_KEY",
    "RELAX_SYNC_AT",
    "STAMP_KEY",
    "TAG_PREFIX",
    "USER_PREFIX",
    "WRITER_KEY",
    "WRITTEN_KEY",
    "from_chroma",
    "marks_of",
    "set_sync",
    "syncs_early",
    "to_metadata",
    "writer_of",
]

USER_PREFIX = "m."
GENERATION_KEY = "cogmem_generation"
DIMENSION_KEY = "cogmem_dimension"  # the width of the collection's vectors, once written
TAG_PREFIX = "tag:"
PACKED_KEY = "cogmem"
STAMP_KEY = "w"  # write stamp: ns since the epoch, set on every add and update
WRITER_KEY = "wb"  # the token of the ChromaStore that wrote the record last (packed)
# A packed namespace's marks, in its entry (cogmem.shared_namespaces): renewed by every add and
# update (written) and by every delete (deleted), so that a catch-up reads the shared
# collection only when one changed.
WRITTEN_KEY = "cogmem_written"
DELETED_KEY = "cogmem_deleted"
_PACK_VERSION = 2
# Version 2 leaves out a field that holds its value here (most memories keep these): fewer
# bytes in the packed string, which Chroma stores twice (its row and its string index).
# Version 1 wrote every field, and is still read.
_PACK_DEFAULTS: dict[str, Any] = {"ns": "default", "imp": 0.5, "conf": 0.8, "acc": 0}


def _ts(value: datetime) -> float:
    return value.timestamp()


def _dt(value: float) -> datetime:
    return datetime.fromtimestamp(value, tz=timezone.utc)


def marks_of(entry: Mapping[str, Any]) -> tuple[str, str]:
    """A packed namespace's written and deleted marks, from its entry (``""`` where never
    written)."""
    return str(entry.get(WRITTEN_KEY, "")), str(entry.get(DELETED_KEY, ""))


def to_metadata(
    memory: MemoryRecord,
    seq: int | None = None,
    *,
    stamp: int | None = None,
    writer: str | None = None,
) -> dict[str, Any]:
    """The flat Chroma metadata of ``memory``.

    Only what Chroma filters on gets a key of its own (type, status, pinned, creation time,
    one ``tag:<name>`` per tag, one ``m.<key>`` per user metadata key); every other field is
    packed into one JSON string under ``cogmem``: Chroma writes one row per key, so fewer keys
    make adds and reads faster. ``seq`` (an insertion stamp that orders memories formed at the
    same time) is written once, on add; updates leave it out and Chroma keeps the stored value.
    ``stamp`` and ``writer`` (the write stamp ``w`` and writer token ``wb``) are written on
    every add and update by :class:`ChromaStore`; the token goes into the packed JSON (each
    key of its own costs Chroma a row per record on every write, ~3% of an add).

    Raises:
        StoreError: A value no memory can hold (importance, confidence or stability outside
            [0, 1], a negative access count): a damaged copy is never written to the source of
            truth. Validated input never gets here so.
    """
    _check_values(memory)
    packed: dict[str, Any] = {
        "v": _PACK_VERSION,
        "c": _ts(memory.created_at),  # exact here: Chroma rounds the last bit of float keys
        "stab": float(memory.stability),
    }
    fields = {
        "ns": memory.namespace,
        "imp": float(memory.importance),
        "conf": float(memory.confidence),
        "acc": int(memory.access_count),
    }
    packed.update((k, v) for k, v in fields.items() if v != _PACK_DEFAULTS[k])
    if memory.last_accessed_at is not None:
        packed["last"] = _ts(memory.last_accessed_at)
    if memory.session_ids:
        packed["sess"] = list(memory.session_ids)
    if memory.tags:
        packed["tags"] = list(memory.tags)
    if memory.links:
        packed["links"] = dict(memory.links)
    if memory.links_updated_at is not None:
        packed["links_at"] = _ts(memory.links_updated_at)
    if memory.superseded_by is not None:
        packed["sup"] = memory.superseded_by
    if memory.contradicts:
        packed["contra"] = list(memory.contradicts)
    if memory.previous_version is not None:
        packed["prev"] = memory.previous_version
    if memory.expires_at is not None:
        packed["exp"] = _ts(memory.expires_at)
    if memory.metadata:
        packed["meta"] = dict(memory.metadata)  # exact; the m.* keys are for filtering
    if writer is not None:
        packed[WRITER_KEY] = writer
    meta: dict[str, Any] = {
        "type": memory.memory_type,
        "status": memory.status,
        "pinned": bool(memory.pinned),
        "created_at": _ts(memory.created_at),
        PACKED_KEY: json.dumps(packed, separators=(",", ":"), sort_keys=True),
    }
    if seq is not None:
        meta["seq"] = int(seq)
    if stamp is not None:
        meta[STAMP_KEY] = int(stamp)
    for tag in memory.tags:
        meta[TAG_PREFIX + tag] = True
    for key, value in memory.metadata.items():
        meta[USER_PREFIX + key] = value
    return meta


def _check_values(memory: MemoryRecord) -> None:
    for name in ("importance", "confidence", "stability"):
        value = getattr(memory, name)
        if not 0.0 <= value <= 1.0:  # NaN fails too
            raise StoreError(
                f"refusing to write memory {memory.id!r}: its {name} is {value!r}, outside "
                "[0, 1]; the copy held in memory is damaged (reopen the store to rebuild it "
                "from Chroma)"
            )
    if memory.access_count < 0:
        raise StoreError(
            f"refusing to write memory {memory.id!r}: its access count is {memory.access_count}"
        )


def from_chroma(memory_id: str, document: str, meta: Mapping[str, Any]) -> MemoryRecord:
    """The :class:`MemoryRecord` stored as ``(id, document, metadata)``.

    Raises:
        StoreError: The metadata was not written by cogmem (a field is missing or malformed).
    """
    try:
        packed = json.loads(meta[PACKED_KEY])
        if not isinstance(packed, dict) or packed.get("v") not in (1, _PACK_VERSION):
            raise ValueError(f"unknown {PACKED_KEY!r} format")
        if packed["v"] == _PACK_VERSION:
            packed = _PACK_DEFAULTS | packed
        last = packed.get("last")
        links_at = packed.get("links_at")
        expires = packed.get("exp")
        return MemoryRecord(
            id=memory_id,
            text=document,
            namespace=str(packed["ns"]),
            memory_type=meta["type"],
            importance=float(packed["imp"]),
            confidence=float(packed["conf"]),
            stability=float(packed["stab"]),
            created_at=_dt(float(packed.get("c", meta["created_at"]))),
            last_accessed_at=None if last is None else _dt(float(last)),
            access_count=int(packed["acc"]),
            session_ids=tuple(packed.get("sess", ())),
            status=meta["status"],
            superseded_by=packed.get("sup"),
            pinned=bool(meta["pinned"]),
            tags=tuple(packed.get("tags", ())),
            links={str(k): float(v) for k, v in packed.get("links", {}).items()},
            links_updated_at=None if links_at is None else _dt(float(links_at)),
            contradicts=tuple(packed.get("contra", ())),
            previous_version=packed.get("prev"),
            expires_at=None if expires is None else _dt(float(expires)),
            metadata=packed["meta"]
            if "meta" in packed
            else {k[len(USER_PREFIX) :]: v for k, v in meta.items() if k.startswith(USER_PREFIX)},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(
            f"memory {memory_id!r} has metadata cogmem cannot read ({exc!r}); "
            "was the collection written by something else?"
        ) from exc


def writer_of(meta: Mapping[str, Any]) -> str | None:
    """The writer token ``wb`` of a stored record's metadata (None when it has none).

    Stores written before the token was packed have it as a key of its own; an update by a
    newer writer packs its token but cannot remove that key, so the packed one wins.
    """
    try:
        packed = json.loads(meta[PACKED_KEY])
    except (KeyError, TypeError, ValueError):
        packed = None
    if isinstance(packed, dict) and WRITER_KEY in packed:
        return str(packed[WRITER_KEY])
    old = meta.get(WRITER_KEY)
    return None if old is None else str(old)


# Chroma (1.5.9) writes a collection's HNSW index to disk every ``sync_threshold`` records
# (1,000 by default). Once its cache of loaded indexes lets go of a small collection's index
# holding records not yet written, every later read of that collection's vectors in the
# process fails ("Error creating hnsw segment reader: Nothing found on disk"; measured on the
# embedded store and the server, for a collection read before its first add, and for one
# that took an add after its index was loaded again; a restart reads them). So a namespace's
# collection writes its index with every add (a single add at 500 records cost the same,
# 4-5 ms) while it holds fewer than RELAX_SYNC_AT records, and at Chroma's own pace from then
# on (a large collection's index, once on disk, was read back whole past the same eviction).
# A collection made before this is given the early pace when a writer opens it small.
EARLY_SYNC = {"sync_threshold": 1, "batch_size": 1}
CHROMA_SYNC = {"sync_threshold": 1000, "batch_size": 100}
RELAX_SYNC_AT = 1000


def syncs_early(collection: Any) -> bool:
    """Whether the collection writes its index every :data:`EARLY_SYNC` records."""
    try:
        conf = collection.configuration
        hnsw = conf.get("hnsw") if isinstance(conf, Mapping) else None
        return (
            isinstance(hnsw, Mapping) and hnsw.get("sync_threshold") == EARLY_SYNC["sync_threshold"]
        )
    except Exception:  # older Chroma: configuration missing
        return False


def set_sync(collection: Any, *, early: bool) -> None:
    """Make the collection write its index with every add (``early``, :data:`EARLY_SYNC`) or
    at Chroma's own pace (:data:`CHROMA_SYNC`)."""
    collection.modify(configuration={"hnsw": dict(EARLY_SYNC if early else CHROMA_SYNC)})
