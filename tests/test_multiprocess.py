"""Many processes on one store: each sees the others' writes on its next read, and a
consolidation SIGKILLed midway is completed by the next run.

Catch-up: two real processes share one collection on a real Chroma server (``chroma run``).
The child is driven line by line over stdin (one JSON command per line, one JSON answer per
line), the parent holds its own :class:`CognitiveMemory`; after every add, update and delete
by one, the other's next search (dense and lexical), get and count reflect it, without reading
the whole collection again.

Crash: a child consolidates a persistent store and is SIGKILLed between writing the summaries
and marking the originals, or while Chroma writes the marks; the store reopened here holds no
memory that is superseded without its summary, and consolidating again at the same ``now``
completes exactly what an uninterrupted run does.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests import internals
from tests.test_crash import DEADLINE, DIM, NOW, ROOT, release

# --- catch-up between two processes on one server -------------------------------------------


def serve(port: int, collection: str) -> None:
    """The child: a CognitiveMemory on the server, driven by JSON commands on stdin."""
    from cogmem import CognitiveMemory, MemoryNotFoundError
    from cogmem.clients import http_client
    from cogmem.testing import HashingEmbedder

    mem = CognitiveMemory(
        client=http_client("127.0.0.1", port), collection=collection, embedder=HashingEmbedder(DIM)
    )
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd.pop("op")
        answer: Any
        if op == "add":
            answer = mem.add(cmd["text"], id=cmd["id"], now=NOW)
        elif op == "supersede":
            answer = mem.supersede(cmd["old"], cmd["new"]).status
        elif op == "reinforce":
            answer = mem.reinforce(cmd["ids"], now=NOW)[0].access_count
        elif op == "flush":
            answer = mem.flush()
        elif op == "delete":
            answer = mem.delete(cmd["id"])
        elif op == "search":
            found = mem.search(cmd["query"], mode=cmd["mode"], now=NOW, reinforce=False)
            answer = [r.id for r in found]
        elif op == "get":
            try:
                record = mem.get(cmd["id"])
                answer = [record.status, record.access_count]
            except MemoryNotFoundError:
                answer = None
        elif op == "count":
            answer = mem.count()
        elif op == "close":
            mem.close()
            print(json.dumps({"ok": None}), flush=True)
            return
        else:  # pragma: no cover - a typo in the test
            raise ValueError(op)
        print(json.dumps({"ok": answer}), flush=True)


class Child:
    """A :func:`serve` process and its pipes."""

    def __init__(self, port: int, collection: str) -> None:
        code = (
            f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'core')!r}]; "
            f"from tests.test_multiprocess import serve; serve({port}, {collection!r})"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self._read() == {"ready": True}

    def _read(self) -> Any:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(timeout=DEADLINE)
            err = self.process.stderr.read() if self.process.stderr is not None else ""
            raise AssertionError(f"child died: {err[-3000:]}")
        return json.loads(line)

    def __call__(self, op: str, **args: Any) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self.process.stdin.flush()
        return self._read()["ok"]

    def stop(self) -> None:
        if self.process.poll() is None:
            self("close")
            self.process.wait(timeout=DEADLINE)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)  # by pid: only the child we started
            self.process.wait()


TEXTS = {
    "a": "The harbour ferry leaves at nine every morning",
    "b": "Priya runs the half marathon in March",
    "c": "The billing database is backed up nightly",
}


@pytest.fixture
def pair(chroma_server: Any) -> Iterator[tuple[Any, Child]]:
    """This process's memory and a child's, on one collection of the session's server."""
    from cogmem import CognitiveMemory
    from cogmem.testing import HashingEmbedder

    name = f"mp-{uuid.uuid4().hex[:12]}"
    mem = CognitiveMemory(
        client=chroma_server.client(), collection=name, embedder=HashingEmbedder(DIM)
    )
    child = Child(chroma_server.port, name)
    try:
        yield mem, child
    finally:
        child.kill()
        mem.close()


def ids(results: list[Any]) -> list[str]:
    return [r.id for r in results]


