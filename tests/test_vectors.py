"""Embeddings kept beside the index (cogmem.vectors), and a search that reads them from there
instead of asking Chroma."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cogmem import CognitiveMemory, MemoryInput
from cogmem.index import NamespaceIndex
from cogmem.lexical import BM25Index, Tokenizer
from cogmem.records import MemoryRecord
from cogmem.testing import HashingEmbedder
from cogmem.vectors import VectorFile
from tests import internals

DIM = 16
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=30)


def rows(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)


# ---------------------------------------------------------------------------- the file
def test_vectors_come_back_from_their_slots(tmp_path: Path) -> None:
    file = VectorFile.create(tmp_path / "v.vectors", DIM)
    first, second = rows(3, 1), rows(2, 2)
    assert file.append(["a", "b", "c"], first) == [0, 1, 2]
    assert file.append(["d", "e"], second) == [3, 4]
    got = file.read([4, 0, 2], ["e", "a", "c"])
    assert all(v is not None for v in got)
    np.testing.assert_array_equal(np.stack(got), np.stack([second[1], first[0], first[2]]))
    file.close()
    again = VectorFile.open(tmp_path / "v.vectors")
    assert again is not None and len(again) == 5 and again.dim == DIM
    np.testing.assert_array_equal(again.read([3], ["d"])[0], second[0])
    assert again.append(["f"], rows(1, 3)) == [5]
    again.close()


def test_a_slot_read_for_another_id_or_out_of_range_is_missing(tmp_path: Path) -> None:
    file = VectorFile.create(None, DIM)
    file.append(["a", "b"], rows(2))
    assert file.read([0, 1, 2, -1], ["b", "b", "a", "a"])[0] is None  # slot 0 holds "a"
    got = file.read([0, 1, 2, -1], ["b", "b", "a", "a"])
    assert got[1] is not None and got[2] is None and got[3] is None
    file.close()


def test_a_damaged_slot_is_missing_and_a_torn_tail_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "v.vectors"
    file = VectorFile.create(path, DIM)
    file.append(["a", "b"], rows(2))
    file.close()
    data = bytearray(path.read_bytes())
    data[32 + 4 + 8] ^= 0xFF  # a byte of a's vector
    data += b"\x01\x02\x03"  # a write cut short by a crash
    path.write_bytes(bytes(data))
    file = VectorFile.open(path)
    assert file is not None
    got = file.read([0, 1], ["a", "b"])
    assert got[0] is None and got[1] is not None
    assert file.append(["c"], rows(1, 5)) == [3]  # after the torn slot, never into it
    assert file.read([2, 3], ["c", "c"])[0] is None
    np.testing.assert_array_equal(file.read([3], ["c"])[0], rows(1, 5)[0])
    file.close()


def test_open_refuses_other_files_and_other_dimensions(tmp_path: Path) -> None:
    (tmp_path / "junk.vectors").write_bytes(b"not a vector file at all, no header here")
    assert VectorFile.open(tmp_path / "junk.vectors") is None
    assert VectorFile.open(tmp_path / "missing.vectors") is None
    VectorFile.create(tmp_path / "v.vectors", DIM).close()
    assert VectorFile.open(tmp_path / "v.vectors", DIM + 1) is None
    with pytest.raises(ValueError, match="dimension 16"):
        VectorFile.create(None, DIM).append(["a"], rows(1)[:, :8])


def test_compaction_keeps_the_slots_asked_for_in_order(tmp_path: Path) -> None:
    file = VectorFile.create(tmp_path / "old.vectors", DIM)
    matrix = rows(6)
    file.append([f"m{i}" for i in range(6)], matrix)
    fresh, moved = file.compacted([5, 1, 3], ["m5", "m1", "x"], tmp_path / "new.vectors")
    assert moved == [0, 1, -1]  # slot 3 holds m3, not x: dropped
    assert len(fresh) == 2
    np.testing.assert_array_equal(np.stack(fresh.read([0, 1], ["m5", "m1"])), matrix[[5, 1]])
    fresh.close()
    file.close()


# ---------------------------------------------------------------------------- the index
def record(i: int) -> MemoryRecord:
    return MemoryRecord(id=f"m{i}", text=f"memory number {i}", created_at=T0 + timedelta(i))


def new_index(folder: Path | None) -> NamespaceIndex:
    home = None if folder is None else (folder, "ns")
    return NamespaceIndex(BM25Index(), Tokenizer(), vector_home=home)


def test_an_index_keeps_vectors_across_save_and_load(tmp_path: Path) -> None:
    index = new_index(tmp_path)
    matrix = rows(10)
    index.add([record(i) for i in range(10)], list(range(10)), vectors=matrix)
    got = index.vectors(["m3", "m7", "nope"])
    assert set(got) == {"m3", "m7"}
    np.testing.assert_array_equal(got["m7"], matrix[7])
    index.save(tmp_path, "ns", generation=1)
    index.close()
    kept, _ = NamespaceIndex.load(tmp_path, "ns", Tokenizer(), keep_vectors=True)
    np.testing.assert_array_equal(kept.vectors(["m3"])["m3"], matrix[3])
    kept.close()
    # Without a single writer, no vector is taken from the folder.
    other, _ = NamespaceIndex.load(tmp_path, "ns", Tokenizer())
    assert other.vectors(["m3"]) == {}
    assert len(list(tmp_path.glob("ns.*.vectors"))) == 1


def test_vectors_not_kept_are_taken_once(tmp_path: Path) -> None:
    index = new_index(None)
    index.add([record(i) for i in range(4)], list(range(4)))  # e.g. read from Chroma
    assert index.vectors(["m1"]) == {}
    matrix = rows(2)
    assert index.keep_vectors({"m1": matrix[0], "zz": matrix[1]}) == 1  # zz is not held
    assert index.keep_vectors({"m1": matrix[1]}) == 0  # kept already
    np.testing.assert_array_equal(index.vectors(["m1"])["m1"], matrix[0])
    assert index.keep_vectors({"m2": rows(1)[0][:8]}) == 0  # another dimension: not kept
    index.close()


def test_deletes_leave_dead_slots_that_a_save_squeezes_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cogmem.index._MIN_DEAD_SLOTS", 2)
    index = new_index(tmp_path)
    matrix = rows(12)
    index.add([record(i) for i in range(12)], list(range(12)), vectors=matrix)
    index.save(tmp_path, "ns", generation=1)
    (before,) = tmp_path.glob("ns.*.vectors")
    size = before.stat().st_size
    index.remove([f"m{i}" for i in range(8)])
    index.save(tmp_path, "ns", generation=2)
    (after,) = tmp_path.glob("ns.*.vectors")  # the old file is gone
    assert after != before and after.stat().st_size < size
    index.close()
    kept, _ = NamespaceIndex.load(tmp_path, "ns", Tokenizer(), keep_vectors=True)
    got = kept.vectors([f"m{i}" for i in range(12)])
    assert sorted(got) == ["m10", "m11", "m8", "m9"]
    for i in range(8, 12):
        np.testing.assert_array_equal(got[f"m{i}"], matrix[i])
    kept.close()


def test_a_lost_vector_file_means_no_vectors_not_wrong_ones(tmp_path: Path) -> None:
    index = new_index(tmp_path)
    index.add([record(i) for i in range(3)], [0, 1, 2], vectors=rows(3))
    index.save(tmp_path, "ns", generation=1)
    index.close()
    for path in tmp_path.glob("ns.*.vectors"):
        path.unlink()
    kept, _ = NamespaceIndex.load(tmp_path, "ns", Tokenizer(), keep_vectors=True)
    assert kept.vectors(["m0", "m1", "m2"]) == {}
    assert kept.keep_vectors({"m1": rows(1, 9)[0]}) == 1  # a new file is started
    np.testing.assert_array_equal(kept.vectors(["m1"])["m1"], rows(1, 9)[0])
    kept.close()


# ---------------------------------------------------------------------------- a store
def count_vector_reads(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Record every ids list asked of Chroma for vectors (still answered by Chroma)."""
    from cogmem.store import ChromaStore

    asked: list[list[str]] = []
    real = ChromaStore.vectors

    def vectors(self: ChromaStore, ids: Any) -> Any:
        asked.append(list(ids))
        return real(self, ids)

    monkeypatch.setattr(ChromaStore, "vectors", vectors)
    return asked


