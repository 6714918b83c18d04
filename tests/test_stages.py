"""Optional retrieval stages: query expansion, HyDE, reranking (cogmem.stages)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig, StageError, Stages
from cogmem.stages import call_expand, call_rerank, fuse_lists, reranked
from cogmem.testing import HashingEmbedder

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


def test_fuse_lists_is_the_weighted_mean_plus_the_rank_bonus() -> None:
    fused, notes = fuse_lists(
        [("query", 2.0, {"a": 0.9, "b": 0.5}), ("expansion 1", 1.0, {"b": 0.8, "c": 0.6})],
        first=0.05,
        top3=0.02,
    )
    ceiling = 2.0 * 1.05 + 1.0 * 1.05
    assert fused["a"] == pytest.approx(2.0 * (0.9 + 0.05) / ceiling)
    assert fused["b"] == pytest.approx((2.0 * (0.5 + 0.02) + 1.0 * (0.8 + 0.05)) / ceiling)
    assert fused["c"] == pytest.approx(1.0 * (0.6 + 0.02) / ceiling)
    assert notes["b"] == {
        "query #": 2,
        "expansion 1 #": 1,
        "rank bonus": pytest.approx((2.0 * 0.02 + 0.05) / ceiling),
    }
    top, _ = fuse_lists([("q", 1.0, {"x": 1.0})], first=0.05, top3=0.02)
    assert top == {"x": pytest.approx(1.0)}  # first everywhere, fully relevant: 1


def test_reranking_hands_the_same_relevances_out_in_the_rerankers_order() -> None:
    relevance = {"a": 0.9, "b": 0.7, "c": 0.4, "d": 0.1}
    new, notes = reranked(relevance, {"a": -1.0, "b": 3.5, "c": 2.0})
    assert new == {"b": 0.9, "c": 0.7, "a": 0.4, "d": 0.1}
    assert notes["b"] == {"rerank": 3.5, "rerank #": 1}
    assert "d" not in notes


def test_a_stage_that_misbehaves_is_named() -> None:
    with pytest.raises(StageError, match="expansion failed: down"):
        call_expand(lambda q: (_ for _ in ()).throw(RuntimeError("down")), "q")
    with pytest.raises(StageError, match="list of str"):
        call_expand(lambda q: "one string", "q")  # type: ignore[arg-type,return-value]
    with pytest.raises(StageError, match="one finite score per text"):
        call_rerank(lambda q, ts: [1.0], "q", ["a", "b"])
    with pytest.raises(StageError, match="one finite score per text"):
        call_rerank(lambda q, ts: [float("nan"), 1.0], "q", ["a", "b"])
    assert call_expand(lambda q: ["Q", " other ", "other", ""], "q") == ["other"]
    with pytest.raises(StageError, match="callable"):
        Stages(rerank="not a function")  # type: ignore[arg-type]


def fill(mem: CognitiveMemory) -> None:
    mem.add_many(
        [
            {"text": "Clara gives violin lessons on Saturdays.", "id": "violin"},
            {"text": "The garage door squeaks.", "id": "door"},
            {"text": "Bob repairs bicycles in his shed.", "id": "bikes"},
            {"text": "Lunch was a tomato soup.", "id": "soup"},
        ],
        now=NOW,
    )


def test_an_expansion_finds_what_the_query_alone_misses(mem: CognitiveMemory) -> None:
    fill(mem)
    plain = mem.search("who teaches music", now=NOW, reinforce=False, top_k=1, mode="lexical")
    assert plain == [] or plain[0].id != "violin"
    mem.stages = Stages(expand=lambda q: ["violin lessons"])
    [top] = mem.search("who teaches music", now=NOW, reinforce=False, top_k=1, mode="lexical")
    assert top.id == "violin"
    assert top.explanation.stages["expansion 1 #"] == 1
    assert "query #" not in top.explanation.stages  # the query's own list did not hold it
    assert "expansion 1 #1" in str(top.explanation)


def test_hyde_searches_a_hypothetical_answer(mem: CognitiveMemory) -> None:
    fill(mem)
    mem.stages = Stages(hyde=lambda q: "Someone fixes bikes in a shed.")
    [top] = mem.search("where can I get my wheel mended", now=NOW, reinforce=False, top_k=1)
    assert top.id == "bikes"
    assert top.explanation.stages["hyde #"] == 1


def test_the_reranker_orders_and_decay_applies_after_it() -> None:
    config = CognitiveMemoryConfig(context_spread=0.0)  # only what the lists found
    with CognitiveMemory(embedder=HashingEmbedder(), config=config) as mem:
        mem.add("The soup recipe uses tomatoes.", id="old", now=NOW - timedelta(days=300))
        mem.add("The soup recipe uses leeks.", id="new", now=NOW)
        mem.add("Tomato soup for lunch again.", id="lunch", now=NOW)
        seen: list[Sequence[str]] = []

        def prefer_old(query: str, texts: Sequence[str]) -> list[float]:
            seen.append(list(texts))
            return [10.0 if "tomatoes" in t else 0.0 for t in texts]

        mem.stages = Stages(rerank=prefer_old)
        results = mem.search("soup recipe", now=NOW, reinforce=False)
        old = next(r for r in results if r.id == "old")
        assert old.explanation.stages["rerank #"] == 1 and old.explanation.stages["rerank"] == 10
        assert old.explanation.relevance == max(r.explanation.relevance for r in results)
        assert old.explanation.retention < 1.0  # its decay still applies after reranking
        assert old.score == pytest.approx(old.explanation.relevance * old.explanation.decay_factor)
        assert sorted(seen[0]) == sorted(r.memory.text for r in results)


def test_a_failing_stage_changes_nothing(mem: CognitiveMemory) -> None:
    fill(mem)

    def broken(query: str, texts: Sequence[str]) -> list[float]:
        raise RuntimeError("the reranker is down")

    mem.stages = Stages(rerank=broken)
    with pytest.raises(StageError, match="the reranker is down"):
        mem.search("violin", now=NOW)
    assert all(m.access_count == 0 for m in mem.records())


def test_stages_off_leave_search_as_it_was(mem: CognitiveMemory) -> None:
    fill(mem)
    before = mem.search("violin lessons", now=NOW, reinforce=False)
    mem.stages = Stages()
    after = mem.search("violin lessons", now=NOW, reinforce=False)
    assert [(r.id, r.score) for r in after] == [(r.id, r.score) for r in before]
    assert all(not r.explanation.stages for r in after)
    with pytest.raises(TypeError, match="Stages"):
        CognitiveMemory(embedder=HashingEmbedder(), stages=lambda q: q)  # type: ignore[arg-type]