@pytest.mark.server
def test_two_processes_see_each_others_adds_updates_and_deletes(pair: tuple[Any, Child]) -> None:
    mem, child = pair
    for key, text in TEXTS.items():
        mem.add(text, id=key, now=NOW)
    assert mem.count() == 3
    store = internals.store(mem, "default")
    assert store is not None

    def no_full_read(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("caught up by reading the whole collection")

    store.all_records = no_full_read  # from here on, only incremental catch-up is allowed

    # The child's add: in this process's next dense and lexical search, get and count.
    assert child("count") == 3  # the child sees the parent's adds
    child("add", id="z", text="zebracorn sightings near the lighthouse")
    for mode in ("lexical", "dense", "hybrid"):
        found = ids(mem.search("zebracorn lighthouse", mode=mode, now=NOW, reinforce=False))
        assert found[0] == "z", mode
    assert mem.get("z").text == "zebracorn sightings near the lighthouse"
    assert mem.count() == 4

    # The child's update (supersede): the parent's next search skips it, get shows it.
    assert child("supersede", old="z", new="a") == "superseded"
    assert "z" not in ids(mem.search("zebracorn", mode="lexical", now=NOW, reinforce=False))
    assert mem.get("z").status == "superseded"
    deep = mem.search("zebracorn", mode="lexical", deep_recall=True, now=NOW, reinforce=False)
    assert ids(deep)[0] == "z"

    # The parent's writes, in the child's next reads.
    mem.add("quokka photographed on the ferry deck", id="q", now=NOW)
    assert child("search", query="quokka", mode="lexical")[0] == "q"
    assert child("search", query="quokka photographed ferry deck", mode="dense")[0] == "q"
    mem.reinforce(["b"], now=NOW)
    mem.flush()  # reinforcement is written behind: flushed, it is visible
    assert child("get", id="b") == ["active", 1]

    # The child's delete: gone from the parent's dense and lexical results, get and count.
    child("delete", id="q")
    for mode in ("lexical", "dense"):
        assert "q" not in ids(mem.search("quokka ferry deck", mode=mode, now=NOW, reinforce=False))
    with pytest.raises(Exception, match="no memory with id 'q'"):
        mem.get("q")
    assert mem.count() == 4 == child("count")
    assert internals.namespace(mem, "default").index.bm25.ids() == {"a", "b", "c", "z"}

    # The parent's delete, in the child.
    mem.delete("c")
    assert child("get", id="c") is None
    assert child("count") == 3
    assert "c" not in child("search", query="billing database backed up", mode="lexical")


@pytest.mark.server
def test_an_id_another_process_deleted_and_added_again_is_caught_up_with_its_new_text(
    pair: tuple[Any, Child],
) -> None:
    """Same id, same count, a new text: caught up as a new memory (before: the old text,
    vector and postings were kept, as if a stored id's text never changed)."""
    from cogmem.testing import HashingEmbedder

    mem, child = pair
    for key, text in TEXTS.items():
        mem.add(text, id=key, now=NOW)
    mem.flush()
    assert mem.get("a").text == TEXTS["a"]
    child("delete", id="a")
    child("add", id="a", text="zebracorn sightings near the lighthouse")
    assert mem.count() == 3
    assert mem.get("a").text == "zebracorn sightings near the lighthouse"
    assert ids(mem.search("zebracorn", mode="lexical", now=NOW, reinforce=False)) == ["a"]
    assert not mem.search("harbour ferry", mode="lexical", now=NOW, reinforce=False)
    expected = HashingEmbedder(DIM).embed_documents(["zebracorn sightings near the lighthouse"])
    assert mem.vectors(["a"])["a"].tolist() == pytest.approx(expected[0], rel=1e-6)


@pytest.mark.server
def test_recalls_pending_in_one_process_survive_anothers_update(pair: tuple[Any, Child]) -> None:
    """A recall not yet written (write-behind) by the parent and a newer update by the child
    to the same memory: the parent keeps both, and writes both."""
    mem, child = pair
    for key, text in TEXTS.items():
        mem.add(text, id=key, now=NOW)
    mem.reinforce(["a", "a"], now=NOW)  # pending here (flush size 64): access_count 1
    mem.reinforce(["a"], now=NOW + timedelta(days=3))  # access_count 2, still pending
    assert child("reinforce", ids=["a"]) == 1  # the child read Chroma: 0 recalls, makes 1
    child("flush")
    child("supersede", old="a", new="b")  # and a newer status
    merged = mem.get("a")  # caught up: the child's status, this process's recalls kept
    assert (merged.status, merged.access_count) == ("superseded", 2)
    mem.flush()
    assert child("get", id="a") == ["superseded", 2]


@pytest.mark.server
def test_a_reopened_saved_index_catches_up_with_a_writer_that_kept_running(
    chroma_server: Any, tmp_path: Path
) -> None:
    """A saved index (index_dir) whose generation still matches Chroma, while another process
    that bumped the generation earlier keeps writing: the reopened index catches up anyway."""
    from cogmem import CognitiveMemory
    from cogmem.testing import HashingEmbedder

    name = f"mp-{uuid.uuid4().hex[:12]}"

    def open_memory() -> CognitiveMemory:
        return CognitiveMemory(
            client=chroma_server.client(),
            collection=name,
            embedder=HashingEmbedder(DIM),
            index_dir=tmp_path / "index",
        )

    mem = open_memory()
    child = Child(chroma_server.port, name)
    try:
        child("add", id="first", text="the child wrote this first")
        mem.add("the parent wrote this", id="p", now=NOW)  # bumps the generation last
        child("add", id="later", text="okapi grazing by the river")  # no new bump
        mem.close()  # saves the index with the current generation
        again = open_memory()
        try:
            assert again.count() == 3
            found = again.search("okapi river", mode="lexical", now=NOW, reinforce=False)
            assert ids(found)[0] == "later"
        finally:
            again.close()
    finally:
        child.kill()


# --- consolidation SIGKILLed midway ----------------------------------------------------------

GROUPS = 6  # groups of similar faded memories
PER_GROUP = 3
LONG_AGO = NOW - timedelta(days=3000)


def faded_items() -> list[dict[str, Any]]:
    """``GROUPS`` groups of near-identical old memories (faded: R < 0.2 at NOW)."""
    topics = ["ferry", "marathon", "database", "garden", "violin", "telescope"]
    return [
        {
            "id": f"g{g}-{k}",
            "text": f"{topics[g]} {topics[g]} notes about the {topics[g]} schedule and plan {k}",
            "created_at": LONG_AGO,
        }
        for g in range(GROUPS)
        for k in range(PER_GROUP)
    ]


def consolidate_child(path: str, kill_point: str) -> None:
    """Consolidate the store at ``path`` at NOW, dying at ``kill_point``."""
    import cogmem.store as store_module
    from cogmem import CognitiveMemory
    from cogmem.testing import HashingEmbedder

    def die() -> None:
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    real_update = store_module.ChromaStore.update

    def update(self: Any, memories: Any) -> int:
        marking = any(m.status == "superseded" for m in memories)
        if marking and kill_point == "before-marks":
            die()
        if marking:
            print("in-marks", flush=True)  # the parent may kill now
        stamp = real_update(self, memories)
        if marking and kill_point == "after-marks":
            die()
        return stamp

    store_module.ChromaStore.update = update  # type: ignore[method-assign]
    mem = CognitiveMemory(path=path, embedder=HashingEmbedder(DIM))
    print("ready", flush=True)
    report = mem.consolidate(now=NOW)
    print(f"groups {len(report.groups)}", flush=True)
    mem.close()


def run_consolidation(path: Path, kill_point: str, kill_at: str | None = None) -> int:
    code = (
        f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'core')!r}]; "
        "from tests.test_multiprocess import consolidate_child; "
        f"consolidate_child({str(path)!r}, {kill_point!r})"
    )
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
                os.kill(process.pid, signal.SIGKILL)
                break
        process.wait(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
    err = process.stderr.read() if process.stderr is not None else ""
    assert process.returncode in (0, -signal.SIGKILL), f"{lines}\n{err[-3000:]}"
    assert "ready" in lines, f"{lines}\n{err[-3000:]}"
    return process.returncode


@pytest.fixture(scope="module")
def faded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cogmem import CognitiveMemory, MemoryInput
    from cogmem.testing import HashingEmbedder

    path = tmp_path_factory.mktemp("consolidate") / "template"
    mem = CognitiveMemory(path=path, embedder=HashingEmbedder(DIM))
    mem.add_many([MemoryInput(**i) for i in faded_items()], now=NOW)
    mem.close()
    release(mem)
    return path


def state(path: Path) -> dict[str, Any]:
    """Every memory of the store at ``path`` (read from a fresh open), as comparable tuples."""
    from cogmem import CognitiveMemory
    from cogmem.testing import HashingEmbedder

    mem = CognitiveMemory(path=path, embedder=HashingEmbedder(DIM))
    try:
        records = {
            r.id: (r.status, r.superseded_by, tuple(sorted(r.links)), r.text) for r in mem.records()
        }
        assert mem.count() == len(records)
        return records
    finally:
        mem.close()
        release(mem)


def check_no_orphan(records: dict[str, Any]) -> None:
    """No memory is superseded without its summary (stored, linking back to it)."""
    for memory_id, (status, superseded_by, _, _) in records.items():
        if status == "superseded":
            assert superseded_by in records, f"{memory_id}: summary {superseded_by} missing"
            assert memory_id in records[superseded_by][2]


@pytest.fixture
def reference(faded_template: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What an uninterrupted consolidation leaves."""
    path = tmp_path_factory.mktemp("reference") / "store"
    shutil.copytree(faded_template, path)
    assert run_consolidation(path, "none") == 0
    done = state(path)
    summaries = [i for i in done if i not in {m["id"] for m in faded_items()}]
    assert len(summaries) == GROUPS
    assert all(done[m["id"]][0] == "superseded" for m in faded_items())
    return done


@pytest.mark.parametrize(
    ("kill_point", "kill_at"),
    [("before-marks", None), ("after-marks", None), ("none", "in-marks")],
)
def test_consolidation_sigkilled_midway_is_completed_by_the_next_run(
    faded_template: Path,
    tmp_path: Path,
    reference: dict[str, Any],
    kill_point: str,
    kill_at: str | None,
) -> None:
    path = tmp_path / "store"
    shutil.copytree(faded_template, path)
    assert run_consolidation(path, kill_point, kill_at) == -signal.SIGKILL
    after_crash = state(path)
    check_no_orphan(after_crash)
    originals = {m["id"] for m in faded_items()}
    assert originals <= set(after_crash)  # originals are never deleted
    summaries = set(after_crash) - originals
    assert len(summaries) == GROUPS  # written before any original was marked
    if kill_point == "before-marks":
        assert all(after_crash[i][0] == "active" for i in originals)
    if kill_point == "after-marks":
        assert all(after_crash[i][0] == "superseded" for i in originals)
    assert run_consolidation(path, "none") == 0  # the rerun completes it
    assert state(path) == reference
