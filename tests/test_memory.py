"""CognitiveMemory end to end on real embedded Chroma (fast fake embedder; see test_integration
for the real model)."""

from __future__ import annotations

import asyncio
import math
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cogmem import (
    CogmemError,
    CognitiveMemory,
    CognitiveMemoryConfig,
    DuplicateIdError,
    InvalidInputError,
    InvalidTypeError,
    MemoryInput,
    MemoryNotFoundError,
    MemoryRecord,
    SearchResults,
    render,
)
from cogmem.chroma_layout import from_chroma
from cogmem.testing import HashingEmbedder
from tests import internals
from tests.conftest import NOW


def ids(results: list[Any]) -> list[str]:
    return [r.id for r in results]


def snapshot(mem: CognitiveMemory) -> dict[str, Any]:
    got = {}
    for ns in mem.namespaces():
        store = internals.store(mem, ns)
        assert store is not None
        raw = store.collection.get(include=["documents", "metadatas"])
        got[ns] = sorted(
            zip(raw["ids"], raw["documents"], [sorted(m.items()) for m in raw["metadatas"]])
        )
    return got


# --- writing -------------------------------------------------------------------------------------


def test_add_get_defaults_and_time_as_argument(mem: CognitiveMemory) -> None:
    mid = mem.add("User prefers dark mode", now=NOW)
    m = mem.get(mid)
    assert (m.text, m.memory_type, m.importance, m.confidence) == (
        "User prefers dark mode",
        "semantic",  # the default type "auto": a statement of how things are is a fact
        0.5,
        0.8,
    )
    assert mem.get(mem.add("I went to the gym yesterday.", now=NOW)).memory_type == "episodic"
    assert mem.get(mem.add("Mira: I live in Paris.", now=NOW)).memory_type == "episodic"
    assert m.stability == pytest.approx(0.25)
    assert m.created_at == NOW and m.last_accessed_at is None and m.access_count == 0
    assert m.status == "active" and m.namespace == "default"
    explicit = mem.add(
        "x",
        id="mine",
        memory_type="semantic",
        importance=1.0,
        tags=["ui"],
        created_at=NOW - timedelta(days=3),
        metadata={"k": 1},
        pinned=True,
        session_id="s1",
        now=NOW,
    )
    got = mem.get(explicit)
    assert explicit == "mine" and got.stability == pytest.approx(0.4) and got.tags == ("ui",)
    assert got.created_at == NOW - timedelta(days=3) and got.session_ids == ("s1",) and got.pinned
    assert len(mem) == 4


def test_add_many_accepts_strings_dicts_and_inputs(mem: CognitiveMemory) -> None:
    out = mem.add_many(
        ["a b", {"text": "c d", "id": "x"}, MemoryInput(text="e f", id="y")], now=NOW
    )
    assert out[1:] == ["x", "y"] and len(mem) == 3
    assert mem.add_many([], now=NOW) == []


@pytest.mark.parametrize(
    ("kwargs", "error", "needle"),
    [
        ({"text": ""}, InvalidInputError, "text"),
        ({"text": "   "}, InvalidInputError, "text"),
        ({"text": 42}, InvalidTypeError, "text"),
        ({"text": "ok", "importance": 1.5}, InvalidInputError, "importance"),
        ({"text": "ok", "importance": math.nan}, InvalidInputError, "importance"),
        ({"text": "ok", "importance": "high"}, InvalidTypeError, "importance"),
        ({"text": "ok", "confidence": -0.1}, InvalidInputError, "confidence"),
        ({"text": "ok", "memory_type": "dream"}, InvalidInputError, "memory_type"),
        ({"text": "ok", "created_at": datetime(2026, 1, 1)}, InvalidInputError, "naive"),
        ({"text": "ok", "tags": "ui"}, InvalidTypeError, "tags"),
        ({"text": "ok", "metadata": {"k": [1]}}, InvalidTypeError, "metadata"),
        ({"text": "ok", "metadata": {"k": math.inf}}, InvalidInputError, "metadata"),
        ({"text": "ok", "namespace": ""}, InvalidInputError, "namespace"),
        ({"text": "ok", "id": ""}, InvalidInputError, "id"),
    ],
)
def test_bad_input_is_named_and_stores_nothing(
    mem: CognitiveMemory, kwargs: dict[str, Any], error: type[Exception], needle: str
) -> None:
    mem.add("already here", id="keep", now=NOW)
    before = snapshot(mem)
    with pytest.raises(error, match=needle) as info:
        mem.add(**kwargs, now=NOW)
    assert isinstance(info.value, CogmemError)
    assert snapshot(mem) == before


