"""CognitiveMemoryStore: LangGraph's own store expectations, ported, plus what cogmem adds.

The first part follows the BaseStore tests of the langgraph repository
(``libs/checkpoint/tests/test_store.py`` for InMemoryStore and
``libs/checkpoint-postgres/tests/test_store.py``): batch order, get/put/delete, search with
filters and pagination, namespace listing with prefix/suffix/wildcards/max_depth, namespace
validation, and the vector-search expectations (index paths, ``index=False``, updates change
scores, edge-case queries), with queries adapted from their character-level fake embeddings to
cogmem's word-level ``HashingEmbedder``.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from langchain.agents import create_agent
from langchain.tools import ToolRuntime
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.config import get_store
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from cogmem import (
    CognitiveMemory,
    CognitiveMemoryConfig,
    DimensionMismatchError,
    EmbedderError,
    InvalidInputError,
    InvalidTypeError,
    Passages,
)
from cogmem.testing import HashingEmbedder
from langchain_cogmem import (
    CognitiveMemoryStore,
    CognitiveSearchItem,
    decode_namespace,
    encode_namespace,
    matches_filter,
)

T0 = datetime(2026, 5, 1, 8, 0, tzinfo=timezone.utc)


class TickingClock:
    """Each call returns a time one minute after the previous one (so updates are ordered)."""

    def __init__(self, start: datetime = T0) -> None:
        self.time = start

    def __call__(self) -> datetime:
        self.time += timedelta(minutes=1)
        return self.time


@pytest.fixture
def memory() -> Iterator[CognitiveMemory]:
    mem = CognitiveMemory(embedder=HashingEmbedder())
    yield mem
    mem.close()


@pytest.fixture
def clock() -> TickingClock:
    return TickingClock()


@pytest.fixture
def store(memory: CognitiveMemory, clock: TickingClock) -> CognitiveMemoryStore:
    return CognitiveMemoryStore(memory, now=clock)


# ----------------------------------------------------------------- LangGraph: batches
def test_batch_order(store: CognitiveMemoryStore) -> None:
    store.put(("test", "foo"), "key1", {"data": "value1"})
    store.put(("test", "bar"), "key2", {"data": "value2"})
    results = store.batch(
        [
            GetOp(namespace=("test", "foo"), key="key1"),
            PutOp(namespace=("test", "bar"), key="key2", value={"data": "value2"}),
            SearchOp(namespace_prefix=("test",), filter={"data": "value1"}, limit=10, offset=0),
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
            GetOp(namespace=("test",), key="key3"),
        ]
    )
    assert len(results) == 5
    assert isinstance(results[0], Item)
    assert results[0].value == {"data": "value1"}
    assert results[0].key == "key1"
    assert results[1] is None
    assert isinstance(results[2], list) and len(results[2]) == 1
    assert isinstance(results[3], list) and len(results[3]) > 0
    assert results[4] is None

    reordered = store.batch(
        [
            SearchOp(namespace_prefix=("test",), filter=None, limit=5, offset=0),
            GetOp(namespace=("test", "bar"), key="key2"),
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=5, offset=0),
            PutOp(namespace=("test",), key="key3", value={"data": "value3"}),
            GetOp(namespace=("test", "foo"), key="key1"),
        ]
    )
    assert len(reordered) == 5
    assert isinstance(reordered[0], list) and len(reordered[0]) >= 2
    assert isinstance(reordered[1], Item) and reordered[1].value == {"data": "value2"}
    assert isinstance(reordered[2], list) and len(reordered[2]) > 0
    assert reordered[3] is None
    assert isinstance(reordered[4], Item) and reordered[4].value == {"data": "value1"}


def test_batch_get_put_and_search_ops(store: CognitiveMemoryStore) -> None:
    assert store.batch(
        [
            PutOp(namespace=("test",), key="key1", value={"data": "value1"}),
            PutOp(namespace=("test",), key="key2", value={"data": "value2"}),
            PutOp(namespace=("test",), key="key3", value=None),
        ]
    ) == [None, None, None]
    got = store.batch(
        [
            GetOp(namespace=("test",), key="key1"),
            GetOp(namespace=("test",), key="key2"),
            GetOp(namespace=("test",), key="key3"),
        ]
    )
    assert [g.key if g else None for g in got] == ["key1", "key2", None]

    for namespace, key, value in [
        (("s", "foo"), "key1", {"data": "value1", "tag": "a"}),
        (("s", "bar"), "key2", {"data": "value2", "tag": "a"}),
        (("s", "baz"), "key3", {"data": "value3", "tag": "b"}),
    ]:
        store.put(namespace, key, value)
    results = store.batch(
        [
            SearchOp(namespace_prefix=("s",), filter={"tag": "a"}, limit=10, offset=0),
            SearchOp(namespace_prefix=("s",), filter=None, limit=2, offset=0),
            SearchOp(namespace_prefix=("s", "foo"), filter=None, limit=10, offset=0),
        ]
    )
    assert len(results[0]) == 2 and all(i.value["tag"] == "a" for i in results[0])
    assert len(results[1]) == 2
    assert [(i.namespace, i.key) for i in results[2]] == [(("s", "foo"), "key1")]


def test_batch_list_namespaces_ops(store: CognitiveMemoryStore) -> None:
    data = [
        (("test", "documents", "public"), "doc1", {"content": "public doc"}),
        (("test", "documents", "private"), "doc2", {"content": "private doc"}),
        (("test", "images", "public"), "img1", {"content": "public image"}),
        (("prod", "documents", "public"), "doc3", {"content": "prod doc"}),
    ]
    for namespace, key, value in data:
        store.put(namespace, key, value)
    results = store.batch(
        [
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
            ListNamespacesOp(match_conditions=None, max_depth=2, limit=10, offset=0),
            ListNamespacesOp(
                match_conditions=(MatchCondition("suffix", "public"),),  # type: ignore[arg-type]
                max_depth=None,
                limit=10,
                offset=0,
            ),
        ]
    )
    assert len(results[0]) == len(data)
    assert results[1] == [("prod", "documents"), ("test", "documents"), ("test", "images")]
    assert sorted(results[2]) == sorted(ns for ns, _, _ in data if ns[-1] == "public")


# ----------------------------------------------------------------- LangGraph: basics
def test_basic_store_ops(store: CognitiveMemoryStore) -> None:
    namespace = ("test", "documents")
    value = {"title": "Test Document", "content": "Hello, World!"}
    store.put(namespace, "doc1", value)
    item = store.get(namespace, "doc1")
    assert item is not None
    assert (item.namespace, item.key, item.value) == (namespace, "doc1", value)
    assert item.created_at == item.updated_at

    updated = {"title": "Updated Document", "content": "Hello, Updated!"}
    store.put(namespace, "doc1", updated)
    after = store.get(namespace, "doc1")
    assert after is not None
    assert after.value == updated
    assert after.updated_at > item.updated_at
    assert after.created_at == item.created_at  # a replaced item keeps its creation time

    assert store.get(("test", "other_documents"), "doc1") is None
    store.delete(namespace, "doc1")
    assert store.get(namespace, "doc1") is None
    store.delete(namespace, "doc1")  # deleting twice is fine


def test_search_without_query(store: CognitiveMemoryStore) -> None:
    data = [
        (("test", "docs"), "doc1", {"title": "First Doc", "author": "Alice", "tags": ["a"]}),
        (("test", "docs"), "doc2", {"title": "Second Doc", "author": "Bob", "tags": ["b"]}),
        (("test", "images"), "img1", {"title": "Image 1", "author": "Alice", "tags": ["c"]}),
    ]
    for namespace, key, value in data:
        store.put(namespace, key, value)
    everything = store.search(("test",))
    assert len(everything) == 3
    assert all(isinstance(i, SearchItem) and i.score is None for i in everything)
    # In the order they were put, as InMemoryStore lists them.
    assert [i.key for i in everything] == ["doc1", "doc2", "img1"]
    docs = store.search(("test", "docs"))
    assert len(docs) == 2 and all(i.namespace == ("test", "docs") for i in docs)
    alice = store.search(("test",), filter={"author": "Alice"})
    assert sorted(i.key for i in alice) == ["doc1", "img1"]
    assert len(store.search(("test",), limit=2)) == 2
    assert [i.key for i in store.search(("test",), offset=2)] == ["img1"]
    store.put(("test", "docs"), "doc1", {"title": "First Doc, edited", "author": "Alice"})
    assert [i.key for i in store.search(("test",))] == ["doc1", "doc2", "img1"]  # kept its place
    assert store.search(("test",), limit=0) == []
    assert store.search(("nothing",)) == []
    assert len(store.search(())) == 3


def test_filters(store: CognitiveMemoryStore) -> None:
    namespace = ("test", "scores")
    for key, score in [("a", 2), ("b", 9), ("c", 10), ("d", 11)]:
        store.put(namespace, key, {"score": score})

    def scores(filter: dict[str, Any]) -> list[Any]:
        return sorted(i.value["score"] for i in store.search(namespace, filter=filter))

    assert scores({"score": {"$gte": 10}}) == [10, 11]
    assert scores({"score": {"$gt": 9}}) == [10, 11]
    assert scores({"score": {"$lt": 10}}) == [2, 9]
    assert scores({"score": {"$lte": 9}}) == [2, 9]
    assert scores({"score": {"$ne": 9}}) == [2, 10, 11]
    store.put(namespace, "e", {"score": 9.5})
    assert scores({"score": {"$gt": 9}}) == [9.5, 10, 11]
    assert scores({"score": 10.0}) == [10]

    names = ("test", "names")
    for key, name in [("a", "apple"), ("b", "banana")]:
        store.put(names, key, {"name": name, "user": {"access-level": key, "tags": ["x"]}})
    with pytest.raises(InvalidInputError, match="not a number"):  # InMemoryStore: ValueError
        store.search(names, filter={"name": {"$gt": "apple"}})
    # Dotted keys reach nested fields; nested dicts and lists match by JSON equality.
    assert [i.key for i in store.search(names, filter={"user.access-level": "a"})] == ["a"]
    assert len(store.search(names, filter={"user": {"tags": ["x"]}})) == 2
    assert store.search(names, filter={"user": {"tags": "x"}}) == []
    assert store.search(names, filter={"missing": 1}) == []
    assert len(store.search(names, filter={"missing": {"$ne": 1}})) == 2


def test_matches_filter_is_json_equality() -> None:
    value = {"flag": True, "n": 1, "f": 1.0, "s": "1", "nested": {"a": [1, {"b": None}]}}
    assert matches_filter(value, {"flag": True, "n": 1.0, "f": 1, "s": "1"})
    assert matches_filter(value, {"n": True, "flag": 1})  # True == 1, as in InMemoryStore
    assert not matches_filter(value, {"s": 1})
    assert matches_filter(value, {"nested": {"a": [1, {"b": None}]}})
    assert matches_filter(value, {"nested.a": {"$ne": [1]}})
    assert matches_filter(value, {"s": {"$gt": 0}})  # "1" is 1, as InMemoryStore compares
    assert matches_filter(value, None)


# ----------------------------------------------------------------- LangGraph: namespaces
def _put_all(store: CognitiveMemoryStore, namespaces: list[tuple[str, ...]]) -> None:
    for i, namespace in enumerate(namespaces):
        store.put(namespace, f"id_{i}", {"data": f"value_{i:02d}"})


def test_list_namespaces_basic(store: CognitiveMemoryStore) -> None:
    _put_all(
        store,
        [
            ("a", "b", "c"),
            ("a", "b", "d", "e"),
            ("a", "b", "d", "i"),
            ("a", "b", "f"),
            ("a", "c", "f"),
            ("b", "a", "f"),
            ("users", "123"),
            ("users", "456", "settings"),
            ("admin", "users", "789"),
        ],
    )
    assert store.list_namespaces(prefix=("a", "b")) == [
        ("a", "b", "c"),
        ("a", "b", "d", "e"),
        ("a", "b", "d", "i"),
        ("a", "b", "f"),
    ]
    assert store.list_namespaces(suffix=("f",)) == [
        ("a", "b", "f"),
        ("a", "c", "f"),
        ("b", "a", "f"),
    ]
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "b", "f"),
    ]
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == [
        ("a", "b", "c"),
        ("a", "b", "d", "e"),
    ]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == [
        ("a", "b", "d", "i"),
        ("a", "b", "f"),
    ]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(suffix=("*", "f")) == [
        ("a", "b", "f"),
        ("a", "c", "f"),
        ("b", "a", "f"),
    ]
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]
    assert store.list_namespaces(prefix=("users", "*")) == [
        ("users", "123"),
        ("users", "456", "settings"),
    ]
    assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []
    assert store.list_namespaces(max_depth=2) == [
        ("a", "b"),
        ("a", "c"),
        ("admin", "users"),
        ("b", "a"),
        ("users", "123"),
        ("users", "456"),
    ]


def test_a_search_under_one_users_prefix_reads_only_that_users_namespaces(
    memory: CognitiveMemory, clock: TickingClock
) -> None:
    """Under a prefix the store asks the core for the names that start as the prefix encodes
    (found by bisection), so a search or a listing in one user's namespace decodes and counts
    that user's namespaces alone, however many users there are; a label that merely starts
    like the prefix's last one ("al" / "alice") is another user."""
    writer = CognitiveMemoryStore(memory, now=clock)
    for user in ("al", "alice", "bob", "carol", *(f"u{n}" for n in range(40))):
        writer.put(("users", user, "notes"), "k", {"text": f"{user} likes tea"})
    writer.put(("users", "al"), "k", {"text": "al likes coffee"})
    reader = CognitiveMemoryStore(memory, now=clock)
    found = reader.search(("users", "al"), query="tea")
    assert sorted(i.value["text"] for i in found) == ["al likes coffee", "al likes tea"]
    assert sorted(reader._decoded) == [encode_namespace(("users", "al")),
                                       encode_namespace(("users", "al", "notes"))]  # fmt: skip
    assert reader.list_namespaces(prefix=("users", "al")) == [
        ("users", "al"),
        ("users", "al", "notes"),
    ]
    assert memory.namespaces(encode_namespace(("users", "b"))) == [
        encode_namespace(("users", "bob", "notes"))
    ]