def fill(mem: CognitiveMemory) -> None:
    # Ids are chosen (no write-time dedup); "semantic" makes every search read the vectors
    # of all its candidates (similarity between versions), not only lexical-only hits'.
    mem.add_many(
        [
            MemoryInput(
                text=f"note {i} about {'gardening' if i % 3 else 'astronomy'} and soil {i % 7}",
                id=f"n{i}",
                memory_type="semantic",
                created_at=T0 + timedelta(hours=i),
            )
            for i in range(120)
        ],
        now=NOW,
    )


def test_a_folder_store_searches_without_reading_vectors_from_chroma(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = count_vector_reads(monkeypatch)
    queries = ["astronomy soil 3", "gardening note 17", "soil"]
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        fill(mem)
        mem.add("one more held add about soil", id="held", now=NOW)
        first = [mem.search(q, now=NOW, reinforce=False) for q in queries]
        stored = mem.vectors(["n5", "held"])
    assert asked == []
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        again = [mem.search(q, now=NOW, reinforce=False) for q in queries]
        np.testing.assert_array_equal(mem.vectors(["n5"])["n5"], stored["n5"])
    assert asked == []
    assert [[(r.id, r.score) for r in rs] for rs in again] == [
        [(r.id, r.score) for r in rs] for rs in first
    ]
    # The vectors served are Chroma's.
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        from_chroma = internals.store(mem, "default", flush=False).vectors(["n5", "held"])
    for i in ("n5", "held"):
        np.testing.assert_allclose(from_chroma[i], stored[i], rtol=1e-6)


def test_without_its_vector_file_a_store_reads_chroma_once_and_keeps_what_it_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        fill(mem)
        expected = [(r.id, r.score) for r in mem.search("soil 4", now=NOW, reinforce=False)]
    for path in (tmp_path / "cogmem-index").rglob("*.vectors"):
        path.unlink()
    asked = count_vector_reads(monkeypatch)
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        got = [(r.id, r.score) for r in mem.search("soil 4", now=NOW, reinforce=False)]
        # Chroma hands back its own (normalised) copy of each vector: equal to ~1e-8.
        assert [i for i, _ in got] == [i for i, _ in expected]
        assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-6)
        assert len(asked) == 1 and asked[0]
        mem.search("soil 4", now=NOW, reinforce=False)
        assert len(asked) == 1
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        mem.search("soil 4", now=NOW, reinforce=False)
        mem.search("gardening astronomy", now=NOW, reinforce=False)
    # Kept across the reopen too: no vector is read from Chroma twice. (Chroma's ANN may
    # return a slightly different candidate set after a reopen, whose vectors are new.)
    ids = [i for batch in asked for i in batch]
    assert len(ids) == len(set(ids))