def test_one_bad_item_in_add_many_stores_none(mem: CognitiveMemory) -> None:
    with pytest.raises(InvalidInputError, match="item 2"):
        mem.add_many(["fine", "also fine", {"text": "bad", "importance": 7}], now=NOW)
    assert len(mem) == 0


def test_duplicate_ids_are_refused_without_touching_the_original(mem: CognitiveMemory) -> None:
    mem.add("original", id="a", now=NOW)
    with pytest.raises(DuplicateIdError, match="a"):
        mem.add("impostor", id="a", now=NOW)
    with pytest.raises(DuplicateIdError):
        mem.add_many([{"text": "x", "id": "b"}, {"text": "y", "id": "b"}], now=NOW)
    assert mem.get("a").text == "original" and len(mem) == 1
    assert [r.text for r in mem.search("impostor", now=NOW, reinforce=False)] == ["original"]


def test_delete_forgets_everywhere(mem: CognitiveMemory) -> None:
    mid = mem.add("the wifi password is hunter2", now=NOW)
    mem.add("unrelated note about lunch", now=NOW)
    mem.delete(mid)
    with pytest.raises(MemoryNotFoundError):
        mem.get(mid)
    with pytest.raises(MemoryNotFoundError):
        mem.delete(mid)
    for mode in ("dense", "lexical", "hybrid"):
        assert mid not in ids(mem.search("wifi password", mode=mode, now=NOW, reinforce=False))


# --- searching -----------------------------------------------------------------------------------


def test_every_result_explains_its_score(mem: CognitiveMemory) -> None:
    mem.add_many(
        [
            "User prefers dark mode in the editor",
            "User likes tea",
            "Lunch is at noon",
            "Rain today",
        ],
        now=NOW - timedelta(days=2),
    )
    results = mem.search("dark mode", now=NOW, reinforce=False)
    assert results and results[0].text == "User prefers dark mode in the editor"
    for r in results:
        e = r.explanation
        expected = e.relevance * e.retention**e.alpha
        for factor in e.penalties.values():
            expected *= factor
        assert r.score == pytest.approx(expected)
        assert e.mode == "hybrid" and 0 <= e.relevance <= 1 and 0 < e.retention <= 1
        assert e.as_dict()["score"] == r.score
    top = results[0].explanation
    assert top.dense_rank == 1 and top.lexical_rank == 1 and top.bm25 is not None and top.bm25 > 0
    assert "score" in str(top)


def test_modes(mem: CognitiveMemory) -> None:
    mem.add_many(["alpha beta", "gamma delta", "beta gamma"], now=NOW)
    dense = mem.search("beta", mode="dense", now=NOW, reinforce=False)
    lexical = mem.search("beta", mode="lexical", now=NOW, reinforce=False)
    assert all(r.explanation.lexical_rank is None and r.explanation.bm25 is None for r in dense)
    found = [r for r in lexical if r.explanation.via == "search"]
    assert {r.text for r in found} == {"alpha beta", "beta gamma"}
    assert all(r.explanation.dense_rank is None for r in lexical)
    with pytest.raises(InvalidInputError, match="mode"):
        mem.search("beta", mode="semantic", now=NOW)


def test_lexical_only_hits_are_kept(embedder: HashingEmbedder) -> None:
    cfg = CognitiveMemoryConfig(k_dense=1, context_spread=0.0)
    with CognitiveMemory(embedder=embedder, config=cfg) as mem:
        mem.add_many(
            [
                "apple apple apple apple pie",
                "banana split with code QZ9",
                "filler one",
                "filler two",
            ],
            now=NOW,
        )
        results = mem.search("apple apple apple QZ9", now=NOW, reinforce=False)
        assert results[0].text == "apple apple apple apple pie"
        hit = next(r for r in results if "QZ9" in r.text)
        assert hit.explanation.dense_rank is None and hit.explanation.lexical_rank is not None


