"""The argument checks every public call makes, once: each returns the value checked (or a
normalised copy) and raises a named :class:`~cogmem.errors.CogmemError` that says which
argument was wrong and how.

Type errors raise :class:`~cogmem.errors.InvalidTypeError` (a ``TypeError``), wrong values
:class:`~cogmem.errors.InvalidInputError` (a ``ValueError``).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import ParamSpec, TypeVar

from .errors import InvalidInputError, InvalidTypeError
from .records import MEMORY_TYPES, MemoryType

P = ParamSpec("P")
R = TypeVar("R")

__all__ = [
    "ALIASES",
    "EARLIEST",
    "LATEST",
    "check_bool",
    "check_callable",
    "check_int",
    "check_name",
    "check_real",
    "check_scalar",
    "check_str",
    "check_text",
    "check_texts",
    "check_unicode",
    "check_unit_interval",
    "check_user_metadata",
    "ensure_aware",
    "hint_unknown_keywords",
    "resolve_now",
    "suggest",
]

#: The times cogmem accepts: within ~285 years of 1970 a float of epoch seconds is exact to
#: the microsecond (|t| < 2^53 µs), which is how times are stored.
EARLIEST = datetime(1700, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc)

_INT64 = (-(2**63), 2**63 - 1)

Scalar = str | int | float | bool


def check_str(value: object, name: str) -> str:
    """``value`` if it is a str."""
    if not isinstance(value, str):
        raise InvalidTypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


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


def check_text(value: object, name: str) -> str:
    """``value`` if it is a str with something besides whitespace, in valid Unicode."""
    text = check_str(value, name)
    if not text.strip():
        raise InvalidInputError(f"{name} must not be empty or whitespace")
    return check_unicode(text, name)


def check_name(value: object, name: str) -> str:
    """``value`` if it is a non-empty str in valid Unicode (an id, a namespace, a tag)."""
    text = check_str(value, name)
    if not text:
        raise InvalidInputError(f"{name} must not be empty")
    return check_unicode(text, name)


def check_texts(texts: object, name: str = "texts") -> list[str]:
    """``texts`` as a list, if it is a sequence of str (a lone str is refused: wrap it)."""
    if isinstance(texts, (str, bytes)):
        raise InvalidTypeError(
            f"{name} must be a sequence of str, got a single {type(texts).__name__}; "
            "wrap it in a list"
        )
    if not isinstance(texts, Sequence):
        raise InvalidTypeError(f"{name} must be a sequence of str, got {type(texts).__name__}")
    out = list(texts)
    for i, text in enumerate(out):
        check_str(text, f"{name}[{i}]")
    return out


def check_ids(ids: object, name: str = "ids") -> list[str]:
    """``ids`` as a list of checked memory ids (a lone str is refused: wrap it)."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise InvalidTypeError(
            f"{name} must be a list of memory ids, got {type(ids).__name__}"
            + (" (one id: pass [id])" if isinstance(ids, str) else "")
        )
    return [check_name(i, f"{name}[{n}]") for n, i in enumerate(ids)]


def check_memory_type(value: object, name: str = "memory_type") -> MemoryType:
    """``value`` if it is one of the memory types (:data:`~cogmem.records.MEMORY_TYPES`)."""
    if value not in MEMORY_TYPES:
        raise InvalidInputError(f"{name} must be one of {', '.join(MEMORY_TYPES)}; got {value!r}")
    return value


def check_bool(value: object, name: str) -> bool:
    """``value`` if it is a bool (not merely truthy)."""
    if not isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def check_callable(value: object, name: str, signature: str) -> None:
    """Refuse a ``value`` that is neither ``None`` nor callable (``signature`` says what it
    should be, e.g. ``"(str, str) -> bool"``)."""
    if value is not None and not callable(value):
        raise InvalidTypeError(f"{name} must be a callable: {signature}")


def check_int(value: object, name: str, low: int = 1, high: int | None = None) -> int:
    """``value`` if it is an int (not a bool) in ``[low, high]`` (``high`` ``None``: no top)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"between {low} and {high}"
        raise InvalidInputError(f"{name} must be {bound}, got {value}")
    return value


def check_real(value: object, name: str, low: float, high: float) -> float:
    """``value`` as a float, if it is a finite real number in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidTypeError(f"{name} must be a real number, got {type(value).__name__}")
    number = float(value)
    if not (math.isfinite(number) and low <= number <= high):
        raise InvalidInputError(f"{name} must be finite and within [{low}, {high}], got {value!r}")
    return number


