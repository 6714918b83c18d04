"""LangGraph's SQLite and Postgres store suites, ported to CognitiveMemoryStore.

The tests below follow ``libs/checkpoint-sqlite/tests/test_store.py`` and
``libs/checkpoint-postgres/tests/test_store.py`` of the langgraph repository (MIT licence,
Copyright (c) 2024 LangChain, Inc.): filter values taken literally, numeric and boolean
filters, filter keys that are no identifiers, namespace prefixes and suffixes that stop at a
label's boundary, labels with metacharacters, case and trailing newlines. Those that test
SQL itself (the query text, the glob escaping, migrations) have no counterpart here: the
store keeps no SQL. Where cogmem answers otherwise on purpose, the test says so (the README's
"LangGraph store" table lists each difference).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from cogmem import CognitiveMemory
from cogmem.testing import HashingEmbedder
from langchain_cogmem import CognitiveMemoryStore

T0 = datetime(2026, 5, 1, 8, 0, tzinfo=timezone.utc)


@pytest.fixture
def store() -> Iterator[CognitiveMemoryStore]:
    clock = {"now": T0}

    def now() -> datetime:
        clock["now"] += timedelta(seconds=1)
        return clock["now"]

    with CognitiveMemory(embedder=HashingEmbedder()) as memory:
        yield CognitiveMemoryStore(memory, now=now)


def keys(found: list) -> list[str]:  # type: ignore[type-arg]
    return sorted(item.key for item in found)


def test_filter_keys_are_names_not_code(store: CognitiveMemoryStore) -> None:
    store.put(("docs",), "public", {"access": "public", "data": "public info"})
    store.put(("docs",), "private", {"access": "private", "data": "secret", "password": "123"})
    assert keys(store.search(("docs",), filter={"access": "public"})) == ["public"]
    # SqliteStore refuses this key (ValueError); here it is a field no item has.
    malicious = "access') = 'public' OR '1'='1' OR json_extract(value, '$."
    assert store.search(("docs",), filter={malicious: "dummy"}) == []


@pytest.mark.parametrize(
    "value",
    [
        "public' OR '1'='1",
        "public'; --",
        "public' UNION SELECT * FROM store --",
        "public\x00' OR '1'='1",
        "''''",
        "public' OR 'א'='א",
    ],
)
def test_filter_values_are_taken_literally(store: CognitiveMemoryStore, value: str) -> None:
    store.put(("docs",), "doc1", {"access": "public", "title": "Public Document"})
    store.put(("docs",), "doc2", {"access": "private", "title": "Private Document"})
    assert store.search(("docs",), filter={"access": value}) == []
    assert store.search(("docs",), query="document", filter={"access": value}) == []


def test_a_value_with_quotes_matches_itself(store: CognitiveMemoryStore) -> None:
    store.put(("docs",), "doc4", {"title": "O'Brien's Document", "access": "public"})
    found = store.search(("docs",), filter={"title": "O'Brien's Document"})
    assert [i.value["title"] for i in found] == ["O'Brien's Document"]


def test_numeric_filters(store: CognitiveMemoryStore) -> None:
    store.put(("items",), "item1", {"price": 10, "quantity": 5})
    store.put(("items",), "item2", {"price": 20, "quantity": 3})
    store.put(("items",), "item3", {"price": 30, "quantity": 1})
    assert keys(store.search(("items",), filter={"price": {"$gt": 15}})) == ["item2", "item3"]
    everything = ["item1", "item2", "item3"]
    assert keys(store.search(("items",), filter={"price": {"$lt": float("inf")}})) == everything
    assert keys(store.search(("items",), filter={"price": {"$gt": float("-inf")}})) == everything
    assert store.search(("items",), filter={"price": {"$eq": float("nan")}}) == []
    assert keys(store.search(("items",), filter={"price": {"$lt": 10**100}})) == everything
    store.put(("items",), "item4", {"price": -10, "quantity": 0})
    assert keys(store.search(("items",), filter={"price": {"$lt": 0}})) == ["item4"]
    # The same through a query's search, where the filter runs inside the core.
    every = [*everything, "item4"]
    for bound in (float("inf"), 10**100):
        found = store.search(("items",), query="price", filter={"price": {"$lt": bound}})
        assert keys(found) == every
    found = store.search(("items",), query="price", filter={"price": {"$eq": float("nan")}})
    assert found == []


def test_boolean_filters(store: CognitiveMemoryStore) -> None:
    store.put(("flags",), "flag1", {"active": True, "name": "Feature A"})
    store.put(("flags",), "flag2", {"active": False, "name": "Feature B"})
    store.put(("flags",), "flag3", {"active": True, "name": "Feature C"})
    assert keys(store.search(("flags",), filter={"active": True})) == ["flag1", "flag3"]
    assert keys(store.search(("flags",), filter={"active": False})) == ["flag2"]


def test_filter_keys_with_hyphens_and_digits(store: CognitiveMemoryStore) -> None:
    store.put(("docs",), "hyphen", {"access-level": "public", "user": {"access-level": "nested"}})
    store.put(("docs",), "digit", {"123abc": "ok", "user": {"123abc": "ok2"}})
    for filter, key in [
        ({"access-level": "public"}, "hyphen"),
        ({"user.access-level": "nested"}, "hyphen"),
        ({"123abc": "ok"}, "digit"),
        ({"user.123abc": "ok2"}, "digit"),
    ]:
        assert keys(store.search(("docs",), filter=filter)) == [key]
        assert keys(store.search(("docs",), query="ok public", filter=filter)) == [key]


def namespaces_found(store: CognitiveMemoryStore, prefix: tuple[str, ...]) -> set[tuple[str, ...]]:
    return {item.namespace for item in store.search(prefix, limit=100)}


def test_search_prefix_stops_at_a_label_boundary(store: CognitiveMemoryStore) -> None:
    for namespace in [
        ("foo",),
        ("foo", "child"),
        ("foo", "child", "deep"),
        ("foobar",),
        ("foobar", "baz"),
        ("foo2",),
    ]:
        store.put(namespace, "k", {"v": 1})
    assert namespaces_found(store, ("foo",)) == {
        ("foo",),
        ("foo", "child"),
        ("foo", "child", "deep"),
    }
    assert namespaces_found(store, ("foobar",)) == {("foobar",), ("foobar", "baz")}
    assert namespaces_found(store, ("foo2",)) == {("foo2",)}
    assert namespaces_found(store, ("fo",)) == set()


def test_search_prefix_metacharacters_are_literal(store: CognitiveMemoryStore) -> None:
    for namespace in [
        ("user_1",),
        ("user_1", "child"),
        ("userX1",),
        ("a%b",),
        ("axxb",),
        ("star*",),
        ("starX",),
    ]:
        store.put(namespace, "k", {"v": 1})
    assert namespaces_found(store, ("user_1",)) == {("user_1",), ("user_1", "child")}
    assert namespaces_found(store, ("a%b",)) == {("a%b",)}
    assert namespaces_found(store, ("star*",)) == {("star*",)}


def test_search_namespace_is_case_sensitive(store: CognitiveMemoryStore) -> None:
    store.put(("Foo",), "k", {"v": "upper"})
    store.put(("foo",), "k", {"v": "lower"})
    assert namespaces_found(store, ("foo",)) == {("foo",)}
    assert namespaces_found(store, ("Foo",)) == {("Foo",)}


def test_search_with_an_empty_prefix_sees_every_namespace(store: CognitiveMemoryStore) -> None:
    for namespace in [("a",), ("b", "c"), ("d", "e", "f")]:
        store.put(namespace, "k", {"v": 1})
    assert namespaces_found(store, ()) == {("a",), ("b", "c"), ("d", "e", "f")}


def test_list_namespaces_stops_at_a_label_boundary(store: CognitiveMemoryStore) -> None:
    for namespace in [
        ("foo",),
        ("foo", "child"),
        ("foobar",),
        ("foobar", "baz"),
        ("uid", "users", "alice"),
        ("uid", "users", "malice"),
        ("uid", "a", "b", "alice"),
    ]:
        store.put(namespace, "k", {"v": 1})
    assert set(store.list_namespaces(prefix=("foo",), limit=100)) == {("foo",), ("foo", "child")}
    assert set(store.list_namespaces(suffix=("alice",), limit=100)) == {
        ("uid", "users", "alice"),
        ("uid", "a", "b", "alice"),
    }
    assert set(store.list_namespaces(prefix=("uid", "*", "alice"), limit=100)) == {
        ("uid", "users", "alice")
    }
    assert set(store.list_namespaces(prefix=("uid",), limit=100)) == {
        ("uid", "users", "alice"),
        ("uid", "users", "malice"),
        ("uid", "a", "b", "alice"),
    }


def test_labels_with_a_trailing_newline_are_other_labels(store: CognitiveMemoryStore) -> None:
    store.put(("users", "alice"), "k", {"v": 1})
    store.put(("users", "alice\n"), "k", {"v": 2})
    assert set(store.list_namespaces(suffix=("alice",), limit=100)) == {("users", "alice")}
    assert set(store.list_namespaces(prefix=("users", "alice"), limit=100)) == {("users", "alice")}
    assert namespaces_found(store, ("users", "alice")) == {("users", "alice")}


@pytest.mark.parametrize(
    ("label", "decoy"),
    [
        ("star*", "starX"),
        ("q?m", "qXm"),
        ("br[ack]et", "brXacXket"),
        ("user_1", "userX1"),
        ("a%b", "axxb"),
        ("plus+", "plusX"),
    ],
)
def test_list_namespaces_metacharacter_labels(
    store: CognitiveMemoryStore, label: str, decoy: str
) -> None:
    store.put((label,), "k", {"v": 1})
    store.put((decoy,), "k", {"v": 1})
    store.put((label, "child"), "k", {"v": 1})
    assert set(store.list_namespaces(prefix=(label,), limit=100)) == {(label,), (label, "child")}
    assert set(store.list_namespaces(prefix=(label, "child"), limit=100)) == {(label, "child")}


# ------------------------------------------------------------------ TTL (the Postgres suite's
# omit_expired tests: cogmem never reads an item past its TTL, swept or not)
@pytest.fixture
def timed() -> Iterator[tuple[CognitiveMemoryStore, dict[str, datetime]]]:
    clock = {"now": T0}
    with CognitiveMemory(embedder=HashingEmbedder()) as memory:
        yield CognitiveMemoryStore(memory, now=lambda: clock["now"]), clock


def test_an_expired_item_is_left_out_of_every_read(
    timed: tuple[CognitiveMemoryStore, dict[str, datetime]],
) -> None:
    store, clock = timed
    store.put(("omit", "expired"), "e", {"data": "gone"}, ttl=1)
    store.put(("omit", "control"), "c", {"data": "keep"}, ttl=None)
    clock["now"] += timedelta(minutes=2)
    assert store.get(("omit", "expired"), "e") is None
    assert store.get(("omit", "control"), "c") is not None
    assert store.search(("omit", "expired")) == []
    assert store.search(("omit", "expired"), query="gone") == []
    assert [i.key for i in store.search(("omit", "control"))] == ["c"]
    # Kept on purpose: a namespace whose items all expired stays listed, as one whose items
    # were deleted does (InMemoryStore's rule); Postgres with omit_expired drops it.
    assert store.list_namespaces(prefix=("omit",)) == [("omit", "control"), ("omit", "expired")]


def test_a_refreshing_read_extends_live_items_and_never_revives_an_expired_one(
    timed: tuple[CognitiveMemoryStore, dict[str, datetime]],
) -> None:
    store, clock = timed
    store.put(("refresh",), "expired", {"n": 0}, ttl=1)
    clock["now"] += timedelta(seconds=30)
    store.put(("refresh",), "live_get", {"n": 1}, ttl=1)
    store.put(("refresh",), "live_search", {"n": 2}, ttl=1)
    clock["now"] += timedelta(seconds=45)  # "expired" is past its minute, the others not
    assert store.get(("refresh",), "expired", refresh_ttl=True) is None
    assert [i.key for i in store.search(("refresh",), refresh_ttl=True)] == [
        "live_get",
        "live_search",
    ]
    clock["now"] += timedelta(seconds=45)  # past the first minute, within the refreshed one
    assert store.get(("refresh",), "live_get") is not None
    assert store.get(("refresh",), "live_search") is not None
    assert store.get(("refresh",), "expired") is None


def test_pages_are_filled_with_live_items(
    timed: tuple[CognitiveMemoryStore, dict[str, datetime]],
) -> None:
    store, clock = timed
    store.put(("page",), "expired", {"k": "x"}, ttl=1)
    for key in ("a", "b", "c"):
        clock["now"] += timedelta(seconds=10)
        store.put(("page",), key, {"k": key}, ttl=10)
    clock["now"] += timedelta(minutes=2)
    assert [i.key for i in store.search(("page",), limit=2, offset=0)] == ["a", "b"]
    assert [i.key for i in store.search(("page",), limit=2, offset=2)] == ["c"]