def test_list_namespaces_pagination_and_empty(store: CognitiveMemoryStore) -> None:
    assert store.list_namespaces() == []
    _put_all(store, [("namespace", f"sub_{i:02d}") for i in range(12)])
    assert store.list_namespaces(prefix=("namespace",), limit=5, offset=0) == [
        ("namespace", f"sub_{i:02d}") for i in range(5)
    ]
    assert store.list_namespaces(prefix=("namespace",), limit=5, offset=10) == [
        ("namespace", f"sub_{i:02d}") for i in range(10, 12)
    ]
    # A namespace whose last item is deleted is still listed, as InMemoryStore lists it.
    store.delete(("namespace", "sub_00"), "id_0")
    assert ("namespace", "sub_00") in store.list_namespaces()
    assert len(store.list_namespaces()) == 12
    assert store.search(("namespace", "sub_00")) == []


def test_namespace_validation(store: CognitiveMemoryStore) -> None:
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "foo", doc)
        with pytest.raises(InvalidNamespaceError):
            asyncio.run(store.aput(bad, "foo", doc))
    store.put(("foo", "langgraph", "foo"), "bar", doc)
    item = store.get(("foo", "langgraph", "foo"), "bar")
    assert item is not None and item.value == doc
    assert store.search(("foo", "langgraph", "foo"))[0].value == doc
    store.delete(("foo", "langgraph", "foo"), "bar")
    assert store.get(("foo", "langgraph", "foo"), "bar") is None
    # Past the public put API, a "langgraph" root is allowed (as in LangGraph's stores) ...
    store.batch([PutOp(("langgraph", "foo"), "bar", doc)])
    assert store.search(("langgraph", "foo"))[0].value == doc
    # ... but labels are still checked, and the empty namespace still refused.
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("a.b",), "bar", doc)])
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp((), "bar", doc)])
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(("ok", ""), "bar")])