def test_a_namespace_chroma_answers_keeps_no_vector_file_and_finds_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``EXACT_SCAN`` Chroma's HNSW index answers the dense leg and holds every vector:
    the folder keeps no copy (one left by an earlier version is deleted at the open), the
    vectors a search needs come with Chroma's query or its ``get``, and the results are those
    found with the copy."""
    import cogmem.namespace

    queries = ["astronomy soil 3", "gardening note 17", "soil"]
    monkeypatch.setattr(cogmem.namespace, "EXACT_SCAN", 50)  # 120 memories: Chroma answers
    with monkeypatch.context() as before:  # as before: every vector kept in the folder
        before.setattr(NamespaceIndex, "limit_vectors", lambda self, limit: None)
        with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
            fill(mem)
            with_copy = [mem.search(q, now=NOW, reinforce=False) for q in queries]
    assert list((tmp_path / "cogmem-index").rglob("*.vectors"))
    asked = count_vector_reads(monkeypatch)
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        without = [mem.search(q, now=NOW, reinforce=False) for q in queries]
        assert not list((tmp_path / "cogmem-index").rglob("*.vectors"))
        mem.add_many([f"late note {i} about soil" for i in range(70)], now=NOW)
        mem.search("late soil", now=NOW, reinforce=False)
    assert not list((tmp_path / "cogmem-index").rglob("*.vectors"))
    assert asked  # the lexical-only hits' vectors, from Chroma
    assert [[r.id for r in rs] for rs in without] == [[r.id for r in rs] for rs in with_copy]
    for got, want in zip(without, with_copy, strict=True):
        # Chroma hands back its own (normalised) copy of each vector: equal to ~1e-8.
        assert [r.score for r in got] == pytest.approx([r.score for r in want], rel=1e-6)


def test_the_vectors_a_query_of_chroma_returns_are_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search of a namespace Chroma answers reads the dense hits' vectors in its query, and
    asks Chroma's ``get`` only for what its words found (while the dense list is taken, so
    before it is known which of them the query found too): never for a dense hit alone."""
    import cogmem.namespace

    query = "astronomy soil 3"
    monkeypatch.setattr(cogmem.namespace, "EXACT_SCAN", 50)
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        fill(mem)
        asked = count_vector_reads(monkeypatch)
        found = mem.search(query, now=NOW, reinforce=False, top_k=100)
        namespace = internals.namespace(mem)
        dense = {i for i, _ in namespace.nearest(HashingEmbedder(DIM).embed([query]), 50)[0]}
        words = {i for i, _ in next(iter(namespace.ranked(namespace.tokens(query), 50)))}
    read = {i for batch in asked for i in batch}
    assert len(asked) == 1  # one call, aside
    assert words - dense and read == words
    assert {r.id for r in found} <= read | dense
