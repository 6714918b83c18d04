"""CognitiveMemoryRetriever: LangChain's standard retriever suite, LCEL chains, batch, async."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from langchain_tests.integration_tests import RetrieversIntegrationTests
from pydantic import Field

from cogmem import CognitiveMemory, InvalidInputError
from cogmem.testing import HashingEmbedder
from langchain_cogmem import CognitiveMemoryRetriever, result_to_document

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)

FACTS = [
    ("The user drinks green tea every morning", "semantic", ["drinks"]),
    ("The user likes strong black coffee after lunch", "semantic", ["drinks"]),
    ("The user is allergic to peanuts", "semantic", ["health"]),
    ("The user's sister Clara lives in Lisbon", "semantic", ["family"]),
    ("We talked about the user's trip to Japan", "episodic", ["travel"]),
    ("The user prefers dark mode in every editor", "semantic", ["ui"]),
]


def fill(memory: CognitiveMemory, *, namespace: str = "default") -> list[str]:
    """Store FACTS, ten days before NOW."""
    return [
        memory.add(
            text,
            memory_type=kind,
            tags=tags,
            created_at=NOW - timedelta(days=10),
            namespace=namespace,
            metadata={"n": i},
            now=NOW - timedelta(days=10),
        )
        for i, (text, kind, tags) in enumerate(FACTS)
    ]


@lru_cache(maxsize=1)
def _standard_memory() -> CognitiveMemory:
    memory = CognitiveMemory(embedder=HashingEmbedder())
    fill(memory)
    return memory


# Run the suite's one async test under pytest-asyncio (the repo's pytest config runs it in
# strict mode). Marking the inherited function keeps it the suite's own, so the suite's
# no-override check still holds.
pytest.mark.asyncio(RetrieversIntegrationTests.test_ainvoke_returns_documents)


class TestStandardRetrieverSuite(RetrieversIntegrationTests):
    """langchain-tests' own retriever conformance suite, unmodified."""

    @property
    def retriever_constructor(self) -> type[CognitiveMemoryRetriever]:
        return CognitiveMemoryRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memory": _standard_memory(), "now": lambda: NOW}

    @property
    def retriever_query_example(self) -> str:
        return "what does the user like to drink?"