def test_namespace_encoding_is_reversible() -> None:
    for namespace in [
        ("users",),
        ("users", "alice", "memories"),
        ("a/b", "c:d", "100%", "e f", "ünï", "*", "lg:x"),
    ]:
        name = encode_namespace(namespace)
        assert decode_namespace(name) == namespace
        assert decode_namespace(encode_namespace(namespace, "mine"), "mine") == namespace
        assert decode_namespace(name, "mine") is None
    assert encode_namespace(("a", "b")) != encode_namespace(("a/b",))
    for foreign in ["default", "lg:", "lg:a//b", "lg:%2", "other:a"]:
        assert decode_namespace(foreign) is None


# ----------------------------------------------------------------- LangGraph: vector search
def test_query_search_finds_and_scores(store: CognitiveMemoryStore) -> None:
    for key, value in [
        ("doc1", {"text": "short text"}),
        ("doc2", {"text": "longer text document"}),
        ("doc3", {"text": "longest text document here"}),
        ("doc4", {"description": "text in description field"}),
        ("doc5", {"content": "text in content field"}),
        ("doc6", {"body": "text in body field"}),
    ]:
        store.put(("test",), key, value)
    results = store.search(("test",), query="longer text document")
    assert len(results) == 6
    assert results[0].key == "doc2"
    assert "doc3" in [r.key for r in results[:3]]
    scores = [r.score for r in results]
    assert all(isinstance(s, float) for s in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    top = results[0]
    assert isinstance(top, CognitiveSearchItem)
    assert top.explanation is not None and top.explanation["score"] == pytest.approx(top.score)
    # Not in dict(): langmem's search tool sends item.dict() to the model.
    assert "explanation" not in top.dict()
    assert set(top.dict()) == set(
        SearchItem(("t",), "k", {}, top.created_at, top.updated_at).dict()
    )


def test_vector_update_with_embedding(store: CognitiveMemoryStore) -> None:
    store.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
    store.put(("test",), "doc2", {"text": "something about dogs"})
    store.put(("test",), "doc3", {"text": "text about birds"})
    initial = store.search(("test",), query="Zany Xerxes")
    assert initial[0].key == "doc1"
    initial_score = initial[0].score
    assert initial_score is not None

    store.put(("test",), "doc1", {"text": "new text about dogs"})
    after = store.search(("test",), query="Zany Xerxes")
    after_score = next((r.score for r in after if r.key == "doc1"), 0.0)
    assert after_score is not None and after_score < initial_score
    for r in store.search(("test",), query="new text about dogs"):
        if r.key == "doc1":
            assert r.score is not None and r.score > after_score

    store.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    assert not any(
        r.key == "doc4" for r in store.search(("test",), query="new text about dogs", limit=3)
    )
    # Past the scored items, the unindexed one fills the page with score None.
    found = store.search(("test",), query="new text dogs")
    assert [(r.key, r.score) for r in found][-1] == ("doc4", None)
    assert all(r.score is not None for r in found[:-1])
    assert "doc4" in [r.key for r in store.search(("test",))]  # filter-only search sees it


def test_vector_search_with_filters(store: CognitiveMemoryStore) -> None:
    for key, value in [
        ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
        ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
        ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
        ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
    ]:
        store.put(("test",), key, value)
    results = store.search(("test",), query="apple", filter={"color": "red"})
    assert [r.key for r in results][:1] == ["doc1"] and len(results) == 2
    results = store.search(("test",), query="car", filter={"color": "red"})
    assert [r.key for r in results][:1] == ["doc2"] and len(results) == 2
    results = store.search(("test",), query="blue", filter={"score": {"$gt": 3.2}})
    assert len(results) == 3 and results[0].key == "doc4"
    results = store.search(
        ("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"}
    )
    assert [r.key for r in results] == ["doc3"]


def test_vector_search_pagination(store: CognitiveMemoryStore) -> None:
    for i in range(5):
        store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    page1 = store.search(("test",), query="test", limit=2)
    page2 = store.search(("test",), query="test", limit=2, offset=2)
    assert len(page1) == 2 and len(page2) == 2
    assert not {r.key for r in page1} & {r.key for r in page2}
    assert len(store.search(("test",), query="test", limit=10)) == 5


def test_vector_search_edge_cases(store: CognitiveMemoryStore) -> None:
    store.put(("test",), "doc1", {"text": "test document"})
    assert len(store.search(("test",), query="")) == 1
    assert len(store.search(("test",), query=None)) == 1
    assert len(store.search(("test",), query="test " * 100)) == 1
    assert len(store.search(("test",), query="test!@#$%^&*()")) == 1


def test_embed_with_path(memory: CognitiveMemory, clock: TickingClock) -> None:
    store = CognitiveMemoryStore(memory, fields=["key0", "key1", "key3"], now=clock)
    store.put(("test",), "doc1", {"key1": "xxx", "key2": "yyy", "key3": "zzz"})
    store.put(("test",), "doc2", {"key0": "uuu", "key1": "vvv", "key2": "www", "key3": "xxx"})
    both = store.search(("test",), query="xxx")
    assert len(both) == 2 and both[0].key != both[1].key
    uuu = store.search(("test",), query="uuu")
    assert uuu[0].key == "doc2" and (uuu[0].score or 0) > (uuu[1].score or 0)
    zzz = store.search(("test",), query="zzz")
    assert zzz[0].key == "doc1" and (zzz[0].score or 0) > (zzz[1].score or 0)
    www = store.search(("test",), query="www")  # key2 is not indexed
    best = max(r.score or 0 for r in both)
    assert len(www) == 2 and all((r.score or 0) < best for r in www)


def test_embed_with_path_operation_config(memory: CognitiveMemory, clock: TickingClock) -> None:
    store = CognitiveMemoryStore(memory, fields=["key17"], now=clock)
    store.put(
        ("test",), "doc3", {"key0": "aaa", "key1": "bbb", "key2": "ccc"}, index=["key0", "key1"]
    )
    store.put(
        ("test",), "doc4", {"key0": "eee", "key1": "bbb", "key3": "ggg"}, index=["key1", "key3"]
    )
    aaa = store.search(("test",), query="aaa")
    assert len(aaa) == 2 and aaa[0].key == "doc3" and (aaa[0].score or 0) > (aaa[1].score or 0)
    ggg = store.search(("test",), query="ggg")
    assert ggg[0].key == "doc4" and (ggg[0].score or 0) > (ggg[1].score or 0)
    bbb = store.search(("test",), query="bbb")
    assert bbb[0].score == pytest.approx(bbb[1].score, abs=0.05)
    ccc = store.search(("test",), query="ccc")
    assert all((r.score or 0) < (aaa[0].score or 0) for r in ccc)

    store.put(("test",), "doc5", {"key0": "hhh", "key1": "iii"}, index=False)
    listed = store.search(("test",))
    assert len(listed) == 3 and all(r.score is None for r in listed)
    hhh = store.search(("test",), query="hhh")
    assert [r.key for r in hhh if r.score is not None] == ["doc3", "doc4"]
    assert [(r.key, r.score) for r in hhh if r.score is None] == [("doc5", None)]
    # Nothing at the default paths: kept, readable, not found by a query.
    store.put(("test",), "doc6", {"other": "jjj"})
    assert store.get(("test",), "doc6") is not None
    jjj = store.search(("test",), query="jjj")
    assert [(r.key, r.score) for r in jjj if r.score is None] == [("doc5", None), ("doc6", None)]


class CountingEmbedder(HashingEmbedder):
    """A HashingEmbedder that counts the texts it embeds as documents."""

    def __init__(self) -> None:
        super().__init__()
        self.documents = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents += len(texts)
        return super().embed_documents(texts)


def test_each_index_path_is_embedded_apart_and_the_best_counts(clock: TickingClock) -> None:
    # LangGraph's test_embed_with_path: an item is as near a query as its nearest path. Joined
    # into one vector, doc2's three paths would give "xxx" a cosine of 1/sqrt(3).
    embedder = CountingEmbedder()
    memory = CognitiveMemory(embedder=embedder)
    store = CognitiveMemoryStore(memory, fields=["key0", "key1", "key3"], mode="dense", now=clock)
    store.put(("test",), "doc1", {"key1": "xxx", "key2": "yyy", "key3": "zzz"})
    store.put(("test",), "doc2", {"key0": "uuu", "key1": "vvv", "key2": "www", "key3": "xxx"})
    store.put(("test",), "doc3", {"key0": "xxx"})  # one path: its own vector
    found = store.search(("test",), query="xxx")
    cosines = {r.key: r.explanation["cosine"] for r in found if isinstance(r, CognitiveSearchItem)}
    assert cosines == pytest.approx({"doc1": 1.0, "doc2": 1.0, "doc3": 1.0}, abs=1e-5)
    assert memory.get("doc2", namespace=store._namespace(("test",))).text == "uuu\nvvv\nxxx"
    # The passages' vectors are kept: a second search embeds nothing again.
    embedded = embedder.documents
    store.search(("test",), query="xxx")
    assert embedder.documents == embedded
    www = store.search(("test",), query="www")  # key2 is not indexed
    assert all(r.explanation["cosine"] < 0.5 for r in www if isinstance(r, CognitiveSearchItem))


def test_passages_are_checked() -> None:
    with pytest.raises(InvalidTypeError, match="texts_of"):
        Passages(HashingEmbedder(), "lg.passages")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="size"):
        Passages(HashingEmbedder(), lambda r: [], size=0)
    memory = CognitiveMemory(embedder=HashingEmbedder())
    memory.add("a b", now=T0)
    with pytest.raises(InvalidTypeError, match="passages"):
        memory.search("a", passages=lambda r: [], now=T0)  # type: ignore[arg-type]
    # The cache keeps at most ``size`` vectors, the least recently used going first.
    passages = Passages(HashingEmbedder(), lambda r: [], size=2)
    passages.vectors(["one", "two"])
    passages.vectors(["one", "three"])
    assert list(passages._cache) == ["one", "three"]


