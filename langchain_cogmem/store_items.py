"""How the LangGraph store keeps an item as a memory, and reads it back: pure mappers.

All of an item lives in its memory's free metadata, so ``get`` returns the value exactly and
nothing lives outside Chroma:

* the memory's text is what the item's index paths select (``fields``, default ``["$"]``:
  the whole value as JSON, as LangGraph does); ``put(..., index=[...])`` overrides the paths
  for one item and ``index=False`` stores it unindexed (found by ``get`` and filter-only
  ``search``, and after the scored items of a query search);
* an item indexed by several texts (several paths, or a path selecting several) keeps them
  in ``lg.passages``, and a query scores it by the one nearest in meaning
  (:class:`cogmem.Passages`), as LangGraph's stores embed each path apart;
* ``lg.value`` holds the value as JSON, ``lg.key`` the key, ``lg.created_at`` when the key
  was first written (the memory's own ``created_at`` is when this version was written: the
  item's ``updated_at``), ``lg.ttl`` its TTL in minutes; top-level scalar fields are copied to
  ``v.<field>`` so that filters on them run inside the core's search rather than after it.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timezone
from typing import Any, cast

from langgraph.store.base import Item, SearchItem, get_text_at_path, tokenize_path

from cogmem import (
    CognitiveMemory,
    DimensionMismatchError,
    InvalidInputError,
    InvalidTypeError,
    MemoryRecord,
)

from .store_keys import FIELD_PREFIX, NUMBER_PREFIX, is_number, numeric, pushable
from .store_ttl import TTL_KEY

__all__ = [
    "CREATED",
    "KEY",
    "PASSAGES",
    "UNINDEXED",
    "VALUE",
    "CognitiveSearchItem",
    "ItemWrite",
    "check_paths",
    "index_paths",
    "item_metadata",
    "item_of",
    "item_passages",
    "item_text",
    "prepared_value",
]

KEY = "lg.key"
VALUE = "lg.value"
CREATED = "lg.created_at"
UNINDEXED = "lg.unindexed"
PASSAGES = "lg.passages"


class CognitiveSearchItem(SearchItem):
    """A LangGraph ``SearchItem`` that also says why it scored what it scored.

    The explanation is an attribute, not part of :meth:`dict`: tools that hand a search's
    items to a model (langmem's search tool sends ``item.dict()``) send what
    ``SearchItem.dict()`` holds, not some 380 characters of scoring per item.

    Attributes:
        explanation: The cogmem explanation as a dict (ranks, cosine, BM25, relevance,
            retention, α, penalties, score), or ``None`` for a search without a query.
    """

    __slots__ = ("explanation",)

    def __init__(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        created_at: datetime,
        updated_at: datetime,
        score: float | None = None,
        explanation: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(namespace, key, value, created_at, updated_at, score)
        self.explanation = explanation


@dataclass(frozen=True)
class ItemWrite:
    """A checked put: the value to store (``None``: delete), the texts its index paths
    select (each a passage of the memory), whether it is indexed and its TTL in minutes."""

    namespace: tuple[str, ...]
    name: str
    key: str
    value: dict[str, Any] | None
    texts: tuple[str, ...]
    indexed: bool
    ttl: float | None = None

    @property
    def text(self) -> str:
        """The memory's text: its passages, one per line."""
        return "\n".join(self.texts)


def _from_epoch(seconds: Any, fallback: datetime) -> datetime:
    if is_number(seconds) and math.isfinite(float(seconds)):
        return datetime.fromtimestamp(float(seconds), tz=timezone.utc)
    return fallback


def _value_of(record: MemoryRecord) -> dict[str, Any]:
    raw = record.metadata.get(VALUE)
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
    # A memory written through the core directly: show its text.
    return {"text": record.text}


def item_text(record: MemoryRecord) -> str:
    """What a memory says, for a prompt: a store item's value as text (a value of one text
    field is that text; others ``field: value; ...``), any other memory's text as it is."""
    if not isinstance(record.metadata.get(VALUE), str):
        return record.text
    value = _value_of(record)
    if len(value) == 1 and isinstance(next(iter(value.values())), str):
        return str(next(iter(value.values())))
    return "; ".join(
        f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
        for k, v in value.items()
    )


def item_of(record: MemoryRecord, namespace: tuple[str, ...]) -> Item:
    """The item a memory keeps: its value, key, first-put time and this version's time."""
    return Item(
        value=_value_of(record),
        key=record.id,
        namespace=namespace,
        created_at=_from_epoch(record.metadata.get(CREATED), record.created_at),
        updated_at=record.created_at,
    )


def item_metadata(write: ItemWrite, created: datetime) -> dict[str, Any]:
    """The memory metadata that keeps ``write``'s item (first put at ``created``)."""
    if write.value is None:
        raise InvalidInputError(f"a delete of {write.key!r} keeps no item")
    metadata: dict[str, Any] = {
        KEY: write.key,
        VALUE: json.dumps(write.value, ensure_ascii=False),
        CREATED: created.timestamp(),
    }
    if not write.indexed:
        metadata[UNINDEXED] = True
    elif len(write.texts) > 1:
        metadata[PASSAGES] = json.dumps(write.texts, ensure_ascii=False)
    if write.ttl is not None:
        metadata[TTL_KEY] = write.ttl
    for field, scalar in write.value.items():
        if "." not in field and field and (copied := pushable(scalar)) is not None:
            metadata[FIELD_PREFIX + field] = copied
            if (number := numeric(scalar)) is not None:  # a numeric str, for ranges
                metadata[NUMBER_PREFIX + field] = number
    return metadata


def prepared_value(
    key: str, value: object, index: object, fields: Sequence[str]
) -> tuple[dict[str, Any], tuple[str, ...], bool]:
    """The value (as JSON round-trips it), the texts at its index paths (the whole value as
    JSON when it is not indexed), and whether it is indexed.

    Raises:
        InvalidTypeError / InvalidInputError: Not a dict of str keys, not JSON, bad paths.
    """
    if not isinstance(value, Mapping):
        raise InvalidTypeError(f"a store value must be a dict, got {type(value).__name__}")
    bad = [k for k in value if not isinstance(k, str)]
    if bad:
        raise InvalidTypeError(f"store value keys must be str, got {bad[:3]}")
    _check_ints(value, key, "")
    try:
        encoded = json.dumps(dict(value), ensure_ascii=False, default=_as_json)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"store value for key {key!r} is not JSON-serializable: {exc}"
        ) from exc
    decoded = cast(dict[str, Any], json.loads(encoded))
    if index is False:
        return decoded, (encoded,), False
    paths = fields if index is None else check_paths(index, "index")
    texts: list[str] = []
    for path in paths:
        texts.extend(get_text_at_path(decoded, path if path == "$" else tokenize_path(path)))
    kept = tuple(t for t in texts if t.strip())
    if not kept:  # nothing at the indexed paths: keep the item, unsearchable by query
        return decoded, (encoded,), False
    return decoded, kept, True


