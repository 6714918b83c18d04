"""Embedders across the two libraries.

* :class:`LlamaIndexEmbedder` — any LlamaIndex ``BaseEmbedding`` (OpenAI, HuggingFace, Ollama,
  ...) as cogmem's embedder: ``CognitiveMemory(embedder=LlamaIndexEmbedder(embed_model))``.
* :class:`CogmemEmbedding` — the other way round: a cogmem embedder (by default the offline
  all-MiniLM-L6-v2) as a LlamaIndex ``BaseEmbedding``, e.g. for a ``VectorStoreIndex`` built
  next to a cogmem memory on the same model, without a network.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr

from cogmem import Embedder, InvalidTypeError, MiniLMEmbedder

__all__ = ["CogmemEmbedding", "LlamaIndexEmbedder"]


class LlamaIndexEmbedder:
    """A LlamaIndex ``BaseEmbedding`` with the methods cogmem calls (:class:`cogmem.Embedder`).

    ``embed_documents`` is ``get_text_embedding_batch`` (batched by the model's
    ``embed_batch_size``) and ``embed_query`` is ``get_query_embedding``, so models that embed
    queries and documents differently (instruction-tuned ones) keep doing so. cogmem checks
    every vector it gets (shape, finiteness, non-zero) and raises
    :class:`cogmem.EmbedderError` naming this embedder when one is wrong.

    Args:
        embed_model: Any LlamaIndex embedding model.

    Raises:
        InvalidTypeError: ``embed_model`` is not a LlamaIndex ``BaseEmbedding``.
    """

    def __init__(self, embed_model: BaseEmbedding) -> None:
        if not isinstance(embed_model, BaseEmbedding):
            raise InvalidTypeError(
                f"embed_model must be a LlamaIndex BaseEmbedding, got {type(embed_model).__name__}"
            )
        self.embed_model = embed_model

    def __repr__(self) -> str:
        return f"LlamaIndexEmbedder({self.model_id})"

    @property
    def model_id(self) -> str:
        """The model's class and name, e.g. ``"OpenAIEmbedding/text-embedding-3-small"``."""
        return f"{type(self.embed_model).__name__}/{self.embed_model.model_name}"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order (``get_text_embedding_batch``)."""
        vectors = self.embed_model.get_text_embedding_batch(list(texts))
        return [[float(x) for x in v] for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search query (``get_query_embedding``)."""
        return [float(x) for x in self.embed_model.get_query_embedding(text)]


class CogmemEmbedding(BaseEmbedding):
    """A cogmem embedder as a LlamaIndex ``BaseEmbedding``.

    Args:
        embedder: Anything with ``embed_documents`` / ``embed_query`` (a
            :class:`cogmem.MiniLMEmbedder`, :class:`cogmem.testing.HashingEmbedder`, a
            LangChain ``Embeddings``); default the offline all-MiniLM-L6-v2.
        **kwargs: ``BaseEmbedding`` fields (``embed_batch_size``, ``callback_manager``, ...).

    Raises:
        InvalidTypeError: ``embedder`` lacks ``embed_documents`` or ``embed_query``.
    """

    _embedder: Any = PrivateAttr()

    def __init__(self, embedder: Embedder | None = None, **kwargs: Any) -> None:
        chosen: Any = embedder if embedder is not None else MiniLMEmbedder()
        for method in ("embed_documents", "embed_query"):
            if not callable(getattr(chosen, method, None)):
                raise InvalidTypeError(
                    f"embedder must have an {method} method, got {type(chosen).__name__}"
                )
        name = getattr(chosen, "model_id", None)
        kwargs.setdefault("model_name", str(name) if name else type(chosen).__name__)
        super().__init__(**kwargs)
        self._embedder = chosen

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's serialisation name."""
        return "CogmemEmbedding"

    @property
    def embedder(self) -> Embedder:
        """The cogmem embedder behind this model."""
        chosen: Embedder = self._embedder
        return chosen

    def _get_query_embedding(self, query: str) -> list[float]:
        return [float(x) for x in self._embedder.embed_query(query)]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return await asyncio.to_thread(self._get_query_embedding, query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in v] for v in self._embedder.embed_documents(list(texts))]

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return await asyncio.to_thread(self._get_text_embedding, text)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self._get_text_embeddings, texts)