def test_non_ascii(store: CognitiveMemoryStore) -> None:
    texts = ["这是中文", "これは日本語です", "이건 한국어야", "Это русский", "यह रूसी है"]
    for i, text in enumerate(texts, start=1):
        store.put(("user_123", "memories"), str(i), {"text": text})
    for i, text in enumerate(texts, start=1):
        assert store.search(("user_123", "memories"), query=text)[0].key == str(i)
        item = store.get(("user_123", "memories"), str(i))
        assert item is not None and item.value == {"text": text}


# ----------------------------------------------------------------- cogmem on top
def test_nan_and_infinity_are_stored_as_inmemorystore_stores_them(
    store: CognitiveMemoryStore,
) -> None:
    store.put(("u",), "k", {"x": float("nan"), "y": float("inf"), "text": "odd numbers"})
    item = store.get(("u",), "k")
    assert item is not None and math.isnan(item.value["x"]) and item.value["y"] == math.inf
    assert store.search(("u",), filter={"x": float("nan")}) == []  # NaN equals nothing
    assert [i.key for i in store.search(("u",), filter={"y": {"$gt": 1e308}})] == ["k"]


def test_values_round_trip_exactly(store: CognitiveMemoryStore) -> None:
    value = {
        "text": "User likes tea",
        "n": 3,
        "x": 2.5,
        "ok": True,
        "none": None,
        "nested": {"list": [1, "two", {"three": 3.0}], "é": "ü"},
        "empty": {},
    }
    store.put(("u",), "k", value)
    item = store.get(("u",), "k")
    assert item is not None and item.value == value
    item.value["n"] = 99  # the caller's copy, not the store's
    again = store.get(("u",), "k")
    assert again is not None and again.value["n"] == 3


