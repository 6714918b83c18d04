"""Adds held back from Chroma (``config.add_flush_size``): searchable at once, written in groups,
journaled on folder stores so that an acknowledged add survives a crash (``cogmem.held``)."""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cogmem.held as pending_module
from cogmem import CognitiveMemory, CognitiveMemoryConfig, MemoryInput
from cogmem.clients import digest as _digest
from cogmem.errors import DuplicateIdError, MemoryNotFoundError, StoreError, StoreLockedError
from cogmem.frames import decode_frames, encode_frame, read_frames
from cogmem.held import AddJournal, HeldAdds, claim_orphans
from cogmem.records import MemoryRecord
from cogmem.testing import HashingEmbedder
from tests import internals

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
DIM = 64


def record(i: int, **fields: Any) -> MemoryRecord:
    base: dict[str, Any] = {
        "id": f"r{i}",
        "text": f"note {i}: the ferry leaves at {i} o'clock ☃",
        "memory_type": "semantic",
        "importance": 0.1 + i / 100,
        "confidence": 0.7,
        "stability": 1 / 3,
        "created_at": NOW - timedelta(days=i, microseconds=7),
        "tags": ("a", f"t{i}"),
        "metadata": {"n": i, "x": 0.1 + i, "ok": True},
        "namespace": "agent-1",
        "session_ids": ("s1",),
    }
    base.update(fields)
    return MemoryRecord(**base)


def vectors(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)


def chroma_count(mem: CognitiveMemory, namespace: str = "default") -> int:
    """What Chroma itself holds (not the index)."""
    return int(internals.store(mem, namespace, flush=False).collection.count())


