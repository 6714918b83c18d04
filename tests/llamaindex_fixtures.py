"""Helpers shared by the LlamaIndex adapter tests: a real Chroma-backed ``VectorStoreIndex``."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timezone

import chromadb
from llama_index.core import StorageContext, VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
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
