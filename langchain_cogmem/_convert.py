"""Type conversions shared by the LangChain adapters (no scoring logic lives here): clocks,
and memories and results as metadata (the core's codec, :mod:`cogmem.codec`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from cogmem import CognitiveMemory, InvalidTypeError, MemoryRecord, SearchResult
from cogmem.codec import result_to_json

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


def result_metadata(result: SearchResult) -> dict[str, Any]:
    """A search result as Document metadata: every field of its memory but the text (which is
    the page content), its ``score`` and its ``explanation`` (a dict); see
    :func:`cogmem.codec.result_to_json`."""
    return {k: v for k, v in result_to_json(result).items() if k != "text"}


def list_memories(memory: CognitiveMemory, namespace: str) -> list[MemoryRecord]:
    """Every memory stored in ``namespace`` (every status), newest first."""
    return memory.memories(namespace=namespace, deep_recall=True)
