"""The store contract, on embedded Chroma and on a real Chroma server (``chroma run``) alike,
and what happens when the server goes away and comes back.

Every contract test runs twice: on a ``PersistentClient`` folder and on an ``HttpClient`` to the
session's server (``CognitiveMemory(client=chromadb.HttpClient(...), collection=...)``), each
test on collections of its own. "Reopen" means a new :class:`CognitiveMemory` on the same
folder, or on the same collection through a new client.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cogmem import (
    CogmemError,
    CognitiveMemory,
    CognitiveMemoryConfig,
    DuplicateIdError,
    InvalidInputError,
    InvalidTypeError,
    MemoryInput,
    MemoryNotFoundError,
    StoreError,
)
from cogmem.chroma_layout import from_chroma
from cogmem.clients import http_client
from cogmem.errors import CogmemConnectionError
from cogmem.store import chroma_address
from cogmem.testing import HashingEmbedder
from tests import internals
from tests.chroma_server import ChromaServer, free_port
from tests.conftest import NOW

# --- backends ------------------------------------------------------------------------------------


@dataclass
class Backend:
    """Opens (and reopens) one store: a folder, or one collection name on the server."""

    kind: str
    open_memory: Callable[..., CognitiveMemory]
    opened: list[CognitiveMemory] = field(default_factory=list)

    def open(self, **kwargs: Any) -> CognitiveMemory:
        memory = self.open_memory(**kwargs)
        self.opened.append(memory)
        return memory


@pytest.fixture(params=["embedded", pytest.param("server", marks=pytest.mark.server)])
def backend(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: HashingEmbedder
) -> Iterator[Backend]:
    if request.param == "embedded":
        folder = tmp_path / "store"

        def open_embedded(**kwargs: Any) -> CognitiveMemory:
            kwargs.setdefault("embedder", embedder)
            return CognitiveMemory(path=folder, **kwargs)

        made = Backend("embedded", open_embedded)
    else:
        server: ChromaServer = request.getfixturevalue("chroma_server")
        name = f"t-{uuid.uuid4().hex[:12]}"

        def open_on_server(**kwargs: Any) -> CognitiveMemory:
            kwargs.setdefault("embedder", embedder)
            return CognitiveMemory(client=server.client(), collection=name, **kwargs)

        made = Backend("server", open_on_server)
    yield made
    for memory in made.opened:
        memory.close()


def ids(results: list[Any]) -> list[str]:
    return [r.id for r in results]


def raw(mem: CognitiveMemory) -> dict[str, list[tuple[Any, ...]]]:
    """Everything Chroma holds for ``mem``: per namespace, sorted (id, text, metadata, vector)."""
    got: dict[str, list[tuple[Any, ...]]] = {}
    for ns in mem.namespaces():
        store = internals.store(mem, ns)
        if store is None:
            continue
        rows = store.collection.get(include=["documents", "metadatas", "embeddings"])
        got[ns] = sorted(
            zip(
                rows["ids"],
                rows["documents"],
                [sorted(m.items()) for m in rows["metadatas"]],
                [tuple(np.round(np.asarray(v, dtype=np.float64), 6)) for v in rows["embeddings"]],
            )
        )
    return got


def raw_record(mem: CognitiveMemory, memory_id: str, namespace: str = "default") -> Any:
    store = internals.store(mem, namespace)
    assert store is not None
    got = store.collection.get(ids=[memory_id], include=["documents", "metadatas"])
    assert got["ids"] == [memory_id]
    return from_chroma(memory_id, got["documents"][0], got["metadatas"][0])


HISTORY = [
    ("the billing service uses PostgreSQL", 200, "semantic"),
    ("the billing service moved to CockroachDB", 5, "semantic"),
    ("Priya runs the half marathon in March", 60, "episodic"),
    ("deploy with make release then approve in ArgoCD", 30, "procedural"),
]
QUERIES = ("billing database", "marathon", "how to deploy")


def fill(mem: CognitiveMemory) -> list[str]:
    return mem.add_many(
        [
            MemoryInput(
                text=t, memory_type=kind, created_at=NOW - timedelta(days=d), id=f"m{i}", tags=["h"]
            )
            for i, (t, d, kind) in enumerate(HISTORY)
        ],
        now=NOW,
    )


def searches(mem: CognitiveMemory, **kwargs: Any) -> list[list[tuple[str, float]]]:
    return [
        [(r.id, round(r.score, 9)) for r in mem.search(q, now=NOW, reinforce=False, **kwargs)]
        for q in QUERIES
    ]


# --- the contract: writing -----------------------------------------------------------------------


def test_add_get_and_defaults(backend: Backend) -> None:
    mem = backend.open()
    mid = mem.add("User prefers dark mode", now=NOW)
    m = mem.get(mid)
    assert (m.text, m.memory_type, m.importance, m.confidence, m.status) == (
        "User prefers dark mode",
        "semantic",  # the default type "auto": a statement of how things are
        0.5,
        0.8,
        "active",
    )
    assert m.created_at == NOW and m.access_count == 0 and m.namespace == "default"
    mine = mem.add(
        "x y",
        id="mine",
        memory_type="semantic",
        importance=1.0,
        tags=["ui"],
        created_at=NOW - timedelta(days=3),
        metadata={"k": 1, "s": "v", "f": 0.5, "b": True},
        pinned=True,
        session_id="s1",
        now=NOW,
    )
    got = mem.get(mine)
    assert got.tags == ("ui",) and got.pinned and got.session_ids == ("s1",)
    assert dict(got.metadata) == {"k": 1, "s": "v", "f": 0.5, "b": True}
    assert raw_record(mem, mine) == got  # what Chroma holds is what the process sees
    assert len(mem) == 2 and mem.count() == 2


def test_add_many_forms_and_duplicates(backend: Backend) -> None:
    mem = backend.open()
    out = mem.add_many(
        ["a b", {"text": "c d", "id": "x"}, MemoryInput(text="e f", id="y")], now=NOW
    )
    assert out[1:] == ["x", "y"] and len(mem) == 3
    before = raw(mem)
    with pytest.raises(DuplicateIdError, match="x"):
        mem.add("impostor", id="x", now=NOW)
    with pytest.raises(DuplicateIdError):
        mem.add_many([{"text": "p", "id": "z"}, {"text": "q", "id": "z"}], now=NOW)
    with pytest.raises(InvalidInputError, match="item 1"):
        mem.add_many(["fine", {"text": "bad", "importance": 7}], now=NOW)
    with pytest.raises(InvalidTypeError, match="metadata"):
        mem.add("ok", metadata={"k": [1]}, now=NOW)
    assert raw(mem) == before and mem.get("x").text == "c d"


# --- the contract: searching ---------------------------------------------------------------------


def test_search_modes_and_explanations(backend: Backend) -> None:
    mem = backend.open()
    fill(mem)
    results = mem.search("billing database", now=NOW, reinforce=False)
    assert results[0].id == "m1"  # the newer version of the same fact
    assert results[1].explanation.newer_version_id == "m1"
    for r in results:
        e = r.explanation
        expected = e.relevance * e.retention**e.alpha
        for factor in e.penalties.values():
            expected *= factor
        assert r.score == pytest.approx(expected)
    dense = mem.search("marathon", mode="dense", now=NOW, reinforce=False)
    lexical = mem.search("marathon", mode="lexical", now=NOW, reinforce=False)
    assert dense[0].id == lexical[0].id == "m2"
    assert dense[0].explanation.lexical_rank is None and lexical[0].explanation.dense_rank is None


def test_filters_in_every_mode_including_chromas_filtered_scan(backend: Backend) -> None:
    # k_dense=2 and 30 memories: a filter that keeps one far memory makes cogmem fall back on
    # Chroma's own filtered query (the ``where`` clause travels to the server).
    mem = backend.open(config=CognitiveMemoryConfig(k_dense=2, context_spread=0.0))
    mem.add_many([f"deploy filler note number {i}" for i in range(30)], now=NOW)
    mem.add(
        "deploy with make release",
        memory_type="procedural",
        tags=["ops"],
        metadata={"team": "core", "prio": 2},
        now=NOW,
    )
    mem.add(
        "the retro said deploy earlier",
        tags=["ops", "retro"],
        metadata={"team": "web", "prio": 5},
        created_at=NOW - timedelta(days=40),
        now=NOW,
    )

    def texts(filters: dict[str, Any], mode: str) -> set[str]:
        found = mem.search(
            "deploy filler note", filters=filters, mode=mode, now=NOW, reinforce=False
        )
        return {r.text for r in found}

    for mode in ("dense", "lexical", "hybrid"):
        assert texts({"memory_type": "procedural"}, mode) == {"deploy with make release"}
        assert texts({"tags": ["ops", "retro"]}, mode) == {"the retro said deploy earlier"}
        assert texts({"team": {"$in": ["core", "web"]}, "prio": {"$gte": 3}}, mode) == {
            "the retro said deploy earlier"
        }
        assert texts({"created_before": NOW - timedelta(days=1)}, mode) == {
            "the retro said deploy earlier"
        }
    with pytest.raises(InvalidInputError, match="operator"):
        mem.search("deploy", filters={"prio": {"$like": 1}}, now=NOW)
    assert [m.text for m in mem.memories(filters={"team": "web"})] == [
        "the retro said deploy earlier"
    ]


def test_delete_and_clear(backend: Backend) -> None:
    mem = backend.open()
    fill(mem)
    mem.delete("m2")
    with pytest.raises(MemoryNotFoundError):
        mem.get("m2")
    with pytest.raises(MemoryNotFoundError):
        mem.delete("m2")
    for mode in ("dense", "lexical", "hybrid"):
        assert "m2" not in ids(mem.search("marathon", mode=mode, now=NOW, reinforce=False))
    mem.close()
    again = backend.open()
    assert again.count() == 3 and "m2" not in {m.id for m in again.memories()}
    assert again.clear() == 3 and again.memories() == [] and again.count() == 0
    assert raw(again).get("default", []) == []


def test_namespaces_are_isolated_and_survive_reopen(backend: Backend) -> None:
    mem = backend.open()
    mem.add("alice likes green tea", namespace="alice", now=NOW)
    mem.add("bob likes black coffee", namespace="bob", now=NOW)
    found = mem.search("likes", namespace="alice", now=NOW, reinforce=False)
    assert [r.text for r in found] == ["alice likes green tea"]
    assert mem.search("likes", namespace="carol", now=NOW) == []
    assert mem.search("likes", now=NOW) == []
    mem.close()
    again = backend.open()
    assert again.namespaces() == ["alice", "bob", "default"]
    assert again.count("bob") == 1 and len(again) == 2
    assert [m.text for m in again.memories(namespace="bob")] == ["bob likes black coffee"]


def test_supersede_and_deep_recall_survive_reopen(backend: Backend) -> None:
    mem = backend.open()
    old_id = mem.add("the API key rotates monthly", memory_type="semantic", now=NOW)
    new_id = mem.add("keys now rotate every week", memory_type="semantic", now=NOW)
    old = mem.supersede(old_id, new_id)
    assert old.status == "superseded" and raw_record(mem, old_id) == old
    mem.close()
    again = backend.open()
    assert again.get(old_id) == old
    assert old_id not in ids(again.search("API key rotates monthly", now=NOW, reinforce=False))
    deep = again.search("API key rotates monthly", now=NOW, reinforce=False, deep_recall=True)
    assert 0 < next(r for r in deep if r.id == old_id).explanation.penalties["deep_recall"] < 1


def test_reinforcement_is_written_behind_flushed_and_kept_on_close(backend: Backend) -> None:
    mem = backend.open(config=CognitiveMemoryConfig(reinforcement_flush_size=3))
    a, b, c, d = mem.add_many(
        ["launch on Friday", "budget is ten", "lunch at noon", "zebra gate"], now=NOW
    )
    mem.flush()  # the adds are in Chroma: what follows is the reinforcements' timing
    mem.search("launch Friday", top_k=1, now=NOW)
    mem.search("launch Friday", top_k=1, now=NOW + timedelta(days=1))
    assert mem.get(a).access_count == 2
    assert raw_record(mem, a).access_count == 0  # not written yet
    mem.search("budget ten", top_k=1, now=NOW)
    mem.search("lunch noon", top_k=1, now=NOW)  # the third memory: the batch goes out
    assert [raw_record(mem, m).access_count for m in (a, b, c)] == [2, 1, 1]
    mem.reinforce([d], now=NOW)
    assert raw_record(mem, d).access_count == 0
    mem.flush()
    assert raw_record(mem, d) == mem.get(d) and mem.get(d).access_count == 1
    mem.reinforce([d], now=NOW + timedelta(days=2))
    mem.close()  # writes the rest
    again = backend.open()
    assert again.get(d).access_count == 2 and again.get(a).access_count == 2
    again.close()


def same_results(got: list[list[tuple[str, float]]], want: list[list[tuple[str, float]]]) -> bool:
    """The same ids in order, the same scores up to float32 rounding (adds still held are
    scanned exactly; once in Chroma, its normalised copies give cosines ~1e-7 apart)."""
    return [[i for i, _ in r] for r in got] == [[i for i, _ in r] for r in want] and all(
        a == pytest.approx(b, abs=1e-6) for g, w in zip(got, want) for (_, a), (_, b) in zip(g, w)
    )


def test_reopen_gives_the_same_results(backend: Backend, tmp_path: Path) -> None:
    mem = backend.open()
    fill(mem)
    before = searches(mem)
    mem.close()
    for index_dir in (None, tmp_path / "idx", tmp_path / "idx"):
        # With a saved index beside it (a client store keeps one only when given index_dir).
        again = backend.open(index_dir=index_dir) if index_dir else backend.open()
        assert same_results(searches(again), before)
        again.close()
    assert list((tmp_path / "idx").rglob("*.bm25.npz"))


def test_a_saved_index_behind_chroma_is_reconciled(backend: Backend, tmp_path: Path) -> None:
    """Another memory wrote to the same store after this index was saved: reopening with the
    saved index reads the change from Chroma (the generation in the collection's metadata)."""
    first = backend.open(index_dir=tmp_path / "idx")
    fill(first)
    first.close()
    other = backend.open(index_dir=tmp_path / "elsewhere")
    other.add("the zebra gate code is XK-42", id="late", now=NOW)
    other.delete("m2")
    other.close()
    again = backend.open(index_dir=tmp_path / "idx")
    assert ids(again.search("XK-42", mode="lexical", now=NOW, reinforce=False)) == ["late"]
    assert "m2" not in ids(again.search("marathon", mode="lexical", now=NOW, reinforce=False))
    assert again.count() == 4


def test_restore_round_trips_between_backends(backend: Backend, embedder: HashingEmbedder) -> None:
    with CognitiveMemory(embedder=embedder) as source:
        a = source.add(
            "launch on Friday", memory_type="semantic", tags=["work"], now=NOW, namespace="team"
        )
        b = source.add("launch moved to Monday", memory_type="semantic", now=NOW, namespace="team")
        source.search("launch", namespace="team", now=NOW + timedelta(days=3), session_id="s9")
        source.supersede(a, b, namespace="team")
        originals = source.memories(namespace="team", deep_recall=True)
        store = internals.store(source, "team")
        assert store is not None
        vectors = store.vectors([r.id for r in originals])
    target = backend.open()
    assert target.restore(originals, [vectors[r.id] for r in originals]) == [
        r.id for r in originals
    ]
    with pytest.raises(DuplicateIdError):
        target.restore(originals[:1])
    with pytest.raises(InvalidInputError, match="importance"):
        target.restore([replace(originals[0], id="other", importance=2.0)])
    target.close()
    again = backend.open()
    assert again.memories(namespace="team", deep_recall=True) == originals
    restored = internals.store(again, "team")
    assert restored is not None
    stored = restored.vectors([a, b])
    assert all(np.allclose(stored[i], vectors[i], atol=1e-6) for i in (a, b))


def test_async_twins(backend: Backend) -> None:
    import asyncio

    mem = backend.open()

    async def scenario() -> None:
        first = await mem.aadd("The launch moved to Friday", now=NOW)
        await mem.aadd_many(["Budget is ten thousand", "Lunch at noon"], now=NOW)
        found = await mem.asearch("launch Friday", top_k=1, now=NOW, reinforce=False)
        assert found[0].id == first
        await mem.adelete(first)

    asyncio.run(scenario())
    assert mem.count() == 2


def test_chroma_address_names_the_server_and_only_the_server(
    backend: Backend,
) -> None:
    mem = backend.open()
    store = internals.store(mem, "default")
    assert store is not None
    address = chroma_address(store.collection)
    if backend.kind == "server":
        assert address is not None and address.startswith("http://127.0.0.1:")
    else:
        assert address is None


# --- server faults -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fault_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    server = ChromaServer(tmp_path_factory.mktemp("fault-server") / "data")
    yield server
    server.stop()


@pytest.fixture
def own_server(fault_server: ChromaServer) -> ChromaServer:
    """The fault tests' server, running: they stop and restart it (it is stopped for good at the
    end of the module). Each test uses a collection of its own, :func:`agent`."""
    if fault_server.pid is None:
        fault_server.start()
    return fault_server


@pytest.fixture
def agent() -> str:
    return f"agent-{uuid.uuid4().hex[:8]}"


def assert_connection_error(info: pytest.ExceptionInfo[Any], server: ChromaServer) -> None:
    err = info.value
    assert isinstance(err, CogmemConnectionError)
    assert isinstance(err, StoreError) and isinstance(err, CogmemError)
    assert isinstance(err, ConnectionError)
    assert err.address == server.address and server.address in str(err)


@pytest.mark.server
def test_no_server_at_the_address_is_a_connection_error_naming_it() -> None:
    port = free_port()  # nothing listens there
    with pytest.raises(CogmemConnectionError, match=f"127.0.0.1:{port}") as info:
        http_client("127.0.0.1", port)
    assert info.value.address == f"http://127.0.0.1:{port}"
    assert isinstance(info.value, StoreError) and isinstance(info.value, ConnectionError)


@pytest.mark.server
@pytest.mark.parametrize("how", ["stop", "kill"])
def test_server_stopped_mid_run_then_restarted(
    own_server: ChromaServer, agent: str, embedder: HashingEmbedder, how: str
) -> None:
    """Acknowledged writes survive the server going away (SIGTERM or SIGKILL); calls made while
    it is away raise CogmemConnectionError naming it; the same memory works once it is back."""
    mem = CognitiveMemory(
        client=http_client(own_server.host, own_server.port),
        collection=agent,
        embedder=embedder,
    )
    acknowledged = fill(mem)
    acknowledged += mem.add_many([f"note {i} about the outage drill" for i in range(20)], now=NOW)
    acknowledged.append(mem.add("the router is in room 4", namespace="ops", now=NOW))
    top = mem.search("billing database", now=NOW, reinforce=False)
    own_server.kill() if how == "kill" else own_server.stop()

    for call in (
        lambda: mem.add("written while the server is down", id="down", now=NOW),
        lambda: mem.add_many(["also while down"], now=NOW),
        lambda: mem.search("billing database", now=NOW, reinforce=False),
        lambda: mem.search("room", namespace="ops", mode="lexical", now=NOW, reinforce=False),
        lambda: mem.delete("m0"),
        lambda: mem.supersede("m0", "m1"),
    ):
        with pytest.raises(CogmemConnectionError) as info:
            call()
        assert_connection_error(info, own_server)
    # What is held in memory still answers.
    assert mem.get("m2").text == "Priya runs the half marathon in March"

    own_server.start()  # a new server process, same folder and port
    assert [r.id for r in mem.search("billing database", now=NOW, reinforce=False)] == ids(top)
    assert mem.get("m0").status == "active"  # the failed supersede changed nothing
    after = CognitiveMemory(
        client=own_server.client(), collection=agent, embedder=embedder
    )  # a fresh reader sees exactly the acknowledged writes
    stored = {m.id for ns in ("default", "ops") for m in after.memories(namespace=ns)}
    assert stored == set(acknowledged)
    assert mem.add("written after the restart", id="down", now=NOW) == "down"  # the retry
    assert mem.count() == len(acknowledged) + 1  # default + ops, and the retried one
    after.close()
    mem.close()


@pytest.mark.server
def test_flush_and_close_while_the_server_is_down_then_retried(
    own_server: ChromaServer, agent: str, embedder: HashingEmbedder
) -> None:
    mem = CognitiveMemory(client=own_server.client(), collection=agent, embedder=embedder)
    fill(mem)
    mem.reinforce(["m0", "m3"], now=NOW)  # written behind
    own_server.stop()
    with pytest.raises(CogmemConnectionError) as info:
        mem.close()
    assert_connection_error(info, own_server)
    own_server.start()
    mem.close()  # retried: not closed by the failed attempt
    with CognitiveMemory(client=own_server.client(), collection=agent, embedder=embedder) as m:
        assert m.count() == 4


@pytest.mark.server
def test_reinforcements_pending_when_a_flush_fails_are_written_by_the_retry(
    own_server: ChromaServer, agent: str, embedder: HashingEmbedder
) -> None:
    mem = CognitiveMemory(client=own_server.client(), collection=agent, embedder=embedder)
    fill(mem)
    mem.reinforce(["m0"], now=NOW)
    own_server.stop()
    with pytest.raises(CogmemConnectionError):
        mem.flush()
    own_server.start()
    mem.flush()
    assert raw_record(mem, "m0").access_count == 1
    mem.close()


@pytest.mark.server
def test_opening_a_memory_while_the_server_is_down_names_the_address(
    own_server: ChromaServer, agent: str, embedder: HashingEmbedder
) -> None:
    client = own_server.client()
    own_server.stop()
    with pytest.raises(CogmemConnectionError, match=own_server.address):
        CognitiveMemory(client=client, collection=agent, embedder=embedder)


@pytest.mark.server
def test_listing_namespaces_while_the_server_is_down_is_a_cogmem_error(
    own_server: ChromaServer, agent: str, embedder: HashingEmbedder
) -> None:
    mem = CognitiveMemory(client=own_server.client(), collection=agent, embedder=embedder)
    own_server.stop()
    with pytest.raises(CogmemConnectionError, match=own_server.address):
        mem.namespaces()


@pytest.mark.server
def test_an_unopened_namespace_is_not_reported_empty_while_the_server_is_down(
    own_server: ChromaServer, agent: str, embedder: HashingEmbedder
) -> None:
    writer = CognitiveMemory(client=own_server.client(), collection=agent, embedder=embedder)
    writer.add("bob likes black coffee", namespace="bob", now=NOW)
    writer.close()
    mem = CognitiveMemory(client=own_server.client(), collection=agent, embedder=embedder)
    own_server.stop()
    with pytest.raises(CogmemConnectionError, match=own_server.address):
        mem.search("coffee", namespace="bob", now=NOW, reinforce=False)
