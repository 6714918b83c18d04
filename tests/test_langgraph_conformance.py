"""CognitiveMemoryStore against LangGraph's own ``InMemoryStore``: the same operations, the
same answers.

Random operation sequences (seeded) run on both stores: puts (some ``index=False``), deletes,
gets, filter-only searches with pages, namespace listings, query searches and batches that
mix puts and gets. After every operation both answers are compared. What is compared, and
what is left aside on purpose (the README's "LangGraph store" section says why):

* items by namespace, key and value; timestamps aside (``InMemoryStore`` resets
  ``created_at`` on every put, cogmem keeps the first put's);
* a query search by the items it returns and which of them have no score; the order of the
  scored ones aside (cognitive score, not cosine);
* a filter-only search over several namespaces by each namespace's items in order; pages
  (``limit``/``offset``) within one namespace exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from langgraph.store.base import BaseStore, GetOp, Item, PutOp, SearchItem
from langgraph.store.memory import InMemoryStore

from cogmem import CognitiveMemory
from cogmem.testing import HashingEmbedder
from langchain_cogmem import CognitiveMemoryStore

NAMESPACES = [("users", "ana"), ("users", "bob"), ("docs",)]
KEYS = [f"k{i}" for i in range(6)]
WORDS = ["tea", "coffee", "lisbon", "porto", "piano", "cello", "garden", "roses", "whales", "pasta"]
FILTERS: list[dict[str, Any]] = [
    {},
    {"tag": "x"},
    {"flag": True},
    {"flag": 1},
    {"flag": 0},
    {"n": {"$gt": 1}},
    {"n": {"$lte": 1}},
    {"n": {"$ne": 2}},
    {"n": 2.0},
    {"nested": {"a": 1}},
    {"items": [1, 2]},
    {"tag": "y", "n": {"$gte": 0}},
]


class Clock:
    def __init__(self) -> None:
        self.time = datetime(2026, 5, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        self.time += timedelta(seconds=1)
        return self.time


@pytest.fixture
def stores() -> Iterator[tuple[InMemoryStore, CognitiveMemoryStore]]:
    embedder = HashingEmbedder()
    reference = InMemoryStore(
        index={"dims": embedder.dimension, "embed": embedder.embed_documents, "fields": ["$"]}
    )
    memory = CognitiveMemory(embedder=embedder)
    yield reference, CognitiveMemoryStore(memory, now=Clock())
    memory.close()


def random_value(rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {
        "text": " ".join(rng.sample(WORDS, 3)),
        "n": rng.choice([0, 1, 2, 2.0, 2.5, True, False, 7]),
        "flag": rng.choice([True, False, 1, 0]),
        "tag": rng.choice(["x", "y"]),
    }
    if rng.random() < 0.4:
        value["nested"] = {"a": rng.choice([1, "1", True, 2])}
    if rng.random() < 0.3:
        value["items"] = rng.choice([[1, 2], [2, 1], [1]])
    return value


def plain(item: Item | None) -> tuple[tuple[str, ...], str, dict[str, Any]] | None:
    return None if item is None else (tuple(item.namespace), item.key, item.value)


def by_namespace(items: list[SearchItem]) -> dict[tuple[str, ...], list[str]]:
    grouped: dict[tuple[str, ...], list[str]] = {}
    for item in items:
        grouped.setdefault(tuple(item.namespace), []).append(item.key)
    return grouped


def step(rng: random.Random, reference: BaseStore, ours: BaseStore, written: set[Any]) -> str:
    """One random operation on both stores; asserts they answer alike; returns its name."""
    roll = rng.random()
    namespace = rng.choice(NAMESPACES)
    key = rng.choice(KEYS)
    if roll < 0.35:
        value = None if rng.random() < 0.1 else random_value(rng)
        if value is None and namespace not in written:  # InMemoryStore creates it on a delete
            return "skip"
        index = False if rng.random() < 0.15 else None
        for store in (reference, ours):
            if index is False and namespace in written:
                store.delete(namespace, key)  # else InMemoryStore scores it by stale vectors
            store.put(namespace, key, value, index=index)  # type: ignore[arg-type]
        written.add(namespace)
        return "put"
    if roll < 0.45:
        if namespace not in written:  # InMemoryStore creates a namespace on a get
            return "skip"
        assert plain(reference.get(namespace, key)) == plain(ours.get(namespace, key))
        return "get"
    if roll < 0.6:
        filter = rng.choice(FILTERS) or None
        prefix = rng.choice([(), ("users",), namespace])
        if prefix == namespace:
            limit, offset = rng.randint(1, 4), rng.randint(0, 3)
            expected = reference.search(prefix, filter=filter, limit=limit, offset=offset)
            got = ours.search(prefix, filter=filter, limit=limit, offset=offset)
            assert [plain(i) for i in got] == [plain(i) for i in expected]
        else:
            expected = reference.search(prefix, filter=filter, limit=100)
            got = ours.search(prefix, filter=filter, limit=100)
            assert by_namespace(got) == by_namespace(expected)
            assert all(i.score is None for i in got)
        return "search"
    if roll < 0.7:
        query = " ".join(rng.sample(WORDS, 2))
        filter = rng.choice(FILTERS) or None
        expected = reference.search((), query=query, filter=filter, limit=100)
        got = ours.search((), query=query, filter=filter, limit=100)
        assert sorted(map(plain, got)) == sorted(map(plain, expected))  # type: ignore[type-var]
        unscored = [i for i in expected if i.score is None]
        assert by_namespace([i for i in got if i.score is None]) == by_namespace(unscored)
        assert all(i.score is None for i in got[len(got) - len(unscored) :])  # scored first
        return "query"
    if roll < 0.8:
        prefix = rng.choice([None, ("users",), ("users", "*")])
        suffix = rng.choice([None, ("ana",), ("*",)])
        depth = rng.choice([None, 1, 2])
        limit, offset = rng.randint(1, 5), rng.randint(0, 2)
        args: dict[str, Any] = {"max_depth": depth, "limit": limit, "offset": offset}
        expected_ns = reference.list_namespaces(prefix=prefix, suffix=suffix, **args)
        assert ours.list_namespaces(prefix=prefix, suffix=suffix, **args) == expected_ns
        return "list"
    value = random_value(rng)
    ops = [PutOp(namespace, key, value), GetOp(namespace, key)]
    if namespace not in written:
        ops = ops[:1]
    expected_batch = reference.batch(ops)
    got_batch = ours.batch(ops)
    written.add(namespace)
    assert [plain(r) if isinstance(r, Item) else r for r in got_batch] == [
        plain(r) if isinstance(r, Item) else r for r in expected_batch
    ]
    assert plain(ours.get(namespace, key)) == plain(reference.get(namespace, key))
    return "batch"


@pytest.mark.parametrize("seed", range(10))
def test_random_operation_sequences_answer_as_inmemorystore(
    stores: tuple[InMemoryStore, CognitiveMemoryStore], seed: int
) -> None:
    reference, ours = stores
    rng = random.Random(seed)
    written: set[Any] = set()
    done = [step(rng, reference, ours, written) for _ in range(120)]
    assert {"put", "get", "search", "query", "list", "batch"} <= set(done)


def test_reads_in_a_batch_see_the_store_as_it_was(
    stores: tuple[InMemoryStore, CognitiveMemoryStore],
) -> None:
    for store in stores:
        store.put(("a",), "k", {"v": 1})
        results = store.batch(
            [
                PutOp(("a",), "k", {"v": 2}),
                GetOp(("a",), "k"),
                PutOp(("a",), "k", {"v": 3}),
                PutOp(("a",), "new", {"v": 4}),
                GetOp(("a",), "new"),
            ]
        )
        assert [plain(r) if isinstance(r, Item) else r for r in results] == [
            None,
            (("a",), "k", {"v": 1}),
            None,
            None,
            None,
        ]
        assert plain(store.get(("a",), "k")) == (("a",), "k", {"v": 3})  # the last put wins


def test_a_bad_put_in_a_batch_leaves_the_store_as_it_was(
    stores: tuple[InMemoryStore, CognitiveMemoryStore],
) -> None:
    _, ours = stores
    ours.put(("a",), "k", {"v": 1})
    with pytest.raises(TypeError):
        ours.batch([PutOp(("a",), "k", {"v": 2}), PutOp(("a",), "j", ["not", "a", "dict"])])  # type: ignore[arg-type]
    assert plain(ours.get(("a",), "k")) == (("a",), "k", {"v": 1})
    assert ours.get(("a",), "j") is None


def test_kept_differences(stores: tuple[InMemoryStore, CognitiveMemoryStore]) -> None:
    """The differences kept on purpose, each as the README states it."""
    reference, ours = stores
    for store in stores:
        store.put(("a",), "k", {"pair": (1, 2)})
    # Values are JSON (as in LangGraph's SQLite and Postgres stores): a tuple comes back a list.
    assert reference.get(("a",), "k").value == {"pair": (1, 2)}  # type: ignore[union-attr]
    assert ours.get(("a",), "k").value == {"pair": [1, 2]}  # type: ignore[union-attr]
    # A re-put with index=False is unindexed (InMemoryStore keeps scoring it by the vectors
    # of the value it replaced).
    for store in stores:
        store.put(("b",), "k", {"text": "green tea"})
        store.put(("b",), "k", {"text": "black coffee"}, index=False)
    assert reference.search(("b",), query="green tea")[0].score is not None
    assert ours.search(("b",), query="green tea")[0].score is None
    # A get, or a delete of nothing, never creates a namespace (InMemoryStore lists one it was
    # only asked about).
    for store in stores:
        store.get(("never", "written"), "k")
        store.delete(("never", "deleted"), "k")
    assert {("never", "written"), ("never", "deleted")} <= set(reference.list_namespaces())
    assert ours.list_namespaces() == [("a",), ("b",)]
