"""Retrieval stages from LangChain: expansion and HyDE from a chat model, a reranker from a
document compressor or a cross-encoder, each through the real LangChain classes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

import pytest
from langchain_classic.retrievers.document_compressors import CrossEncoderReranker
from langchain_core.callbacks import Callbacks
from langchain_core.cross_encoders import BaseCrossEncoder
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from cogmem import CognitiveMemory, InvalidInputError, InvalidTypeError, StageError, Stages
from langchain_cogmem import CognitiveMemoryRetriever, expander_from, hyde_from, reranker_from

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


def fake(*replies: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=r) for r in replies]))


class WordCrossEncoder(BaseCrossEncoder):
    """A cross-encoder stand-in: scores a pair by the words its text shares with the query."""

    def score(self, text_pairs: list[tuple[str, str]]) -> list[float]:
        return [float(len(set(q.lower().split()) & set(t.lower().split()))) for q, t in text_pairs]


class KeywordFirst(BaseDocumentCompressor):
    """A compressor that keeps the documents naming a keyword, with a relevance_score."""

    keyword: str

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        kept = [d for d in documents if self.keyword in d.page_content]
        return [
            Document(page_content=d.page_content, metadata={**d.metadata, "relevance_score": 1.0})
            for d in kept
        ]


def fill(mem: CognitiveMemory) -> None:
    mem.add_many(
        [
            {"text": "Clara gives violin lessons on Saturdays.", "id": "violin"},
            {"text": "The garage door squeaks.", "id": "door"},
            {"text": "Bob repairs bicycles in his shed.", "id": "bikes"},
        ],
        now=NOW,
    )


def test_expansion_from_a_chat_model(mem: CognitiveMemory) -> None:
    fill(mem)
    model = fake("1. violin lessons\n2) a music teacher\n- string instruments\n- extra line")
    expand = expander_from(model, count=3)
    mem.stages = Stages(expand=expand)
    [top] = mem.search("who teaches music", mode="lexical", top_k=1, now=NOW, reinforce=False)
    assert top.id == "violin" and top.explanation.stages["expansion 1 #"] == 1
    with pytest.raises(InvalidInputError, match="query"):
        expander_from(fake("x"), prompt="Rewrite {question}")
    with pytest.raises(InvalidTypeError):
        expander_from("not a model")  # type: ignore[arg-type]


def test_hyde_from_a_chat_model_through_the_retriever(mem: CognitiveMemory) -> None:
    fill(mem)
    mem.stages = Stages(hyde=hyde_from(fake("Bob fixes bikes in his shed.")))
    retriever = CognitiveMemoryRetriever(memory=mem, k=1, reinforce=False, now=lambda: NOW)
    [doc] = retriever.invoke("where can my wheel be mended?")
    assert doc.id == "bikes"
    assert doc.metadata["explanation"]["stages"]["hyde #"] == 1


def test_a_failing_model_is_a_stage_error(mem: CognitiveMemory) -> None:
    fill(mem)
    mem.stages = Stages(hyde=hyde_from(fake()))  # a script with no reply left
    with pytest.raises(StageError, match="HyDE model"):
        mem.search("anything", now=NOW)


def test_a_cross_encoder_and_its_langchain_compressor_rerank_alike(mem: CognitiveMemory) -> None:
    fill(mem)
    query = "who repairs bicycles"
    orders = []
    for reranker in (WordCrossEncoder(), CrossEncoderReranker(model=WordCrossEncoder(), top_n=1)):
        mem.stages = Stages(rerank=reranker_from(reranker))
        results = mem.search(query, now=NOW, reinforce=False)
        assert results[0].id == "bikes" and results[0].explanation.stages["rerank #"] == 1
        orders.append(results[0].id)
    assert orders == ["bikes", "bikes"]


def test_a_compressor_that_drops_documents(mem: CognitiveMemory) -> None:
    fill(mem)
    mem.stages = Stages(rerank=reranker_from(KeywordFirst(keyword="door")))
    results = mem.search("violin lessons", now=NOW, reinforce=False)
    assert results[0].id == "door"  # the one it kept, whatever the fused order
    notes = {r.id: r.explanation.stages for r in results}
    assert notes["door"]["rerank"] == 1.0
    assert notes["violin"]["rerank"] < 1.0  # dropped: below everything kept
    with pytest.raises(InvalidTypeError, match="BaseDocumentCompressor"):
        reranker_from(object())  # type: ignore[arg-type]
