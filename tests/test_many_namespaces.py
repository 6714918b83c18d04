"""Many namespaces in one process: a store keeps only the ones in use open.

A LangGraph app gives each user a namespace. Before, every namespace used stayed open until
``close()`` (its index in RAM, its journal and vector files open), and Chroma's index cache
took four files per namespace on top: under ``ulimit -n 512`` a process failed at namespace
166 with "unable to open database file".
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ClassVar

import chromadb
import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig, InvalidTypeError
from cogmem.clients import digest, make_client
from cogmem.errors import StoreError
from cogmem.store import ChromaStore
from cogmem.testing import HashingEmbedder
from tests import internals
from tests.faults import python

NOW = datetime(2026, 5, 1, tzinfo=timezone.utc)
FEW = CognitiveMemoryConfig(open_namespaces=2)


def notes(user: int, count: int = 3) -> list[dict[str, str]]:
    return [
        {"text": f"user {user} note {n} about tea", "namespace": f"u{user}"} for n in range(count)
    ]


def test_a_process_under_a_low_file_limit_serves_hundreds_of_namespaces(tmp_path: Path) -> None:
    done = python(
        f"""
import os, resource
from datetime import datetime, timezone
resource.setrlimit(resource.RLIMIT_NOFILE, (512, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
from cogmem import CognitiveMemory
from cogmem.clients import digest, make_client
from cogmem.testing import HashingEmbedder
NOW = datetime(2026, 5, 1, tzinfo=timezone.utc)
users = 250
with CognitiveMemory(path={str(tmp_path / "store")!r}, embedder=HashingEmbedder(64)) as mem:
    for u in range(users):
        mem.add_many([{{"text": f"user {{u}} note {{n}} about tea", "namespace": f"u{{u}}"}}
                      for n in range(5)], now=NOW)
        found = mem.search("tea", namespace=f"u{{u}}", now=NOW)
        assert {{r.memory.text.split()[1] for r in found}} == {{str(u)}}, found
    for u in range(users):  # again, now that Chroma has let go of most of them
        assert len(mem.search("tea", namespace=f"u{{u}}", now=NOW)) == 5
    print("fds", len(os.listdir("/proc/self/fd")))
with CognitiveMemory(path={str(tmp_path / "store")!r}, embedder=HashingEmbedder(64)) as mem:
    print("kept", sorted({{mem.count(f"u{{u}}") for u in range(users)}}))
""",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["kept"] == "[5]"
    assert int(lines["fds"]) < 450


def test_only_the_namespaces_in_use_stay_open(tmp_path: Path) -> None:
    with CognitiveMemory(path=tmp_path / "store", embedder=HashingEmbedder(), config=FEW) as mem:
        mem.add_many(notes(1) + notes(2) + notes(3) + notes(4), now=NOW)  # one call, four
        assert internals.open_namespaces(mem) == ["u3", "u4"]
        assert [r.memory.text for r in mem.search("note 1", namespace="u1", top_k=1, now=NOW)] == [
            "user 1 note 1 about tea"
        ]
        assert internals.open_namespaces(mem) == ["u4", "u1"]
        mem.add("user 2 likes green tea", namespace="u2", now=NOW)
        assert internals.open_namespaces(mem) == ["u1", "u2"]
        assert mem.count("u2") == 4
        assert mem.namespaces() == ["default", "u1", "u2", "u3", "u4"]
        assert mem.memories(namespace="u9") == []  # never written: nothing opened, no error
        assert mem.namespaces() == ["default", "u1", "u2", "u3", "u4"]
    with CognitiveMemory(path=tmp_path / "store", embedder=HashingEmbedder()) as mem:
        assert [mem.count(f"u{u}") for u in (1, 2, 3, 4)] == [3, 4, 3, 3]


@pytest.mark.parametrize(("pack", "made"), [(True, {"", ".ns.packed", ".ns.names"}), (False, None)])
def test_an_in_process_store_drops_the_collections_it_closed_early(
    pack: bool, made: set[str] | None
) -> None:
    client = chromadb.EphemeralClient()  # the process's in-memory Chroma, kept up after close
    config = CognitiveMemoryConfig(open_namespaces=2, pack_namespaces=pack)
    mem = CognitiveMemory(embedder=HashingEmbedder(), config=config)
    mem.add_many(notes(1) + notes(2) + notes(3), now=NOW)
    assert len(mem.memories(namespace="u1")) == 3  # reopened from Chroma
    base = mem._spaces.base
    ours = {c.name[len(base) :] for c in client.list_collections() if c.name.startswith(base)}
    if made is None:  # the default namespace and three users, a collection each
        made = {"", *(f".ns.{digest(f'u{u}')}" for u in (1, 2, 3))}
    assert ours == made
    mem.close()
    assert not [c.name for c in client.list_collections() if c.name.startswith(base)]


def test_a_namespace_that_cannot_be_written_out_stays_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with CognitiveMemory(path=tmp_path / "store", embedder=HashingEmbedder(), config=FEW) as mem:
        mem.add_many(notes(1), now=NOW)
        first = internals.namespace(mem, "u1")

        def refuse() -> None:
            raise cogmem_error

        from cogmem import StoreError

        cogmem_error = StoreError("Chroma is gone")
        monkeypatch.setattr(first, "flush", refuse)
        mem.add_many(notes(2) + notes(3), now=NOW)  # succeeds; u1 cannot be closed
        assert internals.open_namespaces(mem)[0] == "u1"
        monkeypatch.undo()
        mem.add("user 3 again", namespace="u3", now=NOW)
        assert "u1" not in internals.open_namespaces(mem)
    with CognitiveMemory(path=tmp_path / "store", embedder=HashingEmbedder()) as mem:
        assert [mem.count(f"u{u}") for u in (1, 2, 3)] == [3, 3, 4]


def test_chromas_index_cache_is_bounded_by_the_config(tmp_path: Path) -> None:
    """Chroma sizes its cache of loaded indexes as the file limit // 5 (204 under ulimit -n
    1024, about 3 MB and four open files each): a folder store asks for loaded_indexes."""
    config = CognitiveMemoryConfig(loaded_indexes=3)
    with CognitiveMemory(path=tmp_path / "a", embedder=HashingEmbedder(), config=config) as mem:
        assert mem._client._server.hnsw_cache_size == 3
    with CognitiveMemory(path=tmp_path / "b", embedder=HashingEmbedder()) as mem:
        assert mem._client._server.hnsw_cache_size == 16


def test_small_namespaces_are_searched_after_chroma_lets_go_of_their_index(
    tmp_path: Path,
) -> None:
    """Chroma 1.5 never writes the index of a collection under 1,000 records to disk; once its
    cache drops it, a query fails ("Nothing found on disk"). With a cache of one index, and
    more namespaces written to Chroma than the 64 it keeps open for writes, each is searched
    again, first to last."""
    config = CognitiveMemoryConfig(loaded_indexes=1, open_namespaces=1, add_flush_size=0)
    with CognitiveMemory(path=tmp_path / "s", embedder=HashingEmbedder(), config=config) as mem:
        for user in range(80):
            mem.add_many(notes(user, 5), now=NOW)
            assert mem.search("tea", namespace=f"u{user}", now=NOW)
        for user in range(80):
            found = mem.search("tea", namespace=f"u{user}", mode="dense", now=NOW)
            assert {r.memory.text.split()[1] for r in found} == {str(user)}


def test_every_namespace_is_read_back_after_chroma_lets_go_of_its_index(tmp_path: Path) -> None:
    """Chroma 1.5.9 fails every read of a small collection's vectors, for the rest of the
    process, once its cache lets go of an index holding records it had not written to disk
    ("Nothing found on disk"; a server alike). A store shared through a client reads vectors
    from Chroma: with a cache of one index, users written, then written again in turn and
    searched, each finds its own memories."""
    client = make_client(tmp_path / "chroma", loaded_indexes=1)
    with CognitiveMemory(client=client, collection="users", embedder=HashingEmbedder()) as mem:
        for user in range(100):
            mem.add_many(notes(user, 3), now=NOW)
    with CognitiveMemory(client=client, collection="users", embedder=HashingEmbedder()) as mem:
        for user in (*range(100), *range(100)):
            mem.add(f"user {user} likes tea again", namespace=f"u{user}", now=NOW)
            found = mem.search("tea", namespace=f"u{user}", mode="dense", now=NOW)
            assert {r.memory.text.split()[1] for r in found} == {str(user)}


def test_a_namespace_writes_its_chroma_index_with_every_add_until_it_is_large(
    tmp_path: Path,
) -> None:
    """Each add writes a small namespace's index to disk (the defect above); at 1,000
    records the collection gets Chroma's own pace back (its index is on disk by then)."""
    client = make_client(tmp_path / "chroma")
    own = CognitiveMemoryConfig(pack_namespaces=False)
    with CognitiveMemory(
        client=client, collection="big", embedder=HashingEmbedder(), config=own
    ) as mem:
        mem.add_many(notes(1, 999), now=NOW)
        mem.add_many(notes(2, 999), now=NOW)
        mem.add("user 2 likes coffee", namespace="u2", now=NOW)

    def pace(user: int) -> object:
        name = f"big.ns.{digest(f'u{user}')}"
        return client.get_collection(name).configuration["hnsw"]["sync_threshold"]

    assert (pace(1), pace(2)) == (1, 1000)


def test_a_small_namespace_made_before_the_early_pace_is_given_it_when_opened(
    tmp_path: Path,
) -> None:
    """A collection made with Chroma's default pace (a store from before) is switched to
    writing its index with every add when a writer opens its namespace small; a reader
    changes nothing."""
    folder = tmp_path / "store"
    own = CognitiveMemoryConfig(pack_namespaces=False)  # as every store was made before
    with CognitiveMemory(path=folder, embedder=HashingEmbedder(), config=own) as mem:
        mem.add_many(notes(1, 3), now=NOW)
    name = f"cogmem.ns.{digest('u1')}"

    def pace() -> object:
        return make_client(folder).get_collection(name).configuration["hnsw"]["sync_threshold"]

    make_client(folder).get_collection(name).modify(
        configuration={"hnsw": {"sync_threshold": 1000}}
    )
    with CognitiveMemory(path=folder, embedder=HashingEmbedder(), read_only=True) as mem:
        assert mem.count("u1") == 3
    assert pace() == 1000
    with CognitiveMemory(path=folder, embedder=HashingEmbedder()) as mem:
        assert mem.count("u1") == 3
    assert pace() == 1


def test_namespaces_are_listed_by_prefix(tmp_path: Path) -> None:
    """``namespaces(prefix)`` lists the names that start with it, sorted, a namespace made
    since the first listing included; a prefix that is not a str is refused."""
    with CognitiveMemory(path=tmp_path / "s", embedder=HashingEmbedder()) as mem:
        for user in (1, 2, 10):
            mem.add_many(notes(user, 1), now=NOW)
        assert mem.namespaces("u1") == ["u1", "u10"]
        mem.add_many(notes(11, 1), now=NOW)
        assert mem.namespaces("u1") == ["u1", "u10", "u11"]
        assert mem.namespaces() == ["default", "u1", "u10", "u11", "u2"]
        assert mem.namespaces("x") == []
        with pytest.raises(InvalidTypeError, match="prefix must be a str"):
            mem.namespaces(1)  # type: ignore[arg-type]


def test_the_index_pace_is_not_set_on_a_chroma_that_failed_unsafely() -> None:
    """After Chroma failed in a way that leaves its writes unsafe (a full disk), changing a
    collection's index pace is not asked of it (it can hang); otherwise it is, once."""

    class Collection:
        name = "c"
        configuration: ClassVar[dict[str, Any]] = {"hnsw": {"sync_threshold": 1000}}

        def __init__(self) -> None:
            self.modified: list[dict[str, Any]] = []

        def modify(self, **changes: Any) -> None:
            self.modified.append(changes)

    failed, healthy = Collection(), Collection()
    unsafe = ChromaStore(failed)
    unsafe._unsafe = (StoreError, "Chroma add failed: no space left on device")
    unsafe.pace(3)
    assert failed.modified == []
    fine = ChromaStore(healthy)
    fine.pace(3)
    fine.pace(4)
    assert healthy.modified == [{"configuration": {"hnsw": {"sync_threshold": 1, "batch_size": 1}}}]
