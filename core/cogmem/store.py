"""The Chroma collection that holds every memory: the source of truth (design §1).

Each memory is one Chroma record: the text as the document, an explicit embedding (cogmem never
lets Chroma embed), and flat metadata. The fields Chroma filters on have keys of their own (each
tag a boolean key ``tag:<name>``, each user metadata key prefixed ``m.``); the rest are packed
into one JSON string (see :func:`to_metadata`), which also keeps the exact creation time and user
metadata (Chroma may round the last bit of a float key). Times are UTC epoch seconds (float).

Every add and update also writes a *write stamp* ``w`` (int, ns since the epoch on the writer's
clock, increasing within a process; a key of its own, since Chroma filters on it) and the
writer's token ``wb`` (one per :class:`ChromaStore`; packed, and read from a key of its own in
stores written before it was packed), so that another process can read what changed since it
last looked (:meth:`ChromaStore.changed_since`) instead of reading the whole collection. Records
written before the stamp existed have none and count as stamp 0.

:func:`to_metadata` and :func:`from_chroma` are pure and inverse to each other;
:func:`build_where` turns cogmem filters into a Chroma ``where`` clause.
"""

from __future__ import annotations

import json
import math
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, cast
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt

from .disk import add_bytes, is_disk_full, update_bytes
from .errors import (
    CogmemConnectionError,
    DiskFullError,
    InvalidInputError,
    InvalidTypeError,
    StoreError,
)
from .records import MEMORY_TYPES, MemoryRecord, ensure_aware

__all__ = [
    "ChromaStore",
    "StoredMemory",
    "build_where",
    "check_user_metadata",
    "chroma_address",
    "chroma_error",
    "compile_filters",
    "from_chroma",
    "http_client",
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
_PACK_VERSION = 1
_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"})
_GET_BATCH = 5000  # Chroma caps how many ids one get may name; stay well below.

FloatArray = npt.NDArray[np.float32]
Where = dict[str, Any]
StoredMemory = tuple[MemoryRecord, FloatArray]


def _ts(value: datetime) -> float:
    return value.timestamp()


def _dt(value: float) -> datetime:
    return datetime.fromtimestamp(value, tz=timezone.utc)


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
        "c": _ts(memory.created_at),  # exact here: Chroma may round its float keys
        "ns": memory.namespace,
        "imp": float(memory.importance),
        "conf": float(memory.confidence),
        "stab": float(memory.stability),
        "acc": int(memory.access_count),
    }
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
        if not isinstance(packed, dict) or packed.get("v") != _PACK_VERSION:
            raise ValueError(f"unknown {PACKED_KEY!r} format")
        last = packed.get("last")
        links_at = packed.get("links_at")
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


def check_user_metadata(metadata: object) -> dict[str, str | int | float | bool]:
    """Validate free user metadata: str keys, scalar values Chroma can filter on.

    Raises:
        InvalidTypeError: Not a mapping, a non-str key, or a value that is not str/int/float/bool.
        InvalidInputError: An empty key, or a NaN/infinite float.
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidTypeError(f"metadata must be a dict, got {type(metadata).__name__}")
    out: dict[str, str | int | float | bool] = {}
    for key, value in metadata.items():
        if not isinstance(key, str):
            raise InvalidTypeError(f"metadata keys must be str, got {key!r}")
        if not key:
            raise InvalidInputError("metadata keys must not be empty")
        if not isinstance(value, (str, int, float, bool)):
            raise InvalidTypeError(
                f"metadata[{key!r}] must be str, int, float or bool, got {type(value).__name__}"
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidInputError(f"metadata[{key!r}] must be finite, got {value!r}")
        check_unicode(key, "metadata key")
        _check_scalar(value, f"metadata[{key!r}]")
        out[key] = value
    return out


_INT64 = (-(2**63), 2**63 - 1)


def check_unicode(value: str, name: str) -> str:
    """``value`` if it is valid Unicode (encodable as UTF-8: no lone surrogates).

    Raises:
        InvalidInputError: It holds a lone surrogate, which no store can keep.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{name} is not valid Unicode (lone surrogate at position {exc.start})"
        ) from None
    return value


