"""A save that writes only what changed since the saved index (cogmem.changes)."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import cogmem.changes
from cogmem import CognitiveMemory
from cogmem.changes import changes_path
from cogmem.errors import MemoryNotFoundError, StoreError
from cogmem.index import NamespaceIndex
from cogmem.lexical import BM25Index, Tokenizer
from cogmem.records import MemoryRecord
from cogmem.store import ChromaStore
from cogmem.testing import HashingEmbedder

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
WORDS = [
    "garden",
    "soil",
    "tomato",
    "river",
    "bread",
    "violin",
    "harbour",
    "lantern",
    "pepper",
    "marble",
]


@pytest.fixture(autouse=True)
def _share(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stores here are sized for changes of up to 1/64 of them: the mechanism is tested,
    not the bound."""
    monkeypatch.setattr(cogmem.changes, "CHANGES_SHARE", 64)


def _record(i: int, rng: random.Random) -> MemoryRecord:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))) + f" note {i}"
    return MemoryRecord(id=f"m{i}", text=text, created_at=T0 + timedelta(minutes=i))


def _built(count: int, seed: int = 0) -> NamespaceIndex:
    rng = random.Random(seed)
    index = NamespaceIndex(BM25Index(), Tokenizer(), "default")
    index.add([_record(i, rng) for i in range(count)], list(range(count)), [1] * count)
    return index


def _change(index: NamespaceIndex, rng: random.Random, step: int) -> None:
    """A few of every kind of change a session makes: adds, updates with a write stamp,
    stamps of held adds, removes, and an id removed and added again as another memory."""
    ids = sorted(index.records)
    start = 10_000 * step
    new = [_record(start + i, rng) for i in range(3)]
    index.add(new, [start + i for i in range(3)])
    index.set_stamps([r.id for r in new], [start + 7] * 3)
    touched = [index.records[i] for i in rng.sample(ids, 4)]
    index.update(
        [replace(r, access_count=r.access_count + 1, importance=0.25) for r in touched], start + 8
    )
    index.apply(
        {
            ids[0]: (
                replace(index.records[ids[0]], confidence=0.5),
                index.records.seq(ids[0]),
                start + 9,
            )
        }
    )
    index.remove(rng.sample(ids[1:], 2))
    again = ids[-1]
    index.remove([again])
    index.add([replace(_record(start + 5, rng), id=again)], [start + 5], [start + 10])


