"""How the LangGraph store addresses and filters its items: LangGraph namespaces as cogmem
namespace names, namespace match conditions, and LangGraph's search filters (checked, matched
on values, and the part the core can apply itself pushed down)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, unquote

from langgraph.store.base import InvalidNamespaceError, MatchCondition

from cogmem import InvalidInputError, InvalidTypeError

__all__ = [
    "FIELD_PREFIX",
    "NUMBER_PREFIX",
    "check_filter",
    "check_labels",
    "condition_path",
    "decode_namespace",
    "encode_namespace",
    "is_number",
    "matches_condition",
    "matches_filter",
    "pushable",
    "pushdown",
]

#: Top-level scalar fields of an item's value are copied to ``v.<field>`` metadata, so that
#: filters on them run inside the core's search.
FIELD_PREFIX = "v."
#: Where a top-level field holding a numeric string keeps its number, for range filters
#: (``{"age": "30"}`` passes ``{"$gt": 18}``, as in InMemoryStore and SqliteStore).
NUMBER_PREFIX = "n."

_RANGE_OPS = frozenset({"$gt", "$gte", "$lt", "$lte"})
_OPERATORS = _RANGE_OPS | {"$eq", "$ne"}


# ---------------------------------------------------------------------- namespaces
def encode_namespace(namespace: Sequence[str], prefix: str = "lg") -> str:
    """The cogmem namespace of a LangGraph namespace: ``prefix:label/label/...``.

    Each label is percent-encoded (``urllib.parse.quote`` with no safe characters), so any
    label, including one with ``/``, ``:`` or ``%``, maps to a distinct name and
    :func:`decode_namespace` gives the tuple back.

    Args:
        namespace: The LangGraph namespace (a tuple of non-empty str).
        prefix: Separates the store's namespaces from other cogmem namespaces.

    Returns:
        The cogmem namespace name.

    Raises:
        InvalidNamespaceError: A label is not a non-empty str.
    """
    check_labels(tuple(namespace))
    return f"{prefix}:" + "/".join(quote(label, safe="") for label in namespace)


def decode_namespace(name: str, prefix: str = "lg") -> tuple[str, ...] | None:
    """The LangGraph namespace encoded in a cogmem namespace name, or ``None`` if not one.

    Args:
        name: A cogmem namespace name.
        prefix: The prefix given to :func:`encode_namespace`.

    Returns:
        The tuple of labels, or ``None`` when ``name`` was not made by
        :func:`encode_namespace` with this prefix.
    """
    head = f"{prefix}:"
    if not name.startswith(head) or len(name) == len(head):
        return None
    labels = tuple(unquote(part) for part in name[len(head) :].split("/"))
    if any(not label for label in labels) or encode_namespace(labels, prefix) != name:
        return None
    return labels


def check_labels(namespace: tuple[Any, ...]) -> None:
    """LangGraph's label rules: non-empty str without ``.`` or NUL."""
    for label in namespace:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"namespace labels must be str, got {type(label).__name__} in {namespace}"
            )
        if not label:
            raise InvalidNamespaceError(f"namespace labels must not be empty: {namespace}")
        if "." in label or "\x00" in label:
            raise InvalidNamespaceError(
                f"namespace label {label!r} in {namespace} contains '.' or NUL"
            )


def condition_path(condition: MatchCondition) -> tuple[str, ...]:
    """A condition's path as a tuple (a bare str is one label, as LangGraph's stores allow)."""
    path = condition.path
    return (path,) if isinstance(path, str) else tuple(path)


def matches_condition(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = condition_path(condition)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path))
    else:
        raise InvalidInputError(
            f"match_type must be 'prefix' or 'suffix', got {condition.match_type!r}"
        )
    return all(p == "*" or n == p for n, p in pairs)


# ---------------------------------------------------------------------- filters
def _lookup(value: Mapping[str, Any], key: str) -> Any:
    """``value[key]``, or the dotted path ``a.b.c`` through nested dicts; ``None`` if absent."""
    if key in value:
        return value[key]
    current: Any = value
    for part in key.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return None
        current = current[part]
    return current