def test_top_k_budget_and_min_score(mem: CognitiveMemory) -> None:
    mem.add_many(
        ["cat " + "long " * 80, "cat short", "cat tiny", "cat small note"],
        now=NOW,
    )
    all_hits = mem.search("cat", now=NOW, reinforce=False, top_k=10)
    assert len(all_hits) == 4
    assert len(mem.search("cat", now=NOW, reinforce=False, top_k=2)) == 2
    packed = mem.search("cat", now=NOW, reinforce=False, token_budget=10)
    assert sum(math.ceil(len(r.text) / 4) for r in packed) <= 10
    assert all("long" not in r.text for r in packed) and len(packed) == 3  # skipped, next tried
    scores = [r.score for r in all_hits]
    cut = (scores[1] + scores[2]) / 2 if scores[1] > scores[2] else scores[0]
    kept = mem.search("cat", now=NOW, reinforce=False, min_score=cut)
    assert [r.id for r in kept] == [r.id for r in all_hits if r.score >= cut] and kept
    with pytest.raises(InvalidInputError, match="top_k"):
        mem.search("cat", top_k=0, now=NOW)
    with pytest.raises(InvalidTypeError, match="top_k"):
        mem.search("cat", top_k="3", now=NOW)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="query"):
        mem.search("", now=NOW)
    with pytest.raises(InvalidInputError, match="naive"):
        mem.search("cat", now=datetime(2026, 1, 1))


def test_reinforce_false_leaves_the_store_unchanged(mem: CognitiveMemory) -> None:
    mem.add_many(["the launch is on Friday", "the budget is 10k"], now=NOW - timedelta(days=20))
    mem.flush()
    before = snapshot(mem)
    mem.search("launch", now=NOW, reinforce=False)
    mem.flush()  # recalls are written behind: only a flush shows what a search wrote
    assert snapshot(mem) == before
    mem.search("launch", now=NOW)  # the control: a reinforcing search does change it
    mem.flush()
    assert snapshot(mem) != before


def test_search_reinforces_what_it_returns(mem: CognitiveMemory) -> None:
    mid = mem.add("the launch is on Friday", created_at=NOW - timedelta(days=21), now=NOW)
    other = mem.add("the budget is ten thousand", created_at=NOW - timedelta(days=21), now=NOW)
    results = mem.search("launch Friday", top_k=1, now=NOW, session_id="s9")
    assert ids(results) == [mid]
    assert results[0].memory.access_count == 0  # the record as it was when scored
    m = mem.get(mid)
    assert m.access_count == 1 and m.last_accessed_at == NOW and m.session_ids == ("s9",)
    assert m.stability == pytest.approx(0.25 + 0.1 * 2)
    assert mem.get(other).access_count == 0
    # reinforced memories are retained better later on
    later = NOW + timedelta(days=30)
    assert (
        mem.search("launch Friday", top_k=1, now=later, reinforce=False)[0].explanation.retention
        > 0.2
    )


def test_decay_reorders_equally_relevant_facts(mem: CognitiveMemory) -> None:
    old = mem.add(
        "the office door code is 1234",
        memory_type="semantic",
        created_at=NOW - timedelta(days=200),
        now=NOW,
    )
    new = mem.add(
        "the office door code is 5678",
        memory_type="semantic",
        created_at=NOW - timedelta(days=2),
        now=NOW,
    )
    results = mem.search("office door code", now=NOW, reinforce=False)
    assert ids(results)[:2] == [new, old]
    assert results[1].explanation.newer_version_id == new
    assert results[1].score < results[0].score
    assert results[1].explanation.decay_factor < results[0].explanation.decay_factor
    # Without decay, the same two memories score by relevance alone: nothing is discounted.
    no_decay = CognitiveMemoryConfig(
        retrieval_score_exponent=0.0, version_exponent=0.0, version_margin=None
    )
    with CognitiveMemory(embedder=HashingEmbedder(), config=no_decay) as flat:
        for record in mem.records():
            flat.restore([record], mem.vectors([record.id]).values())
        plain = flat.search("office door code", now=NOW, reinforce=False)
        assert all(r.explanation.decay_factor == 1.0 for r in plain)
        assert all(r.score == pytest.approx(r.explanation.relevance) for r in plain)


def test_namespaces_are_isolated(mem: CognitiveMemory) -> None:
    mem.add("alice likes green tea", namespace="alice", now=NOW)
    mem.add("bob likes black coffee", namespace="bob", now=NOW)
    assert [r.text for r in mem.search("likes", namespace="alice", now=NOW, reinforce=False)] == [
        "alice likes green tea"
    ]
    assert mem.search("likes", namespace="carol", now=NOW) == []
    assert mem.search("likes", now=NOW) == []  # the default namespace is empty
    assert mem.count("alice") == 1 and len(mem) == 2
    assert set(mem.namespaces()) >= {"alice", "bob"}
    with pytest.raises(MemoryNotFoundError):
        mem.get(mem.search("likes", namespace="bob", now=NOW)[0].id)  # wrong namespace