def test_items_are_memories(memory: CognitiveMemory, store: CognitiveMemoryStore) -> None:
    store.put(("users", "alice"), "favourite-drink", {"text": "Alice drinks green tea"})
    name = encode_namespace(("users", "alice"))
    record = memory.get("favourite-drink", namespace=name)
    assert record.memory_type == "semantic"
    assert record.text == '{"text": "Alice drinks green tea"}'  # fields ["$"]: the JSON
    # A memory written through the core into the store's namespace is readable too.
    memory.add("Alice has a cat", id="cat", namespace=name, now=T0)
    item = store.get(("users", "alice"), "cat")
    assert item is not None and item.value == {"text": "Alice has a cat"}
    assert {i.key for i in store.search(("users",))} == {"favourite-drink", "cat"}


def test_search_reinforces_exactly_what_it_returns(
    memory: CognitiveMemory, store: CognitiveMemoryStore
) -> None:
    for i in range(4):
        store.put(("u",), f"tea{i}", {"text": f"tea note number {i}"})
    name = encode_namespace(("u",))
    first = store.search(("u",), query="tea note", limit=1)
    counts = {f"tea{i}": memory.get(f"tea{i}", namespace=name).access_count for i in range(4)}
    assert counts[first[0].key] == 1 and sum(counts.values()) == 1
    # A later page: only that page is reinforced (the search beneath it ran without).
    second = store.search(("u",), query="tea note", limit=2, offset=1)
    counts = {f"tea{i}": memory.get(f"tea{i}", namespace=name).access_count for i in range(4)}
    assert first[0].key not in {r.key for r in second}
    assert sum(counts.values()) == 3
    assert all(counts[r.key] == 1 for r in second)
    # Gets and filter-only searches never reinforce; neither does reinforce=False.
    store.get(("u",), "tea0")
    store.search(("u",))
    quiet = CognitiveMemoryStore(memory, reinforce=False)
    quiet.search(("u",), query="tea note")
    after = {f"tea{i}": memory.get(f"tea{i}", namespace=name).access_count for i in range(4)}
    assert after == counts


