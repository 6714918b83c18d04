"""The columnar record table and the namespace index built on it."""

from __future__ import annotations

import pickle
import random
import zlib
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st

from cogmem.errors import StoreError
from cogmem.index import NamespaceIndex
from cogmem.lexical import BM25Index, Tokenizer
from cogmem.records import MemoryRecord
from cogmem.table import RecordTable

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)


def full_record(memory_id: str = "a") -> MemoryRecord:
    return MemoryRecord(
        id=memory_id,
        text="User prefers dark mode",
        created_at=T0,
        memory_type="semantic",
        importance=0.7,
        confidence=0.9,
        stability=0.42,
        last_accessed_at=T0 + timedelta(days=3, microseconds=17),
        access_count=4,
        session_ids=("s1", "s2"),
        status="superseded",
        superseded_by="b",
        pinned=True,
        tags=("ui", "prefs"),
        namespace="user-1",
        links={"c": 0.5},
        links_updated_at=T0 + timedelta(days=1),
        metadata={"source": "chat", "turn": 3, "score": 0.25, "ok": True},
        contradicts=("d",),
    )


def test_a_record_comes_back_field_for_field() -> None:
    table = RecordTable("user-1")
    record = full_record()
    table.put(record, seq=7)
    assert table["a"] == record
    assert table.seq("a") == 7
    plain = MemoryRecord(id="p", text="plain", created_at=T0, namespace="user-1")
    table.put(plain, seq=8)
    assert table["p"] == plain
    elsewhere = replace(plain, id="q", namespace="other")
    table.put(elsewhere, seq=9)
    assert table["q"].namespace == "other"


def test_overwriting_keeps_text_and_seq_and_clears_emptied_fields() -> None:
    table = RecordTable("user-1")
    table.put(full_record(), seq=7)
    emptied = replace(
        full_record(),
        tags=(),
        session_ids=(),
        links={},
        metadata={},
        superseded_by=None,
        contradicts=(),
        status="active",
        last_accessed_at=None,
        links_updated_at=None,
    )
    table.put(emptied)
    assert table["a"] == emptied
    assert table.seq("a") == 7
    with pytest.raises(ValueError, match="seq"):
        table.put(replace(emptied, id="new"))


def test_remove_compact_and_state_round_trip() -> None:
    table = RecordTable("default")
    records = [
        MemoryRecord(id=f"m{i}", text=f"text {i}", created_at=T0 + timedelta(minutes=i))
        for i in range(10)
    ]
    for i, r in enumerate(records):
        table.put(r if i % 3 else replace(r, tags=(f"t{i}",)), seq=i)
    assert table.remove(["m1", "m4", "nope"]) == [1, 4]
    assert table.holes() == 2 and len(table) == 8 and "m1" not in table
    remap = table.compact()
    assert remap.tolist() == [0, -1, 1, 2, -1, 3, 4, 5, 6, 7]
    assert table.holes() == 0
    assert [table.seq(i) for i in table] == [0, 2, 3, 5, 6, 7, 8, 9]
    assert table["m3"].tags == ("t3",)
    assert [table[i].text for i in table] == [f"text {i}" for i in (0, 2, 3, 5, 6, 7, 8, 9)]
    table.put(MemoryRecord(id="u", text="naïve café ☕", created_at=T0), seq=99)
    assert table["u"].text == "naïve café ☕"
    again = RecordTable.from_state(pickle.loads(pickle.dumps(table.to_state())))
    assert dict(again) == dict(table)


def test_a_damaged_state_is_refused() -> None:
    table = RecordTable("default")
    table.put(MemoryRecord(id="a", text="x", created_at=T0), seq=1)
    state = table.to_state()
    state["text"] = b""
    with pytest.raises(StoreError, match="texts cut"):
        RecordTable.from_state(state)
    table.put(MemoryRecord(id="b", text="été", created_at=T0), seq=2)
    state = table.to_state()
    assert state["columns"]["text_len"].tolist() == [1, 5]  # UTF-8 bytes
    assert RecordTable.from_state(state)["b"].text == "été"
    state["columns"]["text_len"][:] = [2, 4]  # texts overlapping: not as written
    with pytest.raises(StoreError, match="out of order"):
        RecordTable.from_state(state)
    state = table.to_state()
    del state["columns"]["seq"]
    with pytest.raises(StoreError, match="do not match"):
        RecordTable.from_state(state)
    state = table.to_state()
    state["columns"]["kind"][0] = 9
    with pytest.raises(StoreError, match="unknown memory type"):
        RecordTable.from_state(state)
    state = table.to_state()
    _, ends, hashes, slots = state["id_packed"]
    state["id_packed"] = (b"ax", ends, hashes, slots)  # "x" for "b": not its hash
    with pytest.raises(StoreError, match="saved records: packed ids"):
        RecordTable.from_state(state)