def _check_scalar(value: object, name: str) -> None:
    """Strings must be valid Unicode and ints fit in 64 bits (what Chroma keeps exactly)."""
    if isinstance(value, str):
        check_unicode(value, name)
    elif (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not _INT64[0] <= value <= _INT64[1]
    ):
        raise InvalidInputError(f"{name} must fit in 64 bits, got {value}")


def build_where(
    filters: Mapping[str, Any] | None,
    *,
    include_superseded: bool = False,
) -> Where:
    """The Chroma ``where`` clause for a search under ``filters`` (one namespace's collection).

    Filters (all optional, combined with AND):

    * ``memory_type``: a type or a list of types.
    * ``tags``: a tag or a list of tags, all required.
    * ``pinned``: bool.
    * ``created_after`` / ``created_before``: timezone-aware datetimes (inclusive).
    * any other key: user metadata, either a value (equality) or an operator dict such as
      ``{"$gte": 3}`` / ``{"$in": ["a", "b"]}`` (``$eq $ne $gt $gte $lt $lte $in $nin``).

    Raises:
        InvalidTypeError / InvalidInputError: A filter is malformed (the message names it).
    """
    clauses: list[Where] = [{"status": {"$in": list(_statuses(include_superseded))}}]
    if filters is not None and not isinstance(filters, Mapping):
        raise InvalidTypeError(f"filters must be a dict, got {type(filters).__name__}")
    for key, value in (filters or {}).items():
        clauses.extend(_filter_clause(key, value))
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _statuses(include_superseded: bool) -> tuple[str, ...]:
    return ("active", "superseded") if include_superseded else ("active",)


def compile_filters(
    filters: Mapping[str, Any] | None, *, include_superseded: bool = False
) -> Callable[[MemoryRecord], bool]:
    """The same filter as :func:`build_where`, as a predicate on decoded records.

    Chroma evaluates ``build_where`` for the dense list; this predicate filters the lexical and
    context candidates, so both lists obey one filter.
    """
    where = build_where(filters, include_superseded=include_superseded)  # validates
    del where
    statuses = _statuses(include_superseded)
    checks: list[Callable[[MemoryRecord], bool]] = [lambda m: m.status in statuses]
    for key, value in (filters or {}).items():
        checks.append(_predicate(key, value))
    return lambda m: all(check(m) for check in checks)


def _predicate(key: str, value: Any) -> Callable[[MemoryRecord], bool]:
    if key == "memory_type":
        types = {value} if isinstance(value, str) else set(value)
        return lambda m: m.memory_type in types
    if key == "tags":
        tags = {value} if isinstance(value, str) else set(value)
        return lambda m: tags.issubset(m.tags)
    if key == "pinned":
        return lambda m: m.pinned is value
    if key == "created_after":
        after = ensure_aware(value, "filters['created_after']")
        return lambda m: m.created_at >= after
    if key == "created_before":
        before = ensure_aware(value, "filters['created_before']")
        return lambda m: m.created_at <= before
    ops = value if isinstance(value, Mapping) else {"$eq": value}
    # As in Chroma: a memory without the key passes ``$ne`` and ``$nin`` and fails the rest.
    return lambda m: all(
        _compare(m.metadata[key], op, operand) if key in m.metadata else op in ("$ne", "$nin")
        for op, operand in ops.items()
    )