def journals(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.journal"))


# --- the journal file ----------------------------------------------------------------------------


def test_frames_round_trip_records_seqs_and_vectors_exactly() -> None:
    records = [record(i) for i in range(3)]
    matrix = vectors(3)
    entries = decode_frames(encode_frame(records, [11, 12, 13], matrix))
    assert [e.record for e in entries] == records
    assert [e.seq for e in entries] == [11, 12, 13]
    assert np.array_equal(np.stack([e.vector for e in entries]), matrix)


def test_a_torn_tail_is_dropped_and_damage_is_skipped_and_reported() -> None:
    first = encode_frame([record(1)], [1], vectors(1))
    second = encode_frame([record(2)], [2], vectors(1, seed=2))
    third = encode_frame([record(3)], [3], vectors(1, seed=3))
    torn = read_frames(first + second[:-5])  # the last add never returned
    assert [e.seq for e in torn.entries] == [1] and torn.damage == []
    assert read_frames(first + second[:7]).damage == []  # a torn header too
    corrupt = bytearray(second)
    corrupt[-1] ^= 0xFF  # an acknowledged frame garbled on disk
    read = read_frames(first + bytes(corrupt) + third)
    assert [e.seq for e in read.entries] == [1, 3]  # resynchronised past it
    (damage,) = read.damage
    assert (damage.offset, damage.length) == (len(first), len(second))
    assert "checksum" in damage.reason
    size_flip = bytearray(second)
    size_flip[5] ^= 0x40  # its length field: the header no longer checks out
    read = read_frames(first + bytes(size_flip) + third)
    assert [e.seq for e in read.entries] == [1, 3] and len(read.damage) == 1
    assert decode_frames(b"") == []


def test_a_frame_that_checks_out_but_cannot_be_decoded_is_damage() -> None:
    payload = b'{"ids": ["x"], "documents": '  # JSON cut short, with a matching checksum
    head = struct.pack("<4sII", b"CGJ2", len(payload), zlib.crc32(payload))
    bad = head + struct.pack("<I", zlib.crc32(head)) + payload
    good = encode_frame([record(1)], [1], vectors(1))
    read = read_frames(bad + good)
    assert [e.seq for e in read.entries] == [1]
    assert "cannot be decoded" in read.damage[0].reason


def test_frames_of_the_first_format_are_still_read() -> None:
    payload = encode_frame([record(1)], [1], vectors(1))[16:]
    old = struct.pack("<4sII", b"CGJ1", len(payload), zlib.crc32(payload)) + payload
    assert [e.seq for e in read_frames(old + old).entries] == [1, 1]


def test_a_journal_is_locked_while_open_and_claimable_once_released(tmp_path: Path) -> None:
    path = tmp_path / "ns.writer1.journal"
    journal = AddJournal(path)
    journal.append([record(1)], [5], vectors(1))
    with pytest.raises(StoreError, match="held by another live writer"):
        AddJournal(path)
    assert claim_orphans(tmp_path, "ns") == []  # its owner is alive
    journal.release()
    (claimed,) = claim_orphans(tmp_path, "ns")
    assert [e.record.id for e in claimed.entries()] == ["r1"]
    claimed.discard()
    assert not path.exists()
    assert claim_orphans(tmp_path, "ns") == []


def test_a_failed_append_leaves_nothing_of_its_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = AddJournal(tmp_path / "ns.w.journal")
    journal.append([record(1)], [1], vectors(1))
    size = journal.path.stat().st_size
    real_write = os.write

    def half_then_fail(fd: int, data: bytes) -> int:
        real_write(fd, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pending_module.os, "write", half_then_fail)
    with pytest.raises(StoreError, match="No space left"):
        journal.append([record(2)], [2], vectors(1))
    monkeypatch.setattr(pending_module.os, "write", real_write)
    assert journal.path.stat().st_size == size
    journal.append([record(3)], [3], vectors(1))  # later frames are readable after it
    assert [e.record.id for e in journal.entries()] == ["r1", "r3"]
    journal.release()


# --- the in-memory buffer ------------------------------------------------------------------------


def test_held_nearest_is_exact_cosine_nearest_first() -> None:
    held = HeldAdds()
    matrix = vectors(20)
    held.add([record(i) for i in range(20)], list(range(20)), matrix)
    queries = vectors(3, seed=9)
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    for query, got in zip(queries, held.nearest(queries, 5), strict=True):
        sims = unit @ (query / np.linalg.norm(query))
        order = np.argsort(-sims)[:5]
        assert [i for i, _ in got] == [f"r{j}" for j in order]
        assert [c for _, c in got] == pytest.approx(sims[order].tolist(), abs=1e-6)
    assert set(held.vectors(["r3", "nope"])) == {"r3"}
    assert np.array_equal(held.vectors(["r3"])["r3"], matrix[3])
    held.written()
    assert len(held) == 0 and held.nearest(queries, 5) == [[], [], []]


# --- a private in-process store ------------------------------------------------------------------


def test_held_adds_are_searchable_at_once_and_written_when_the_group_is_full() -> None:
    config = CognitiveMemoryConfig(add_flush_size=4)
    with CognitiveMemory(embedder=HashingEmbedder(DIM), config=config) as mem:
        a = mem.add("the ferry to the harbour leaves at noon", now=NOW)
        mem.add("my sister plays the cello", now=NOW)
        mem.add("a third note about tea", now=NOW)  # (BM25 idf is 0 for everything in 2 docs)
        assert chroma_count(mem) == 0  # held
        for mode in ("dense", "lexical", "hybrid"):
            found = mem.search("harbour ferry", mode=mode, now=NOW, reinforce=False)
            assert found[0].id == a, mode
        assert mem.get(a).text == "the ferry to the harbour leaves at noon"
        assert len(mem) == 3
        mem.add("a fourth note about maps", now=NOW)
        assert chroma_count(mem) == 0  # 4 held: the group is full, not overfull
        mem.add("a fifth note", now=NOW)
        assert chroma_count(mem) == 4  # the full group was written, the fifth is held
        mem.flush()
        assert chroma_count(mem) == 5


def test_a_large_batch_is_written_at_once(mem: CognitiveMemory) -> None:
    mem.add("held first", now=NOW)
    batch = [MemoryInput(text=f"batch {i}", id=f"b{i}") for i in range(mem.config.add_flush_size)]
    mem.add_many(batch, now=NOW)
    assert chroma_count(mem) == mem.config.add_flush_size + 1


def test_anything_else_that_reads_or_changes_chroma_writes_held_adds_first(
    mem: CognitiveMemory,
) -> None:
    a = mem.add("the ferry leaves at noon", memory_type="semantic", now=NOW)
    b = mem.add("the ferry leaves at one", memory_type="semantic", now=NOW)
    assert chroma_count(mem) == 0
    mem.supersede(a, b)
    assert chroma_count(mem) == 2
    stored = internals.store(mem, "default", flush=False).collection.get(
        ids=[a], include=["metadatas"]
    )
    assert stored["metadatas"][0]["status"] == "superseded"
    c = mem.add("the tram is blue", now=NOW)
    mem.delete(c)
    assert chroma_count(mem) == 2
    with pytest.raises(MemoryNotFoundError):
        mem.get(c)


def test_a_recall_of_a_held_memory_is_written_with_it(mem: CognitiveMemory) -> None:
    a = mem.add("the ferry leaves at noon", now=NOW)
    later = NOW + timedelta(days=10)
    mem.search("ferry noon", now=later, session_id="s2")
    mem.flush()
    got = internals.store(mem, "default", flush=False).collection.get(
        ids=[a], include=["metadatas"]
    )
    assert got["ids"] == [a]
    reopened = mem.get(a)
    assert reopened.access_count == 1 and reopened.last_accessed_at == later


def test_dedup_and_duplicate_ids_see_held_adds(mem: CognitiveMemory) -> None:
    a = mem.add("User prefers dark mode in every editor", memory_type="semantic", now=NOW)
    again = mem.add("User prefers dark mode in every editor", memory_type="semantic", now=NOW)
    assert again == a and len(mem) == 1
    mem.add("chosen", id="x1", now=NOW)
    with pytest.raises(DuplicateIdError):
        mem.add("chosen again", id="x1", now=NOW)


def test_vectors_of_held_memories_come_from_memory(mem: CognitiveMemory) -> None:
    a = mem.add("the ferry leaves at noon", now=NOW)
    assert chroma_count(mem) == 0
    got = mem.vectors([a])
    assert np.allclose(got[a], HashingEmbedder().embed(["the ferry leaves at noon"])[0])


def test_zero_writes_every_add_at_once() -> None:
    config = CognitiveMemoryConfig(add_flush_size=0)
    with CognitiveMemory(embedder=HashingEmbedder(DIM), config=config) as mem:
        mem.add("written now", now=NOW)
        assert chroma_count(mem) == 1


def test_a_client_store_writes_every_add_at_once(tmp_path: Path) -> None:
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(
        path=str(tmp_path), settings=Settings(anonymized_telemetry=False)
    )
    with CognitiveMemory(client=client, collection="shared", embedder=HashingEmbedder(DIM)) as mem:
        mem.add("written now", now=NOW)
        assert chroma_count(mem) == 1


# --- a folder store ------------------------------------------------------------------------------


def test_a_folder_store_journals_held_adds_and_removes_the_journal_on_close(
    tmp_path: Path,
) -> None:
    mem = CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM))
    a = mem.add("the ferry leaves at noon", now=NOW)
    assert chroma_count(mem) == 0
    (journal,) = journals(tmp_path)
    assert [e.record.id for e in decode_frames(journal.read_bytes())] == [a]
    mem.close()
    assert journals(tmp_path) == []
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as again:
        assert chroma_count(again) == 1 and again.get(a).text == "the ferry leaves at noon"