def check_unit_interval(value: object, name: str) -> float:
    """``value`` as a float in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidTypeError(f"{name} must be a number in [0, 1], got {type(value).__name__}")
    number = float(value)
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise InvalidInputError(f"{name} must be in [0, 1], got {value!r}")
    return number


def ensure_aware(value: object, name: str) -> datetime:
    """``value`` in UTC, if it is a timezone-aware datetime between :data:`EARLIEST` and
    :data:`LATEST`.

    Raises:
        InvalidTypeError: ``value`` is not a datetime.
        InvalidInputError: ``value`` is naive (has no tzinfo; cogmem never guesses a zone), or
            out of range.
    """
    if not isinstance(value, datetime):
        raise InvalidTypeError(
            f"{name} must be a timezone-aware datetime, got {type(value).__name__}"
        )
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInputError(
            f"{name} is a naive datetime ({value.isoformat()}); pass a timezone-aware one, "
            "e.g. datetime.now(timezone.utc)"
        )
    try:
        utc = value.astimezone(timezone.utc)
    except (OverflowError, ValueError) as exc:
        raise InvalidInputError(
            f"{name} ({value.isoformat()}) has no UTC equivalent: {exc}"
        ) from None
    if not EARLIEST <= utc < LATEST:
        raise InvalidInputError(
            f"{name} must lie between {EARLIEST.date()} and {LATEST.date()} (UTC), got "
            f"{utc.isoformat()}: times are kept as epoch seconds, exact to the microsecond "
            "only in that range"
        )
    return utc


def resolve_now(now: datetime | None) -> datetime:
    """``now`` checked, or the clock when it is ``None`` (the one place cogmem reads it)."""
    return datetime.now(timezone.utc) if now is None else ensure_aware(now, "now")


def check_user_metadata(metadata: object) -> dict[str, Scalar]:
    """Free user metadata as a dict: str keys, scalar values Chroma can filter on.

    Raises:
        InvalidTypeError: Not a mapping, a non-str key, or a value that is not str/int/float/bool.
        InvalidInputError: An empty key, a NaN/infinite float, an int beyond 64 bits, or text
            that is not valid Unicode.
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidTypeError(f"metadata must be a dict, got {type(metadata).__name__}")
    out: dict[str, Scalar] = {}
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
        check_scalar(value, f"metadata[{key!r}]")
        out[key] = value
    return out


def check_scalar(value: object, name: str) -> None:
    """Strings must be valid Unicode, ints fit in 64 bits (what Chroma keeps exactly) and
    floats be finite (a NaN equals nothing: a filter on it would silently match nothing)."""
    if isinstance(value, str):
        check_unicode(value, name)
    elif isinstance(value, float) and not math.isfinite(value):
        raise InvalidInputError(f"{name} must be a finite number, got {value!r}")
    elif (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not _INT64[0] <= value <= _INT64[1]
    ):
        raise InvalidInputError(f"{name} must fit in 64 bits, got {value}")


#: Names other libraries (and habit) use for cogmem's arguments and fields.
ALIASES: Mapping[str, str] = {
    "k": "top_k",
    "limit": "top_k",
    "n_results": "top_k",
    "filter": "filters",
    "where": "filters",
    "type": "memory_type",
    "kind": "memory_type",
    "user_id": "namespace",
    "user": "namespace",
    "meta": "metadata",
    "content": "text",
    "score_threshold": "min_score",
    "top_k": "k",  # where k is the name (the middleware, the retriever)
}


def suggest(unknown: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for an unknown argument or field, or ``""``: its common alias
    (:data:`ALIASES`) when that is known here, else the closest known name."""
    names = sorted(known)
    alias = ALIASES.get(unknown)
    if alias in names:
        return f" (did you mean {alias!r}?)"
    close = difflib.get_close_matches(unknown, names, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def hint_unknown_keywords(fn: Callable[P, R]) -> Callable[P, R]:
    """Make a call with an unknown keyword argument raise :class:`InvalidTypeError` naming
    the argument meant (``search(k=3)``: ``top_k``), where Python's ``TypeError`` names only
    the wrong one. Costs nothing on a good call: the signature is read only when the call
    raised ``TypeError``."""
    parameters = inspect.signature(fn).parameters

    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except TypeError:
            unknown = [k for k in kwargs if k not in parameters]
            if not unknown:
                raise
            hints = "; ".join(f"{k!r}{suggest(k, parameters)}" for k in unknown)
            raise InvalidTypeError(
                f"{fn.__name__}() got unknown keyword argument(s) {hints}; it takes "
                f"{', '.join(p for p in parameters if p != 'self')}"
            ) from None

    return call