def test_filters(mem: CognitiveMemory) -> None:
    mem.add(
        "deploy with make release",
        memory_type="procedural",
        tags=["ops"],
        metadata={"team": "core", "prio": 2},
        now=NOW,
    )
    mem.add(
        "deploy notes from the retro",
        tags=["ops", "retro"],
        metadata={"team": "web", "prio": 5},
        created_at=NOW - timedelta(days=40),
        now=NOW,
    )
    mem.add("deploy day was sunny", metadata={"team": "core", "prio": 1}, now=NOW)

    def texts(filters: dict[str, Any], mode: str = "hybrid") -> set[str]:
        return {
            r.text
            for r in mem.search("deploy", filters=filters, mode=mode, now=NOW, reinforce=False)
        }

    for mode in ("dense", "lexical", "hybrid"):
        assert texts({"memory_type": "procedural"}, mode) == {"deploy with make release"}
        assert texts({"tags": ["ops", "retro"]}, mode) == {"deploy notes from the retro"}
        assert texts({"team": "core"}, mode) == {"deploy with make release", "deploy day was sunny"}
        assert texts({"prio": {"$gte": 2}}, mode) == {
            "deploy with make release",
            "deploy notes from the retro",
        }
        assert texts({"created_after": NOW - timedelta(days=1)}, mode) == {
            "deploy with make release",
            "deploy day was sunny",
        }
    with pytest.raises(InvalidInputError, match="operator"):
        mem.search("deploy", filters={"prio": {"$like": 1}}, now=NOW)


def test_deep_recall_returns_superseded_with_penalty(mem: CognitiveMemory) -> None:
    mid = mem.add("the API key rotates monthly", memory_type="semantic", now=NOW)
    new = mem.add("keys now rotate every week", memory_type="semantic", now=NOW)
    old = mem.supersede(mid, new)
    assert old.status == "superseded" and old.superseded_by == new and mem.get(mid) == old
    assert mid not in ids(mem.search("API key rotates monthly", now=NOW, reinforce=False))
    deep = mem.search("API key rotates monthly", now=NOW, reinforce=False, deep_recall=True)
    hit = next(r for r in deep if r.id == mid)
    assert hit.explanation.penalties["deep_recall"] == pytest.approx(0.5**0.3)  # a fact: α 0.3
    assert new in ids(deep)  # a newer version is not a summary: both are shown
    with pytest.raises(MemoryNotFoundError):
        mem.supersede(mid, "nope")
    with pytest.raises(InvalidInputError):
        mem.supersede(mid, mid)


def test_temporal_context_brings_the_answer_turn(embedder: HashingEmbedder) -> None:
    with CognitiveMemory(embedder=embedder) as mem:
        day = NOW - timedelta(days=10)
        mem.add_many(
            [
                MemoryInput(text="Mel: did you ever go to the pottery workshop?", created_at=day),
                MemoryInput(text="Caro: yes, last Saturday, I made a blue bowl", created_at=day),
                MemoryInput(text="Mel: lovely", created_at=day),
                MemoryInput(
                    text="Caro: unrelated chat about the weather",
                    created_at=day - timedelta(days=30),
                ),
            ],
            now=NOW,
        )
        results = mem.search("pottery workshop", now=NOW, reinforce=False)
        by_text = {r.text: r for r in results}
        answer = by_text["Caro: yes, last Saturday, I made a blue bowl"]
        assert answer.explanation.via == "context"
        assert answer.explanation.relevance == pytest.approx(0.8 * results[0].explanation.fused)
        assert (
            "Caro: unrelated chat about the weather" not in by_text
            or by_text["Caro: unrelated chat about the weather"].explanation.via == "search"
        )


# --- persistence and the derived index -----------------------------------------------------------

HISTORY = [
    ("the billing service uses PostgreSQL", 200),
    ("the billing service moved to CockroachDB", 5),
    ("Priya runs the half marathon in March", 60),
    ("deploy with make release then approve in ArgoCD", 30),
]


def fill(mem: CognitiveMemory) -> None:
    mem.add_many(
        [
            MemoryInput(
                text=t, memory_type="semantic", created_at=NOW - timedelta(days=d), id=f"m{i}"
            )
            for i, (t, d) in enumerate(HISTORY)
        ],
        now=NOW,
    )


def searches(mem: CognitiveMemory) -> list[list[tuple[str, float]]]:
    return [
        [(r.id, round(r.score, 9)) for r in mem.search(q, now=NOW, reinforce=False)]
        for q in ("billing database", "marathon", "how to deploy")
    ]


def same_results(got: list[list[tuple[str, float]]], want: list[list[tuple[str, float]]]) -> bool:
    """The same ids in the same order, the same scores up to float32 rounding (adds still held
    are scanned exactly; once in Chroma, its normalised copies give cosines ~1e-7 apart)."""
    return [[i for i, _ in r] for r in got] == [[i for i, _ in r] for r in want] and all(
        a == pytest.approx(b, abs=1e-6) for g, w in zip(got, want) for (_, a), (_, b) in zip(g, w)
    )