def test_records_saved_with_their_ids_as_strings_are_read() -> None:
    # Before the ids were saved packed with their hash table, the state held a list of str.
    table = RecordTable("default")
    for i, text in enumerate(["x", "été", "y"]):
        table.put(MemoryRecord(id=f"m{i}", text=text, created_at=T0), seq=i)
    table.put(MemoryRecord(id="m3", text="z", created_at=T0, previous_version="m1"), seq=3)
    state = table.to_state()
    del state["id_packed"]
    state["ids"] = ["m0", "m1", "m2", "m3"]
    again = RecordTable.from_state(state)
    assert dict(again) == dict(table) and again.row("m2") == 2
    assert again["m3"].previous_version == "m1"
    state["ids"] = ["m0", "m1", "m0", "m3"]
    with pytest.raises(StoreError, match="distinct"):
        RecordTable.from_state(state)


def _index() -> NamespaceIndex:
    return NamespaceIndex(BM25Index(), Tokenizer(), "default")


def _episode(i: int, minute: float) -> MemoryRecord:
    return MemoryRecord(id=f"e{i}", text=f"turn {i}", created_at=T0 + timedelta(minutes=minute))


def _expected_neighbours(
    alive: dict[str, MemoryRecord], seqs: dict[str, int], memory_id: str, span: int, window: float
) -> list[str]:
    """The timeline semantics, computed the slow and obvious way."""
    line = sorted(alive, key=lambda i: (alive[i].created_at, seqs[i]))
    at = line.index(memory_id)
    out = []
    for step in (-1, 1):
        moved, j = 0, at + step
        while 0 <= j < len(line) and moved < span:
            gap = abs((alive[line[j]].created_at - alive[memory_id].created_at).total_seconds())
            if gap > window:
                break
            moved += 1
            if alive[line[j]].memory_type == "episodic":
                out.append((moved, line[j]))
            j += step
    return [i for _, i in sorted(out)]


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_the_timeline_stays_in_time_order_through_adds_and_removes(data: st.DataObject) -> None:
    index = _index()
    alive: dict[str, MemoryRecord] = {}
    seqs: dict[str, int] = {}
    rng = random.Random(data.draw(st.integers(0, 10**6)))
    next_id = 0
    for _ in range(data.draw(st.integers(1, 12))):
        if alive and rng.random() < 0.35:
            gone = rng.sample(sorted(alive), rng.randint(1, min(3, len(alive))))
            index.remove(gone)
            for i in gone:
                del alive[i], seqs[i]
            continue
        batch = []
        for _ in range(rng.randint(1, 5)):
            record = _episode(next_id, rng.choice([0, 1, 2, 5, 30, 90, 200]))
            if rng.random() < 0.2:
                record = replace(record, memory_type="semantic")
            batch.append(record)
            next_id += 1
        batch_seqs = [rng.randint(0, 10) for _ in batch]
        index.add(batch, batch_seqs)
        for r, s in zip(batch, batch_seqs):
            alive[r.id], seqs[r.id] = r, s
    assert set(index.records) == set(alive) == index.bm25.ids()
    for memory_id in alive:
        got = index.neighbours(memory_id, 2, 3600)
        want = _expected_neighbours(alive, seqs, memory_id, 2, 3600)
        # Equal (time, seq) keys may sit in either order; compare as sets per distance then.
        assert sorted(got) == sorted(want)


def test_many_removes_compact_and_save_load_keeps_everything(tmp_path: Path) -> None:
    index = _index()
    records = [_episode(i, i) for i in range(3000)]
    index.add(records, list(range(3000)))
    index.remove([f"e{i}" for i in range(0, 3000, 2)])  # 1500 holes: compacted
    assert index.records.holes() == 0
    assert sorted(index.neighbours("e101", 1, 3600)) == ["e103", "e99"]
    index.remove(["e103"])
    index.save(tmp_path, "ns", generation=5)
    loaded, generation = NamespaceIndex.load(tmp_path, "ns", Tokenizer())
    assert generation == 5
    assert dict(loaded.records) == dict(index.records)
    assert sorted(loaded.neighbours("e101", 1, 3600)) == ["e105", "e99"]
    assert loaded.bm25.score(["turn"], ["e101"]) == index.bm25.score(["turn"], ["e101"])


def test_a_loaded_index_builds_its_timeline_when_first_asked(tmp_path: Path) -> None:
    # A load leaves the timeline unbuilt (a search of facts never asks for it); adds and
    # removes before the first question are in it when it is built.
    index = _index()
    index.add([_episode(i, i) for i in range(0, 40, 2)], list(range(20)))
    index.save(tmp_path, "ns", generation=1)
    loaded, _ = NamespaceIndex.load(tmp_path, "ns", Tokenizer())
    loaded.add([_episode(21, 21), _episode(99, 1.5)], [20, 21])  # one in the middle of the day
    loaded.remove(["e10"])
    loaded.remove(["e12", "e14"])
    assert sorted(loaded.neighbours("e99", 1, 3600)) == ["e0", "e2"]
    assert sorted(loaded.neighbours("e16", 1, 3600)) == ["e18", "e8"]
    assert sorted(loaded.neighbours("e21", 1, 3600)) == ["e20", "e22"]
    loaded.add([_episode(100, 17)], [22])  # into the built timeline
    assert sorted(loaded.neighbours("e16", 1, 3600)) == ["e100", "e8"]


