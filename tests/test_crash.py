"""Crash safety: a process SIGKILLed in the middle of a large ``add_many`` loses no
acknowledged memory and leaves no half-written one.

A write touches Chroma first; the lexical index and the timeline are derived from it. Each test
copies one persistent store (written and closed cleanly, so a saved index exists), runs a real
child process that adds ``N`` more memories in several Chroma batches and is killed with SIGKILL
at one point, then reopens the store here and checks that every memory is either fully present
(text, metadata, embedding, lexical postings, nearest-neighbour index) or absent, that the
memories written before are all intact, and that search and further writes work.

Kill points: the child kills itself at exact places (through hooks it installs), or this process
kills it when the child reports it is about to enter a given Chroma ``add`` (the signal then
lands inside Chroma's own write, at a time the test does not choose).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests import internals

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
DIM = 64
BASE = 300  # memories written and closed cleanly before the crash
N = 1200  # memories of the add_many that is killed
BATCH = 400  # Chroma records per add call in the child (3 calls for N)
DEADLINE = 120  # seconds a child may take


# --- what is written (child and parent agree) ---------------------------------------------------


def item(i: int) -> dict[str, Any]:
    """Memory number ``i``: a unique token ``tokNNNNN`` in its text, tags and metadata."""
    return {
        "id": f"mem-{i:05d}",
        "text": f"tok{i:05d} note {i % 17} about the harbour ferry schedule, revision {i}",
        "memory_type": ("episodic", "semantic", "procedural")[i % 3],
        "tags": [f"t{i % 5}"],
        "metadata": {"n": i, "even": i % 2 == 0, "label": f"L{i % 7}"},
        "created_at": NOW - timedelta(minutes=i),
    }


def token(i: int) -> str:
    return f"tok{i:05d}"


# --- the child process ---------------------------------------------------------------------------


def child(path: str, start: int, count: int, kill_point: str) -> None:
    """Add memories ``start .. start+count-1`` to the store at ``path``, dying at
    ``kill_point`` (``none``: add and close cleanly)."""
    import cogmem.store as store_module
    from cogmem import CognitiveMemory, MemoryInput
    from cogmem.index import NamespaceIndex
    from cogmem.lexical import BM25Index
    from cogmem.testing import HashingEmbedder

    store_module._GET_BATCH = BATCH  # several Chroma add calls for one add_many

    def die() -> None:
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    mem = CognitiveMemory(path=path, embedder=HashingEmbedder(DIM))
    collection = internals.store(mem, "default").collection
    real_add = collection.add
    calls = {"add": 0}

    def add(**kwargs: Any) -> Any:
        calls["add"] += 1
        print(f"in-add {calls['add']}", flush=True)  # the parent may kill now
        if kill_point == "between-batches" and calls["add"] == 2:
            die()
        return real_add(**kwargs)

    collection.add = add
    if kill_point == "before-chroma":
        real_store_add = store_module.ChromaStore.add

        def store_add(self: Any, memories: Any, vectors: Any) -> Any:
            die()
            return real_store_add(self, memories, vectors)

        store_module.ChromaStore.add = store_add  # type: ignore[method-assign]
    elif kill_point == "after-chroma":

        def index_add(self: Any, records: Any, seqs: Any, *args: Any, **kwargs: Any) -> None:
            die()

        NamespaceIndex.add = index_add  # type: ignore[method-assign]
    elif kill_point == "mid-index":
        real_bm25_add = BM25Index.add_many

        def bm25_add(self: Any, items: Any) -> int:
            real_bm25_add(self, items)
            die()
            return 0

        BM25Index.add_many = bm25_add  # type: ignore[method-assign]
    elif kill_point == "mid-save":
        real_save = BM25Index.save

        def save(self: Any, target: Any, **kwargs: Any) -> bool:
            real_save(self, target, **kwargs)  # the BM25 file is new, the records file old
            die()
            return False

        BM25Index.save = save  # type: ignore[method-assign]

    items = [MemoryInput(**item(i)) for i in range(start, start + count)]
    print("ready", flush=True)
    mem.add_many(items, now=NOW)
    print("added", flush=True)
    if kill_point == "after-add":
        die()
    mem.close()
    print("closed", flush=True)


def run_child(
    path: Path, start: int, count: int, kill_point: str, kill_at: str | None = None
) -> int:
    """Run :func:`child`; with ``kill_at``, SIGKILL it when it prints that line. Returns its
    exit code (``-SIGKILL`` when it was killed)."""
    code = (
        "import sys; sys.path[:0] = [{root!r}, {core!r}]; "
        "from tests.test_crash import child; child({path!r}, {start}, {count}, {kill!r})"
    ).format(
        root=str(ROOT), core=str(ROOT / "core"), path=str(path), start=start, count=count,
        kill=kill_point,
    )  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.strip())
            if kill_at is not None and line.strip() == kill_at:
                os.kill(process.pid, signal.SIGKILL)  # by pid: only the child we started
                break
        process.wait(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
    stderr = process.stderr.read() if process.stderr is not None else ""
    assert process.returncode in (0, -signal.SIGKILL), f"child failed: {lines}\n{stderr[-3000:]}"
    assert "ready" in lines, f"child never started adding: {lines}\n{stderr[-3000:]}"
    return process.returncode


# --- checks --------------------------------------------------------------------------------------


def expected_vectors(numbers: list[int]) -> dict[str, Any]:
    from cogmem.testing import HashingEmbedder

    vectors = HashingEmbedder(DIM).embed([item(i)["text"] for i in numbers])
    return {item(i)["id"]: vectors[k] for k, i in enumerate(numbers)}


def check_store(path: Path, added: range) -> set[int]:
    """Reopen the store at ``path`` and check it; returns which of ``added`` are present.

    Every stored record must be whole; the base memories must all be there; the derived index
    must hold exactly what Chroma holds; search must find present memories and not absent ones.
    """
    from cogmem import CognitiveMemory
    from cogmem.chroma_layout import from_chroma
    from cogmem.testing import HashingEmbedder

    mem = CognitiveMemory(path=path, embedder=HashingEmbedder(DIM))
    try:
        store = internals.store(mem, "default")
        assert store is not None
        got = store.collection.get(include=["documents", "metadatas", "embeddings"])
        numbers = {int(i.split("-")[1]): k for k, i in enumerate(got["ids"])}
        assert set(numbers) <= set(range(BASE)) | set(added), "unknown records"
        assert set(range(BASE)) <= set(numbers), "a memory written before the crash is gone"
        vectors = expected_vectors(sorted(numbers))
        for i, k in numbers.items():  # every stored record is whole
            want = item(i)
            record = from_chroma(got["ids"][k], got["documents"][k], got["metadatas"][k])
            assert (record.text, record.memory_type, record.tags, record.created_at) == (
                want["text"],
                want["memory_type"],
                tuple(want["tags"]),
                want["created_at"],
            )
            assert dict(record.metadata) == want["metadata"]
            assert "seq" in got["metadatas"][k]
            assert np.allclose(got["embeddings"][k], vectors[want["id"]], atol=1e-6)
        index = internals.namespace(mem, "default").index
        held = set(got["ids"])
        assert set(index.records) == held and index.bm25.ids() == held
        assert mem.count() == len(held) == store.count()
        tokenizer = index.tokenizer
        present = {i for i in numbers if i in added}
        absent = [i for i in added if i not in present]
        # Lexical postings: each stored memory's unique token finds it, and only it.
        for i in sorted(numbers):
            scores = index.bm25.score(tokenizer(token(i)), [item(i)["id"]])
            assert scores.get(item(i)["id"], 0.0) > 0, f"no postings for {token(i)}"
        for i in absent[:: max(1, len(absent) // 20)]:
            assert index.bm25.search(tokenizer(token(i)), k=1) == []
        # Search end to end, and the nearest-neighbour index, on a sample.
        sample = sorted(present)[:: max(1, len(present) // 8)] + list(range(0, BASE, 100))
        for i in sample:
            wanted = item(i)["id"]
            results = mem.search(item(i)["text"], top_k=3, now=NOW, reinforce=False)
            assert results and results[0].id == wanted
            # HNSW is approximate and hashed vectors can nearly coincide: among the 5 nearest.
            nearest = dict(store.nearest(vectors[wanted], 5))
            assert nearest.get(wanted, 0.0) == pytest.approx(1.0, abs=1e-5)
        return present
    finally:
        mem.close()
        release(mem)


def release(mem: Any) -> None:
    """Let go of Chroma's per-folder client in this process, so that the next child writes to
    a store nobody here holds open (``close`` alone does not: see the report)."""
    mem._client.close()


# --- the tests -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding BASE memories, closed cleanly (Chroma and the saved index agree)."""
    path = tmp_path_factory.mktemp("crash") / "template"
    assert run_child(path, 0, BASE, "none") == 0
    assert list((path / "cogmem-index").rglob("*.records.pkl"))
    return path


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Iterator[Path]:
    copy = tmp_path / "store"
    shutil.copytree(template, copy)
    yield copy


