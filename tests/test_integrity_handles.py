"""Storage integrity, round three: re-used ids across a crash, calls on a closed or dropped
handle, both journal copies cut, an emptied Chroma file, the lock file, the disk reserve.

One test (or a few) per defect found by an attacker outside the project's tests, each
reproducing it as it was found (issue 26). Faults are real where this machine can make them:
child processes killed with ``os._exit`` before they close, a tmpfs that fills up
(``tests/faults.py``).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cogmem.store as store_module
from benchmarks.torture_faults import second_writer
from cogmem import (
    CognitiveMemory,
    CognitiveMemoryConfig,
    DiskFullError,
    MemoryInput,
    MemoryNotFoundError,
    StoreClosedError,
    StoreDamagedError,
    StoreError,
    StoreLockedError,
)
from cogmem.held import mirror_path
from cogmem.testing import HashingEmbedder
from tests import internals
from tests.faults import fill, flip_bit, python, small_disk, start_python
from tests.test_integrity import _acknowledge_and_die, index_dir

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
DIM = 64


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "store"


def _open(folder: Path, **kwargs: object) -> CognitiveMemory:
    return CognitiveMemory(path=folder, embedder=HashingEmbedder(DIM), **kwargs)  # type: ignore[arg-type]


def _in_a_child_that_dies(folder: Path, body: str) -> None:
    """Run ``body`` (with ``mem`` open on ``folder``) in a child that then dies unclosed."""
    done = python(
        "import os\n"
        "from datetime import datetime, timezone\n"
        "from cogmem import CognitiveMemory, MemoryInput\n"
        "from cogmem.testing import HashingEmbedder\n"
        "now = datetime(2026, 6, 2, 12, tzinfo=timezone.utc)\n"
        f"mem = CognitiveMemory(path={str(folder)!r}, embedder=HashingEmbedder({DIM}))\n"
        f"{body}\n"
        "os._exit(0)\n"
    )
    assert done.returncode == 0, done.stderr[-2000:]


# ------------------------------------------------------------------------------ 1. re-used ids
@pytest.mark.parametrize("written", ["to Chroma", "to the journal"])
def test_an_id_deleted_and_added_again_before_a_crash_holds_its_new_text(
    folder: Path, written: str
) -> None:
    """The saved index is behind Chroma and holds the id with its old text: reconciled by
    insertion stamp and text, not by id alone (before: the old text, its vector and postings,
    and an IndexError from the timeline)."""
    with _open(folder) as mem:
        mem.add_many([f"harbour note {i}" for i in range(5)], now=NOW)
        mem.add("alpha lighthouse keeper", id="X", now=NOW)
    fillers = 70 if written == "to Chroma" else 0  # past add_flush_size: written through
    _in_a_child_that_dies(
        folder,
        "mem.delete('X')\n"
        "mem.add_many([MemoryInput(text='zebra crossing warden', id='X')]"
        f" + [f'filler {{j}}' for j in range({fillers})], now=now)",
    )
    with _open(folder) as mem:
        assert mem.get("X").text == "zebra crossing warden"
        lexical = mem.search("zebra warden", mode="lexical", now=NOW, reinforce=False)
        assert [r.id for r in lexical][:1] == ["X"]
        assert not mem.search("alpha lighthouse", mode="lexical", now=NOW, reinforce=False)
        expected = HashingEmbedder(DIM).embed_documents(["zebra crossing warden"])[0]
        np.testing.assert_allclose(mem.vectors(["X"])["X"], expected, rtol=1e-6)
        found = mem.search("zebra crossing warden", mode="dense", now=NOW, reinforce=False)
        assert found[0].id == "X"
        assert internals.namespace(mem).index.bm25.ids() == {r.id for r in mem.records()}
    with _open(folder) as mem:  # and again, from the index saved on close
        assert mem.get("X").text == "zebra crossing warden"


# ------------------------------------------------------------------------------ 3. closed
def _every_call(mem: CognitiveMemory) -> dict[str, Callable[[], object]]:
    return {
        "add": lambda: mem.add("after close", now=NOW),
        "write": lambda: mem.write("after close", now=NOW),
        "add_many": lambda: mem.add_many(["after", "close"], now=NOW),
        "write_many": lambda: mem.write_many(["after", "close"], now=NOW),
        "search": lambda: mem.search("harbour", now=NOW),
        "get": lambda: mem.get("X"),
        "history": lambda: mem.history("X"),
        "memories": mem.memories,
        "records": mem.records,
        "vectors": lambda: mem.vectors(["X"]),
        "count": mem.count,
        "len": lambda: len(mem),
        "namespaces": mem.namespaces,
        "delete": lambda: mem.delete("X"),
        "supersede": lambda: mem.supersede("X", "Y"),
        "reinforce": lambda: mem.reinforce(["X"], now=NOW),
        "consolidate": lambda: mem.consolidate(now=NOW),
        "maintain": lambda: mem.maintain(now=NOW),
        "purge_expired": lambda: mem.purge_expired(now=NOW),
        "clear": mem.clear,
        "flush": mem.flush,
        "asearch": lambda: asyncio.run(mem.asearch("harbour", now=NOW)),
        "aadd": lambda: asyncio.run(mem.aadd("after close", now=NOW)),
    }


@pytest.mark.parametrize("store", ["folder", "in-process"])
def test_every_call_on_a_closed_memory_raises_a_named_error(folder: Path, store: str) -> None:
    """Before: ``add`` returned an id (dropped when the journal was replayed), others raised
    ``StoreError: 'RustBindingsAPI' object has no attribute 'bindings'``."""
    mem = _open(folder) if store == "folder" else CognitiveMemory(embedder=HashingEmbedder(DIM))
    mem.add("harbour note", id="X", now=NOW)
    mem.add("harbour log", id="Y", now=NOW)
    mem.close()
    for name, call in _every_call(mem).items():
        with pytest.raises(StoreClosedError, match="closed"):
            call()
            pytest.fail(f"{name} returned on a closed memory")
    mem.close()  # still idempotent
    if store == "folder":
        with _open(folder) as again:
            assert sorted(r.id for r in again.records()) == ["X", "Y"]


def test_adds_racing_close_are_either_acknowledged_and_kept_or_refused(folder: Path) -> None:
    """Four threads add while the main thread closes: every id returned is in the store after
    reopening, every other call raised StoreClosedError (before: 64 adds were acknowledged
    after close() returned, and lost)."""
    mem = _open(folder)
    acked: list[str] = []
    refused: list[BaseException] = []
    started = threading.Barrier(5)
    enough = threading.Event()  # set inside the race: adds acknowledged, more coming

    def adder(n: int) -> None:
        started.wait()
        for i in range(400):
            try:
                acked.append(mem.add(f"thread {n} note {i}", now=NOW))
                if len(acked) >= 40:
                    enough.set()
            except StoreClosedError as exc:
                refused.append(exc)
                return

    threads = [threading.Thread(target=adder, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    started.wait()
    assert enough.wait(timeout=60)
    mem.close()
    for thread in threads:
        thread.join()
    assert len(refused) == 4  # each thread was refused once, and stopped
    with _open(folder) as again:
        assert {r.id for r in again.records()} == set(acked)


# ------------------------------------------------------------------------------ 4. dropped
def test_a_memory_dropped_without_close_hands_its_adds_to_the_next_opener(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``del mem`` released the folder lock but not the journal, so the next opener could not
    replay it and saw an empty store until the process exited."""
    mem = _open(folder)
    acked = [mem.add(f"harbour note {i}", now=NOW) for i in range(5)]
    with caplog.at_level(logging.WARNING, logger="cogmem"):
        del mem
        gc.collect()
    assert "dropped without close()" in caplog.text
    with _open(folder) as again:
        assert sorted(r.id for r in again.records()) == sorted(acked)
        assert again.search("harbour note 3", mode="lexical", now=NOW, reinforce=False)