def _saved_payload(tmp_path: Path) -> tuple[NamespaceIndex, dict[str, Any]]:
    """An index saved (format 8), and the payload a format 7 file held for it: one pickle of
    everything (older formats are made from it)."""
    index = _index()
    index.add([_episode(i, i) for i in range(50)], list(range(50)))
    index.save(tmp_path, "ns", generation=7)
    raw = (tmp_path / "ns.records.pkl").read_bytes()
    assert raw.startswith(b"cogmem-records\x00\x08")  # the rest's check, the BM25 file's
    assert raw[16:24] == xxhash.xxh3_64_digest(raw[32:])
    assert raw[24:32] == xxhash.xxh3_64_digest((tmp_path / "ns.bm25.npz").read_bytes())
    payload = {
        "format": 7,
        "generation": 7,
        "horizon": index.horizon,
        "tokenizer": "english|stem=True|stop=" + str(len(index.tokenizer.stopwords)),
        "records": index.records.to_state(),
        "vectors": None,
    }
    return index, payload


def test_an_index_saved_as_one_compressed_pickle_is_still_read(tmp_path: Path) -> None:
    # Format 7 held one pickle of everything, compressed as one frame; format 8 holds each
    # array as its own frame.
    from cogmem.compression import compress

    index, payload = _saved_payload(tmp_path)
    bm25 = (tmp_path / "ns.bm25.npz").read_bytes()
    frame = compress(pickle.dumps(payload))
    path = tmp_path / "ns.records.pkl"
    head = b"cogmem-records\x00\x07" + zlib.crc32(frame).to_bytes(4, "big")
    path.write_bytes(head + zlib.crc32(bm25).to_bytes(4, "big") + frame)
    loaded, generation = NamespaceIndex.load(tmp_path, "ns", Tokenizer())
    assert generation == 7 and dict(loaded.records) == dict(index.records)
    assert sorted(loaded.neighbours("e11", 1, 3600)) == ["e10", "e12"]
    path.write_bytes(head + zlib.crc32(bm25).to_bytes(4, "big") + frame[:-1] + b"\x00")
    with pytest.raises(StoreError, match="checksum"):
        NamespaceIndex.load(tmp_path, "ns", Tokenizer())


@pytest.mark.parametrize("seed", range(12))
def test_a_damaged_records_file_of_format_8_is_refused(tmp_path: Path, seed: int) -> None:
    # Bytes changed anywhere past the magic (the checks, the directory, the rest's pickle, any
    # array's frame): refused, never read into a table.
    _saved_payload(tmp_path)
    path = tmp_path / "ns.records.pkl"
    data = bytearray(path.read_bytes())
    rng = random.Random(seed)
    at = rng.randrange(16, len(data))
    data[at] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError):
        NamespaceIndex.load(tmp_path, "ns", Tokenizer())


def test_an_index_saved_uncompressed_is_still_read(tmp_path: Path) -> None:
    # Format 6 held the records' pickle as it is; format 7 compresses it.
    index, payload = _saved_payload(tmp_path)
    payload["format"] = 6
    payload["bm25_digest"] = zlib.crc32((tmp_path / "ns.bm25.npz").read_bytes()).to_bytes(4, "big")
    body = pickle.dumps(payload)
    path = tmp_path / "ns.records.pkl"
    path.write_bytes(b"cogmem-records\x00\x06" + zlib.crc32(body).to_bytes(4, "big") + body)
    loaded, generation = NamespaceIndex.load(tmp_path, "ns", Tokenizer())
    assert generation == 7 and dict(loaded.records) == dict(index.records)
    path.write_bytes(b"cogmem-records\x00\x06" + zlib.crc32(body).to_bytes(4, "big") + body[1:])
    with pytest.raises(StoreError, match="checksum"):
        NamespaceIndex.load(tmp_path, "ns", Tokenizer())


def test_an_index_saved_with_a_blake2b_digest_is_still_read(tmp_path: Path) -> None:
    # Format 5 checked the records and BM25 files with a 32-byte BLAKE2b digest; format 6
    # with CRC-32. A store saved by the older version opens without a rebuild.
    import hashlib

    index, payload = _saved_payload(tmp_path)
    path = tmp_path / "ns.records.pkl"

    def blake(data: bytes) -> bytes:
        return hashlib.blake2b(data, digest_size=32).digest()

    payload["format"] = 5
    payload["bm25_digest"] = blake((tmp_path / "ns.bm25.npz").read_bytes())
    body = pickle.dumps(payload)
    path.write_bytes(b"cogmem-records\x00\x05" + blake(body) + body)
    loaded, generation = NamespaceIndex.load(tmp_path, "ns", Tokenizer())
    assert generation == 7 and dict(loaded.records) == dict(index.records)
    path.write_bytes(b"cogmem-records\x00\x05" + blake(body)[:-1] + b"\x00" + body)
    with pytest.raises(StoreError, match="checksum"):
        NamespaceIndex.load(tmp_path, "ns", Tokenizer())
