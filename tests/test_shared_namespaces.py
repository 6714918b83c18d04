"""Namespaces packed into two shared collections (cogmem.shared_namespaces).

A collection per user cost Chroma an HNSW index per user (four open files and about 3 MB
each while loaded), and building 10,000 users slowed with every thousand. New namespaces now
share ``<base>.ns.packed`` (records) and ``<base>.ns.names`` (one entry each); namespaces
made in a collection of their own stay there.
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import chromadb
import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig, DimensionMismatchError
from cogmem.clients import digest, make_client
from cogmem.testing import HashingEmbedder
from tests.chroma_server import ChromaServer

NOW = datetime(2026, 5, 1, tzinfo=timezone.utc)
OWN = CognitiveMemoryConfig(pack_namespaces=False)


def collections(folder: Path) -> set[str]:
    return {c.name for c in make_client(folder).list_collections()}


def test_many_users_make_three_collections_and_keep_to_their_own(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    with CognitiveMemory(path=folder, embedder=HashingEmbedder()) as mem:
        for user in range(5):
            mem.add(f"user {user} drinks green tea", namespace=f"u{user}", id="tea", now=NOW)
        mem.add("the default namespace drinks coffee", now=NOW)
        found = mem.search("tea", namespace="u3", now=NOW, reinforce=False)
        assert [(r.id, r.text) for r in found] == [("tea", "user 3 drinks green tea")]
    assert collections(folder) == {"cogmem", "cogmem.ns.packed", "cogmem.ns.names"}
    with CognitiveMemory(path=folder, embedder=HashingEmbedder()) as mem:
        assert mem.namespaces() == ["default", "u0", "u1", "u2", "u3", "u4"]
        assert [mem.get("tea", namespace=f"u{u}").text for u in (0, 4)] == [
            "user 0 drinks green tea",
            "user 4 drinks green tea",
        ]
        mem.delete("tea", namespace="u2")
        assert mem.clear("u4") == 1
        assert [mem.count(f"u{u}") for u in range(5)] == [1, 1, 0, 1, 0]
        assert mem.search("tea", namespace="u2", now=NOW) == []


def test_the_shared_collection_holds_each_record_under_its_namespace_key(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    with CognitiveMemory(path=folder, embedder=HashingEmbedder()) as mem:
        mem.add("alice likes green tea", namespace="alice", id="a1", now=NOW)
    got = make_client(folder).get_collection("cogmem.ns.packed").get(include=["metadatas"])
    assert got["ids"] == [f"{digest('alice')}/a1"]
    assert got["metadatas"][0]["cogmem_ns"] == digest("alice")


def test_namespaces_made_in_their_own_collection_stay_there(tmp_path: Path) -> None:
    """A store from before packing keeps its namespaces' collections; a namespace made after
    is packed, and both are read, searched, listed and written."""
    folder = tmp_path / "store"
    with CognitiveMemory(path=folder, embedder=HashingEmbedder(), config=OWN) as mem:
        mem.add("old user likes tea", namespace="old", now=NOW)
    own = f"cogmem.ns.{digest('old')}"
    assert collections(folder) == {"cogmem", own}
    with CognitiveMemory(path=folder, embedder=HashingEmbedder()) as mem:
        mem.add("new user likes tea", namespace="new", now=NOW)
        mem.add("old user also likes cake", namespace="old", now=NOW)
        assert mem.namespaces() == ["default", "new", "old"]
    assert collections(folder) == {"cogmem", own, "cogmem.ns.packed", "cogmem.ns.names"}
    assert make_client(folder).get_collection(own).count() == 2
    with CognitiveMemory(path=folder, embedder=HashingEmbedder()) as mem:
        assert [mem.count("old"), mem.count("new")] == [2, 1]
        found = mem.search("tea", namespace="new", now=NOW, reinforce=False)
        assert [r.text for r in found] == ["new user likes tea"]


def test_packed_namespaces_share_one_vector_width(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    with CognitiveMemory(path=folder, embedder=HashingEmbedder(64)) as mem:
        mem.add("alice likes tea", namespace="alice", now=NOW)
    with CognitiveMemory(path=folder, embedder=HashingEmbedder(32)) as mem:
        with pytest.raises(DimensionMismatchError, match="dimension 32"):
            mem.add("bob likes tea", namespace="bob", now=NOW)
        assert mem.namespaces() == ["alice", "default"]
    with CognitiveMemory(path=folder, embedder=HashingEmbedder(64)) as mem:
        assert mem.count("alice") == 1 and mem.count("bob") == 0


def test_an_in_process_store_keeps_to_its_own_packed_collections() -> None:
    """Two in-process memories share the process's Chroma, never each other's users."""
    one = CognitiveMemory(embedder=HashingEmbedder())
    two = CognitiveMemory(embedder=HashingEmbedder())
    try:
        one.add("one's user likes tea", namespace="u", id="x", now=NOW)
        two.add("two's user likes tea", namespace="u", id="x", now=NOW)
        assert one.get("x", namespace="u").text == "one's user likes tea"
        assert two.get("x", namespace="u").text == "two's user likes tea"
    finally:
        one.close()
        two.close()
    client = chromadb.EphemeralClient()
    names = {c.name for c in client.list_collections()}
    assert not {one._spaces.base, two._spaces.base} & {n.split(".")[0] for n in names}


@pytest.mark.server
def test_two_writers_on_a_server_see_each_others_packed_users(
    chroma_server: ChromaServer,
) -> None:
    """A server store's writers share the packed collections: a namespace one of them made,
    and its later writes and deletes, reach the other's next read."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    first = CognitiveMemory(
        client=chroma_server.client(), collection=name, embedder=HashingEmbedder()
    )
    second = CognitiveMemory(
        client=chroma_server.client(), collection=name, embedder=HashingEmbedder()
    )
    try:
        first.add("alice likes green tea", namespace="alice", id="a1", now=NOW)
        assert second.namespaces() == ["alice", "default"]
        assert second.get("a1", namespace="alice").text == "alice likes green tea"
        second.add("alice moved to Oslo", namespace="alice", id="a2", now=NOW)
        first.delete("a1", namespace="alice")
        found = second.search("alice", namespace="alice", now=NOW, reinforce=False)
        assert [r.id for r in found] == ["a2"]
        assert [r.id for r in first.search("Oslo", namespace="alice", now=NOW)] == ["a2"]
    finally:
        first.close()
        second.close()
    server_names = {c.name for c in chroma_server.client().list_collections()}
    assert {f"{name}.ns.packed", f"{name}.ns.names"} <= server_names
    assert f"{name}.ns.{digest('alice')}" not in server_names