def test_reopening_a_persistent_store_gives_the_same_results(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        fill(mem)
        before = searches(mem)
    assert list((tmp_path / "cogmem-index").rglob("*.bm25.npz"))
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        assert len(mem) == 4
        assert same_results(searches(mem), before)


def test_chromas_query_and_the_exact_scan_find_the_same(
    tmp_path: Path, embedder: HashingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A namespace past ``EXACT_SCAN`` is searched through Chroma's HNSW query, with its held
    adds scanned beside it: on a small store both paths give the same results."""
    from cogmem.store import ChromaStore

    found: list[list[list[tuple[str, float]]]] = []
    for exact_scan in (16_000, 0):  # a namespace's path is chosen when it is opened
        monkeypatch.setattr("cogmem.namespace.EXACT_SCAN", exact_scan)
        queried = count_calls(monkeypatch, ChromaStore, "nearest_many")
        with CognitiveMemory(path=tmp_path / str(exact_scan), embedder=embedder) as mem:
            fill(mem)
            internals.namespace(mem).write_held()  # in Chroma
            mem.add("The billing database moved to Postgres 16.", id="held", now=NOW)
            assert internals.namespace(mem).held_ids
            found.append(searches(mem))
        assert bool(queried) == (exact_scan == 0)
    assert same_results(found[1], found[0])


def count_calls(monkeypatch: pytest.MonkeyPatch, owner: type, name: str) -> list[object]:
    """Count the calls of ``owner.name`` from now on (still made)."""
    calls: list[object] = []
    real = getattr(owner, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_the_exact_scan_kept_across_adds_equals_a_scan_read_afresh(
    embedder: HashingEmbedder,
) -> None:
    """The scan keeps its unit vectors and appends only the rows added since (its buffer
    grows past 64, then by half): after every add it finds what a scan of every vector read
    afresh finds."""
    from cogmem.scan import ExactScan

    with CognitiveMemory(embedder=embedder) as mem:
        query = embedder.embed(["ferry timetable notes"])
        for step in range(12):
            mem.add_many(
                [f"note {step}-{i} about ferry timetable {i * step}" for i in range(step * 7)],
                now=NOW,
            )
            ns = internals.namespace(mem)
            kept = ns.nearest(query, 10)
            assert kept == ExactScan().nearest(ns.index, ns.vectors, query, 10)


def test_the_scan_without_blas_finds_what_the_scan_through_blas_finds() -> None:
    """Write-time dedup scans with numpy's own loop (no BLAS threads to wait for while the
    texts are parsed): the same neighbours, in the same order, at the same cosines."""
    from cogmem.scan import top_k, unit_rows

    rng = np.random.default_rng(7)
    units = unit_rows(rng.standard_normal((3000, 384)).astype(np.float32))
    ids = [f"m{i}" for i in range(3000)]
    queries = rng.standard_normal((4, 384)).astype(np.float32)
    through_blas = top_k(ids, units, queries, 8)
    without = top_k(ids, units, queries, 8, blas=False)
    assert [[i for i, _ in row] for row in without] == [[i for i, _ in row] for row in through_blas]
    for ours, theirs in zip(without, through_blas, strict=True):
        assert [c for _, c in ours] == pytest.approx([c for _, c in theirs], abs=1e-5)


def test_a_corrupt_index_file_is_rebuilt_from_chroma(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        fill(mem)
        before = searches(mem)
    for f in (tmp_path / "cogmem-index").rglob("*.npz"):
        f.write_bytes(b"garbage")
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        assert same_results(searches(mem), before)


def test_a_crash_between_the_two_writes_is_reconciled(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    """Chroma got a write the saved index never saw (the process died in between), and the
    index holds a memory Chroma no longer has: reopening reconciles both ways."""
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        fill(mem)
    with CognitiveMemory(
        path=tmp_path, embedder=embedder, index_dir=tmp_path / "elsewhere"
    ) as other:
        other.add("the zebra gate code is XK-42", id="late", now=NOW)  # index saved elsewhere
        other.delete("m2")
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        assert [r.id for r in mem.search("XK-42", mode="lexical", now=NOW, reinforce=False)] == [
            "late"
        ]
        assert "m2" not in ids(mem.search("marathon", mode="lexical", now=NOW, reinforce=False))


def test_two_in_process_memories_never_share_data(embedder: HashingEmbedder) -> None:
    with CognitiveMemory(embedder=embedder) as a, CognitiveMemory(embedder=embedder) as b:
        a.add("only in a", now=NOW)
        assert len(a) == 1 and len(b) == 0


def test_constructor_errors(tmp_path: Path, embedder: HashingEmbedder) -> None:
    with pytest.raises(InvalidInputError, match="path"):
        CognitiveMemory(path=tmp_path, client=object(), embedder=embedder)
    with pytest.raises(InvalidTypeError, match="config"):
        CognitiveMemory(embedder=embedder, config={"top_k": 3})  # type: ignore[arg-type]


def raw_access_count(mem: CognitiveMemory, memory_id: str) -> int:
    store = internals.store(mem, "default")
    assert store is not None
    got = store.collection.get(ids=[memory_id], include=["documents", "metadatas"])
    return from_chroma(memory_id, got["documents"][0], got["metadatas"][0]).access_count


def test_reinforcement_is_written_behind_and_kept_on_close(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    cfg = CognitiveMemoryConfig(reinforcement_flush_size=3)
    with CognitiveMemory(path=tmp_path, embedder=embedder, config=cfg) as mem:
        a, b, c, d = mem.add_many(
            ["launch on Friday", "budget is ten", "lunch at noon", "zebra gate"], now=NOW
        )
        mem.flush()  # the adds are in Chroma: what follows is the reinforcements' timing
        mem.search("launch Friday", top_k=1, now=NOW)
        mem.search("launch Friday", top_k=1, now=NOW + timedelta(days=1))
        assert mem.get(a).access_count == 2  # this process sees every recall at once
        assert raw_access_count(mem, a) == 0  # Chroma gets them in batches of 3 memories
        mem.search("budget ten", top_k=1, now=NOW)
        mem.search("lunch noon", top_k=1, now=NOW)
        assert [raw_access_count(mem, m) for m in (a, b, c)] == [2, 1, 1]
        mem.search("zebra gate", top_k=1, now=NOW)
        assert raw_access_count(mem, d) == 0
    with CognitiveMemory(path=tmp_path, embedder=embedder, config=cfg) as mem:
        assert mem.get(d).access_count == 1  # close wrote the rest


def test_a_process_that_never_closes_loses_no_memory(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        fill(mem)  # saved on close
    crashed = CognitiveMemory(path=tmp_path, embedder=embedder)
    crashed.add("the zebra gate code is XK-42", id="late", now=NOW)
    crashed.delete("m1")
    del crashed  # no close: the saved index is now behind Chroma
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        assert ids(mem.search("XK-42", mode="lexical", now=NOW, reinforce=False)) == ["late"]
        assert "m1" not in ids(mem.search("CockroachDB", mode="lexical", now=NOW, reinforce=False))
        assert mem.count() == 4


def test_list_reinforce_and_clear(mem: CognitiveMemory) -> None:
    a = mem.add("first", tags=["x"], created_at=NOW - timedelta(days=2), now=NOW)
    b = mem.add("second", created_at=NOW - timedelta(days=1), now=NOW)
    mem.add("elsewhere", namespace="other", now=NOW)
    assert [m.id for m in mem.memories()] == [b, a]
    assert [m.id for m in mem.memories(filters={"tags": ["x"]})] == [a]
    assert mem.memories(namespace="nobody") == []
    before = snapshot(mem)
    (ra,) = mem.reinforce([a], now=NOW, session_id="s1")
    assert ra.access_count == 1 and mem.get(a) == ra and ra.session_ids == ("s1",)
    with pytest.raises(MemoryNotFoundError):
        mem.reinforce([a, "missing"], now=NOW)
    assert mem.get(a).access_count == 1
    assert snapshot(mem) == before  # written behind: Chroma catches up on flush
    mem.flush()
    assert snapshot(mem) != before
    assert mem.clear() == 2 and mem.memories() == [] and mem.count("other") == 1


def test_async_twins_do_what_their_sync_methods_do(mem: CognitiveMemory) -> None:
    async def scenario() -> None:
        first = await mem.aadd("The launch moved to Friday", now=NOW, memory_type="semantic")
        more = await mem.aadd_many(["Budget is ten thousand", "Lunch at noon"], now=NOW)
        found = await asyncio.gather(
            mem.asearch("launch Friday", top_k=1, now=NOW, reinforce=False),
            mem.asearch("budget", top_k=1, now=NOW, reinforce=False),
        )
        assert [r[0].memory.id for r in found] == [first, more[0]]
        (again,) = await mem.areinforce([first], now=NOW + timedelta(days=2))
        assert again.access_count == 1
        assert (await mem.aget(first)).access_count == 1
        await mem.adelete(more[1])
        with pytest.raises(MemoryNotFoundError):
            await mem.aget(more[1])
        with pytest.raises(InvalidInputError, match="query"):
            await mem.asearch("   ", now=NOW)

    asyncio.run(scenario())


def test_restore_keeps_every_field_and_vector(embedder: HashingEmbedder) -> None:
    source = CognitiveMemory(embedder=embedder)
    a = source.add(
        "launch on Friday",
        memory_type="semantic",
        tags=["work"],
        now=NOW,
        metadata={"project": "x"},
        namespace="team",
    )
    b = source.add("launch moved to Monday", memory_type="semantic", now=NOW, namespace="team")
    source.search("launch", namespace="team", now=NOW + timedelta(days=3), session_id="s9")
    source.supersede(a, b, namespace="team")
    originals = source.memories(namespace="team", deep_recall=True)
    store = internals.store(source, "team")
    assert store is not None
    vectors = store.vectors([r.id for r in originals])
    target = CognitiveMemory(embedder=embedder)
    assert target.restore(originals, [vectors[r.id] for r in originals]) == [
        r.id for r in originals
    ]
    assert target.memories(namespace="team", deep_recall=True) == originals
    restored = internals.store(target, "team")
    assert restored is not None
    again = restored.vectors([a, b])
    assert all(np.allclose(again[i], vectors[i]) for i in (a, b))
    with pytest.raises(DuplicateIdError):
        target.restore(originals[:1])
    assert len(target.memories(namespace="team", deep_recall=True)) == 2


def test_restore_refuses_bad_records_and_vectors_storing_nothing(
    mem: CognitiveMemory,
) -> None:
    good = MemoryRecord(id="g", text="kept", created_at=NOW)
    cases = [
        ([good, "not a record"], None, InvalidTypeError, "record 1"),
        ([replace(good, importance=2.0)], None, InvalidInputError, "importance"),
        ([replace(good, status="lost")], None, InvalidInputError, "status"),
        ([replace(good, created_at=datetime(2026, 1, 1))], None, InvalidInputError, "naive"),
        ([good], [[0.1, 0.2], [0.3, 0.4]], InvalidInputError, "2 vectors for 1"),
        ([good], [[math.nan] * 64], InvalidInputError, "NaN"),
    ]
    for records, vectors, error, message in cases:
        with pytest.raises(error, match=message):
            mem.restore(records, vectors)
    assert len(mem) == 0


def test_records_and_vectors_read_every_status_in_formation_order(
    mem: CognitiveMemory, embedder: HashingEmbedder
) -> None:
    later = mem.add("second thing", now=NOW + timedelta(hours=1), id="b")
    first = mem.add("first thing", now=NOW, id="a")
    mem.supersede(first, later)
    assert [r.id for r in mem.records()] == ["a", "b"]
    assert mem.records()[0].status == "superseded"
    got = mem.vectors(["a", "b"])
    assert np.allclose(got["a"], embedder.embed_query("first thing"), atol=1e-6)
    with pytest.raises(MemoryNotFoundError, match="zzz"):
        mem.vectors(["a", "zzz"])
    assert mem.records("nobody") == []


def test_add_many_shows_progress_when_asked_and_stores_the_same(
    embedder: HashingEmbedder, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = [f"memory number {i} about topic {i % 7}" for i in range(600)]
    with CognitiveMemory(
        embedder=embedder, config=CognitiveMemoryConfig(dedup_threshold=None)
    ) as a:
        quiet = a.add_many(texts, now=NOW, progress=False)
        assert capsys.readouterr().err == ""
        stored_quietly = [r.text for r in a.records()]
    with CognitiveMemory(
        embedder=embedder, config=CognitiveMemoryConfig(dedup_threshold=None)
    ) as b:
        shown = b.add_many(texts, now=NOW, progress=True)
        err = capsys.readouterr().err
        assert "embedding" in err and "600/600" in err
        assert len(quiet) == len(shown) == 600
        assert stored_quietly == [r.text for r in b.records()]
        assert np.allclose(b.vectors(shown[:3])[shown[0]], embedder.embed_query(texts[0]))


def test_a_misnamed_argument_or_field_names_the_one_meant(mem: CognitiveMemory) -> None:
    """Before: ``search(k=3)`` was a plain TypeError, ``add(type=...)`` listed only the
    wrong field."""
    with pytest.raises(InvalidTypeError, match=r"'k' \(did you mean 'top_k'\?\)"):
        mem.search("x", k=3)  # type: ignore[call-arg]
    with pytest.raises(InvalidTypeError, match=r"'limit' \(did you mean 'top_k'\?\)"):
        mem.search("x", limit=3)  # type: ignore[call-arg]
    with pytest.raises(InvalidInputError, match=r"'type' \(did you mean 'memory_type'\?\)"):
        mem.add("x", type="semantic")  # type: ignore[call-arg]
    with pytest.raises(InvalidInputError, match=r"'user_id' \(did you mean 'namespace'\?\).*tags"):
        mem.add("x", user_id="ana")  # type: ignore[call-arg]
    assert mem.count() == 0


class _Fixed:
    """An embedder with a vector chosen per text; any other text (a phrase the version
    reading embeds) points another way."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self._vectors = vectors

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vectors.get(t, [0.0, 1.0, 0.0]) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vectors.get(text, [0.0, 1.0, 0.0])


def test_a_memory_nothing_ties_to_the_query_is_not_returned() -> None:
    """Before: in a small store the dense list held everything, and a memory with no word in
    common and a cosine below 0 came back with score 0.0000 (the README's deep recall)."""
    embedder = _Fixed(
        {
            "flaky login test": [1.0, 0.0, 0.0],
            "the flaky login test was fixed": [0.9, 0.1, 0.0],
            "billing keeps its data in CockroachDB": [-0.2, 0.0, 1.0],
        }
    )
    with CognitiveMemory(embedder=embedder) as mem:
        mem.add_many(["the flaky login test was fixed"], now=NOW)
        mem.add("billing keeps its data in CockroachDB", id="far", now=NOW + timedelta(days=40))
        for mode in ("hybrid", "dense"):
            for deep in (False, True):
                found = mem.search(
                    "flaky login test", mode=mode, deep_recall=deep, now=NOW, reinforce=False
                )
                assert [r.text for r in found] == ["the flaky login test was fixed"], (mode, deep)


def test_render_gives_each_memory_one_item_its_later_lines_indented(mem: CognitiveMemory) -> None:
    """Before: an exchange (two lines) broke the promised one line per memory."""
    mem.add("I live in Paris.\nNoted, Paris.", id="turn", now=NOW)
    mem.add("The user likes tea.", id="tea", now=NOW)
    text = render(mem.search("Paris tea", now=NOW, reinforce=False), NOW, ids=True)
    items = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(items) == 2
    assert "I live in Paris.\n  Noted, Paris. (id turn," in text


def test_results_show_as_a_table_in_a_notebook(mem: CognitiveMemory) -> None:
    """Before: Jupyter showed a long dataclass repr."""
    mem.add("I live in Paris.\nNoted | Paris.", id="turn", now=NOW)
    mem.add("The user likes tea.", id="tea", now=NOW)
    results = mem.search("Paris", now=NOW, reinforce=False)
    assert isinstance(results, SearchResults) and isinstance(results, list)
    table = results._repr_markdown_().splitlines()
    assert table[0] == "| # | score | type | status | text | id | why |"
    assert len(table) == 2 + len(results)
    assert "I live in Paris. Noted \\| Paris." in table[2] and "`turn`" in table[2]
    assert str(results[0].explanation) in results[0]._repr_markdown_()
    assert results[0].explanation._repr_markdown_().startswith("`score ")
    assert mem.search("zebra", now=NOW, mode="lexical")._repr_markdown_() == "*No memories found.*"


def test_or_filters_any_of_several_metadata_conditions(mem: CognitiveMemory) -> None:
    mem.add_many(
        [
            {"text": "alpha note", "id": "a", "metadata": {"x": 1}},
            {"text": "beta note", "id": "b", "metadata": {"y": "3"}},
            {"text": "gamma note", "id": "c", "metadata": {"x": 5, "y": "4"}},
        ],
        now=NOW,
    )
    either = {"$or": [{"x": {"$gt": 2}}, {"y": "3"}]}
    for mode in ("hybrid", "dense", "lexical"):
        found = mem.search("note", filters=either, mode=mode, now=NOW, reinforce=False)
        assert sorted(r.id for r in found) == ["b", "c"], mode
    assert sorted(r.id for r in mem.memories(filters=either)) == ["b", "c"]
    both = {"$or": [{"x": 5, "y": "4"}], "x": {"$gte": 1}}
    assert [r.id for r in mem.memories(filters=both)] == ["c"]
    with pytest.raises(InvalidTypeError, match=r"\$or"):
        mem.memories(filters={"$or": []})
    with pytest.raises(InvalidInputError, match="only filter user metadata"):
        mem.memories(filters={"$or": [{"tags": "x"}]})