def _same(a: Any, b: Any) -> bool:
    """Equality as Chroma sees it: numbers compare by value, bools and strings by type too."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _compare(actual: Any, op: str, operand: Any) -> bool:
    if op == "$in":
        return any(_same(actual, v) for v in operand)
    if op == "$nin":
        return not any(_same(actual, v) for v in operand)
    if op == "$eq":
        return _same(actual, operand)
    if op == "$ne":
        return not _same(actual, operand)
    number = (int, float)
    if not (isinstance(actual, number) and isinstance(operand, number)) or isinstance(actual, bool):
        return False
    return bool(
        {
            "$gt": actual > operand,
            "$gte": actual >= operand,
            "$lt": actual < operand,
            "$lte": actual <= operand,
        }[op]
    )


def _filter_clause(key: str, value: Any) -> list[Where]:
    if key == "memory_type":
        types = [value] if isinstance(value, str) else value
        if not isinstance(types, (list, tuple)) or not types:
            raise InvalidTypeError("filters['memory_type'] must be a type or a non-empty list")
        bad = [t for t in types if t not in MEMORY_TYPES]
        if bad:
            raise InvalidInputError(
                f"filters['memory_type'] has unknown type(s) {bad}; known: {MEMORY_TYPES}"
            )
        return [{"type": {"$in": list(types)}}]
    if key == "tags":
        tags = [value] if isinstance(value, str) else value
        if not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags):
            raise InvalidTypeError("filters['tags'] must be a tag or a list of tags")
        return [{TAG_PREFIX + t: True} for t in tags]
    if key == "pinned":
        if not isinstance(value, bool):
            raise InvalidTypeError("filters['pinned'] must be a bool")
        return [{"pinned": value}]
    if key in ("created_after", "created_before"):
        moment = ensure_aware(value, f"filters[{key!r}]")
        op = "$gte" if key == "created_after" else "$lte"
        return [{"created_at": {op: moment.timestamp()}}]
    if not isinstance(key, str) or not key:
        raise InvalidTypeError(f"filter keys must be non-empty str, got {key!r}")
    field = USER_PREFIX + key
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - _OPERATORS)
        if unknown or not value:
            raise InvalidInputError(
                f"filters[{key!r}] uses unknown operator(s) {unknown}; "
                f"use one of {sorted(_OPERATORS)}"
            )
        for op, operand in value.items():
            _check_operand(key, op, operand)
        return [{field: {op: operand}} for op, operand in value.items()]
    _check_operand(key, "$eq", value)
    return [{field: value}]


def _check_operand(key: str, op: str, operand: Any) -> None:
    scalars = (str, int, float, bool)
    if op in ("$in", "$nin"):
        if not isinstance(operand, (list, tuple)) or not operand:
            raise InvalidTypeError(f"filters[{key!r}][{op!r}] must be a non-empty list")
        if not all(isinstance(v, scalars) for v in operand):
            raise InvalidTypeError(f"filters[{key!r}][{op!r}] must hold str/int/float/bool")
        for v in operand:
            _check_scalar(v, f"filters[{key!r}][{op!r}]")
    elif op in ("$gt", "$gte", "$lt", "$lte") and (
        isinstance(operand, bool) or not isinstance(operand, (int, float))
    ):
        raise InvalidTypeError(
            f"filters[{key!r}][{op!r}] compares numbers: give an int or a float, got "
            f"{type(operand).__name__} {operand!r}"
        )
    elif not isinstance(operand, scalars):
        raise InvalidTypeError(
            f"filters[{key!r}] must compare with str/int/float/bool, got {type(operand).__name__}"
        )
    else:
        _check_scalar(operand, f"filters[{key!r}]")


def chroma_address(target: Any) -> str | None:
    """The address (``scheme://host:port``) of the Chroma server behind a client or collection.

    Returns:
        ``None`` for an embedded (in-process or persistent) client, or when it cannot be told.
    """
    for owner in ("_client", "_server", None):  # a collection, a client, the server API itself
        api = getattr(target, owner, None) if owner is not None else target
        get_url = getattr(api, "get_api_url", None)
        if callable(get_url):
            try:
                url = str(get_url())
            except Exception:  # not an HTTP client after all
                return None
            parts = urlsplit(url)
            return f"{parts.scheme}://{parts.netloc}" if parts.netloc else url
    return None


def _is_connection_failure(exc: BaseException) -> bool:
    """Whether ``exc``, or an error it was raised from or while handling, is a network failure
    (the built-in ``ConnectionError`` or any ``httpx.TransportError``: refused, reset, timed
    out, closed mid-response)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionError):
            return True
        if any(
            c.__name__ == "TransportError" and c.__module__.split(".")[0] == "httpx"
            for c in type(current).__mro__
        ):
            return True
        current = current.__cause__ or current.__context__
    return False