@pytest.mark.server
def test_a_server_catch_up_of_a_packed_namespace_reads_its_marks_first(
    chroma_server: ChromaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A catch-up of a packed namespace reads the shared collection (filtered ``get`` calls,
    whose cost grows with every user of the store) only when the namespace's marks say it
    changed: never to count it, not at all when nothing changed. Another process's write,
    its delete, and an add that reached Chroma too late for the look back by write stamp are
    each seen at the next read."""
    import cogmem.store
    from cogmem.shared_namespaces import PackedNamespace

    name = f"t-{uuid.uuid4().hex[:12]}"
    first, second = (
        CognitiveMemory(client=chroma_server.client(), collection=name, embedder=HashingEmbedder())
        for _ in range(2)
    )
    try:
        first.add_many(
            [{"text": f"alice note {n}", "id": f"a{n}", "namespace": "alice"} for n in range(3)],
            now=NOW,
        )
        assert len(second.search("alice note", namespace="alice", now=NOW)) == 3

        def refuse(self: object, *args: object, **kwargs: object) -> Any:
            raise AssertionError("the shared collection was read")

        with monkeypatch.context() as quiet:  # nothing changed: the marks alone are read
            quiet.setattr(PackedNamespace, "get", refuse)
            quiet.setattr(PackedNamespace, "count", refuse)
            assert len(second.search("alice note", namespace="alice", now=NOW)) == 3
        monkeypatch.setattr(PackedNamespace, "count", refuse)
        first.add("alice note new", namespace="alice", id="new", now=NOW)
        assert "new" in [r.id for r in second.search("new", namespace="alice", now=NOW)]
        first.delete("a0", namespace="alice")
        found = second.search("alice note", namespace="alice", now=NOW, reinforce=False)
        assert sorted(r.id for r in found) == ["a1", "a2", "new"]

        class Behind:  # the writer's clock: its add stamped 10 s before it reached Chroma
            @staticmethod
            def time_ns() -> int:
                return time.time_ns() - 10_000_000_000

        monkeypatch.setattr(cogmem.store, "time", Behind)
        with CognitiveMemory(
            client=chroma_server.client(), collection=name, embedder=HashingEmbedder()
        ) as third:
            third.add("alice note late", namespace="alice", id="late", now=NOW)
        monkeypatch.undo()
        found = second.search("late", namespace="alice", now=NOW, reinforce=False)
        assert "late" in [r.id for r in found]
    finally:
        first.close()
        second.close()


@pytest.mark.server
def test_a_cold_read_of_a_packed_namespace_reads_the_shared_collection_once(
    chroma_server: ChromaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process's first read of a user another process wrote reads the shared collection
    once (the records with their vectors, which the exact scan needs), and a read after
    another process's write once more (the change with its vector): on a busy server each
    call waits its turn."""
    from cogmem.shared_namespaces import PackedNamespace

    name = f"t-{uuid.uuid4().hex[:12]}"
    writer, reader = (
        CognitiveMemory(client=chroma_server.client(), collection=name, embedder=HashingEmbedder())
        for _ in range(2)
    )
    reads: list[dict[str, Any]] = []
    real_get = PackedNamespace.get

    def counted(self: PackedNamespace, *args: Any, **kwargs: Any) -> dict[str, Any]:
        reads.append(kwargs)
        return real_get(self, *args, **kwargs)

    try:
        writer.add_many(
            [{"text": f"alice note {n} about tea", "namespace": "alice"} for n in range(5)]
        )
        monkeypatch.setattr(PackedNamespace, "get", counted)
        assert len(reader.search("tea", namespace="alice", top_k=10, now=NOW)) == 5
        assert len(reads) == 1 and "embeddings" in reads[0]["include"]
        writer.add("alice note about green tea", namespace="alice", id="new", now=NOW)
        reads.clear()
        found = reader.search("green tea", namespace="alice", mode="dense", top_k=1, now=NOW)
        assert [r.id for r in found] == ["new"]
        assert len(reads) == 1 and "embeddings" in reads[0]["include"]
    finally:
        writer.close()
        reader.close()


class ChromaWrites:
    """Every update and upsert a Chroma client sends: (collection name, method, ids)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, refuse: str | None = None) -> None:
        from chromadb.api.models.Collection import Collection

        self.sent: list[tuple[str, str, list[str]]] = []
        for method in ("update", "upsert"):
            real = getattr(Collection, method)

            def spy(self_: Any, *args: Any, _real: Any = real, _m: str = method, **kw: Any) -> Any:
                if refuse is not None and self_.name.endswith(refuse) and _m == "update":
                    raise RuntimeError("the server refused the update")
                self.sent.append((self_.name, _m, list(kw["ids"])))
                return _real(self_, *args, **kw)

            monkeypatch.setattr(Collection, method, spy)

    def to(self, suffix: str) -> list[tuple[str, list[str]]]:
        return [(m, ids) for name, m, ids in self.sent if name.endswith(suffix)]


def users_drinking_tea(server: ChromaServer, users: int) -> str:
    """A new store on ``server`` whose users ``u0``, ``u1``, … hold one memory ``m<n>`` each."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    with CognitiveMemory(client=server.client(), collection=name, embedder=HashingEmbedder()) as w:
        w.add_many(
            [
                {"text": f"user {u} drinks tea", "id": f"m{u}", "namespace": f"u{u}"}
                for u in range(users)
            ],
            now=NOW,
        )
    return name


def reader_of(server: ChromaServer, name: str, open_namespaces: int) -> CognitiveMemory:
    config = CognitiveMemoryConfig(open_namespaces=open_namespaces)
    return CognitiveMemory(
        client=server.client(), collection=name, embedder=HashingEmbedder(), config=config
    )


def access_counts(client: Any, name: str, users: range) -> list[int]:
    with CognitiveMemory(client=client, collection=name, embedder=HashingEmbedder()) as fresh:
        return [fresh.get(f"m{u}", namespace=f"u{u}").access_count for u in users]


@pytest.mark.server
def test_users_closed_together_write_their_recalls_together(
    chroma_server: ChromaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server app that reads more users than it keeps open closes the least recently used
    a quarter of the limit at a time, and their recalls (each user's reinforcement) reach
    Chroma in one update of the shared records, one raise of their generations and one of
    their marks: one alone makes three writes, and on a busy server each waits its turn."""
    name = users_drinking_tea(chroma_server, 9)
    with reader_of(chroma_server, name, open_namespaces=8) as reader:
        for u in range(7):  # with the default namespace, 8 open: the limit
            assert reader.search("tea", namespace=f"u{u}", now=NOW)[0].id == f"m{u}"
        writes = ChromaWrites(monkeypatch)
        reader.search("tea", namespace="u7", now=NOW)  # one over: the default, u0, u1 close
        assert writes.to(".ns.packed") == [
            ("update", [f"{digest(f'u{u}')}/m{u}" for u in range(2)])
        ]
        names = writes.to(".ns.names")
        assert [m for m, _ in names] == ["upsert", "update"]  # generations, then the marks
        assert all(sorted(ids) == sorted(digest(f"u{u}") for u in range(2)) for _, ids in names)
        monkeypatch.undo()
        assert access_counts(chroma_server.client(), name, range(3)) == [1, 1, 0]


@pytest.mark.server
def test_users_that_cannot_be_written_out_together_keep_their_recalls(
    chroma_server: ChromaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When Chroma refuses the write of users closed together, they stay open with their
    recalls, and the next close writes them; nothing the searches did is lost."""
    name = users_drinking_tea(chroma_server, 6)
    with reader_of(chroma_server, name, open_namespaces=4) as reader:
        for u in range(3):  # with the default namespace, 4 open: the limit
            reader.search("tea", namespace=f"u{u}", now=NOW)
        with monkeypatch.context() as refusing:
            ChromaWrites(refusing, refuse=".ns.packed")
            reader.search("tea", namespace="u3", now=NOW)  # closing the default, u0, u1 fails
            assert access_counts(chroma_server.client(), name, range(2)) == [0, 0]
        reader.search("tea", namespace="u4", now=NOW)
    assert access_counts(chroma_server.client(), name, range(5)) == [1] * 5


@pytest.mark.server
def test_a_cold_read_of_a_packed_namespace_reads_its_entry_once(
    chroma_server: ChromaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening a user another process wrote reads its entry once: the read that finds it
    also gives the generation and the marks its load needs."""
    from chromadb.api.models.Collection import Collection

    name = f"t-{uuid.uuid4().hex[:12]}"
    with CognitiveMemory(
        client=chroma_server.client(), collection=name, embedder=HashingEmbedder()
    ) as writer:
        writer.add("alice drinks tea", id="a", namespace="alice", now=NOW)
    reads: list[str] = []
    real_get = Collection.get

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        reads.append(self.name)
        return real_get(self, *args, **kwargs)

    with CognitiveMemory(
        client=chroma_server.client(), collection=name, embedder=HashingEmbedder()
    ) as reader:
        monkeypatch.setattr(Collection, "get", counted)
        assert [r.id for r in reader.search("tea", namespace="alice", now=NOW)] == ["a"]
        assert [n for n in reads if n.endswith(".ns.names")] == [f"{name}.ns.names"]


def test_an_entry_read_before_a_delete_does_not_write_its_mark_back() -> None:
    """Writing a namespace's entry (its generation) from a copy read before another
    process's write and delete keeps the newer marks: readers would miss both."""
    from cogmem.chroma_layout import DELETED_KEY, WRITTEN_KEY
    from cogmem.shared_namespaces import Packing

    packing = Packing(
        chromadb.EphemeralClient(), f"t-{uuid.uuid4().hex[:12]}", create=True, sole=False
    )
    alice = packing.namespace("k", "alice", create=True)
    assert alice is not None
    alice.add(["a1", "a2"], [[1.0, 0.0], [0.0, 1.0]], [{"t": "x"}] * 2, ["note", "note"])
    alice.delete(["a1"])
    before = alice.metadata  # holds the first add's and delete's marks
    alice.add(["a3"], [[1.0, 1.0]], [{"t": "x"}], ["note"])
    alice.delete(["a2"])
    after = alice.marks()
    assert after[0] != before[WRITTEN_KEY] and after[1] != before[DELETED_KEY]
    alice.modify(metadata={**before, "cogmem_generation": 7})
    assert alice.marks() == after
    assert alice.metadata["cogmem_generation"] == 7


def test_a_read_only_open_reads_packed_users_and_makes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    with CognitiveMemory(path=folder, embedder=HashingEmbedder()) as mem:
        mem.add("alice likes green tea", namespace="alice", id="a1", now=NOW)
    made = collections(folder)
    with CognitiveMemory(path=folder, embedder=HashingEmbedder(), read_only=True) as mem:
        assert mem.namespaces() == ["alice", "default"]
        assert mem.get("a1", namespace="alice").text == "alice likes green tea"
        assert mem.count("bob") == 0
    assert collections(folder) == made


def test_a_packed_namespace_is_scanned_whatever_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shared collection's index is built for writing only: a packed namespace larger
    than the exact scan's limit for a collection of its own is still scanned, never queried
    through Chroma."""
    import cogmem.namespace
    from cogmem.shared_namespaces import PackedNamespace

    monkeypatch.setattr(cogmem.namespace, "EXACT_SCAN", 3)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the shared collection's index was queried")

    monkeypatch.setattr(PackedNamespace, "query", refuse)
    with CognitiveMemory(path=tmp_path / "store", embedder=HashingEmbedder()) as mem:
        mem.add_many(
            [{"text": f"alice note {n} about tea", "namespace": "alice"} for n in range(8)],
            now=NOW,
        )
        mem.flush()  # in Chroma, not held: a query would have to ask it
        found = mem.search("tea", namespace="alice", mode="dense", top_k=8, now=NOW)
        assert len(found) == 8
