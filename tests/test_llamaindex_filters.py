"""to_cogmem_filters: LlamaIndex MetadataFilters -> cogmem filters, and clear refusals."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from llama_index.core.vector_stores import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from cogmem import CognitiveMemory, InvalidInputError, InvalidTypeError
from cogmem.testing import HashingEmbedder
from llamaindex_cogmem import UnsupportedFilterError, to_cogmem_filters

T = datetime(2026, 5, 1, 12, 0, tzinfo=timezone.utc)
US = timedelta(microseconds=1)


def f(key: str, value: Any, op: str = "==") -> MetadataFilter:
    return MetadataFilter(key=key, value=value, operator=FilterOperator(op))


def both(*filters: MetadataFilter | MetadataFilters, condition: str = "and") -> MetadataFilters:
    return MetadataFilters(filters=list(filters), condition=FilterCondition(condition))


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (both(f("project", "x")), {"project": {"$eq": "x"}}),
        (
            both(f("prio", 2, ">="), f("prio", 5, "<"), f("owner", "ana", "!=")),
            {"prio": {"$gte": 2, "$lt": 5}, "owner": {"$ne": "ana"}},
        ),
        (both(f("lang", ["en", "pt"], "in")), {"lang": {"$in": ["en", "pt"]}}),
        (both(f("lang", ["de"], "nin")), {"lang": {"$nin": ["de"]}}),
        (both(f("memory_type", "semantic")), {"memory_type": ["semantic"]}),
        (
            both(f("memory_type", "episodic", "!=")),
            {"memory_type": ["semantic", "procedural", "core"]},
        ),
        (
            both(
                f("memory_type", ["semantic", "core", "episodic"], "in"),
                f("memory_type", ["core"], "nin"),
            ),
            {"memory_type": ["episodic", "semantic"]},
        ),
        (
            both(f("memory_type", "semantic"), f("memory_type", "core"), condition="or"),
            {"memory_type": ["semantic", "core"]},
        ),
        (
            both(f("n", 1), f("n", [2, 3], "in"), condition="or"),
            {"n": {"$in": [1, 2, 3]}},
        ),
        (both(f("tags", "ui", "contains"), f("tags", "work")), {"tags": ["ui", "work"]}),
        (both(f("tags", ["a", "b"], "all"), f("tags", ["a"], "any")), {"tags": ["a", "b"]}),
        (both(f("pinned", "true")), {"pinned": True}),
        (both(f("pinned", 1, "!=")), {"pinned": False}),
        (both(f("created_at", T.isoformat(), ">=")), {"created_after": T}),
        (both(f("created_at", T.timestamp(), ">")), {"created_after": T + US}),
        (both(f("created_at", "2026-05-01T12:00:00Z", "<=")), {"created_before": T}),
        (both(f("created_at", T.isoformat(), "<")), {"created_before": T - US}),
        (both(f("created_at", T.isoformat())), {"created_after": T, "created_before": T}),
        (
            both(
                f("created_at", (T - timedelta(days=9)).isoformat(), ">="),
                both(f("created_at", (T - timedelta(days=2)).isoformat(), ">=")),
            ),
            {"created_after": T - timedelta(days=2)},
        ),
        (
            both(both(f("a", 1)), both(f("b", "y"), condition="or")),
            {"a": {"$eq": 1}, "b": {"$eq": "y"}},
        ),
        (both(), None),
    ],
)
def test_translations(given: MetadataFilters, expected: dict[str, Any] | None) -> None:
    assert to_cogmem_filters(given) == expected


@pytest.mark.parametrize(
    ("given", "match"),
    [
        (both(f("note", "tea", "text_match")), "'text_match' is not supported on 'note'"),
        (both(f("note", "tea", "text_match_insensitive")), "text_match_insensitive"),
        (both(f("labels", "x", "contains")), "'contains' is not supported on 'labels'"),
        (both(f("labels", ["x"], "any")), "'any'"),
        (both(MetadataFilter(key="x", value=None, operator=FilterOperator.IS_EMPTY)), "is_empty"),
        (both(f("a", 1), f("b", 2), condition="or"), "condition='or'"),
        (both(f("a", 1, ">"), f("a", 5, "<"), condition="or"), "condition='or'"),
        (both(f("a", 1), condition="not"), "condition='not'"),
        (both(f("importance", 0.5, ">")), "cannot filter on the memory field 'importance'"),
        (both(f("namespace", "ana")), "namespace="),
        (both(f("status", "superseded")), "deep_recall"),
        (both(f("last_accessed_at", T.isoformat(), ">")), "last_accessed_at"),
        (both(f("score", 0.5, ">")), "'score'"),
        (both(f("tags", ["a", "b"], "any")), "OR it cannot express"),
        (both(f("tags", "a", ">")), "'>' is not supported on 'tags'"),
        (both(f("pinned", "maybe")), "pinned"),
        (both(f("pinned", "true", ">")), "pinned"),
        (both(f("memory_type", "semantic", ">")), "'>' is not supported on 'memory_type'"),
        (both(f("memory_type", "fact")), "unknown memory type"),
        (both(f("memory_type", ["fact"], "in")), "unknown memory type"),
        (
            both(f("memory_type", "semantic"), f("memory_type", "episodic")),
            "exclude every type",
        ),
        (both(f("created_at", T.isoformat(), "!=")), "'!=' is not supported on 'created_at'"),
        (both(f("a", 1), f("a", 2)), "already has a '==' filter"),
        (both(f("a", [], "in")), "non-empty list"),
    ],
)
def test_what_cogmem_cannot_express_is_refused_by_name(given: MetadataFilters, match: str) -> None:
    with pytest.raises(UnsupportedFilterError, match=match):
        to_cogmem_filters(given)


def test_refusals_are_cogmem_errors_and_value_errors() -> None:
    with pytest.raises(InvalidInputError):
        to_cogmem_filters(both(f("a", 1), condition="not"))
    with pytest.raises(ValueError):
        to_cogmem_filters(both(f("a", 1), condition="not"))


def test_times_without_a_zone_are_refused_as_the_core_refuses_them() -> None:
    with pytest.raises(InvalidInputError, match="no time zone"):
        to_cogmem_filters(both(f("created_at", "2026-05-01T12:00:00", ">")))
    with pytest.raises(InvalidInputError, match="ISO 8601"):
        to_cogmem_filters(both(f("created_at", "last tuesday", ">")))


def test_cogmem_dicts_pass_through_checked_and_other_types_are_refused() -> None:
    given = {"tags": ["ui"], "prio": {"$gte": 2}}
    out = to_cogmem_filters(given)
    assert out == given and out is not given
    assert to_cogmem_filters(None) is None
    assert to_cogmem_filters({}) is None
    with pytest.raises(InvalidInputError, match="memory_type"):
        to_cogmem_filters({"memory_type": "fact"})
    with pytest.raises(InvalidTypeError, match="MetadataFilters"):
        to_cogmem_filters([f("a", 1)])  # type: ignore[arg-type]


def test_translated_filters_select_what_the_llamaindex_filter_means() -> None:
    with CognitiveMemory(embedder=HashingEmbedder()) as mem:
        for days, kind, prio in [(30, "semantic", 1), (10, "episodic", 2), (2, "semantic", 3)]:
            mem.add(
                f"note about the garden, prio {prio}",
                memory_type=kind,
                metadata={"prio": prio},
                created_at=T - timedelta(days=days),
                id=f"p{prio}",
                now=T,
            )
        mem.add("note about the garden, pinned", pinned=True, id="pin", now=T)

        def ids(filters: MetadataFilters) -> list[str]:
            found = mem.search(
                "garden note",
                filters=to_cogmem_filters(filters),
                now=T,
                reinforce=False,
                top_k=10,
            )
            return sorted(r.id for r in found)

        assert ids(both(f("prio", 2, ">="))) == ["p2", "p3"]
        assert ids(both(f("memory_type", "semantic"), f("prio", 3, "<"))) == ["p1"]
        assert ids(both(f("created_at", (T - timedelta(days=10)).isoformat(), ">"))) == [
            "p3",
            "pin",
        ]
        assert ids(both(f("created_at", (T - timedelta(days=10)).isoformat(), ">="))) == [
            "p2",
            "p3",
            "pin",
        ]
        assert ids(both(f("pinned", "true"))) == ["pin"]
        assert ids(both(f("prio", 1), f("prio", 3), condition="or")) == ["p1", "p3"]