def test_a_folder_store_checks_ids_against_its_index_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder has one writer at a time, so chosen ids are checked against the index (loaded
    from its saved copy, or rebuilt from Chroma) without a Chroma read, and stored ones are
    still refused."""
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        mem.add("held then written on close", id="a", now=NOW)
        mem.add_many([MemoryInput(text=f"bulk {i}", id=f"b{i}") for i in range(70)], now=NOW)
    asked: list[list[str]] = []
    monkeypatch.setattr(
        "cogmem.store.ChromaStore.existing", lambda self, ids: asked.append(list(ids)) or set()
    )
    for run, saved in enumerate((True, False)):
        if not saved:  # no saved copy: the index is rebuilt from Chroma
            for copy in (tmp_path / "cogmem-index").rglob("*.records.pkl"):
                copy.unlink()
        with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
            with pytest.raises(DuplicateIdError, match="'a'"):
                mem.add("impostor", id="a", now=NOW)
            batch = [MemoryInput(text=f"new {run} {i}", id=f"n{run}.{i}") for i in range(69)]
            with pytest.raises(DuplicateIdError, match="b5"):
                mem.add_many([*batch, MemoryInput(text="impostor", id="b5")], now=NOW)
            mem.add("held", id=f"h{run}", now=NOW)
            mem.add_many(batch, now=NOW)
            assert mem.get("a").text.startswith("held then") and mem.get("b5").text == "bulk 5"
    assert asked == []
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        assert mem.count() == 71 + 2 * 70


def test_held_adds_older_than_the_sync_interval_are_written(tmp_path: Path) -> None:
    config = CognitiveMemoryConfig(sync_interval_seconds=0.0)
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM), config=config) as mem:
        mem.add("first", now=NOW)
        assert chroma_count(mem) == 0
        mem.add("second", now=NOW)  # the first is past the (zero) interval: written now
        assert chroma_count(mem) == 1
        # A locked folder has no other writer to catch up with: a search touches no file.
        assert mem.search("second", now=NOW, reinforce=False)[0].text == "second"
        assert chroma_count(mem) == 1
        mem.flush()
        assert chroma_count(mem) == 2


def test_a_live_writers_journal_is_not_replayed_by_another(tmp_path: Path) -> None:
    writer = CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM))
    a = writer.add("held by a live writer", now=NOW)
    with pytest.raises(StoreLockedError):  # the folder is locked: no second opener at all
        CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM))
    # The journal's own lock stays as a second line: a live writer's journal is not claimed.
    assert claim_orphans(tmp_path / "cogmem-index" / "cogmem", _digest("default")) == []
    assert len(journals(tmp_path)) == 1
    writer.close()
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as reader:
        assert reader.get(a).text == "held by a live writer"


def test_a_journal_that_cannot_be_opened_means_writing_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(self: AddJournal, path: Path) -> None:
        raise StoreError(f"cannot open the add journal {path}: read-only file system")

    monkeypatch.setattr(AddJournal, "__init__", refuse)
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        mem.add("written now", now=NOW)
        assert chroma_count(mem) == 1
    assert "writing every add at once" in caplog.text


def test_a_failed_journal_write_stores_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        kept = mem.add("kept", now=NOW)

        def fail(self: AddJournal, *args: Any) -> None:
            raise StoreError("cannot write the add journal: disk full")

        monkeypatch.setattr(AddJournal, "append", fail)
        with pytest.raises(StoreError, match="disk full"):
            mem.add("lost harbour note", id="lost", now=NOW)
        monkeypatch.undo()
        with pytest.raises(MemoryNotFoundError):
            mem.get("lost")
        assert [r.id for r in mem.search("harbour", now=NOW, reinforce=False)] != ["lost"]
        assert mem.count() == 1 and mem.get(kept).text == "kept"
        mem.add("another harbour note", id="lost", now=NOW)  # the id is free
        assert mem.get("lost").text == "another harbour note"


# --- crashes (real child processes, SIGKILL) -----------------------------------------------------


def crash_child(path: str, count: int, kill_point: str) -> None:
    """Add ``count`` memories one at a time, printing each id once ``add`` returned, then die
    with SIGKILL at ``kill_point`` (``after-adds``, or ``mid-flush``: right after a group
    reached Chroma, before its journal was emptied)."""
    import cogmem.held as pending

    def die() -> None:
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    if kill_point == "mid-flush":
        pending.HeldAdds.written = lambda self: die()  # type: ignore[method-assign]
    # only a full group is written: held adds older than sync_interval_seconds (1 s on a
    # folder) are written too, and on a loaded machine six adds took longer than that
    config = CognitiveMemoryConfig(add_flush_size=count, sync_interval_seconds=3600.0)
    mem = CognitiveMemory(path=path, embedder=HashingEmbedder(DIM), config=config)
    for i in range(count):
        memory_id = mem.add(
            f"harbour note {i} tok{i:03d}", id=f"m{i}", memory_type="semantic", now=NOW
        )
        print(f"acked {memory_id}", flush=True)
    print("ready", flush=True)
    if kill_point == "mid-flush":
        mem.flush()
    die()


def run_crash_child(path: Path, count: int, kill_point: str) -> list[str]:
    code = (
        f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'core')!r}]; "
        f"from tests.test_held import crash_child; "
        f"crash_child({str(path)!r}, {count}, {kill_point!r})"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == -signal.SIGKILL, done.stderr[-3000:]
    return [line.split()[1] for line in done.stdout.splitlines() if line.startswith("acked")]


@pytest.mark.parametrize("kill_point", ["after-adds", "mid-flush"])
def test_acknowledged_adds_survive_a_sigkill(tmp_path: Path, kill_point: str) -> None:
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        mem.add("written before", id="base", now=NOW)
    acked = run_crash_child(tmp_path, 6, kill_point)
    assert acked == [f"m{i}" for i in range(6)]
    assert len(journals(tmp_path)) == 1  # left by the dead writer
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        assert mem.count() == 7
        assert chroma_count(mem) == 7  # replayed into Chroma, none twice
        assert journals(tmp_path) == []
        for i in range(6):
            got = mem.get(f"m{i}")
            assert (got.text, got.memory_type) == (f"harbour note {i} tok{i:03d}", "semantic")
            (hit,) = mem.search(f"tok{i:03d}", top_k=1, mode="lexical", now=NOW, reinforce=False)
            assert hit.id == f"m{i}"
        stored = internals.store(mem, "default", flush=False).collection.get(
            ids=["m3"], include=["embeddings"]
        )
        want = HashingEmbedder(DIM).embed(["harbour note 3 tok003"])[0]
        assert np.allclose(stored["embeddings"][0], want, atol=1e-6)
        order = [r.id for r in mem.records()]
        assert order == ["base", *acked]  # insertion order kept (same creation time)
        mem.add("writes go on", now=NOW)
        assert mem.count() == 8


def test_a_torn_journal_tail_is_an_add_that_never_returned(tmp_path: Path) -> None:
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        mem.add("written before", id="base", now=NOW)
    run_crash_child(tmp_path, 3, "after-adds")
    (journal,) = journals(tmp_path)
    torn = encode_frame([record(9, namespace="default")], [99], vectors(1))[:-10]
    with journal.open("ab") as f:
        f.write(torn)
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(DIM)) as mem:
        assert sorted(r.id for r in mem.records()) == ["base", "m0", "m1", "m2"]


def test_inputs_are_checked_before_anything_is_held(mem: CognitiveMemory) -> None:
    mem.add("kept", now=NOW)
    with pytest.raises(Exception, match="importance"):
        mem.add_many([MemoryInput(text="ok"), MemoryInput(text="bad", importance=2.0)], now=NOW)
    assert mem.count() == 1 and len(internals.namespace(mem, "default").held_ids) == 1
