"""The LlamaIndex adapters with the real all-MiniLM-L6-v2 model (slower; marked ``model``)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.mock import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import TextNode

from cogmem import CognitiveMemory, MemoryInput, MiniLMEmbedder
from llamaindex_cogmem import (
    CogmemEmbedding,
    CognitiveMemoryBlock,
    CognitiveMemoryRetriever,
    RetentionPostprocessor,
)
from tests.llamaindex_fixtures import NOW, chroma_index

pytestmark = pytest.mark.model
DAY = timedelta(days=1)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_a_query_engine_recalls_by_meaning(minilm: MiniLMEmbedder) -> None:
    with CognitiveMemory(embedder=minilm) as mem:
        ids = mem.add_many(
            [
                MemoryInput(
                    text="The user adopted a golden retriever puppy named Biscuit.",
                    memory_type="semantic",
                ),
                MemoryInput(
                    text="The quarterly report is due on the 15th.", memory_type="semantic"
                ),
                MemoryInput(text="The user is allergic to peanuts.", memory_type="semantic"),
            ],
            now=NOW - 3 * DAY,
        )
        retriever = CognitiveMemoryRetriever(mem, similarity_top_k=1, now=NOW, reinforce=False)
        response = RetrieverQueryEngine.from_args(retriever, llm=MockLLM()).query(
            "what pet does the user have?"
        )
        assert response.source_nodes[0].node.node_id == ids[0]
        assert "Biscuit" in str(response)  # MockLLM echoes the prompt it was given


def test_the_postprocessor_puts_the_current_version_first_in_a_chroma_index(
    minilm: MiniLMEmbedder,
) -> None:
    docs = [
        TextNode(
            id_="old",
            text="Dana's team uses PostgreSQL for the billing service.",
            metadata={"created_at": (NOW - 240 * DAY).isoformat()},
        ),
        TextNode(
            id_="new",
            text="Dana said the billing service switched to CockroachDB.",
            metadata={"created_at": (NOW - 9 * DAY).isoformat()},
        ),
        TextNode(
            id_="other",
            text="Dana's favourite editor is Helix.",
            metadata={"created_at": (NOW - 30 * DAY).isoformat()},
        ),
    ]
    index = chroma_index(docs, CogmemEmbedding(minilm))
    question = "Which database does Dana's billing service use?"
    plain = [n.node.node_id for n in index.as_retriever(similarity_top_k=3).retrieve(question)]
    assert plain[0] == "old"  # by meaning alone, the outdated fact is the closest
    engine = index.as_query_engine(
        llm=MockLLM(), similarity_top_k=3, node_postprocessors=[RetentionPostprocessor(now=NOW)]
    )
    ranked = [n.node.node_id for n in engine.query(question).source_nodes]
    assert ranked[0] == "new"


def test_the_memory_block_recalls_a_paraphrased_fact(minilm: MiniLMEmbedder) -> None:
    with CognitiveMemory(embedder=minilm) as mem:
        block = CognitiveMemoryBlock(memory=mem, now=NOW, similarity_top_k=1, reinforce=False)
        flushed = [
            ChatMessage(role=MessageRole.USER, content="We adopted a kitten called Miso."),
            ChatMessage(role=MessageRole.ASSISTANT, content="Congratulations!"),
            ChatMessage(role=MessageRole.USER, content="My flight to Oslo leaves at 7."),
            ChatMessage(role=MessageRole.ASSISTANT, content="Safe travels."),
        ]
        asyncio.run(block.aput(flushed))
        question = [ChatMessage(role=MessageRole.USER, content="What is my cat's name?")]
        content = asyncio.run(block.aget(question))
        assert "Miso" in content and "Oslo" not in content
