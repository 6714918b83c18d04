"""LlamaIndex ``MetadataFilters`` as cogmem filters.

cogmem filters (:func:`cogmem.store.build_where`) are a conjunction of per-field conditions:
``memory_type``, ``tags``, ``pinned``, ``created_after``/``created_before`` and the memories'
own metadata keys with ``$eq $ne $gt $gte $lt $lte $in $nin``. A ``MetadataFilters`` tree
translates when it is such a conjunction:

================  ===============================================  ============================
key               operators                                        cogmem filter
================  ===============================================  ============================
``memory_type``   ``==`` ``!=`` ``in`` ``nin``                     ``memory_type``: the types
                                                                   left (a list)
``tags``          ``contains``, ``==`` (one tag), ``all``,         ``tags``: all required
                  ``any`` with one tag
``pinned``        ``==`` ``!=`` with ``"true"``/``"false"``/1/0    ``pinned``: a bool
``created_at``    ``>`` ``>=`` ``<`` ``<=`` ``==`` (ISO 8601 text     ``created_after`` /
                  with a zone, or epoch seconds)                   ``created_before``
any other key     ``==`` ``!=`` ``>`` ``>=`` ``<`` ``<=`` ``in``       ``{key: {"$eq": ...}}``, ...
                  ``nin``                                          (user metadata)
================  ===============================================  ============================

``condition="and"`` (the default) nests freely; ``condition="or"`` is accepted when every
filter under it is ``==``/``in`` on one key (it becomes ``in``). Everything else (``not``, other
``or`` trees, ``text_match``, ``is_empty``, ``contains``/``any``/``all`` on user metadata,
memory fields cogmem does not filter on such as ``importance``) raises
:class:`~llamaindex_cogmem.UnsupportedFilterError` naming the filter.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from cogmem import InvalidTypeError
from cogmem.filters import build_where
from cogmem.records import MEMORY_TYPES

from ._convert import MEMORY_FIELDS, parse_timestamp
from .errors import UnsupportedFilterError

__all__ = ["to_cogmem_filters"]

Leaf = tuple[str, FilterOperator, Any]

_USER_OPERATORS: dict[FilterOperator, str] = {
    FilterOperator.EQ: "$eq",
    FilterOperator.NE: "$ne",
    FilterOperator.GT: "$gt",
    FilterOperator.GTE: "$gte",
    FilterOperator.LT: "$lt",
    FilterOperator.LTE: "$lte",
    FilterOperator.IN: "$in",
    FilterOperator.NIN: "$nin",
}
_BUILT_IN = ("memory_type", "tags", "pinned", "created_at")
# Memory fields a search cannot filter on, and what to use instead where there is something.
_NOT_FILTERABLE = {key: "" for key in MEMORY_FIELDS if key not in _BUILT_IN} | {
    "namespace": "; pass namespace= to the retriever instead",
    "status": "; pass deep_recall=True to include superseded memories",
    "session_ids": "; filter on your own 'session_id' metadata key instead",
}
_ONE_MICROSECOND = timedelta(microseconds=1)


def to_cogmem_filters(
    filters: MetadataFilters | Mapping[str, Any] | None,
) -> dict[str, Any] | None:
    """Translate LlamaIndex metadata filters into cogmem filters (see the module docstring).

    Args:
        filters: A ``MetadataFilters`` tree, a cogmem filter dict (checked and returned as a
            copy), or ``None``.

    Returns:
        The cogmem filter dict, or ``None`` for no filter.

    Raises:
        UnsupportedFilterError: A filter has no cogmem equivalent (the message names it).
        InvalidTypeError / InvalidInputError: A value cogmem cannot use (e.g. an unknown memory
            type, a time without a zone).
    """
    if filters is None:
        return None
    if isinstance(filters, MetadataFilters):
        translated = _translate(_leaves(filters))
    elif isinstance(filters, Mapping):
        translated = dict(filters)
    else:
        raise InvalidTypeError(
            "filters must be a LlamaIndex MetadataFilters or a cogmem filter dict, "
            f"got {type(filters).__name__}"
        )
    build_where(translated)  # the core's own validation, raising its own errors
    return translated or None


def _describe(leaf: Leaf) -> str:
    key, op, value = leaf
    return f"MetadataFilter(key={key!r}, operator={op.value!r}, value={value!r})"


def _leaves(filters: MetadataFilters) -> list[Leaf]:
    """The conditions of a conjunction, flattened."""
    condition = filters.condition or FilterCondition.AND
    children = list(filters.filters)
    if condition == FilterCondition.NOT:
        raise UnsupportedFilterError(
            "cogmem cannot apply condition='not' filters; use operator '!=' or 'nin' on the "
            "key instead"
        )
    if condition == FilterCondition.OR and len(children) > 1:
        return [_or_as_in(children)]
    out: list[Leaf] = []
    for child in children:
        if isinstance(child, MetadataFilters):
            out.extend(_leaves(child))
        elif isinstance(child, MetadataFilter):
            out.append((child.key, FilterOperator(child.operator), child.value))
        else:
            raise InvalidTypeError(
                f"MetadataFilters.filters holds a {type(child).__name__}; expected "
                "MetadataFilter or MetadataFilters"
            )
    return out


def _or_as_in(children: list[MetadataFilter | MetadataFilters]) -> Leaf:
    """An OR of equalities on one key, as that key ``in`` the values."""
    keys = {c.key for c in children if isinstance(c, MetadataFilter)}
    simple = all(
        isinstance(c, MetadataFilter) and c.operator in (FilterOperator.EQ, FilterOperator.IN)
        for c in children
    )
    if not simple or len(keys) != 1:
        raise UnsupportedFilterError(
            "cogmem filters are a conjunction (AND); condition='or' is only supported "
            "between '==' / 'in' filters on one key (it becomes 'in'); got "
            + ", ".join(
                _describe((c.key, FilterOperator(c.operator), c.value))
                if isinstance(c, MetadataFilter)
                else "a nested MetadataFilters"
                for c in children
            )
        )
    values: list[Any] = []
    for child in children:
        if not isinstance(child, MetadataFilter):  # excluded above; keeps the types exact
            continue
        items = child.value if isinstance(child.value, list) else [child.value]
        values.extend(v for v in items if v not in values)
    return keys.pop(), FilterOperator.IN, values


def _translate(leaves: list[Leaf]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    types: set[str] | None = None
    tags: list[str] = []
    after: datetime | None = None
    before: datetime | None = None
    for leaf in leaves:
        key, op, value = leaf
        if value is None and op != FilterOperator.IS_EMPTY:
            raise UnsupportedFilterError(f"{_describe(leaf)} has no value to compare with")
        if key == "memory_type":
            allowed = _types(leaf)
            types = allowed if types is None else types & allowed
        elif key == "tags":
            tags.extend(t for t in _tags(leaf) if t not in tags)
        elif key == "pinned":
            pinned = _pinned(leaf)
            if out.get("pinned", pinned) != pinned:
                raise UnsupportedFilterError(f"{_describe(leaf)} contradicts another filter")
            out["pinned"] = pinned
        elif key == "created_at":
            low, high = _created(leaf)
            if low is not None:
                after = low if after is None else max(after, low)
            if high is not None:
                before = high if before is None else min(before, high)
        elif key in _NOT_FILTERABLE:
            raise UnsupportedFilterError(
                f"{_describe(leaf)}: cogmem cannot filter on the memory field {key!r}"
                f"{_NOT_FILTERABLE[key]}. Filterable: memory_type, tags, pinned, created_at "
                "and your own metadata keys"
            )
        else:
            _user(out, leaf)
    if types is not None:
        if not types:
            raise UnsupportedFilterError(
                "the memory_type filters exclude every type: nothing could match"
            )
        out["memory_type"] = [t for t in MEMORY_TYPES if t in types]
    if tags:
        out["tags"] = tags
    if after is not None:
        out["created_after"] = after
    if before is not None:
        out["created_before"] = before
    return out


def _unsupported(leaf: Leaf, supported: str) -> UnsupportedFilterError:
    return UnsupportedFilterError(
        f"{_describe(leaf)}: operator {leaf[1].value!r} is not supported on {leaf[0]!r} "
        f"by cogmem; supported there: {supported}"
    )


def _as_list(leaf: Leaf) -> list[Any]:
    value = leaf[2]
    if not isinstance(value, list) or not value:
        raise UnsupportedFilterError(f"{_describe(leaf)} needs a non-empty list")
    return value


def _types(leaf: Leaf) -> set[str]:
    _, op, value = leaf
    every: set[str] = set(MEMORY_TYPES)
    if op in (FilterOperator.EQ, FilterOperator.NE) and not isinstance(value, str):
        raise UnsupportedFilterError(f"{_describe(leaf)}: compare memory_type with one type")
    if op == FilterOperator.EQ:
        chosen = {value}
    elif op == FilterOperator.IN:
        chosen = set(_as_list(leaf))
    elif op == FilterOperator.NE:
        return every - {value}
    elif op == FilterOperator.NIN:
        return every - set(_as_list(leaf))
    else:
        raise _unsupported(leaf, "'==', '!=', 'in', 'nin'")
    unknown = sorted(str(t) for t in chosen - every)
    if unknown:
        raise UnsupportedFilterError(
            f"{_describe(leaf)}: unknown memory type(s) {unknown}; known: {MEMORY_TYPES}"
        )
    return chosen


def _tags(leaf: Leaf) -> list[str]:
    _, op, value = leaf
    if op in (FilterOperator.CONTAINS, FilterOperator.EQ) and isinstance(value, str):
        return [value]
    if op == FilterOperator.ALL:
        return [str(t) for t in _as_list(leaf)]
    if op == FilterOperator.ANY and len(_as_list(leaf)) == 1:
        return [str(value[0])]
    if op == FilterOperator.ANY:
        raise UnsupportedFilterError(
            f"{_describe(leaf)}: cogmem requires every tag it is given; 'any' of several tags "
            "is an OR it cannot express"
        )
    raise _unsupported(leaf, "'contains' / '==' (one tag), 'all', 'any' with one tag")


def _pinned(leaf: Leaf) -> bool:
    _, op, value = leaf
    truth = {"true": True, "false": False, "1": True, "0": False}
    text = str(value).strip().lower()
    if op not in (FilterOperator.EQ, FilterOperator.NE) or text not in truth:
        raise UnsupportedFilterError(
            f"{_describe(leaf)}: filter pinned with '==' or '!=' and 'true'/'false' (or 1/0); "
            "MetadataFilter does not take bool values"
        )
    return truth[text] if op == FilterOperator.EQ else not truth[text]


def _created(leaf: Leaf) -> tuple[datetime | None, datetime | None]:
    _, op, value = leaf
    if op not in (
        FilterOperator.GT,
        FilterOperator.GTE,
        FilterOperator.LT,
        FilterOperator.LTE,
        FilterOperator.EQ,
    ):
        raise _unsupported(leaf, "'>', '>=', '<', '<=', '=='")
    moment = parse_timestamp(value, _describe(leaf), naive_timezone=None)
    if op == FilterOperator.GTE:
        return moment, None
    if op == FilterOperator.GT:  # cogmem's bounds are inclusive
        return moment + _ONE_MICROSECOND, None
    if op == FilterOperator.LTE:
        return None, moment
    if op == FilterOperator.LT:
        return None, moment - _ONE_MICROSECOND
    return moment, moment  # '=='


def _user(out: dict[str, Any], leaf: Leaf) -> None:
    key, op, value = leaf
    if op not in _USER_OPERATORS:
        raise _unsupported(leaf, ", ".join(repr(o.value) for o in _USER_OPERATORS))
    if op in (FilterOperator.IN, FilterOperator.NIN):
        value = _as_list(leaf)
    ops: dict[str, Any] = out.setdefault(key, {})
    name = _USER_OPERATORS[op]
    if name in ops and ops[name] != value:
        raise UnsupportedFilterError(
            f"{_describe(leaf)}: {key!r} already has a {op.value!r} filter with another value"
        )
    ops[name] = value