def item_passages(record: MemoryRecord) -> list[str]:
    """The texts an item was indexed by, each embedded apart when a search scores it
    (:class:`cogmem.Passages`); none for an item of one text, or a memory not of the store."""
    raw = record.metadata.get(PASSAGES)
    try:
        texts = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return []
    if not isinstance(texts, list):
        return []
    return [t for t in texts if isinstance(t, str) and t.strip()]


def _as_json(value: object) -> str:
    """What JSON keeps of a datetime, date, time or UUID: ISO 8601 text, the UUID's string
    (as SqliteStore's orjson does); anything else is refused."""
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_INT64 = (-(2**63), 2**63 - 1)


def _check_ints(value: object, key: str, path: str) -> None:
    """Refuse an int no store keeps exactly (beyond 64 bits), naming the item's key and the
    field (as SqliteStore refuses it), before it reaches cogmem's own metadata."""
    if isinstance(value, bool):
        return
    if isinstance(value, int) and not _INT64[0] <= value <= _INT64[1]:
        raise InvalidInputError(
            f"store value for key {key!r}: {path or 'the value'} is an int beyond 64 bits "
            f"({value}); store it as a str"
        )
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_ints(v, key, f"{path}.{k}" if path else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_ints(v, key, f"{path}[{i}]")


def check_paths(paths: object, name: str) -> list[str]:
    """``paths`` as a list of non-empty LangGraph path strings."""
    if isinstance(paths, str) or not isinstance(paths, Sequence):
        raise InvalidTypeError(f"{name} must be a list of paths, got {type(paths).__name__}")
    out = []
    for path in paths:
        if not isinstance(path, str) or not path:
            raise InvalidInputError(f"{name} must hold non-empty path strings, got {path!r}")
        out.append(path)
    return out


def index_paths(
    memory: CognitiveMemory, index: object, fields: Sequence[str] | None
) -> Sequence[str] | None:
    """The index paths a store takes from its ``index=`` (LangGraph's ``IndexConfig``), its
    ``dims`` and ``embed`` checked against the memory's embedder.

    Raises:
        InvalidTypeError: ``index`` is not a dict.
        InvalidInputError: It gives ``fields`` besides ``fields=``, an ``embed`` other than the
            memory's embedder, or an unknown key.
        DimensionMismatchError: Its ``dims`` is not the embedder's width.
    """
    if index is None:
        return fields
    if not isinstance(index, Mapping):
        raise InvalidTypeError(
            f"index must be a LangGraph IndexConfig dict, got {type(index).__name__}"
        )
    unknown = sorted(set(index) - {"dims", "embed", "fields"})
    if unknown:
        raise InvalidInputError(f"index has unknown key(s) {unknown}; it takes dims, embed, fields")
    width = getattr(memory.embedder, "dimension", None)
    dims = index.get("dims")
    if dims is not None and isinstance(width, int) and dims != width:
        raise DimensionMismatchError(
            f"index dims is {dims}, but the memory's embedder gives vectors of {width}"
        )
    embed = index.get("embed")
    if embed is not None and embed is not memory.embedder:
        raise InvalidInputError(
            "index embed must be the memory's own embedder: a CognitiveMemoryStore stores in "
            "its memory, which embeds every memory one way; build the memory with it "
            "(CognitiveMemory(embedder=...)) and leave embed out"
        )
    if index.get("fields") is not None and fields is not None:
        raise InvalidInputError("give the index paths once: fields= or index={'fields': ...}")
    return fields if index.get("fields") is None else list(index["fields"])