def test_decay_orders_equally_relevant_items(memory: CognitiveMemory) -> None:
    clock = TickingClock()
    store = CognitiveMemoryStore(memory, now=clock, reinforce=False)
    store.put(("u",), "old", {"text": "the user owns a bicycle"})
    clock.time += timedelta(days=300)
    store.put(("u",), "new", {"text": "the user owns a bicycle"})
    results = store.search(("u",), query="bicycle")
    assert [r.key for r in results] == ["new", "old"]
    assert results[0].explanation and results[1].explanation
    assert results[1].explanation["retention"] < results[0].explanation["retention"]


def test_search_across_namespaces_merges_by_score(
    memory: CognitiveMemory, store: CognitiveMemoryStore
) -> None:
    store.put(("u", "a"), "1", {"text": "a note about sailing boats"})
    store.put(("u", "b"), "2", {"text": "sailing"})
    store.put(("u", "b"), "3", {"text": "a recipe for soup"})
    results = store.search(("u",), query="sailing")
    assert [(r.namespace, r.key) for r in results] == [
        (("u", "b"), "2"),
        (("u", "a"), "1"),
        (("u", "b"), "3"),
    ]
    assert [r.score for r in results] == sorted((r.score or 0 for r in results), reverse=True)
    # Both namespaces' hits were reinforced, each in its own namespace.
    for namespace, key in [(("u", "a"), "1"), (("u", "b"), "2")]:
        assert memory.get(key, namespace=encode_namespace(namespace)).access_count == 1


def test_top_level_filters_run_inside_the_core(clock: TickingClock) -> None:
    # Tiny candidate lists: a filter applied only after the search would find nothing.
    memory = CognitiveMemory(
        embedder=HashingEmbedder(), config=CognitiveMemoryConfig(k_dense=3, k_sparse=3)
    )
    store = CognitiveMemoryStore(memory, now=clock)
    for i in range(30):
        store.put(("t",), f"k{i}", {"text": f"garden note {i} garden", "colour": "green"})
    store.put(("t",), "r1", {"text": "garden shed", "colour": "red", "size": 3})
    store.put(("t",), "r2", {"text": "a red door", "colour": "red", "size": 5})
    results = store.search(("t",), query="garden", filter={"colour": "red"})
    assert [r.key for r in results] == ["r1", "r2"]
    results = store.search(("t",), query="garden", filter={"size": {"$gte": 4}})
    assert [r.key for r in results] == ["r2"]
    memory.close()


