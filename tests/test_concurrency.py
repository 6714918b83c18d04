"""Threads on one :class:`CognitiveMemory`: adding, searching with reinforcement, reinforcing
and consolidating at once raise nothing, lose no write, and count every recall exactly (in
memory and, once flushed, in Chroma)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from cogmem import CognitiveMemory, CognitiveMemoryConfig, MemoryInput
from cogmem.testing import HashingEmbedder
from tests.conftest import NOW

LONG_AGO = NOW - timedelta(days=3000)
TOPICS = ["ferry", "marathon", "database", "garden", "violin", "telescope", "kayak", "pasta"]
ADDERS, PER_ADDER = 3, 40
SEARCHERS, SEARCHES = 3, 30
REINFORCERS, REINFORCES = 2, 30


def run_all(workers: list[Callable[[], None]]) -> list[BaseException]:
    """Start every worker at once (a barrier), join them all; returns what they raised."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(workers))

    def wrap(work: Callable[[], None]) -> None:
        try:
            barrier.wait()
            work()
        except BaseException as exc:  # reported to the test, not lost in a thread
            errors.append(exc)

    threads = [threading.Thread(target=wrap, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_threads_adding_searching_reinforcing_and_consolidating(tmp_path: Path) -> None:
    config = CognitiveMemoryConfig(reinforcement_flush_size=7)  # flushes race with the rest
    mem = CognitiveMemory(path=tmp_path / "store", embedder=HashingEmbedder(64), config=config)
    seeded = [
        MemoryInput(
            id=f"old-{t}-{k}",
            text=f"{topic} {topic} notes about the {topic} plan, part {k}",
            created_at=LONG_AGO,
        )
        for t, topic in enumerate(TOPICS)
        for k in range(4)
    ]
    mem.add_many(seeded, now=NOW)
    returned: Counter[str] = Counter()
    counted = threading.Lock()
    reports = []

    def adder(a: int) -> Callable[[], None]:
        def work() -> None:
            for k in range(PER_ADDER):
                mem.add(f"fresh note {a}-{k} on topic {TOPICS[k % 8]}", id=f"new-{a}-{k}", now=NOW)

        return work

    def searcher(s: int) -> Callable[[], None]:
        def work() -> None:
            for k in range(SEARCHES):
                found = mem.search(f"{TOPICS[(s + k) % 8]} notes", top_k=5, now=NOW)
                with counted:
                    returned.update(r.id for r in found)

        return work

    def reinforcer(r: int) -> Callable[[], None]:
        def work() -> None:
            for k in range(REINFORCES):
                target = f"old-{(r + k) % 8}-{k % 4}"
                mem.reinforce([target], now=NOW)
                with counted:
                    returned[target] += 1

        return work

    def consolidator() -> None:
        for _ in range(5):
            reports.append(mem.consolidate(now=NOW))

    workers = [adder(a) for a in range(ADDERS)]
    workers += [searcher(s) for s in range(SEARCHERS)]
    workers += [reinforcer(r) for r in range(REINFORCERS)]
    workers.append(consolidator)
    assert run_all(workers) == []

    summaries = {g.summary_id for report in reports for g in report.groups}
    added = {f"new-{a}-{k}" for a in range(ADDERS) for k in range(PER_ADDER)}
    held = {r.id for r in mem.records()}
    assert held == added | {m.id for m in seeded} | summaries  # no write lost, none extra
    assert mem.count() == len(seeded) + ADDERS * PER_ADDER + len(summaries)
    assert summaries, "consolidation never ran on faded memories"

    def check(memory: CognitiveMemory) -> None:
        for record in memory.records():
            if record.id in summaries:  # a summary starts from its group's largest count
                assert record.access_count >= returned[record.id]
            else:
                assert record.access_count == returned[record.id], record.id
            if record.status == "superseded":
                assert record.superseded_by in summaries

    check(mem)
    mem.close()
    reopened = CognitiveMemory(path=tmp_path / "store", embedder=HashingEmbedder(64))
    check(reopened)  # and in Chroma: every pending recall was written
    reopened.close()


def test_concurrent_supersede_and_recall_of_one_memory_keep_both(tmp_path: Path) -> None:
    """A status change and recalls of the same memory from many threads: the status and the
    exact number of recalls both survive (each write reads the current record under the lock)."""
    mem = CognitiveMemory(path=tmp_path / "store", embedder=HashingEmbedder(64))
    mem.add("the ferry leaves at nine", id="a", now=NOW)
    mem.add("the ferry now leaves at ten", id="b", now=NOW)
    recalls = 25

    def recall() -> None:
        for _ in range(recalls):
            mem.reinforce(["a"], now=NOW)

    def mark() -> None:
        for _ in range(recalls):
            mem.supersede("a", "b")
            mem.contradict("a", "b")

    assert run_all([recall, recall, mark]) == []
    record = mem.get("a")
    assert (record.status, record.access_count, record.contradicts) == ("superseded", 50, ("b",))
    mem.close()
    with CognitiveMemory(path=tmp_path / "store", embedder=HashingEmbedder(64)) as again:
        assert again.get("a").access_count == 50
