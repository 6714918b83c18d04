"""Helpers shared by the LlamaIndex adapter tests: a real Chroma-backed ``VectorStoreIndex``."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import chromadb
from llama_index.core import StorageContext, VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.schema import TextNode
from llama_index.vector_stores.chroma import ChromaVectorStore

from cogmem.testing import HashingEmbedder
from llamaindex_cogmem import CogmemEmbedding

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


def hashing_embed_model() -> CogmemEmbedding:
    """A deterministic LlamaIndex embedding model (bag of words; no model files)."""
    return CogmemEmbedding(HashingEmbedder())


def chroma_index(
    nodes: Sequence[TextNode], embed_model: BaseEmbedding | None = None
) -> VectorStoreIndex:
    """A ``VectorStoreIndex`` on an embedded Chroma collection of its own, holding ``nodes``."""
    client = chromadb.EphemeralClient()
    collection = client.create_collection(f"li-test-{uuid.uuid4().hex[:12]}")
    store = ChromaVectorStore(chroma_collection=collection)
    return VectorStoreIndex(
        list(nodes),
        storage_context=StorageContext.from_defaults(vector_store=store),
        embed_model=embed_model or hashing_embed_model(),
    )


def tool_call(name: str, call_id: str, **kwargs: object) -> ChatMessage:
    """A scripted assistant message that calls the tool ``name`` with ``kwargs``."""
    from llama_index.core.base.llms.types import MessageRole, ToolCallBlock

    return ChatMessage(
        role=MessageRole.ASSISTANT,
        blocks=[ToolCallBlock(tool_call_id=call_id, tool_name=name, tool_kwargs=kwargs)],
    )


def run_scripted_agent(
    tools: Sequence[object], script: Sequence[ChatMessage], question: str
) -> tuple[str, list[Any], list[Sequence[ChatMessage]]]:
    """A real ``FunctionAgent`` whose model answers with ``script``, one message per call:
    its final answer, its tool call results (``ToolCallResult`` events) and what the model
    was sent at each call."""
    import asyncio

    from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
    from llama_index.core.llms.mock import MockFunctionCallingLLM

    seen: list[Sequence[ChatMessage]] = []

    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        seen.append(messages)
        return script[len(seen) - 1]

    agent = FunctionAgent(
        llm=MockFunctionCallingLLM(response_generator=respond), tools=list(tools), streaming=False
    )

    async def run() -> tuple[str, list[Any]]:
        handler = agent.run(question)
        results = [e async for e in handler.stream_events() if isinstance(e, ToolCallResult)]
        return str(await handler), results

    answer, results = asyncio.run(run())
    return answer, results, seen
