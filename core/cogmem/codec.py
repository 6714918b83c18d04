"""One memory as a JSON object, and back: the one codec of exports and of both adapters.

:func:`record_to_json` writes every field of a :class:`~cogmem.records.MemoryRecord` (times as
ISO 8601 with their offset, ``null`` for "never"); :func:`record_from_json` reads it back,
checking every field, into an equal record (hand-written objects may leave out every field but
``id``, ``text`` and ``created_at``). :func:`result_to_json` adds a search result's score and
explanation. The export format (:mod:`cogmem.transfer`) and the adapters' document and node
metadata are these objects.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .checks import check_unit_interval, check_user_metadata, ensure_aware
from .config import CognitiveMemoryConfig
from .errors import InvalidInputError, InvalidTypeError
from .records import MEMORY_TYPES, STATUSES, MemoryRecord, SearchResult
from .retention import initial_stability

__all__ = [
    "RECORD_FIELDS",
    "ExportFormatError",
    "iso",
    "record_from_json",
    "record_to_json",
    "result_to_json",
]

RECORD_FIELDS = (
    "id",
    "namespace",
    "text",
    "memory_type",
    "importance",
    "confidence",
    "stability",
    "created_at",
    "last_accessed_at",
    "access_count",
    "session_ids",
    "status",
    "superseded_by",
    "pinned",
    "tags",
    "links",
    "links_updated_at",
    "metadata",
    "contradicts",
    "previous_version",
    "expires_at",
)
_KNOWN = frozenset((*RECORD_FIELDS, "embedding"))


class ExportFormatError(InvalidInputError):
    """A JSON record (a line of an export file) cannot be read (the message names the line
    and the field)."""


def record_to_json(
    record: MemoryRecord, embedding: Sequence[float] | None = None
) -> dict[str, Any]:
    """The JSON object of one memory (every field; ``embedding`` only when given).

    Args:
        record: The memory.
        embedding: Its vector, to include.

    Returns:
        A dict that ``json.dumps`` writes as is; :func:`record_from_json` reads it back into an
        equal record.
    """
    out: dict[str, Any] = {
        "id": record.id,
        "namespace": record.namespace,
        "text": record.text,
        "memory_type": record.memory_type,
        "importance": float(record.importance),
        "confidence": float(record.confidence),
        "stability": float(record.stability),
        "created_at": record.created_at.isoformat(),
        "last_accessed_at": iso(record.last_accessed_at),
        "access_count": int(record.access_count),
        "session_ids": list(record.session_ids),
        "status": record.status,
        "superseded_by": record.superseded_by,
        "pinned": bool(record.pinned),
        "tags": list(record.tags),
        "links": {str(k): float(v) for k, v in record.links.items()},
        "links_updated_at": iso(record.links_updated_at),
        "metadata": dict(record.metadata),
        "contradicts": list(record.contradicts),
        "previous_version": record.previous_version,
        "expires_at": iso(record.expires_at),
    }
    if embedding is not None:
        out["embedding"] = [float(x) for x in embedding]
    return out


def record_from_json(
    data: object,
    *,
    where: str = "record",
    config: CognitiveMemoryConfig | None = None,
) -> tuple[MemoryRecord, list[float] | None]:
    """Read one memory written by :func:`record_to_json` (or by hand), checking every field.

    Args:
        data: The decoded JSON object.
        where: How errors name the record, e.g. ``"memories.jsonl line 3"``.
        config: Gives the initial stability when ``stability`` is left out (default config).

    Returns:
        The record and its embedding (``None`` when the object has none).

    Raises:
        ExportFormatError: A field is missing, unknown or malformed (named with ``where``).
    """
    if not isinstance(data, Mapping):
        raise ExportFormatError(f"{where}: expected a JSON object, got {_json_type(data)}")
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise ExportFormatError(f"{where}: unknown field(s) {unknown}")
    missing = [k for k in ("id", "text", "created_at") if k not in data]
    if missing:
        raise ExportFormatError(f"{where}: missing field(s) {missing}")
    try:
        return _decode(data, where, config or CognitiveMemoryConfig())
    except ExportFormatError:
        raise
    except (InvalidInputError, InvalidTypeError) as exc:  # the shared checks name the field
        raise ExportFormatError(str(exc)) from exc


def _decode(
    data: Mapping[str, Any], where: str, config: CognitiveMemoryConfig
) -> tuple[MemoryRecord, list[float] | None]:
    def text(key: str, *, default: str | None = None, blank_ok: bool = False) -> str:
        value = data.get(key, default)
        if not isinstance(value, str):
            raise ExportFormatError(f"{where}: {key} must be a string, got {_json_type(value)}")
        if not (value.strip() if not blank_ok else value):
            raise ExportFormatError(f"{where}: {key} must not be empty")
        return value

    def optional_text(key: str) -> str | None:
        return None if data.get(key) is None else text(key)

    def strings(key: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ExportFormatError(f"{where}: {key} must be a list of non-empty strings")
        return tuple(value)

    memory_type = text("memory_type", default="episodic")
    if memory_type not in MEMORY_TYPES:
        raise ExportFormatError(
            f"{where}: memory_type must be one of {', '.join(MEMORY_TYPES)}; got {memory_type!r}"
        )
    status = text("status", default="active")
    if status not in STATUSES:
        raise ExportFormatError(
            f"{where}: status must be one of {', '.join(STATUSES)}; got {status!r}"
        )
    importance = check_unit_interval(data.get("importance", 0.5), f"{where}: importance")
    stability = check_unit_interval(
        data.get("stability", initial_stability(importance, config)), f"{where}: stability"
    )
    access_count = data.get("access_count", 0)
    if isinstance(access_count, bool) or not isinstance(access_count, int) or access_count < 0:
        raise ExportFormatError(f"{where}: access_count must be an integer >= 0")
    pinned = data.get("pinned", False)
    if not isinstance(pinned, bool):
        raise ExportFormatError(f"{where}: pinned must be true or false")
    links = data.get("links", {})
    if not isinstance(links, Mapping):
        raise ExportFormatError(f"{where}: links must be an object of id -> weight")
    metadata = data.get("metadata", {})
    if not isinstance(metadata, Mapping):
        raise ExportFormatError(f"{where}: metadata must be an object")
    record = MemoryRecord(
        id=text("id", blank_ok=True),
        namespace=text("namespace", default="default", blank_ok=True),
        text=text("text"),
        memory_type=memory_type,
        importance=importance,
        confidence=check_unit_interval(data.get("confidence", 0.8), f"{where}: confidence"),
        stability=stability,
        created_at=_time(data["created_at"], f"{where}: created_at"),
        last_accessed_at=_optional_time(data.get("last_accessed_at"), f"{where}: last_accessed_at"),
        access_count=access_count,
        session_ids=strings("session_ids"),
        status=status,
        superseded_by=optional_text("superseded_by"),
        pinned=pinned,
        tags=strings("tags"),
        links={str(k): check_unit_interval(v, f"{where}: links[{k!r}]") for k, v in links.items()},
        links_updated_at=_optional_time(data.get("links_updated_at"), f"{where}: links_updated_at"),
        metadata=check_user_metadata(dict(metadata)),
        contradicts=strings("contradicts"),
        previous_version=optional_text("previous_version"),
        expires_at=_optional_time(data.get("expires_at"), f"{where}: expires_at"),
    )
    return record, _embedding(data.get("embedding"), where)


def _embedding(value: object, where: str) -> list[float] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        raise ExportFormatError(f"{where}: embedding must be a non-empty list of numbers")
    out: list[float] = []
    for x in value:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise ExportFormatError(f"{where}: embedding must hold finite numbers, got {x!r}")
        out.append(float(x))
    return out


def iso(value: datetime | None) -> str | None:
    """ISO 8601 text of a time, with its offset (``None`` stays ``None``)."""
    return None if value is None else value.isoformat()


def _time(value: object, name: str) -> datetime:
    if not isinstance(value, str):
        raise ExportFormatError(f"{name} must be an ISO 8601 string, got {_json_type(value)}")
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ExportFormatError(f"{name}: {value!r} is not an ISO 8601 time") from exc
    if moment.tzinfo is None:
        raise ExportFormatError(
            f"{name}: {value!r} has no UTC offset; write e.g. {value}+00:00 (cogmem never "
            "guesses a time zone)"
        )
    return ensure_aware(moment, name)


def _optional_time(value: object, name: str) -> datetime | None:
    return None if value is None else _time(value, name)


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    if isinstance(value, (int, float)):
        return "a number"
    return type(value).__name__


# ---------------------------------------------------------------------- reading a store


def result_to_json(result: SearchResult) -> dict[str, Any]:
    """A search result: its memory's JSON object, its ``score`` and its ``explanation``."""
    return {
        **record_to_json(result.memory),
        "score": result.score,
        "explanation": result.explanation.as_dict(),
    }