def _same(loaded: NamespaceIndex, live: NamespaceIndex) -> None:
    assert dict(loaded.records) == dict(live.records)
    for memory_id in live.records:
        assert loaded.records.seq(memory_id) == live.records.seq(memory_id)
        assert loaded.records.stamp(memory_id) == live.records.stamp(memory_id)
    assert loaded.horizon == live.horizon
    ids = sorted(live.records)
    for word in WORDS:
        assert loaded.bm25.score([word], ids) == pytest.approx(live.bm25.score([word], ids))
    first = ids[len(ids) // 2]
    assert loaded.neighbours(first, 2, 3600) == live.neighbours(first, 2, 3600)


def test_a_save_after_few_changes_writes_them_alone_and_a_load_applies_them(
    tmp_path: Path,
) -> None:
    # Each save holds every change since the copy (so the second one holds the first's too);
    # the copy itself is never rewritten until the changes are many.
    rng = random.Random(1)
    index = _built(3000)
    index.save(tmp_path, "ns", generation=1)
    copy = (tmp_path / "ns.records.pkl").read_bytes()
    bm25 = (tmp_path / "ns.bm25.npz").read_bytes()
    assert not changes_path(tmp_path, "ns").exists()
    live = index
    for step, generation in ((1, 2), (2, 3)):
        _change(live, rng, step)
        live.save(tmp_path, "ns", generation=generation)
        assert changes_path(tmp_path, "ns").exists()
        assert (tmp_path / "ns.records.pkl").read_bytes() == copy
        assert (tmp_path / "ns.bm25.npz").read_bytes() == bm25
        loaded, saved = NamespaceIndex.load(tmp_path, "ns", Tokenizer())
        assert saved == generation
        _same(loaded, live)
        live = loaded  # the next session starts from what was read
    while not len(live.changes.touched) * cogmem.changes.CHANGES_SHARE > len(live):
        _change(live, rng, step := step + 1)
    live.save(tmp_path, "ns", generation=9)  # many changes: saved whole
    assert not changes_path(tmp_path, "ns").exists()
    assert (tmp_path / "ns.records.pkl").read_bytes() != copy
    loaded, saved = NamespaceIndex.load(tmp_path, "ns", Tokenizer())
    assert saved == 9
    _same(loaded, live)


def test_every_kind_of_change_is_in_the_changes(tmp_path: Path) -> None:
    # One kind at a time, so that a change the log misses fails here by name.
    kinds = {
        "add": lambda ix: ix.add([_record(5000, random.Random(3))], [5000], [77]),
        "stamp": lambda ix: ix.set_stamps(["m3"], [78]),
        "update": lambda ix: ix.update([replace(ix.records["m4"], access_count=9)], 79),
        "apply": lambda ix: ix.apply({"m5": (replace(ix.records["m5"], pinned=True), 5, 80)}),
        "remove": lambda ix: ix.remove(["m6"]),
    }
    for kind, change in kinds.items():
        folder = tmp_path / kind
        index = _built(200)
        index.save(folder, "ns", generation=1)
        change(index)
        index.save(folder, "ns", generation=2)
        assert changes_path(folder, "ns").exists(), kind
        loaded, _ = NamespaceIndex.load(folder, "ns", Tokenizer())
        _same(loaded, index)


def test_damaged_changes_are_refused_and_changes_on_another_copy_ignored(
    tmp_path: Path,
) -> None:
    index = _built(2000)
    index.save(tmp_path, "ns", generation=1)
    _change(index, random.Random(2), 1)
    index.save(tmp_path, "ns", generation=2)
    path = changes_path(tmp_path, "ns")
    good = path.read_bytes()
    for at in (0, 40, len(good) // 2, len(good) - 1):  # magic, body, last frame
        damaged = bytearray(good)
        damaged[at] ^= 0x10
        path.write_bytes(bytes(damaged))
        with pytest.raises(StoreError):
            NamespaceIndex.load(tmp_path, "ns", Tokenizer())
    # Written on a copy since replaced (a save whole, the process dead before deleting them):
    # never applied; the copy's own generation is returned.
    path.write_bytes(good)
    for step in range(2, 8):  # more than 2,000 / 64 changes
        _change(index, random.Random(step), step)
    index.save(tmp_path, "ns", generation=3)  # whole
    assert not path.exists()
    path.write_bytes(good)
    loaded, saved = NamespaceIndex.load(tmp_path, "ns", Tokenizer())
    assert saved == 3
    _same(loaded, index)


def test_a_copy_naming_a_vector_file_is_always_saved_whole(tmp_path: Path) -> None:
    # The changes carry no vector slots, so a copy that keeps vectors in the folder is
    # never extended by them.
    import numpy as np

    index = NamespaceIndex(BM25Index(), Tokenizer(), "default", vector_home=(tmp_path, "ns"))
    rng = random.Random(4)
    index.add(
        [_record(i, rng) for i in range(300)],
        list(range(300)),
        [1] * 300,
        vectors=np.ones((300, 4), dtype=np.float32),
    )
    index.save(tmp_path, "ns", generation=1)
    loaded, _ = NamespaceIndex.load(tmp_path, "ns", Tokenizer(), keep_vectors=True)
    assert loaded.changes.base is None
    loaded.remove(["m1"])
    loaded.save(tmp_path, "ns", generation=2)
    assert not changes_path(tmp_path, "ns").exists()
    assert NamespaceIndex.load(tmp_path, "ns", Tokenizer())[1] == 2


def test_a_large_store_closes_with_its_changes_and_opens_without_reading_chroma(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``EXACT_SCAN`` (no vector file), a session of searches, adds and a forget saves
    its changes alone; the next open takes the copy and the changes as current (Chroma's
    records are not read again) and finds what the session left."""
    import cogmem.namespace

    monkeypatch.setattr(cogmem.namespace, "EXACT_SCAN", 50)
    embedder = HashingEmbedder(32)
    now = datetime(2025, 6, 1, tzinfo=timezone.utc)
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        mem.add_many(
            [f"note {i} about {WORDS[i % 10]} and {WORDS[i % 7]}" for i in range(1500)], now=now
        )
    folder = tmp_path / "cogmem-index"
    (copy,) = folder.rglob("*.records.pkl")
    before = copy.read_bytes()
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        found = mem.search("violin harbour", now=now)
        added = mem.add("a violin lesson by the harbour on Friday", now=now)
        mem.delete(found[-1].id)
        held = {r.id: r for r in mem.records()}
        want = [
            (r.id, r.memory.access_count) for r in mem.search("violin", now=now, reinforce=False)
        ]
    assert copy.read_bytes() == before
    assert list(folder.rglob("*.changes"))
    monkeypatch.setattr(ChromaStore, "all_records", lambda *a, **k: pytest.fail("read Chroma"))
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        got = [
            (r.id, r.memory.access_count) for r in mem.search("violin", now=now, reinforce=False)
        ]
        assert mem.get(added).text == "a violin lesson by the harbour on Friday"
        with pytest.raises(MemoryNotFoundError):
            mem.get(found[-1].id)
        reopened = {r.id: r for r in mem.records()}
    assert got == want
    assert reopened == held
