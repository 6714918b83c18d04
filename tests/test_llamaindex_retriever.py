"""CognitiveMemoryRetriever: nodes, query engines, fusion, filters, async, reinforcement."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from llama_index.core.llms import CompletionResponse
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.mock import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.retrievers.fusion_retriever import FUSION_MODES
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode
from llama_index.core.vector_stores import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from cogmem import CognitiveMemory, InvalidInputError, InvalidTypeError, MemoryInput
from cogmem.testing import HashingEmbedder
from llamaindex_cogmem import (
    CognitiveMemoryRetriever,
    MemoryNode,
    UnsupportedFilterError,
    result_to_node,
)
from tests.llamaindex_fixtures import NOW, chroma_index

FACTS = [
    # (text, type, tags, metadata, days ago)
    ("The user drinks green tea every morning", "semantic", ["drinks"], {"n": 0}, 10),
    ("The user likes strong black coffee after lunch", "semantic", ["drinks"], {"n": 1}, 10),
    ("The user is allergic to peanuts", "semantic", ["health"], {"n": 2}, 40),
    ("The user's sister Clara lives in Lisbon", "semantic", ["family"], {"n": 3}, 10),
    ("We talked about the user's trip to Japan", "episodic", ["travel"], {"n": 4}, 3),
    ("The user prefers dark mode in every editor", "semantic", ["ui"], {"n": 5}, 200),
]


def fill(memory: CognitiveMemory, namespace: str = "default") -> list[str]:
    return memory.add_many(
        [
            MemoryInput(
                text=text,
                memory_type=kind,
                tags=tags,
                metadata=meta,
                created_at=NOW - timedelta(days=days),
                namespace=namespace,
            )
            for text, kind, tags, meta, days in FACTS
        ],
        now=NOW - timedelta(days=1),
    )


@pytest.fixture
def memory() -> Iterator[CognitiveMemory]:
    mem = CognitiveMemory(embedder=HashingEmbedder())
    fill(mem)
    yield mem
    mem.close()


def by_text(memory: CognitiveMemory, text: str) -> str:
    return next(m.id for m in memory.memories() if m.text == text)


# ---------------------------------------------------------------------------- nodes
def test_nodes_carry_the_memory_id_text_fields_score_and_explanation(
    memory: CognitiveMemory,
) -> None:
    retriever = CognitiveMemoryRetriever(memory, similarity_top_k=2, now=NOW, reinforce=False)
    nodes = retriever.retrieve("Where does Clara live?")
    assert len(nodes) == 2
    top = nodes[0]
    assert isinstance(top, NodeWithScore) and isinstance(top.node, TextNode)
    assert top.node.node_id == by_text(memory, "The user's sister Clara lives in Lisbon")
    assert top.node.get_content() == "The user's sister Clara lives in Lisbon"
    meta = top.node.metadata
    assert meta["n"] == 3  # user metadata, flat, as in any LlamaIndex node
    assert meta["memory_type"] == "semantic"
    assert meta["tags"] == ["family"]
    assert meta["created_at"] == (NOW - timedelta(days=10)).isoformat()
    assert meta["status"] == "active" and meta["namespace"] == "default"
    assert top.score == pytest.approx(meta["score"])
    assert top.get_score() > nodes[1].get_score()
    explanation = meta["explanation"]
    assert explanation["score"] == pytest.approx(top.score)
    assert {"relevance", "retention", "alpha", "decay_factor", "penalties", "cosine"} <= set(
        explanation
    )
    assert explanation["score"] == pytest.approx(
        explanation["relevance"] * explanation["decay_factor"]
    )


def test_nodes_show_a_correction_and_its_older_version(memory: CognitiveMemory) -> None:
    old = memory.add("The user's flight is on May 3", memory_type="semantic", now=NOW)
    new = memory.add("The user's flight is on May 13", memory_type="semantic", now=NOW)
    retriever = CognitiveMemoryRetriever(memory, similarity_top_k=2, reinforce=False, now=NOW)
    nodes = retriever.retrieve("when is the user's flight?")
    assert [n.node.node_id for n in nodes] == [new, old]
    assert nodes[0].node.metadata["previous_version"] == old
    assert nodes[1].node.metadata["explanation"]["newer_version_id"] == new


def test_the_llm_sees_text_type_and_date_but_not_the_bookkeeping(
    memory: CognitiveMemory,
) -> None:
    retriever = CognitiveMemoryRetriever(memory, similarity_top_k=1, now=NOW, reinforce=False)
    node = retriever.retrieve("Where does Clara live?")[0].node
    for_llm = node.get_content(metadata_mode=MetadataMode.LLM)
    assert "The user's sister Clara lives in Lisbon" in for_llm
    assert "memory_type: semantic" in for_llm
    assert f"created_at: {(NOW - timedelta(days=10)).isoformat()}" in for_llm
    assert "n: 3" in for_llm  # the user's own metadata, as LlamaIndex shows it by default
    for hidden in ("explanation", "score", "stability", "access_count", "links"):
        assert f"{hidden}:" not in for_llm
    for_embedder = node.get_content(metadata_mode=MetadataMode.EMBED)
    assert "memory_type" not in for_embedder and "Clara" in for_embedder

    shown = CognitiveMemoryRetriever(
        memory, similarity_top_k=1, now=NOW, reinforce=False, llm_metadata_keys=["tags"]
    ).retrieve("Where does Clara live?")[0]
    text = shown.node.get_content(metadata_mode=MetadataMode.LLM)
    assert "tags: ['family']" in text and "memory_type" not in text


def test_result_to_node_keeps_memory_fields_over_user_keys_of_the_same_name() -> None:
    with CognitiveMemory(embedder=HashingEmbedder()) as mem:
        mem.add("A note", metadata={"score": "user's own", "project": "x"}, now=NOW)
        result = mem.search("note", now=NOW, reinforce=False)[0]
    node = result_to_node(result)
    assert node.node.metadata["project"] == "x"
    assert node.node.metadata["score"] == pytest.approx(result.score)


def test_a_memory_keeps_one_hash_across_queries_and_recalls(memory: CognitiveMemory) -> None:
    retriever = CognitiveMemoryRetriever(memory, similarity_top_k=6, now=NOW)
    first = {n.node.node_id: n for n in retriever.retrieve("Where does Clara live?")}
    second = {n.node.node_id: n for n in retriever.retrieve("the user's sister")}
    shared = set(first) & set(second)
    assert shared
    for node_id in shared:
        a, b = first[node_id], second[node_id]
        assert (
            a.score != b.score
            or a.node.metadata["access_count"] != (b.node.metadata["access_count"])
        )
        assert isinstance(a.node, MemoryNode)
        assert a.node.hash == b.node.hash
    # A plain TextNode with the same content would hash differently: the score is in it.
    node_id = next(iter(shared))
    plain = [
        TextNode(id_=node_id, text=n.node.get_content(), metadata=n.node.metadata)
        for n in (first[node_id], second[node_id])
    ]
    assert plain[0].hash != plain[1].hash
    # ...while a change to the memory's own text does change the hash.
    edited = first[node_id].node.model_copy(update={"text": "something else"})
    assert edited.hash != first[node_id].node.hash


# ---------------------------------------------------------------------------- query engines
def test_in_a_retriever_query_engine_with_a_mock_llm(memory: CognitiveMemory) -> None:
    retriever = CognitiveMemoryRetriever(memory, similarity_top_k=2, now=NOW, reinforce=False)
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = engine.query("Where does Clara live?")
    clara = by_text(memory, "The user's sister Clara lives in Lisbon")
    assert response.source_nodes[0].node.node_id == clara
    # MockLLM echoes its prompt: the memory reached it, with its type and date, not its score.
    prompt = str(response)
    assert "The user's sister Clara lives in Lisbon" in prompt
    assert "memory_type: semantic" in prompt
    assert "explanation" not in prompt

    async_response = asyncio.run(engine.aquery("Where does Clara live?"))
    assert [n.node.node_id for n in async_response.source_nodes] == [
        n.node.node_id for n in response.source_nodes
    ]


def test_aretrieve_runs_the_search_in_a_worker_thread(
    memory: CognitiveMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[int] = []
    original = memory.search

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        return original(*args, **kwargs)

    monkeypatch.setattr(memory, "search", spy)
    retriever = CognitiveMemoryRetriever(memory, similarity_top_k=3, now=NOW, reinforce=False)

    async def both() -> list[list[NodeWithScore]]:
        return list(
            await asyncio.gather(
                retriever.aretrieve("Where does Clara live?"),
                retriever.aretrieve(QueryBundle("green tea or black coffee")),
            )
        )

    clara, drinks = asyncio.run(both())
    assert threads and threading.get_ident() not in threads
    assert [n.node.node_id for n in clara] == [
        n.node.node_id for n in retriever.retrieve("Where does Clara live?")
    ]
    assert {n.node.metadata["tags"][0] for n in drinks[:2]} == {"drinks"}


def test_one_of_the_retrievers_of_a_query_fusion_retriever(
    memory: CognitiveMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = chroma_index(
        [
            TextNode(id_="doc-lisbon", text="Lisbon is the capital of Portugal"),
            TextNode(id_="doc-tea", text="Green tea contains caffeine"),
        ]
    )
    retriever = CognitiveMemoryRetriever(memory, similarity_top_k=2, now=NOW, reinforce=False)
    calls: list[str] = []
    original = retriever._aretrieve

    async def counted(query_bundle: QueryBundle) -> list[NodeWithScore]:
        calls.append(query_bundle.query_str)
        return await original(query_bundle)

    monkeypatch.setattr(retriever, "_aretrieve", counted)
    fusion = QueryFusionRetriever(
        [retriever, docs.as_retriever(similarity_top_k=2)],
        llm=MockLLM(),
        num_queries=1,  # no generated queries: only the user's
        mode=FUSION_MODES.RECIPROCAL_RANK,
        similarity_top_k=4,
        use_async=True,
    )
    nodes = fusion.retrieve("Where does Clara live? Lisbon")
    ids = [n.node.node_id for n in nodes]
    assert calls == ["Where does Clara live? Lisbon"]  # the async path was used
    assert by_text(memory, "The user's sister Clara lives in Lisbon") in ids
    assert "doc-lisbon" in ids
    assert len(ids) == len(set(ids))


class QueryWriter(MockLLM):
    """A MockLLM that 'generates' fixed search queries for QueryFusionRetriever."""

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text="Clara sister Lisbon\nwhere the user's sister lives")


def test_fusion_over_generated_queries_counts_each_memory_once(
    memory: CognitiveMemory,
) -> None:
    retriever = CognitiveMemoryRetriever(memory, similarity_top_k=3, now=NOW)
    seen: list[list[NodeWithScore]] = []
    original = retriever._search

    def record(query_bundle: QueryBundle) -> list[NodeWithScore]:
        found = original(query_bundle)
        seen.append([NodeWithScore(node=n.node, score=n.score) for n in found])
        return found

    retriever._search = record  # type: ignore[method-assign]
    fusion = QueryFusionRetriever(
        [retriever],
        llm=QueryWriter(max_tokens=None),
        num_queries=3,
        mode=FUSION_MODES.RECIPROCAL_RANK,
        similarity_top_k=6,
        use_async=False,
    )
    nodes = fusion.retrieve("Where does Clara live?")
    assert len(seen) == 3
    clara = by_text(memory, "The user's sister Clara lives in Lisbon")
    found_by = [
        next(n for n in found if n.node.node_id == clara)
        for found in seen
        if clara in {n.node.node_id for n in found}
    ]
    # Every query found Clara, each time with another score and access count...
    assert len(found_by) == 3
    assert len({n.node.metadata["access_count"] for n in found_by}) == 3
    # ...and the fusion counts her as one node: her reciprocal-rank terms are summed (k = 60).
    expected = sum(1.0 / (60 + [n.node.node_id for n in found].index(clara)) for found in seen)
    fused = {n.node.node_id: n.score for n in nodes}
    assert fused[clara] == pytest.approx(expected)
    assert max(fused, key=lambda i: fused[i] or 0.0) == clara
    ids = [n.node.node_id for n in nodes]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------------------- filters
def test_metadata_filters_are_applied_by_cogmem(memory: CognitiveMemory) -> None:
    def ids(filters: MetadataFilters) -> set[str]:
        retriever = CognitiveMemoryRetriever(
            memory, similarity_top_k=10, filters=filters, now=NOW, reinforce=False
        )
        return {n.node.node_id for n in retriever.retrieve("the user")}

    everything = {m.id for m in memory.memories()}
    n_of = {m.id: m.metadata["n"] for m in memory.memories()}

    only_drinks = ids(MetadataFilters(filters=[MetadataFilter(key="tags", value="drinks")]))
    assert sorted(n_of[i] for i in only_drinks) == [0, 1]

    high_n = ids(
        MetadataFilters(filters=[MetadataFilter(key="n", value=3, operator=FilterOperator.GTE)])
    )
    assert sorted(n_of[i] for i in high_n) == [3, 4, 5]

    episodes = ids(MetadataFilters(filters=[MetadataFilter(key="memory_type", value="episodic")]))
    assert sorted(n_of[i] for i in episodes) == [4]

    either = ids(
        MetadataFilters(
            filters=[MetadataFilter(key="n", value=0), MetadataFilter(key="n", value=2)],
            condition=FilterCondition.OR,
        )
    )
    assert sorted(n_of[i] for i in either) == [0, 2]

    recent = ids(
        MetadataFilters(
            filters=[
                MetadataFilter(
                    key="created_at",
                    value=(NOW - timedelta(days=20)).isoformat(),
                    operator=FilterOperator.GT,
                ),
                MetadataFilters(
                    filters=[
                        MetadataFilter(
                            key="memory_type", value="episodic", operator=FilterOperator.NE
                        )
                    ]
                ),
            ]
        )
    )
    assert sorted(n_of[i] for i in recent) == [0, 1, 3]
    assert ids(MetadataFilters(filters=[])) == everything


def test_unsupported_filters_fail_when_the_retriever_is_built(memory: CognitiveMemory) -> None:
    with pytest.raises(UnsupportedFilterError, match="text_match"):
        CognitiveMemoryRetriever(
            memory,
            filters=MetadataFilters(
                filters=[MetadataFilter(key="n", value="x", operator=FilterOperator.TEXT_MATCH)]
            ),
        )
    retriever = CognitiveMemoryRetriever(memory)
    with pytest.raises(UnsupportedFilterError, match="importance"):
        retriever.filters = MetadataFilters(
            filters=[MetadataFilter(key="importance", value=0.5, operator=FilterOperator.GT)]
        )
    assert retriever.filters is None  # a rejected filter leaves the old one in place


def test_a_cogmem_filter_dict_is_accepted_as_it_is(memory: CognitiveMemory) -> None:
    retriever = CognitiveMemoryRetriever(
        memory, similarity_top_k=10, filters={"tags": ["health"]}, now=NOW, reinforce=False
    )
    assert [n.node.metadata["n"] for n in retriever.retrieve("the user")] == [2]
    assert retriever.cogmem_filters == {"tags": ["health"]}
    with pytest.raises(InvalidInputError, match="operator"):
        CognitiveMemoryRetriever(memory, filters={"n": {"$like": 3}})


# ---------------------------------------------------------------------------- time and state
def test_retrieval_reinforces_at_now_unless_told_not_to(memory: CognitiveMemory) -> None:
    clara = by_text(memory, "The user's sister Clara lives in Lisbon")
    CognitiveMemoryRetriever(memory, similarity_top_k=1, now=NOW, reinforce=False).retrieve(
        "Where does Clara live?"
    )
    assert memory.get(clara).access_count == 0
    later = NOW + timedelta(days=3)
    CognitiveMemoryRetriever(
        memory, similarity_top_k=1, now=lambda: later, session_id="s-9"
    ).retrieve("Where does Clara live?")
    recalled = memory.get(clara)
    assert recalled.access_count == 1
    assert recalled.last_accessed_at == later
    assert recalled.session_ids == ("s-9",)


def test_now_as_datetime_epoch_seconds_or_clock_gives_the_same_decay(
    memory: CognitiveMemory,
) -> None:
    def retention(now: Any) -> float:
        retriever = CognitiveMemoryRetriever(memory, similarity_top_k=1, now=now, reinforce=False)
        return float(
            retriever.retrieve("dark mode editor")[0].node.metadata["explanation"]["retention"]
        )

    at = NOW + timedelta(days=100)
    expected = retention(at)
    assert retention(at.timestamp()) == pytest.approx(expected)
    assert retention(lambda: at) == pytest.approx(expected)
    assert retention(NOW) > expected  # 100 days later, the dark-mode memory has faded more
    with pytest.raises(InvalidInputError, match="naive"):
        CognitiveMemoryRetriever(memory, now=datetime(2026, 6, 1))
    with pytest.raises(InvalidTypeError, match="clock"):
        CognitiveMemoryRetriever(memory, now=lambda: "today").retrieve("x")  # type: ignore[arg-type,return-value]


def test_namespace_token_budget_and_deep_recall_reach_the_search() -> None:
    with CognitiveMemory(embedder=HashingEmbedder()) as mem:
        fill(mem, namespace="ana")
        assert CognitiveMemoryRetriever(mem, now=NOW).retrieve("the user") == []
        ana = CognitiveMemoryRetriever(mem, namespace="ana", now=NOW, reinforce=False)
        assert len(ana.retrieve("the user")) == 4
        short = CognitiveMemoryRetriever(
            mem, namespace="ana", similarity_top_k=6, token_budget=12, now=NOW, reinforce=False
        ).retrieve("the user")
        assert sum(-(-len(n.node.get_content()) // 4) for n in short) <= 12
        old = mem.add("The user lived in Berlin", namespace="ana", now=NOW)
        new = mem.add("The user lives in Lisbon now", namespace="ana", now=NOW)
        mem.supersede(old, new, namespace="ana")
        plain = CognitiveMemoryRetriever(
            mem, namespace="ana", similarity_top_k=10, now=NOW, reinforce=False
        )
        deep = CognitiveMemoryRetriever(
            mem, namespace="ana", similarity_top_k=10, now=NOW, reinforce=False, deep_recall=True
        )
        assert old not in {n.node.node_id for n in plain.retrieve("Berlin")}
        found = {n.node.node_id: n for n in deep.retrieve("Berlin")}
        assert found[old].node.metadata["status"] == "superseded"
        explanation = found[old].node.metadata["explanation"]
        # Archived, not wrong: scored as if its retention were halved (0.5^α).
        assert explanation["penalties"] == {
            "deep_recall": pytest.approx(0.5 ** explanation["alpha"])
        }
        assert 0.5 < explanation["penalties"]["deep_recall"] < 1.0


def test_bad_arguments_raise_cogmem_errors(memory: CognitiveMemory) -> None:
    with pytest.raises(InvalidTypeError, match="CognitiveMemory"):
        CognitiveMemoryRetriever("not a memory")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="similarity_top_k"):
        CognitiveMemoryRetriever(memory, similarity_top_k=0)
    with pytest.raises(InvalidTypeError, match="similarity_top_k"):
        CognitiveMemoryRetriever(memory, similarity_top_k=2.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="mode"):
        CognitiveMemoryRetriever(memory, mode="fuzzy")
    with pytest.raises(InvalidInputError, match="token_budget"):
        CognitiveMemoryRetriever(memory, token_budget=0)
    with pytest.raises(InvalidTypeError, match="filters"):
        CognitiveMemoryRetriever(memory, filters=["tags"])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="llm_metadata_keys"):
        CognitiveMemoryRetriever(memory, llm_metadata_keys="tags")
    with pytest.raises(InvalidInputError, match="empty"):
        CognitiveMemoryRetriever(memory, now=NOW).retrieve("   ")