ADDED = range(BASE, BASE + N)
FIRST_BATCH = set(range(BASE, BASE + BATCH))


@pytest.mark.parametrize(
    ("kill_point", "expected", "then_write"),
    [
        ("before-chroma", set(), True),  # generation bumped, nothing written
        ("between-batches", FIRST_BATCH, True),  # one Chroma add done, two to go
        ("after-chroma", set(ADDED), False),  # Chroma has all, the index none
        ("mid-index", set(ADDED), False),  # BM25 has them in memory, the records table not
        ("after-add", set(ADDED), False),  # add_many returned; never closed
        ("mid-save", set(ADDED), True),  # close: BM25 file saved, records file not
    ],
)
def test_sigkill_at_a_chosen_point(
    store: Path, kill_point: str, expected: set[int], then_write: bool
) -> None:
    assert run_child(store, BASE, N, kill_point) == -signal.SIGKILL
    assert check_store(store, ADDED) == expected
    if then_write:  # writing after the recovery works, and survives a clean close and reopen
        assert run_child(store, BASE + N, 50, "none") == 0
        later = set(range(BASE + N, BASE + N + 50))
        assert check_store(store, range(BASE, BASE + N + 50)) == expected | later


@pytest.mark.parametrize("during", [1, 3])
def test_sigkill_from_outside_during_a_chroma_write(store: Path, during: int) -> None:
    """The signal lands while Chroma writes batch ``during`` (when exactly is not chosen):
    whole batches before it are kept, each record is whole or absent."""
    code = run_child(store, BASE, N, "none", kill_at=f"in-add {during}")
    assert code == -signal.SIGKILL
    present = check_store(store, ADDED)
    done = set(range(BASE, BASE + (during - 1) * BATCH))  # the batches acknowledged before
    assert done <= present <= done | set(range(BASE + (during - 1) * BATCH, BASE + during * BATCH))


def test_a_closed_store_reopened_after_another_process_wrote_it(tmp_path: Path) -> None:
    from cogmem import CognitiveMemory, MemoryInput
    from cogmem.testing import HashingEmbedder

    path = tmp_path / "store"
    with CognitiveMemory(path=path, embedder=HashingEmbedder(DIM)) as mem:
        mem.add_many([MemoryInput(**item(i)) for i in range(100)], now=NOW)
    assert run_child(path, 100, 100, "none") == 0  # another process, after this one closed
    with CognitiveMemory(path=path, embedder=HashingEmbedder(DIM)) as mem:
        assert mem.count() == 200
        found = mem.search(item(150)["text"], top_k=1, now=NOW, reinforce=False)
        assert found[0].id == item(150)["id"]