def chroma_error(action: str, exc: BaseException, target: Any = None) -> StoreError:
    """The cogmem error for a failed Chroma call (the caller raises it ``from exc``).

    Args:
        action: What failed, e.g. ``"Chroma add"``.
        exc: What Chroma raised.
        target: The client or collection called, to name the server's address.

    Returns:
        A :class:`CogmemConnectionError` naming the server's address when the server could not
        be reached, else a :class:`StoreError`.
    """
    if _is_connection_failure(exc):
        address = chroma_address(target)
        where = f"the Chroma server at {address}" if address else "the Chroma server"
        return CogmemConnectionError(
            f"{action} failed: cannot reach {where} ({exc}); is it running? "
            "Calls that returned are stored; retry this one once the server is back.",
            address=address,
        )
    return StoreError(f"{action} failed: {exc}")


def http_client(
    host: str = "localhost",
    port: int = 8000,
    *,
    ssl: bool = False,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """A ``chromadb.HttpClient`` for a Chroma server (``chroma run``), to pass as
    ``CognitiveMemory(client=...)``.

    Args:
        host: The server's host name or address.
        port: Its port.
        ssl: Whether to use HTTPS.
        headers: Extra HTTP headers (e.g. for authentication).

    Raises:
        CogmemConnectionError: No server answers at that address (names it).
        StoreError: Chroma refused to create the client for another reason.
    """
    import chromadb
    from chromadb.config import Settings

    address = f"{'https' if ssl else 'http'}://{host}:{port}"
    try:
        return chromadb.HttpClient(
            host=host,
            port=port,
            ssl=ssl,
            headers=dict(headers or {}),
            settings=Settings(anonymized_telemetry=False),
        )
    except Exception as exc:  # Chroma raises ValueError("Could not connect ...") from httpx
        error = chroma_error("connecting to Chroma", exc)
        if isinstance(error, CogmemConnectionError) or "could not connect" in str(exc).lower():
            raise CogmemConnectionError(
                f"cannot reach the Chroma server at {address} ({exc}); is it running?",
                address=address,
            ) from exc
        raise error from exc


# A stored record as read back: the record, its insertion stamp (seq) and its write stamp.
Stamped = tuple[MemoryRecord, int, int]


class ChromaStore:
    """One Chroma collection of memories, always written with explicit vectors.

    Args:
        collection: A Chroma collection created with no embedding function and cosine space.
        client: Its client, to read the collection's metadata fresh (another process may have
            written it); without one the collection's cached metadata is used.
        writer: The token written as ``wb`` with every add and update (default: a fresh random
            one), so that :meth:`changed_since` can leave out this writer's own writes.
        space: Called with the bytes a write may need before each write (a folder store's
            free-space check, :func:`cogmem.disk.check_space`); it raises to refuse the write.

    After Chroma failed on a full disk, every later write is refused at once with
    :class:`~cogmem.errors.DiskFullError` (Chroma's embedded store can block forever on the
    next write, see :mod:`cogmem.disk`): close the store and open it again once there is room.
    """

    def __init__(
        self,
        collection: Any,
        client: Any = None,
        writer: str | None = None,
        space: Callable[[int], None] | None = None,
    ) -> None:
        self._collection = collection
        self._client = client
        self._seq_lock = threading.Lock()
        self._last_seq = 0
        self.writer = writer if writer is not None else uuid.uuid4().hex[:16]
        self._own_stamps: list[int] = []  # write stamps of this writer not yet past a sync
        self._space = space
        self._full: str | None = None  # what Chroma said when it failed on a full disk

    @property
    def collection(self) -> Any:
        """The underlying Chroma collection."""
        return self._collection

    def next_seqs(self, n: int) -> list[int]:
        """``n`` increasing insertion stamps (ns since the epoch, unique in this process)."""
        with self._seq_lock:
            start = max(self._last_seq + 1, time.time_ns())
            self._last_seq = start + n - 1
        return list(range(start, start + n))

    def count(self) -> int:
        """Number of records in the collection."""
        try:
            return int(self._collection.count())
        except Exception as exc:
            raise chroma_error("Chroma count", exc, self._collection) from exc

    def _fresh_metadata(self) -> dict[str, Any]:
        try:
            if self._client is not None:
                return dict(self._client.get_collection(self._collection.name).metadata or {})
            return dict(self._collection.metadata or {})
        except Exception as exc:
            raise chroma_error("Chroma get_collection", exc, self._collection) from exc

    def generation(self) -> int:
        """The write generation recorded in the collection's metadata (0 if never written)."""
        return int(self._fresh_metadata().get(GENERATION_KEY, 0))

    def set_generation(self, generation: int) -> None:
        """Record a new write generation (keeps the collection's other metadata)."""
        self._set_metadata(GENERATION_KEY, int(generation))

    def dimension(self) -> int | None:
        """The width of the collection's vectors: as recorded, else read from one stored
        vector; ``None`` while it holds none."""
        recorded = self._fresh_metadata().get(DIMENSION_KEY)
        if recorded is not None:
            return int(recorded)
        got = self._call("get", limit=1, include=["embeddings"])
        embeddings = got.get("embeddings")
        if embeddings is None or len(embeddings) == 0:
            return None
        return int(np.asarray(embeddings[0]).shape[-1])

    def set_dimension(self, dimension: int) -> None:
        """Record the width of the collection's vectors (before its first vector is written)."""
        self._set_metadata(DIMENSION_KEY, int(dimension))

    def _set_metadata(self, key: str, value: int) -> None:
        self._before_write(1024)
        meta = self._fresh_metadata()
        meta[key] = value
        try:
            self._collection.modify(metadata=meta)
        except Exception as exc:
            raise self._failed("Chroma modify", exc) from exc

    def vectors(self, ids: Sequence[str]) -> dict[str, FloatArray]:
        """The stored embeddings of ``ids`` (missing ids are absent from the result)."""
        out: dict[str, FloatArray] = {}
        for start in range(0, len(ids), _GET_BATCH):
            got = self._call(
                "get", ids=list(ids[start : start + _GET_BATCH]), include=["embeddings"]
            )
            matrix = np.asarray(got["embeddings"], dtype=np.float32)
            out.update(zip(got["ids"], matrix))
        return out

    def all_records(self, page: int = _GET_BATCH) -> dict[str, Stamped]:
        """Every record with its seq and write stamp (paged; slow on large collections)."""
        return self._stamped(None, page)

    def changed_since(self, after: int, page: int = _GET_BATCH) -> dict[str, Stamped]:
        """The records other writers added or updated with a write stamp above ``after``.

        One filtered ``get`` (``w > after``; about 2 ms on a 10k collection when nothing
        changed). The stamps this writer wrote since ``after`` (one per Chroma batch, so a
        handful) are excluded in Chroma with ``$nin``, so that a writer's own large batch is
        not read back; records left of its own (an older batch) are dropped here.
        """
        self._own_stamps = [x for x in self._own_stamps if x > after]
        where: Where = {STAMP_KEY: {"$gt": int(after)}}
        if self._own_stamps:
            where = {"$and": [where, {STAMP_KEY: {"$nin": list(self._own_stamps)}}]}
        return self._stamped(where, page, skip_writer=self.writer)

    def stamped(self, ids: Sequence[str]) -> dict[str, Stamped]:
        """The records of ``ids`` with their seq and write stamp (missing ids are absent)."""
        out: dict[str, Stamped] = {}
        for start in range(0, len(ids), _GET_BATCH):
            got = self._call(
                "get", ids=list(ids[start : start + _GET_BATCH]), include=["documents", "metadatas"]
            )
            self._take(got, out)
        return out

    @staticmethod
    def _take(
        got: Mapping[str, Any], out: dict[str, Stamped], skip_writer: str | None = None
    ) -> None:
        for memory_id, doc, meta in zip(got["ids"], got["documents"], got["metadatas"]):
            if skip_writer is not None and writer_of(meta) == skip_writer:
                continue
            out[memory_id] = (
                from_chroma(memory_id, doc, meta),
                int(meta.get("seq", 0)),
                int(meta.get(STAMP_KEY, 0)),
            )

    def _stamped(
        self, where: Where | None, page: int, skip_writer: str | None = None
    ) -> dict[str, Stamped]:
        out: dict[str, Stamped] = {}
        offset = 0
        while True:
            got = self._call(
                "get", where=where, include=["documents", "metadatas"], limit=page, offset=offset
            )
            self._take(got, out, skip_writer)
            if len(got["ids"]) < page:
                return out
            offset += page

    def existing(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are stored."""
        found: set[str] = set()
        for start in range(0, len(ids), _GET_BATCH):
            chunk = list(ids[start : start + _GET_BATCH])
            found.update(self._call("get", ids=chunk, include=[])["ids"])
        return found

    def add(
        self,
        memories: Sequence[MemoryRecord],
        vectors: FloatArray,
        seqs: Sequence[int] | None = None,
    ) -> tuple[list[int], list[int]]:
        """Write new memories (the caller has checked that their ids are free).

        Each Chroma batch is stamped when it is sent (not when the call began), so that a
        long ``add`` does not write stamps far older than the moment they become visible.

        Args:
            memories: The records.
            vectors: Their embeddings, one row each.
            seqs: Their insertion stamps, when already given (adds written late keep the order
                they were made in); default: new ones.

        Returns:
            Their insertion stamps (seq) and write stamps (w), in order.
        """
        seqs = self.next_seqs(len(memories)) if seqs is None else list(seqs)
        self._before_write(add_bytes(int(np.shape(vectors)[-1]), [m.text for m in memories]))
        stamps: list[int] = []
        for start in range(0, len(memories), _GET_BATCH):
            part = memories[start : start + _GET_BATCH]
            stamp = self.next_seqs(1)[0]
            self._own_stamps.append(stamp)
            self._call(
                "add",
                ids=[m.id for m in part],
                documents=[m.text for m in part],
                embeddings=vectors[start : start + _GET_BATCH],
                metadatas=[
                    to_metadata(m, s, stamp=stamp, writer=self.writer)
                    for m, s in zip(part, seqs[start : start + _GET_BATCH])
                ],
            )
            stamps += [stamp] * len(part)
        return seqs, stamps

    def update(self, memories: Sequence[MemoryRecord]) -> int:
        """Rewrite the metadata of stored memories (text, vector and seq are unchanged).

        Returns:
            The write stamp written (0 when there was nothing to write).
        """
        if not memories:
            return 0
        self._before_write(update_bytes(len(memories)))
        stamp = self.next_seqs(1)[0]
        self._own_stamps.append(stamp)
        self._call(
            "update",
            ids=[m.id for m in memories],
            metadatas=[to_metadata(m, stamp=stamp, writer=self.writer) for m in memories],
        )
        return stamp

    def delete(self, ids: Sequence[str]) -> None:
        """Delete records by id."""
        if ids:
            self._before_write(update_bytes(len(ids)))
            self._call("delete", ids=list(ids))

    def get(
        self, ids: Sequence[str] | None = None, where: Where | None = None, *, vectors: bool = True
    ) -> tuple[list[StoredMemory], dict[str, int]]:
        """Records by id and/or ``where``, in Chroma's order, with their vectors and seqs."""
        include = ["documents", "metadatas"] + (["embeddings"] if vectors else [])
        out: list[StoredMemory] = []
        seqs: dict[str, int] = {}
        id_chunks: list[list[str] | None] = (
            [None]
            if ids is None
            else [list(ids[i : i + _GET_BATCH]) for i in range(0, len(ids), _GET_BATCH)]
        )
        for chunk in id_chunks:
            if chunk is not None and not chunk:
                continue
            got = self._call("get", ids=chunk, where=where, include=include)
            self._collect(
                got["ids"],
                got["documents"],
                got["metadatas"],
                got.get("embeddings") if vectors else None,
                out,
                seqs,
            )
        return out, seqs

    def iter_documents(self, where: Where, batch: int = _GET_BATCH) -> Iterator[tuple[str, str]]:
        """All ``(id, document)`` pairs matching ``where``, paged."""
        offset = 0
        while True:
            got = self._call("get", where=where, include=["documents"], limit=batch, offset=offset)
            ids = got["ids"]
            yield from zip(ids, got["documents"])
            if len(ids) < batch:
                return
            offset += batch

    def ids(self, where: Where | None = None) -> list[str]:
        """Every id (matching ``where``)."""
        out: list[str] = []
        offset = 0
        page = 50_000
        while True:
            got = self._call("get", where=where, include=[], limit=page, offset=offset)
            out.extend(got["ids"])
            if len(got["ids"]) < page:
                return out
            offset += page

    def nearest(
        self, vector: FloatArray, k: int, where: Where | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest ids to ``vector`` (under ``where``) with their cosine, nearest first.

        Only ids and distances are fetched: it is the records that are slow to read.
        """
        return self.nearest_many(np.atleast_2d(vector), k, where)[0]

    def nearest_many(
        self, vectors: FloatArray, k: int, where: Where | None = None
    ) -> list[list[tuple[str, float]]]:
        """For each row of ``vectors``, :meth:`nearest` (one Chroma query for all rows)."""
        got = self._call(
            "query", query_embeddings=vectors, n_results=k, where=where, include=["distances"]
        )
        return [
            [(i, 1.0 - float(d)) for i, d in zip(ids, distances)]
            for ids, distances in zip(got["ids"], got["distances"], strict=True)
        ]

    @staticmethod
    def _collect(
        ids: Sequence[str],
        documents: Sequence[str] | None,
        metadatas: Sequence[Mapping[str, Any]] | None,
        embeddings: Any,
        out: list[StoredMemory],
        seqs: dict[str, int],
    ) -> None:
        if not ids:
            return
        docs = documents or []
        metas = metadatas or []
        vecs = (
            np.asarray(embeddings, dtype=np.float32)
            if embeddings is not None
            else np.zeros((len(ids), 0), np.float32)
        )
        for i, memory_id in enumerate(ids):
            meta = metas[i]
            out.append((from_chroma(memory_id, docs[i], meta), vecs[i]))
            seqs[memory_id] = int(meta.get("seq", 0))

    def _call(self, method: str, **kwargs: Any) -> dict[str, Any]:
        """Call the collection's ``method``; Chroma's errors become cogmem's.

        Raises:
            CogmemConnectionError: The Chroma server could not be reached (names its address).
            StoreError: Chroma failed otherwise (names the operation).
        """
        try:
            return cast(dict[str, Any], getattr(self._collection, method)(**kwargs))
        except Exception as exc:  # Chroma raises many types; name the operation that failed
            raise self._failed(f"Chroma {method}", exc) from exc

    def _failed(self, action: str, exc: BaseException) -> StoreError:
        """The cogmem error for a failed Chroma call; a full disk is remembered."""
        if is_disk_full(exc):
            self._full = f"{action} failed: {exc}"
            return DiskFullError(
                f"{action} failed: the disk is full ({exc}). Chroma's later writes in this "
                "process are not safe: close this store, free space, and open it again (every "
                "call that returned before is stored)"
            )
        return chroma_error(action, exc, self._collection)

    def _before_write(self, needed: int) -> None:
        """Refuse a write up front: after a full disk, or when the space check says no."""
        if self._full is not None:
            raise DiskFullError(
                f"Chroma failed on a full disk earlier in this process ({self._full}); close "
                "this store and open it again once space is freed (nothing was written now)"
            )
        if self._space is not None:
            self._space(needed)