def test_a_memory_dropped_in_a_process_that_lives_on_hides_nothing(folder: Path) -> None:
    child = start_python(
        "import gc, sys\n"
        "from datetime import datetime, timezone\n"
        "from cogmem import CognitiveMemory\n"
        "from cogmem.testing import HashingEmbedder\n"
        "now = datetime(2026, 6, 1, 12, tzinfo=timezone.utc)\n"
        f"mem = CognitiveMemory(path={str(folder)!r}, embedder=HashingEmbedder({DIM}))\n"
        "ids = [mem.add(f'harbour note {i}', now=now) for i in range(5)]\n"
        "del mem\n"
        "gc.collect()\n"
        "print(' '.join(ids), flush=True)\n"
        "sys.stdin.readline()\n"  # lives on until told
    )
    try:
        assert child.stdout is not None
        acked = child.stdout.readline().split()
        assert len(acked) == 5, child.stderr.read() if child.stderr else ""
        with _open(folder) as mem:
            assert sorted(r.id for r in mem.records()) == sorted(acked)
    finally:
        child.communicate("\n", timeout=60)


# ------------------------------------------------------------------------------ 5. both copies
def _both_copies(folder: Path) -> tuple[Path, Path]:
    (journal,) = index_dir(folder).glob("*.journal")
    return journal, mirror_path(journal)


