"""The folder stamp that lets a folder store skip catching up when nothing was written."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig
from cogmem import memory as memory_module
from cogmem.store import ChromaStore
from cogmem.testing import HashingEmbedder
from cogmem.watch import SETTLE_NS, folder_stamp
from tests.conftest import NOW

SECOND = 1_000_000_000
_TEN_SECONDS_AGO = time.time_ns() - 10 * SECOND


def _age(folder: Path) -> None:
    """Date the Chroma files ten seconds ago: still long enough for their stamp to be trusted.

    Always the same time, so that dating them again changes nothing that a write did not."""
    for name in os.listdir(folder):
        if name.startswith("chroma.sqlite3"):
            os.utime(folder / name, ns=(_TEN_SECONDS_AGO, _TEN_SECONDS_AGO))


def test_a_stamp_needs_still_files_and_changes_with_them(tmp_path: Path) -> None:
    db = tmp_path / "chroma.sqlite3"
    db.write_bytes(b"x" * 100)
    written = db.stat().st_mtime_ns
    assert folder_stamp(tmp_path, written + SETTLE_NS // 2) is None  # not still long enough
    assert folder_stamp(tmp_path, written - SECOND) is None  # a time in the future
    still = folder_stamp(tmp_path, written + SETTLE_NS)
    assert still is not None and folder_stamp(tmp_path, written + 5 * SECOND) == still
    with db.open("r+b") as fh:  # an overwrite inside the file: same size, later time
        fh.write(b"y")
    os.utime(db, ns=(written + 1, written + 1))
    assert folder_stamp(tmp_path, written + 5 * SECOND) != still
    (tmp_path / "chroma.sqlite3-journal").write_bytes(b"j")  # a journal appearing counts too
    later = (tmp_path / "chroma.sqlite3-journal").stat().st_mtime_ns + SECOND
    assert folder_stamp(tmp_path, later) != folder_stamp(tmp_path.parent, later)


def test_a_quiet_folder_is_not_queried_and_another_writer_is_still_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    original = ChromaStore.changed_since

    def counted(self: ChromaStore, after: int, *args: object) -> object:
        calls.append(after)
        return original(self, after, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ChromaStore, "changed_since", counted)
    config = CognitiveMemoryConfig(sync_interval_seconds=0.0, add_flush_size=0)
    emb = HashingEmbedder()
    with (
        CognitiveMemory(path=tmp_path, embedder=emb, config=config) as reader,
        CognitiveMemory(path=tmp_path, embedder=emb, config=config) as writer,
    ):
        writer.add("the first note about tea", now=NOW)
        _age(tmp_path)
        assert [r.memory.text for r in reader.search("tea", now=NOW, reinforce=False)] == [
            "the first note about tea"
        ]
        assert len(calls) == 1  # the first read catches up in full
        for _ in range(3):
            reader.search("tea", now=NOW, reinforce=False)
        assert len(calls) == 1  # nothing was written since: no Chroma query
        writer.add("a second note about tea", now=NOW)  # the files change
        texts = {r.memory.text for r in reader.search("tea", now=NOW, reinforce=False)}
        assert texts == {"the first note about tea", "a second note about tea"}
        assert len(calls) == 2


def test_files_not_still_long_enough_are_always_caught_up_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    original = ChromaStore.changed_since
    monkeypatch.setattr(
        ChromaStore,
        "changed_since",
        lambda self, after, *a: calls.append(after) or original(self, after, *a),
    )
    # As if every read came within the settle time of a write (without sleeping or racing).
    monkeypatch.setattr(memory_module, "folder_stamp", lambda folder, now_ns: None)
    config = CognitiveMemoryConfig(sync_interval_seconds=0.0, add_flush_size=0)
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(), config=config) as mem:
        mem.add("fresh", now=NOW)
        _age(tmp_path)
        for _ in range(3):
            mem.search("fresh", now=NOW, reinforce=False)
        assert len(calls) == 3


def test_held_adds_due_are_written_even_when_the_folder_is_quiet(tmp_path: Path) -> None:
    config = CognitiveMemoryConfig(sync_interval_seconds=0.0)
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder(), config=config) as mem:
        mem.add("one memory written", now=NOW)
        mem.add("another one written", now=NOW)  # the first was past the (zero) interval
        mem.search("written", now=NOW, reinforce=False)  # a catch-up: both written
        _age(tmp_path)
        mem.search("written", now=NOW, reinforce=False)  # a quiet stamp is taken
        mem.add("held", now=NOW)
        _age(tmp_path)  # the folder looks quiet, but this store holds an add
        mem.search("held", now=NOW, reinforce=False)
        store = mem._store("default", flush=False)
        assert store is not None and store.count() == 3
