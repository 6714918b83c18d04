"""cogmem's search filters: checked once, then run both as a Chroma ``where`` clause (the dense
list) and as a predicate on records (the lexical list and the neighbours), so that every list
obeys one filter."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .checks import check_scalar, ensure_aware
from .chroma_layout import TAG_PREFIX, USER_PREFIX
from .errors import InvalidInputError, InvalidTypeError
from .records import MEMORY_TYPES, MemoryRecord

__all__ = ["Where", "build_where", "compile_filters"]

Where = dict[str, Any]
_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"})


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
    * ``$or``: a list of filters of user metadata, any of which may hold
      (``{"$or": [{"a": 1}, {"b": {"$gt": 2}}]}``).

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
        checks.append(_any_of(value) if key == "$or" else _predicate(key, value))
    return lambda m: all(check(m) for check in checks)


def _any_of(alternatives: list[Mapping[str, Any]]) -> Callable[[MemoryRecord], bool]:
    """The predicate of a ``$or`` (checked by :func:`build_where` already)."""
    each = [[_predicate(k, v) for k, v in alt.items()] for alt in alternatives]
    return lambda m: any(all(check(m) for check in checks) for checks in each)


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
    if key == "$or":
        return [_or_clause(value)]
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


def _or_clause(alternatives: Any) -> Where:
    """Chroma's ``$or`` of user-metadata filters.

    Raises:
        InvalidTypeError / InvalidInputError: Not a non-empty list of non-empty filter dicts
            on user metadata.
    """
    if not isinstance(alternatives, (list, tuple)) or not alternatives:
        raise InvalidTypeError("filters['$or'] must be a non-empty list of filters")
    branches: list[Where] = []
    for n, alt in enumerate(alternatives):
        if not isinstance(alt, Mapping) or not alt:
            raise InvalidTypeError(f"filters['$or'][{n}] must be a non-empty filter dict")
        reserved = sorted(
            set(alt) & {"memory_type", "tags", "pinned", "created_after", "created_before", "$or"}
        )
        if reserved:
            raise InvalidInputError(
                f"filters['$or'][{n}] may only filter user metadata, not {reserved}"
            )
        clauses = [c for k, v in alt.items() for c in _filter_clause(k, v)]
        branches.append(clauses[0] if len(clauses) == 1 else {"$and": clauses})
    return branches[0] if len(branches) == 1 else {"$or": branches}


def _check_operand(key: str, op: str, operand: Any) -> None:
    scalars = (str, int, float, bool)
    if op in ("$in", "$nin"):
        if not isinstance(operand, (list, tuple)) or not operand:
            raise InvalidTypeError(f"filters[{key!r}][{op!r}] must be a non-empty list")
        if not all(isinstance(v, scalars) for v in operand):
            raise InvalidTypeError(f"filters[{key!r}][{op!r}] must hold str/int/float/bool")
        for v in operand:
            check_scalar(v, f"filters[{key!r}][{op!r}]")
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
        check_scalar(operand, f"filters[{key!r}]")