class RecordingChatModel(GenericFakeChatModel):
    """GenericFakeChatModel that also keeps every prompt it was sent."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


@pytest.fixture
def memory() -> Iterator[CognitiveMemory]:
    mem = CognitiveMemory(embedder=HashingEmbedder())
    fill(mem)
    yield mem
    mem.close()


def test_documents_carry_id_fields_score_and_explanation(memory: CognitiveMemory) -> None:
    retriever = CognitiveMemoryRetriever(memory=memory, k=2, now=lambda: NOW)
    docs = retriever.invoke("Where does Clara live?")
    assert len(docs) == 2
    top = docs[0]
    assert top.page_content == "The user's sister Clara lives in Lisbon"
    stored = memory.get(top.id or "")
    assert stored.text == top.page_content
    meta = top.metadata
    assert meta["id"] == top.id
    assert meta["memory_type"] == "semantic"
    assert meta["tags"] == ["family"]
    assert meta["metadata"] == {"n": 3}
    assert meta["created_at"] == (NOW - timedelta(days=10)).isoformat()
    assert meta["namespace"] == "default"
    assert meta["status"] == "active"
    assert meta["score"] > docs[1].metadata["score"]
    explanation = meta["explanation"]
    assert explanation["score"] == pytest.approx(meta["score"])
    assert {"relevance", "retention", "alpha", "decay_factor", "penalties", "cosine"} <= set(
        explanation
    )
    assert 0 < explanation["retention"] <= 1


def test_same_order_and_scores_as_the_core(memory: CognitiveMemory) -> None:
    retriever = CognitiveMemoryRetriever(memory=memory, k=4, reinforce=False, now=lambda: NOW)
    docs = retriever.invoke("coffee or tea to drink")
    core = memory.search("coffee or tea to drink", top_k=4, reinforce=False, now=NOW)
    assert [d.id for d in docs] == [r.id for r in core]
    assert [d.metadata["score"] for d in docs] == pytest.approx([r.score for r in core])
    assert docs == [result_to_document(r) for r in core]


def test_fields_are_passed_to_the_search(memory: CognitiveMemory) -> None:
    only_health = CognitiveMemoryRetriever(
        memory=memory, k=5, filters={"tags": "health"}, now=lambda: NOW
    )
    assert [d.page_content for d in only_health.invoke("what about the user?")] == [
        "The user is allergic to peanuts"
    ]
    episodes = CognitiveMemoryRetriever(
        memory=memory, k=5, filters={"memory_type": "episodic"}, mode="lexical", now=lambda: NOW
    )
    assert [d.metadata["memory_type"] for d in episodes.invoke("trip Japan")] == ["episodic"]
    small = CognitiveMemoryRetriever(memory=memory, k=5, token_budget=12, now=lambda: NOW)
    assert sum(len(d.page_content) / 4 for d in small.invoke("the user")) <= 12


def test_invoke_keywords_override_fields(memory: CognitiveMemory) -> None:
    retriever = CognitiveMemoryRetriever(memory=memory, k=5, now=lambda: NOW)
    docs = retriever.invoke("user", k=1, filters={"n": {"$gte": 4}})
    assert len(docs) == 1
    assert docs[0].metadata["metadata"]["n"] >= 4
    with pytest.raises(InvalidInputError, match="unknown search argument"):
        retriever.invoke("user", top_k=3)


def test_search_kwargs_work_as_for_a_vector_store_retriever(memory: CognitiveMemory) -> None:
    """``vectorstore.as_retriever(search_kwargs=...)`` code ports as it is."""
    retriever = CognitiveMemoryRetriever(
        memory=memory,
        search_kwargs={"k": 1, "filter": {"tags": "health"}},
        reinforce=False,
        now=lambda: NOW,
    )
    docs = retriever.invoke("what about the user?")
    assert [d.page_content for d in docs] == ["The user is allergic to peanuts"]
    assert len(retriever.invoke("the user", filters=None, k=3)) == 3  # invoke overrides both
    lexical = CognitiveMemoryRetriever(
        memory=memory, search_kwargs={"k": 2, "mode": "lexical"}, reinforce=False, now=lambda: NOW
    )
    assert [d.id for d in lexical.invoke("trip Japan")] == [
        r.id for r in memory.search("trip Japan", top_k=2, mode="lexical", reinforce=False, now=NOW)
    ]


def test_unknown_arguments_are_refused_not_ignored(memory: CognitiveMemory) -> None:
    with pytest.raises(InvalidInputError, match="'top_k' is called 'k'"):
        CognitiveMemoryRetriever(memory=memory, top_k=1)
    with pytest.raises(ValueError, match="fetch_k"):
        CognitiveMemoryRetriever(memory=memory, search_kwargs={"k": 1, "fetch_k": 20})
    with pytest.raises(ValueError, match=r"k.*must be an int"):
        CognitiveMemoryRetriever(memory=memory, search_kwargs={"k": 0})
    with pytest.raises(ValueError, match="not both"):
        CognitiveMemoryRetriever(memory=memory, search_kwargs={"filter": {}, "filters": {}})


def test_fields_are_validated_on_assignment(memory: CognitiveMemory) -> None:
    retriever = CognitiveMemoryRetriever(memory=memory, now=lambda: NOW)
    with pytest.raises(ValueError, match="k"):
        retriever.k = 0
    with pytest.raises(ValueError, match="similarity_top_k"):
        retriever.search_kwargs = {"similarity_top_k": 2}
    assert retriever.k == 4 and retriever.search_kwargs == {}
    retriever.search_kwargs = {"k": 2}
    assert len(retriever.invoke("the user")) == 2


def test_reinforce_false_leaves_the_store_as_it_was(memory: CognitiveMemory) -> None:
    quiet = CognitiveMemoryRetriever(memory=memory, k=3, reinforce=False, now=lambda: NOW)
    doc = quiet.invoke("green tea")[0]
    assert memory.get(doc.id or "").access_count == 0
    loud = CognitiveMemoryRetriever(memory=memory, k=3, now=lambda: NOW, session_id="s1")
    doc = loud.invoke("green tea")[0]
    record = memory.get(doc.id or "")
    assert record.access_count == 1
    assert record.last_accessed_at == NOW
    assert record.session_ids == ("s1",)


def test_now_decides_what_has_faded(memory: CognitiveMemory) -> None:
    memory.add("The user mentioned a red bicycle", created_at=NOW, namespace="fade", now=NOW)
    memory.add(
        "The user mentioned a blue bicycle",
        created_at=NOW - timedelta(days=400),
        namespace="fade",
        now=NOW,
    )
    retriever = CognitiveMemoryRetriever(
        memory=memory, k=2, namespace="fade", reinforce=False, now=lambda: NOW
    )
    docs = retriever.invoke("bicycle")
    assert docs[0].page_content == "The user mentioned a red bicycle"
    assert (
        docs[1].metadata["explanation"]["retention"] < docs[0].metadata["explanation"]["retention"]
    )
    # The same call a year earlier sees the blue one as fresh and the red one not yet made.
    earlier = retriever.invoke("bicycle", now=NOW - timedelta(days=399))
    assert (
        earlier[0].metadata["explanation"]["retention"]
        > docs[1].metadata["explanation"]["retention"]
    )


def test_deep_recall_reaches_superseded_memories(memory: CognitiveMemory) -> None:
    old = memory.add("The user works as a baker in Porto", memory_type="semantic", now=NOW)
    new = memory.add("The user works as a chef in Porto", memory_type="semantic", now=NOW)
    memory.supersede(old, new)
    normal = CognitiveMemoryRetriever(memory=memory, k=5, reinforce=False, now=lambda: NOW)
    assert old not in [d.id for d in normal.invoke("what work does the user do in Porto")]
    deep = normal.invoke("what work does the user do in Porto", deep_recall=True)
    found = {d.id: d for d in deep}
    assert old in found and new in found
    assert found[old].metadata["status"] == "superseded"
    assert found[old].metadata["superseded_by"] == new
    # Archived is scored as older: retention × 0.5, so the score × 0.5^α (α = 0.3 for facts).
    assert found[old].metadata["explanation"]["penalties"]["deep_recall"] == pytest.approx(0.5**0.3)


def test_documents_show_a_correction_and_its_older_version(memory: CognitiveMemory) -> None:
    old = memory.add("The user's flight is on May 3", memory_type="semantic", now=NOW)
    new = memory.add("The user's flight is on May 13", memory_type="semantic", now=NOW)
    retriever = CognitiveMemoryRetriever(memory=memory, k=2, reinforce=False, now=lambda: NOW)
    docs = retriever.invoke("when is the user's flight?")
    assert [d.id for d in docs] == [new, old]
    assert docs[0].metadata["previous_version"] == old
    assert docs[1].metadata["explanation"]["newer_version_id"] == new


def test_batch_and_ainvoke_match_invoke(memory: CognitiveMemory) -> None:
    retriever = CognitiveMemoryRetriever(memory=memory, k=2, reinforce=False, now=lambda: NOW)
    queries = ["green tea", "peanuts", "Lisbon"]
    one_by_one = [retriever.invoke(q) for q in queries]
    assert retriever.batch(queries) == one_by_one
    assert asyncio.run(retriever.ainvoke("peanuts")) == one_by_one[1]
    assert asyncio.run(retriever.abatch(queries)) == one_by_one
    assert retriever.batch(["peanuts"], k=1)[0] == one_by_one[1][:1]


def test_bad_configuration_is_rejected(memory: CognitiveMemory) -> None:
    with pytest.raises(ValueError, match="k"):
        CognitiveMemoryRetriever(memory=memory, k=0)
    with pytest.raises(ValueError, match="mode"):
        CognitiveMemoryRetriever(memory=memory, mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="memory"):
        CognitiveMemoryRetriever(memory="not a memory")  # type: ignore[arg-type]
    retriever = CognitiveMemoryRetriever(memory=memory, filters={"tags": 3}, now=lambda: NOW)
    with pytest.raises(TypeError, match="tags"):
        retriever.invoke("anything")
    with pytest.raises(InvalidInputError, match="empty"):
        CognitiveMemoryRetriever(memory=memory).invoke("   ")
    naive = CognitiveMemoryRetriever(memory=memory, now=lambda: datetime(2026, 1, 1))
    with pytest.raises(InvalidInputError, match="naive"):
        naive.invoke("tea")


def format_docs(docs: list[Document]) -> str:
    return "\n".join(f"- {d.page_content} (score {d.metadata['score']:.2f})" for d in docs)


def test_retriever_in_an_lcel_chain(memory: CognitiveMemory) -> None:
    retriever = CognitiveMemoryRetriever(memory=memory, k=2, now=lambda: NOW)
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "Answer from these memories only:\n{context}"),
            ("human", "{question}"),
        ]
    )
    model = RecordingChatModel(
        messages=iter([AIMessage(content="Clara lives in Lisbon."), "Green tea."])
    )
    chain = (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | prompt
        | model
        | StrOutputParser()
    )
    assert chain.invoke("Where does the user's sister live?") == "Clara lives in Lisbon."
    system, human = model.seen[0]
    assert "- The user's sister Clara lives in Lisbon (score" in str(system.content)
    assert human.content == "Where does the user's sister live?"
    # Async through the same chain: the retriever runs in a worker thread.
    assert asyncio.run(chain.ainvoke("What does the user drink in the morning?")) == "Green tea."
    assert "green tea every morning" in str(model.seen[1][0].content)
