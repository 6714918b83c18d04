"""Type conversions shared by the LlamaIndex adapters (no scoring logic lives here).

Clocks, timestamps in the shapes node metadata carries them (ISO 8601 text, ``datetime``,
epoch seconds), and a memory's fields as JSON-friendly node metadata.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date, datetime, timezone, tzinfo
from typing import Any

from cogmem import InvalidInputError, InvalidTypeError, MemoryRecord, SearchResult
from cogmem.checks import ensure_aware
from cogmem.codec import RECORD_FIELDS, iso, record_to_json

__all__ = [
    "MEMORY_FIELDS",
    "Now",
    "check_now",
    "current_time",
    "iso",
    "memory_fields",
    "parse_timestamp",
    "result_metadata",
]

#: What adapters take as ``now``: a timezone-aware datetime, epoch seconds, a clock
#: (``() -> datetime``), or ``None`` for the wall clock at each call.
Now = datetime | float | int | Callable[[], datetime] | None

# What a memory node carries elsewhere: its id (the node id), text (the node's text) and user
# metadata (flattened into the node's metadata).
_NOT_FIELDS = frozenset({"id", "text", "metadata"})

#: The node metadata keys cogmem writes on a memory node: the memory's fields, its score and
#: its explanation (everything else in a memory node's metadata is the memory's user metadata).
MEMORY_FIELDS: tuple[str, ...] = (
    *(f for f in RECORD_FIELDS if f not in _NOT_FIELDS),
    "score",
    "explanation",
)


def current_time(now: object, name: str = "now") -> datetime:
    """Resolve an adapter's ``now`` to a timezone-aware datetime (UTC).

    Args:
        now: ``None`` (the wall clock), a timezone-aware ``datetime``, epoch seconds
            (``int``/``float``, as ``time.time()`` gives), or a clock returning a datetime.
        name: The argument's name, for error messages.

    Raises:
        InvalidTypeError: ``now`` (or what the clock returned) is none of those.
        InvalidInputError: A naive datetime (cogmem never guesses a time zone), or epoch
            seconds that are not a finite, representable time.
    """
    if now is None:
        return datetime.now(timezone.utc)
    if isinstance(now, datetime):
        return ensure_aware(now, name)
    if isinstance(now, (int, float)) and not isinstance(now, bool):
        return _from_epoch(float(now), name)
    if callable(now):
        moment = now()
        if not isinstance(moment, datetime):
            raise InvalidTypeError(
                f"the {name}() clock must return a timezone-aware datetime, "
                f"got {type(moment).__name__}"
            )
        return ensure_aware(moment, f"{name}()")
    raise InvalidTypeError(
        f"{name} must be a timezone-aware datetime, epoch seconds or a clock "
        f"(() -> datetime), got {type(now).__name__}"
    )


def check_now(now: object, name: str = "now") -> None:
    """Check ``now`` at construction: a clock is only checked to be callable."""
    if now is None or callable(now):
        return
    current_time(now, name)


def _from_epoch(seconds: float, name: str) -> datetime:
    if not math.isfinite(seconds):
        raise InvalidInputError(f"{name} must be finite epoch seconds, got {seconds!r}")
    try:
        return datetime.fromtimestamp(seconds, tz=timezone.utc)
    except (OverflowError, OSError, ValueError) as exc:
        raise InvalidInputError(f"{name} = {seconds!r} is not a representable time") from exc


def parse_timestamp(value: object, name: str, *, naive_timezone: tzinfo | None) -> datetime:
    """A timestamp as node metadata carries it, as a timezone-aware datetime (UTC).

    Accepted: ``datetime`` (naive ones are read in ``naive_timezone``), ``date`` (midnight),
    epoch seconds (``int``/``float``), and ISO 8601 text (``"2026-05-01T12:00:00+00:00"``,
    ``"2026-05-01T12:00:00Z"``, ``"2026-05-01"``).

    Args:
        value: The metadata value.
        name: What to call it in error messages (e.g. ``node 'n1': metadata['created_at']``).
        naive_timezone: The zone of times written without one; ``None`` rejects them.

    Raises:
        InvalidTypeError: ``value`` is of none of the accepted types.
        InvalidInputError: Text that is not ISO 8601, non-finite epoch seconds, or a naive
            time while ``naive_timezone`` is ``None``.
    """
    if isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be a timestamp, got bool {value!r}")
    if isinstance(value, (int, float)):
        return _from_epoch(float(value), name)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):  # Python 3.10's fromisoformat does not take "Z"
            text = text[:-1] + "+00:00"
        try:
            parsed: datetime | date = datetime.fromisoformat(text)
        except ValueError:
            try:
                parsed = date.fromisoformat(text)
            except ValueError:
                raise InvalidInputError(
                    f"{name} = {value!r} is not an ISO 8601 time (e.g. 2026-05-01T12:00:00Z)"
                ) from None
        value = parsed
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            if naive_timezone is None:
                raise InvalidInputError(
                    f"{name} = {value.isoformat()!r} has no time zone; give one "
                    "(e.g. +00:00) or set naive_timezone"
                )
            value = value.replace(tzinfo=naive_timezone)
        return value.astimezone(timezone.utc)
    if isinstance(value, date):
        if naive_timezone is None:
            raise InvalidInputError(
                f"{name} = {value.isoformat()!r} is a date without a time zone; set naive_timezone"
            )
        midnight = datetime(value.year, value.month, value.day, tzinfo=naive_timezone)
        return midnight.astimezone(timezone.utc)
    raise InvalidTypeError(
        f"{name} must be ISO 8601 text, a datetime or epoch seconds, got {type(value).__name__}"
    )


def memory_fields(memory: MemoryRecord) -> dict[str, Any]:
    """Every field of a memory but its id, text and user metadata, JSON-friendly (times as
    ISO 8601 text); see :func:`cogmem.codec.record_to_json`."""
    return {k: v for k, v in record_to_json(memory).items() if k not in _NOT_FIELDS}


def result_metadata(result: SearchResult) -> dict[str, Any]:
    """A search result as flat node metadata.

    The memory's free user metadata comes first, at the top level (as metadata is in any
    LlamaIndex node, so ``MetadataFilter(key="project", ...)`` names it); then the memory's own
    fields, the ``score`` and the ``explanation`` (a dict), which win over a user key of the
    same name.
    """
    return {
        **dict(result.memory.metadata),
        **memory_fields(result.memory),
        "score": result.score,
        "explanation": result.explanation.as_dict(),
    }
