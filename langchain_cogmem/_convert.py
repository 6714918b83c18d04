"""Type conversions shared by the adapters (no scoring logic lives here).

Also the one place that reaches past the public core API: :func:`list_memories`, because the
core has no public way yet to enumerate a namespace (see its docstring).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from cogmem import CognitiveMemory, InvalidTypeError, MemoryRecord, SearchResult

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    """The wall clock, timezone-aware (UTC)."""
    return datetime.now(timezone.utc)


def current_time(now: Clock | None) -> datetime:
    """Call the injected clock (or read the wall clock) and check it returned a datetime.

    Raises:
        InvalidTypeError: The clock returned something that is not a datetime. (A naive
            datetime is rejected by the core, naming ``now``.)
    """
    moment = utcnow() if now is None else now()
    if not isinstance(moment, datetime):
        raise InvalidTypeError(
            f"the now() clock must return a timezone-aware datetime, got {type(moment).__name__}"
        )
    return moment


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 text of a datetime (``None`` stays ``None``)."""
    return None if moment is None else moment.isoformat()


def memory_fields(memory: MemoryRecord) -> dict[str, Any]:
    """Every field of a memory as JSON-friendly values (times as ISO 8601 text)."""
    return {
        "id": memory.id,
        "memory_type": memory.memory_type,
        "importance": memory.importance,
        "confidence": memory.confidence,
        "stability": memory.stability,
        "created_at": iso(memory.created_at),
        "last_accessed_at": iso(memory.last_accessed_at),
        "access_count": memory.access_count,
        "session_ids": list(memory.session_ids),
        "status": memory.status,
        "superseded_by": memory.superseded_by,
        "previous_version": memory.previous_version,
        "pinned": memory.pinned,
        "tags": list(memory.tags),
        "namespace": memory.namespace,
        "links": dict(memory.links),
        "metadata": dict(memory.metadata),
    }


def result_metadata(result: SearchResult) -> dict[str, Any]:
    """A search result's memory fields plus its ``score`` and ``explanation`` (a dict)."""
    return {
        **memory_fields(result.memory),
        "score": result.score,
        "explanation": result.explanation.as_dict(),
    }


def list_memories(memory: CognitiveMemory, namespace: str) -> list[MemoryRecord]:
    """Every memory stored in ``namespace`` (every status), newest first."""
    return memory.memories(namespace=namespace, deep_recall=True)