def test_failed_put_keeps_the_previous_value(clock: TickingClock) -> None:
    class Flaky(HashingEmbedder):
        def embed(self, texts: Any) -> npt.NDArray[np.float32]:
            if any("boom" in t for t in texts):
                raise RuntimeError("model offline")
            return super().embed(texts)

    memory = CognitiveMemory(embedder=Flaky())
    store = CognitiveMemoryStore(memory, now=clock)
    store.put(("u",), "k", {"text": "first version"})
    before = store.get(("u",), "k")
    with pytest.raises(EmbedderError, match="model offline"):
        store.put(("u",), "k", {"text": "boom"})
    after = store.get(("u",), "k")
    assert after is not None and before is not None
    assert after.value == {"text": "first version"}
    assert after.created_at == before.created_at
    memory.close()


def test_async_api(store: CognitiveMemoryStore) -> None:
    async def run() -> None:
        await store.aput(("a",), "k", {"text": "async tea"})
        item = await store.aget(("a",), "k")
        assert item is not None and item.value == {"text": "async tea"}
        found = await store.asearch(("a",), query="tea")
        assert [r.key for r in found] == ["k"]
        assert await store.alist_namespaces() == [("a",)]
        await store.adelete(("a",), "k")
        assert await store.aget(("a",), "k") is None

    asyncio.run(run())


def test_bad_input_is_rejected(memory: CognitiveMemory, store: CognitiveMemoryStore) -> None:
    with pytest.raises(InvalidTypeError, match="dict"):
        store.put(("u",), "k", ["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="JSON"):
        store.put(("u",), "k", {"s": {1, 2}})
    with pytest.raises(InvalidInputError, match="operator"):
        store.search(("u",), filter={"x": {"$regex": "a"}})
    with pytest.raises(InvalidTypeError, match="filter"):
        store.search(("u",), filter=["x"])  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="limit"):
        store.search(("u",), limit=-1)
    with pytest.raises(InvalidTypeError, match="index"):
        store.put(("u",), "k", {"a": "b"}, index="a")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="ttl"):
        store.put(("u",), "k", {"a": "b"}, ttl=-5)
    with pytest.raises(InvalidTypeError, match="ttl"):
        store.put(("u",), "k", {"a": "b"}, ttl="5")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="memory_type"):
        CognitiveMemoryStore(memory, memory_type="dream")
    with pytest.raises(InvalidTypeError, match="CognitiveMemory"):
        CognitiveMemoryStore("memory")  # type: ignore[arg-type]
    assert store.list_namespaces() == []  # nothing was stored by the failed calls


# ----------------------------------------------------------------- a real agent
class ToolCallingFakeModel(GenericFakeChatModel):
    """GenericFakeChatModel that accepts tools (its scripted replies decide the calls)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFakeModel:  # type: ignore[override]
        return self


@tool
def remember(text: str) -> str:
    """Store a fact about the user in long-term memory."""
    store = get_store()
    key = f"fact-{len(store.search(('users', 'u1', 'facts'), limit=100))}"
    store.put(("users", "u1", "facts"), key, {"text": text})
    return f"stored {key}"


@tool
def recall(query: str, runtime: ToolRuntime) -> str:
    """Recall what we know about the user."""
    assert runtime.store is not None
    items = runtime.store.search(("users", "u1", "facts"), query=query, limit=2)
    return "\n".join(f"{i.value['text']} (score {i.score:.3f})" for i in items)


def test_create_agent_reads_and_writes_the_store(memory: CognitiveMemory) -> None:
    clock = TickingClock()
    store = CognitiveMemoryStore(memory, now=clock, session_id="agent-run")
    store.put(("users", "u1", "facts"), "fact-0", {"text": "The user is vegetarian"})
    model = ToolCallingFakeModel(
        messages=iter(
            [
                AIMessage(
                    content="",
                    tool_calls=[
                        {
                            "name": "remember",
                            "args": {"text": "The user's favourite drink is green tea"},
                            "id": "call-1",
                        }
                    ],
                ),
                AIMessage(
                    content="",
                    tool_calls=[
                        {"name": "recall", "args": {"query": "favourite drink"}, "id": "call-2"}
                    ],
                ),
                AIMessage(content="Your favourite drink is green tea."),
            ]
        )
    )
    agent = create_agent(model, tools=[remember, recall], store=store)
    out = agent.invoke({"messages": [{"role": "user", "content": "Remember I love green tea."}]})

    assert out["messages"][-1].content == "Your favourite drink is green tea."
    tool_messages = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert tool_messages[0].content == "stored fact-1"
    recalled = str(tool_messages[1].content).splitlines()
    assert recalled[0].startswith("The user's favourite drink is green tea (score ")
    # The tool's write is a memory; the recall reinforced it, in the agent's session.
    written = store.get(("users", "u1", "facts"), "fact-1")
    assert written is not None
    assert written.value == {"text": "The user's favourite drink is green tea"}
    record = memory.get("fact-1", namespace=encode_namespace(("users", "u1", "facts")))
    assert record.access_count == 1
    assert "agent-run" in record.session_ids


def test_datetime_and_uuid_values_are_kept_as_iso_text(store: CognitiveMemoryStore) -> None:
    """As SqliteStore keeps them (orjson); before, such a value was refused as not JSON."""
    import uuid
    from datetime import date

    when = datetime(2026, 4, 25, 12, 30, tzinfo=timezone.utc)
    ident = uuid.UUID("12345678-1234-5678-1234-567812345678")
    store.put(("t",), "k", {"when": when, "id": ident, "day": {"at": date(2026, 4, 25)}})
    assert store.get(("t",), "k").value == {  # type: ignore[union-attr]
        "when": "2026-04-25T12:30:00+00:00",
        "id": "12345678-1234-5678-1234-567812345678",
        "day": {"at": "2026-04-25"},
    }


def test_an_int_beyond_64_bits_names_the_items_key_and_field(store: CognitiveMemoryStore) -> None:
    """Before: the error named cogmem's internal metadata key ('v.n')."""
    with pytest.raises(InvalidInputError, match=r"key 'big': n is an int beyond 64 bits"):
        store.put(("t",), "big", {"n": 2**63})
    with pytest.raises(InvalidInputError, match=r"key 'deep': a\.b\[1\] is an int beyond"):
        store.put(("t",), "deep", {"a": {"b": [1, -(2**64)]}})
    assert store.get(("t",), "big") is None


