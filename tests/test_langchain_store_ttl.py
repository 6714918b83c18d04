"""CognitiveMemoryStore's TTLs, as LangGraph's SQLite and Postgres stores have them."""

from __future__ import annotations

import gc
from datetime import datetime, timedelta, timezone

import pytest

from cogmem import CognitiveMemory, InvalidInputError
from langchain_cogmem import CognitiveMemoryStore, encode_namespace

T0 = datetime(2026, 5, 1, 8, 0, tzinfo=timezone.utc)
NS = ("users", "ana")


class Clock:
    """A clock the test sets: ``clock()`` is the current time."""

    def __init__(self) -> None:
        self.time = T0

    def __call__(self) -> datetime:
        return self.time

    def advance(self, minutes: float) -> None:
        self.time += timedelta(minutes=minutes)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def keys(items: list) -> list[str]:  # type: ignore[type-arg]
    return [i.key for i in items]


def test_an_item_is_gone_when_its_ttl_runs_out(mem: CognitiveMemory, clock: Clock) -> None:
    store = CognitiveMemoryStore(mem, now=clock)
    assert store.supports_ttl
    store.put(NS, "otp", {"text": "one-time code 4711"}, ttl=10)
    store.put(NS, "diet", {"text": "Ana is vegetarian"})
    clock.advance(9)
    assert store.get(NS, "otp", refresh_ttl=False) is not None
    assert "otp" in keys(store.search(NS, query="one-time code", refresh_ttl=False))
    clock.advance(2)
    assert store.get(NS, "otp") is None
    assert keys(store.search(NS, query="one-time code")) == ["diet"]
    assert keys(store.search(NS)) == ["diet"]
    assert mem.count(encode_namespace(NS)) == 2  # kept until a sweep
    assert store.sweep_ttl() == 1
    assert mem.count(encode_namespace(NS)) == 1
    assert store.list_namespaces() == [NS]


def test_a_read_refreshes_the_ttl_unless_told_not_to(mem: CognitiveMemory, clock: Clock) -> None:
    store = CognitiveMemoryStore(mem, now=clock)
    store.put(NS, "a", {"text": "parking level 3"}, ttl=10)
    store.put(NS, "b", {"text": "parking level 4"}, ttl=10)
    clock.advance(8)
    store.get(NS, "a")  # refreshed to T0 + 18 min
    store.get(NS, "b", refresh_ttl=False)
    clock.advance(7)
    assert keys(store.search(NS, query="parking level")) == ["a"]  # and refreshed again
    clock.advance(9)
    assert store.get(NS, "a") is not None
    quiet = CognitiveMemoryStore(mem, now=clock, ttl={"refresh_on_read": False})
    clock.advance(9)
    assert quiet.get(NS, "a") is not None  # not refreshed: T0 + 24 + 10
    clock.advance(2)
    assert quiet.get(NS, "a") is None


def test_default_ttl_from_the_config(mem: CognitiveMemory, clock: Clock) -> None:
    store = CognitiveMemoryStore(mem, now=clock, ttl={"default_ttl": 5})
    store.put(NS, "short", {"text": "a passing note"})
    store.put(NS, "kept", {"text": "a lasting note"}, ttl=None)
    assert mem.get("short", namespace=encode_namespace(NS), now=T0).expires_at == T0 + timedelta(
        minutes=5
    )
    clock.advance(6)
    assert keys(store.search(NS)) == ["kept"]


def test_a_put_after_expiry_starts_the_item_afresh(mem: CognitiveMemory, clock: Clock) -> None:
    store = CognitiveMemoryStore(mem, now=clock)
    store.put(NS, "k", {"text": "first"}, ttl=1)
    clock.advance(2)
    store.put(NS, "k", {"text": "second"})
    item = store.get(NS, "k")
    assert item is not None and item.value == {"text": "second"}
    assert item.created_at == clock.time  # the expired item is gone, not updated
    assert mem.get("k", namespace=encode_namespace(NS), now=clock.time).expires_at is None


def test_the_sweeper_thread_sweeps_at_once_and_stops(mem: CognitiveMemory, clock: Clock) -> None:
    store = CognitiveMemoryStore(mem, now=clock, ttl={"sweep_interval_minutes": 60})
    store.put(NS, "gone", {"text": "x"}, ttl=1)
    store.put(NS, "kept", {"text": "y"})
    clock.advance(2)
    future = store.start_ttl_sweeper()
    assert store.start_ttl_sweeper() is future  # one sweeper at a time
    assert store.stop_ttl_sweeper(timeout=30)
    future.result(timeout=30)
    assert [r.id for r in mem.records(encode_namespace(NS))] == ["kept"]

    plain = CognitiveMemoryStore(mem, now=clock)
    assert plain.start_ttl_sweeper().done()  # no TTLConfig: nothing to run


def test_a_bad_ttl_config_is_refused(mem: CognitiveMemory) -> None:
    with pytest.raises(InvalidInputError, match="default_tll"):
        CognitiveMemoryStore(mem, ttl={"default_tll": 5})  # type: ignore[typeddict-unknown-key]
    with pytest.raises(InvalidInputError, match="positive"):
        CognitiveMemoryStore(mem, ttl={"default_ttl": 0})


def test_a_store_used_with_with_stops_its_sweeper_and_leaves_the_memory_open(
    mem: CognitiveMemory, clock: Clock
) -> None:
    with CognitiveMemoryStore(mem, now=clock, ttl={"sweep_interval_minutes": 60}) as store:
        store.put(NS, "kept", {"text": "y"})
        future = store.start_ttl_sweeper()
    future.result(timeout=30)  # ended with the block
    assert [r.id for r in mem.records(encode_namespace(NS))] == ["kept"]


def test_a_dropped_store_or_a_closed_memory_ends_the_sweeper(clock: Clock) -> None:
    """Before: the thread held the store for ever, and swept a closed memory every interval,
    logging the failure each time."""
    from cogmem.testing import HashingEmbedder

    memory = CognitiveMemory(embedder=HashingEmbedder(32))
    store = CognitiveMemoryStore(memory, now=clock, ttl={"sweep_interval_minutes": 60})
    dropped = store.start_ttl_sweeper()
    del store
    gc.collect()
    dropped.result(timeout=30)

    kept = CognitiveMemoryStore(memory, now=clock, ttl={"sweep_interval_minutes": 1e-4})
    memory.close()
    kept.start_ttl_sweeper().result(timeout=30)  # the first sweep finds it closed, and stops