def _frames(data: bytes) -> list[int]:
    """Where each frame of a journal starts (its magic; payloads are JSON, never holding it)."""
    return [i for i in range(len(data)) if data.startswith(b"CGJ2", i)]


def _lost(caplog: pytest.LogCaptureFixture) -> int:
    """How many acknowledged adds the ERROR records of the open said were lost."""
    return sum(getattr(r, "cogmem_lost", 0) for r in caplog.records if r.levelno >= logging.ERROR)


@pytest.mark.parametrize("cut", ["5 bytes", "one frame", "both deleted"])
def test_both_journal_copies_cut_or_deleted_is_a_reported_loss(
    folder: Path, cut: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: read as a shorter journal (a torn tail, or none), nothing logged, the journal
    deleted. Now the ledger beside it says how many adds it must hold: what falls short is
    reported by count, and the journal is kept aside."""
    acked = _acknowledge_and_die(folder, 6)
    for copy in _both_copies(folder):
        data = copy.read_bytes()
        if cut == "both deleted":
            copy.unlink()
        else:
            copy.write_bytes(data[:-5] if cut == "5 bytes" else data[: _frames(data)[-1]])
    expected_lost = 6 if cut == "both deleted" else 1
    with caplog.at_level(logging.ERROR, logger="cogmem"), _open(folder, read_only=True) as mem:
        assert len(mem.records()) == 6 - expected_lost
    assert _lost(caplog) == expected_lost  # a read-only open reports, and moves nothing
    assert list(index_dir(folder).glob("*.ledger"))
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="cogmem"), _open(folder) as mem:
        kept = {r.id for r in mem.records()}
    assert kept <= set(acked) and len(kept) == 6 - expected_lost
    assert _lost(caplog) == expected_lost and "are lost" in caplog.text
    assert list(index_dir(folder).glob("*.journal.damaged-*"))  # kept for a person to see
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="cogmem"), _open(folder) as mem:
        assert {r.id for r in mem.records()} == kept
    assert caplog.text == ""  # reported once


def test_damage_in_different_places_of_the_two_copies_loses_nothing_and_says_nothing(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: every frame was in one copy or the other, yet the journal was reported as a
    loss and set aside."""
    acked = _acknowledge_and_die(folder, 10)
    journal, mirror = _both_copies(folder)
    starts = _frames(journal.read_bytes())
    for copy, frame in ((journal, 2), (mirror, 7)):
        flip_bit(copy, (starts[frame] + starts[frame + 1]) // 2)
    with caplog.at_level(logging.WARNING, logger="cogmem"), _open(folder) as mem:
        assert sorted(r.id for r in mem.records()) == sorted(acked)
    assert caplog.text == ""
    assert not list(index_dir(folder).glob("*.journal*"))
    assert not list(index_dir(folder).glob("*.ledger"))


# ------------------------------------------------------------------------------ 6, 7. the reserve
RESERVE = CognitiveMemoryConfig(disk_reserve_mb=16.0)  # on a 32 MiB test disk


def test_a_small_add_below_the_reserve_is_refused_like_a_large_one(tmp_path: Path) -> None:
    """Before: with less free than the reserve, five add() calls succeeded (journal only)
    while add_many(64) and close() refused."""
    with small_disk(tmp_path, 32) as disk:
        store = disk.path / "store"
        with _open(store, config=RESERVE) as mem:
            mem.add("harbour note", id="a", now=NOW)
            filler = fill(disk, leave_bytes=8 * 2**20)
            for i in range(5):
                with pytest.raises(DiskFullError, match="reserve"):
                    mem.add(f"small note {i}", now=NOW)
            assert [r.id for r in mem.records()] == ["a"]
            filler.unlink()
            mem.add("small note after", id="b", now=NOW)
        with _open(store, config=RESERVE) as mem:
            assert sorted(r.id for r in mem.records()) == ["a", "b"]


def test_a_refused_write_many_with_a_restatement_stores_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One new item and one restatement below the reserve: before, DiskFullError was raised
    and the new item stayed stored ("could not take back 1 memories")."""
    with small_disk(tmp_path, 32) as disk:
        store = disk.path / "store"
        with _open(store, config=RESERVE) as mem:
            mem.add("The ferry to the island leaves at nine.", id="a", now=NOW)
            filler = fill(disk, leave_bytes=8 * 2**20)
            with caplog.at_level(logging.ERROR, logger="cogmem"), pytest.raises(DiskFullError):
                mem.write_many(
                    ["A new note about lighthouses.", "The ferry to the island leaves at nine."],
                    now=NOW,
                )
            assert [r.id for r in mem.records()] == ["a"]
            assert mem.get("a").access_count == 0
            assert "could not take back" not in caplog.text
            filler.unlink()
        with _open(store, config=RESERVE) as mem:
            assert [r.id for r in mem.records()] == ["a"]


def test_a_held_add_taken_back_leaves_its_journal_too(folder: Path) -> None:
    """A call that fails after its new memory was journaled takes it back from the journal:
    a crash then does not bring it back (before, only the index forgot it)."""
    _in_a_child_that_dies(
        folder,
        "from cogmem.errors import StoreError\n"
        "from cogmem.namespace import Namespace\n"
        "mem.add('The ferry to the island leaves at nine.', id='a', now=now)\n"
        "def refuse(self, records):\n"
        "    raise StoreError('refused for the test')\n"
        "Namespace.update = refuse\n"
        "try:\n"
        "    mem.write_many(['A new note about lighthouses.',\n"
        "                    'The ferry to the island leaves at nine.'], now=now)\n"
        "except StoreError:\n"
        "    pass\n"
        "else:\n"
        "    raise SystemExit('the write did not fail')\n"
        "assert [r.id for r in mem.records()] == ['a'], mem.records()",
    )
    with _open(folder) as mem:
        assert [r.id for r in mem.records()] == ["a"]


# ------------------------------------------------------------------------------ 8. chroma.sqlite3
@pytest.mark.parametrize("how", ["emptied", "deleted"])
def test_a_store_whose_chroma_file_is_gone_is_refused_and_its_index_kept(
    folder: Path, how: str
) -> None:
    """Before: it opened silently as an empty store, and the saved index (every record, with
    a valid digest) was overwritten on close."""
    with _open(folder) as mem:
        mem.add_many([f"harbour note {i}" for i in range(20)], now=NOW)
    saved = {p: p.read_bytes() for p in index_dir(folder).iterdir()}
    db = folder / "chroma.sqlite3"
    if how == "emptied":
        db.write_bytes(b"")
    else:
        db.unlink()
    for _ in range(2):
        with pytest.raises(StoreDamagedError, match=r"chroma\.sqlite3") as refused:
            _open(folder)
        assert refused.value.path == str(folder)
    assert {p: p.read_bytes() for p in index_dir(folder).iterdir()} == saved
    if how == "emptied":
        with pytest.raises(StoreDamagedError):
            _open(folder, read_only=True)


# ------------------------------------------------------------------------------ 9. the lock
@pytest.mark.parametrize("how", ["two bytes appended", "deleted"])
def test_the_lock_holds_whatever_is_done_to_the_files_beside_it(folder: Path, how: str) -> None:
    """Before: two bytes appended to the lock file refused every writer ('file is not a
    database') until someone deleted it, and a lock file deleted while held admitted a second
    writer."""
    with _open(folder) as mem:
        mem.add("harbour note", id="a", now=NOW)
        for path in folder.glob("cogmem.lock*"):
            if how == "deleted":
                path.unlink()
            else:
                path.write_bytes(path.read_bytes() + b"\x00\x01")
        assert second_writer(folder) == "refused"
        with pytest.raises(StoreLockedError):
            _open(folder)
    assert second_writer(folder) == "opened"
    with _open(folder) as mem:
        assert [r.id for r in mem.records()] == ["a"]


# ------------------------------------------------------------------------------ 2. failed writes
COMPACTION = "Error in compaction: Failed to apply logs to the metadata segment"


class Flaky:
    """A Chroma collection whose next call to ``method`` is applied and then raises
    ``said`` (or, with ``applied=False``, raises without being applied); ``reads_fail``:
    every ``get`` raises too, until turned off."""

    def __init__(self, collection: Any) -> None:
        self._inner = collection
        self.fail: dict[str, tuple[str, bool]] = {}
        self.reads_fail = False

    def __getattr__(self, name: str) -> Any:
        real = getattr(self._inner, name)
        if name == "get":

            def get(**kwargs: Any) -> Any:
                if self.reads_fail:
                    raise RuntimeError("Could not connect to tenant default_tenant")
                return real(**kwargs)

            return get
        if name not in self.fail:
            return real

        def call(**kwargs: Any) -> Any:
            said, applied = self.fail.pop(name)
            if applied:
                real(**kwargs)
            raise RuntimeError(said)

        return call


def _flaky(mem: CognitiveMemory) -> Flaky:
    store = internals.store(mem)
    flaky = Flaky(store.collection)
    store._collection = flaky
    return flaky


def _raw_ids(mem: CognitiveMemory) -> set[str]:
    collection = internals.store(mem, flush=False).collection
    return set(getattr(collection, "_inner", collection).get(include=[])["ids"])


def test_an_add_chroma_applied_then_raised_on_leaves_no_trace_and_a_retry_holds_its_text(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: Chroma held the failed call's records unknown to cogmem (its earlier batches
    too), and a retry of the same ids was acknowledged while Chroma kept the failed text."""
    monkeypatch.setattr(store_module, "_GET_BATCH", 40)  # three Chroma batches for 100
    with _open(folder) as mem:
        mem.add_many([f"harbour note {i}" for i in range(10)], now=NOW)
        flaky = _flaky(mem)
        before = _raw_ids(mem)
        flaky.fail["add"] = ("Chroma's server said 500", True)
        batch = [MemoryInput(text=f"first text {i}", id=f"b{i}") for i in range(100)]
        with pytest.raises(StoreError, match="500"):
            mem.add_many(batch, now=NOW)
        assert _raw_ids(mem) == before  # the first batches were taken back too
        assert mem.count() == 10
        retry = [MemoryInput(text=f"second text {i}", id=f"b{i}") for i in range(100)]
        mem.add_many(retry, now=NOW)
    with _open(folder) as mem:
        assert mem.count() == 110
        assert {mem.get(f"b{i}").text for i in (0, 50, 99)} == {
            "second text 0",
            "second text 50",
            "second text 99",
        }


def test_a_failed_compaction_stops_writes_until_reopened(folder: Path) -> None:
    """Before: Chroma's compaction error was not taken as unsafe, and later writes went on
    (with no reserve, a writer then hung inside Chroma)."""
    with _open(folder) as mem:
        mem.add_many([f"harbour note {i}" for i in range(70)], now=NOW)
        flaky = _flaky(mem)
        flaky.fail["add"] = (COMPACTION, True)
        with pytest.raises(StoreError, match="compact"):
            mem.add_many([f"more {i}" for i in range(70)], now=NOW)
        with pytest.raises(StoreError, match="close this store and open it again"):
            mem.add_many([f"again {i}" for i in range(70)], now=NOW)
        assert mem.count() == _raw_len(mem) == 70
    with _open(folder) as mem:
        assert mem.count() == 70
        mem.add("after reopening", now=NOW)
        assert mem.count() == 71


def test_a_failed_add_that_cannot_be_checked_refuses_writes_until_it_can(folder: Path) -> None:
    with _open(folder) as mem:
        mem.add_many([f"harbour note {i}" for i in range(70)], now=NOW)
        flaky = _flaky(mem)
        flaky.fail["add"] = ("connection reset", True)
        flaky.reads_fail = True
        with pytest.raises(StoreError, match="connection reset"):
            mem.add_many([f"more {i}" for i in range(70)], now=NOW)
        with pytest.raises(StoreError, match="tenant"):
            mem.delete(mem.records()[0].id)  # what the failed add left is not known yet
        assert mem.count() == 70
        flaky.reads_fail = False
        mem.add_many([f"later {i}" for i in range(70)], now=NOW)  # settled first
        assert mem.count() == _raw_len(mem) == 140


def _raw_len(mem: CognitiveMemory) -> int:
    return len(_raw_ids(mem))


def test_a_delete_chroma_applied_then_raised_on_is_done(folder: Path) -> None:
    """Before: the error was raised and the index kept a memory Chroma no longer held."""
    with _open(folder) as mem:
        mem.add_many([f"harbour note {i}" for i in range(70)], now=NOW)
        victim = mem.records()[0].id
        _flaky(mem).fail["delete"] = ("Chroma's server said 500", True)
        mem.delete(victim)
        with pytest.raises(MemoryNotFoundError):
            mem.get(victim)
        assert mem.count() == _raw_len(mem) == 69


def test_an_update_chroma_applied_then_raised_on_is_what_the_index_shows(folder: Path) -> None:
    with _open(folder) as mem:
        mem.add_many([f"harbour note {i}" for i in range(70)], now=NOW)
        old, new = (r.id for r in mem.records()[:2])
        _flaky(mem).fail["update"] = ("Chroma's server said 500", True)
        with pytest.raises(StoreError, match="500"):
            mem.supersede(old, new)
        assert mem.get(old).status == "superseded"  # as Chroma holds it
    with _open(folder) as mem:
        assert mem.get(old).status == "superseded"


def test_a_failed_add_left_in_doubt_by_a_dead_writer_is_taken_back_on_the_next_open(
    folder: Path,
) -> None:
    """A writer whose failed add Chroma applied, and that could not take it back (its deletes
    fail too), dies: the next open takes it back (noted beside the index), and still writes
    what the journal holds."""
    _in_a_child_that_dies(
        folder,
        "from tests.test_integrity_handles import Flaky, _flaky\n"
        "acked = [mem.add(f'held note {i}', now=now) for i in range(3)]\n"
        "flaky = _flaky(mem)\n"
        "flaky.fail['add'] = ('server said 500', True)\n"
        "flaky.fail['delete'] = ('server said 500', False)\n"
        "try:\n"
        "    mem.add_many([MemoryInput(text=f'failed {i}', id=f'f{i}') for i in range(70)],"
        " now=now)\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__)\n"
        "flaky.fail['delete'] = ('server said 500', False)\n"
        "try:\n"
        "    mem.add('one more', now=now)\n"  # refused: the failed add is not settled
        "except Exception as exc:\n"
        "    print(type(exc).__name__)\n"
        "print(' '.join(acked), flush=True)",
    )
    with _open(folder) as mem:
        ids = {r.id for r in mem.records()}
        assert not ids & {f"f{i}" for i in range(70)}
        assert len(ids) == 3 and all(mem.get(i).text.startswith("held note") for i in ids)
        assert _raw_len(mem) == 3
    assert not list(index_dir(folder).glob("*.doubt"))