@pytest.mark.model
def test_alices_item_comes_first_for_alices_question_after_bobs_newer_item() -> None:
    """Distinct keys about different people are different facts: Bob's newer flight does not
    push Alice's down for her question (before the slot reading, it ranked first). With the
    real model: the slot reading compares what statements are about."""
    clock = TickingClock()
    with CognitiveMemory() as memory:
        store = CognitiveMemoryStore(memory, now=clock)
        store.put(("trips",), "alice", {"text": "Alice's flight to Oslo leaves Monday at 9."})
        clock.time += timedelta(days=3)
        store.put(("trips",), "bob", {"text": "Bob's flight to Rome leaves Friday at 7."})
        clock.time += timedelta(days=1)
        found = store.search(("trips",), query="When is Alice's flight?")
        assert [i.key for i in found][:1] == ["alice"]


def test_index_is_taken_as_every_langgraph_store_takes_it(memory: CognitiveMemory) -> None:
    """Before: index= was an unknown argument, and there was no index_config."""
    width = memory.embedder.dimension  # type: ignore[attr-defined]
    store = CognitiveMemoryStore(
        memory, index={"dims": width, "embed": memory.embedder, "fields": ["text"]}
    )
    assert store.index_config == {"dims": width, "embed": memory.embedder, "fields": ["text"]}
    store.put(("t",), "k", {"text": "zebra crossing", "other": "lighthouse"})
    assert [i.key for i in store.search(("t",), query="zebra crossing")] == ["k"]
    assert memory.get("k", namespace="lg:t").text == "zebra crossing"  # only the field
    assert CognitiveMemoryStore(memory).index_config["fields"] == ["$"]
    with pytest.raises(DimensionMismatchError, match="dims"):
        CognitiveMemoryStore(memory, index={"dims": width + 1, "embed": memory.embedder})
    with pytest.raises(InvalidInputError, match="memory's own embedder"):
        CognitiveMemoryStore(memory, index={"dims": width, "embed": HashingEmbedder()})
    with pytest.raises(InvalidInputError, match="once"):
        CognitiveMemoryStore(memory, fields=["a"], index={"dims": width, "fields": ["b"]})
    with pytest.raises(InvalidInputError, match="unknown key"):
        CognitiveMemoryStore(memory, index={"dims": width, "embedding": memory.embedder})  # type: ignore[typeddict-unknown-key]


def test_a_range_compares_numeric_strings_as_numbers(clock: TickingClock) -> None:
    """As InMemoryStore and SqliteStore: {"age": "30"} passes {"$gt": 18}, with or without a
    query, and inside the core's search (tiny candidate lists); a value that is no number
    raises a named error where InMemoryStore raises a bare one. Before, "30" never matched."""
    memory = CognitiveMemory(
        embedder=HashingEmbedder(), config=CognitiveMemoryConfig(k_dense=3, k_sparse=3)
    )
    store = CognitiveMemoryStore(memory, now=clock)
    for i in range(30):
        store.put(("t",), f"k{i}", {"text": f"garden note {i} garden", "age": 5})
    store.put(("t",), "ana", {"text": "a red door", "age": "30"})
    store.put(("t",), "bob", {"text": "a blue door", "age": 41})
    store.put(("t",), "cat", {"text": "a green door", "age": "12"})
    older = {"age": {"$gt": 18, "$lte": "40"}}
    assert [i.key for i in store.search(("t",), filter=older)] == ["ana"]
    assert [i.key for i in store.search(("t",), query="garden", filter=older)] == ["ana"]
    assert {i.key for i in store.search(("t",), query="door", filter={"age": {"$gt": 18}})} == {
        "ana",
        "bob",
    }
    store.put(("t",), "odd", {"text": "an odd door", "age": "unknown"})
    with pytest.raises(InvalidInputError, match="'unknown', not a number"):
        store.search(("t",), filter={"age": {"$gt": 18}})
    with pytest.raises(InvalidInputError, match="not a number"):
        store.search(("t",), query="door", filter={"age": {"$gt": "eighteen"}})
    memory.close()