def _same(a: Any, b: Any) -> bool:
    """Equality as LangGraph's ``InMemoryStore`` has it (Python's ``==``): numbers by value,
    and a bool is the number it stands for (``True == 1``); containers element-wise."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(b, Mapping):
        return isinstance(a, Mapping) and set(a) == set(b) and all(_same(a[k], b[k]) for k in b)
    if isinstance(b, (list, tuple)):
        return (
            isinstance(a, (list, tuple))
            and len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b))
        )
    return type(a) is type(b) and a == b


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _apply(actual: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return _condition(actual, operand)
    if op == "$ne":
        return not _condition(actual, operand)
    a, b = as_number(actual, f"filter {op}: the item's value"), as_number(operand, f"filter {op}")
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def as_number(value: Any, what: str) -> float:
    """A range operand as InMemoryStore compares it: ``float(value)`` (a numeric str is its
    number, a bool 0 or 1).

    Raises:
        InvalidInputError: It is no number (None, a missing field, a list, 'abc'), where
            InMemoryStore raises a bare ValueError or TypeError.
    """
    if isinstance(value, (int, float, str)):
        try:
            return float(value)  # inf and nan compare as InMemoryStore compares them
        except ValueError:
            pass
    raise InvalidInputError(
        f"{what} is {value!r}, not a number: a range compares numbers (a missing field is None)"
    )


def numeric(value: object) -> float | None:
    """The number a numeric str holds (copied to ``n.<field>``), else ``None``."""
    if not isinstance(value, str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _condition(actual: Any, condition: Any) -> bool:
    if isinstance(condition, Mapping):
        if any(str(k).startswith("$") for k in condition):
            return all(_apply(actual, op, operand) for op, operand in condition.items())
        if not isinstance(actual, Mapping):
            return False
        return all(_condition(actual.get(k), v) for k, v in condition.items())
    return _same(actual, condition)


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes a LangGraph search filter.

    Each ``key: condition`` must hold: ``condition`` is a value (equality as in LangGraph's
    ``InMemoryStore``: numbers by value, ``True`` equals ``1``; a nested dict matches the
    nested fields it names, a list element-wise) or a dict of operators ``$eq``, ``$ne``,
    ``$gt``, ``$gte``, ``$lt``, ``$lte`` (as numbers, as InMemoryStore compares them:
    ``{"age": "30"}`` passes ``{"$gt": 18}``; a value that is no number raises
    :class:`~cogmem.errors.InvalidInputError`). Keys may be dotted paths (``"a.b"``);
    a missing field is ``None``.

    Args:
        value: The item's value.
        filter: The filter (``None`` or empty: everything passes).

    Returns:
        ``True`` if every condition holds.
    """
    return all(_condition(_lookup(value, k), c) for k, c in (filter or {}).items())


def check_filter(filter: object) -> dict[str, Any] | None:
    if filter is None:
        return None
    if not isinstance(filter, Mapping):
        raise InvalidTypeError(f"filter must be a dict, got {type(filter).__name__}")

    def walk(node: Any, where: str) -> None:
        if isinstance(node, Mapping):
            for k, v in node.items():
                if not isinstance(k, str):
                    raise InvalidTypeError(f"filter keys must be str, got {k!r} in {where}")
                if k.startswith("$") and k not in _OPERATORS:
                    raise InvalidInputError(
                        f"unknown filter operator {k!r} in {where}; use one of {sorted(_OPERATORS)}"
                    )
                walk(v, f"{where}[{k!r}]")
        elif isinstance(node, (list, tuple)):
            for i, v in enumerate(node):
                walk(v, f"{where}[{i}]")

    walk(filter, "filter")
    return dict(filter)


def pushable(value: object) -> str | int | float | None:
    """A scalar as it is copied to ``v.<field>`` metadata and compared there: a bool as the
    number it equals (so ``True`` and ``1`` match, as in the value filter), a finite number
    or a str as itself; ``None`` for anything else (not copied, not pushed down)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value if math.isfinite(value) else None
    return value if isinstance(value, str) else None


def pushdown(filter: Mapping[str, Any] | None) -> tuple[dict[str, Any], bool]:
    """The part of a filter the core can apply itself, and whether that is all of it.

    Only conditions on top-level scalar fields (copied to ``v.<field>`` metadata) go down:
    equality and ``$ne`` with a scalar, and ranges, on the field's number (``v.<field>``) or
    the number its str holds (``n.<field>``). The core never leaves out an item
    :func:`matches_filter` passes, so pushing them down never changes the answer; everything
    is still checked on the decoded values afterwards. (An item whose field is no number is
    left out by a pushed range, where InMemoryStore would raise.) A range bound of inf or
    nan, which Chroma refuses, is checked afterwards only.
    """
    pushed: dict[str, Any] = {}
    exact = True
    for key, condition in (filter or {}).items():
        if "." in key or not key:
            exact = False
            continue
        field = FIELD_PREFIX + key
        if pushable(condition) is not None:
            pushed[field] = pushable(condition)
            continue
        if not (
            isinstance(condition, Mapping)
            and condition
            and all(str(op).startswith("$") for op in condition)
        ):
            exact = False
            continue
        equal = {
            op: pushable(operand)
            for op, operand in condition.items()
            if op in ("$eq", "$ne") and pushable(operand) is not None
        }
        ranges = {  # inf and nan bounds are compared here only: Chroma takes finite numbers
            op: bound
            for op, operand in condition.items()
            if op in _RANGE_OPS and math.isfinite(bound := as_number(operand, f"filter {op}"))
        }
        if len(equal) + len(ranges) != len(condition):
            exact = False
        if equal:
            pushed[field] = equal
        if ranges and "$or" not in pushed:  # the core takes one $or: the first field's
            pushed["$or"] = [{field: ranges}, {NUMBER_PREFIX + key: ranges}]
        elif ranges:
            exact = False
    return pushed, exact
