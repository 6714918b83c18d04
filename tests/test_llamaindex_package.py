"""The llamaindex_cogmem package: lazy imports, public API, embedders in both directions."""

from __future__ import annotations

import asyncio
import inspect
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.embeddings import MockEmbedding
from pydantic import PrivateAttr

import llamaindex_cogmem
from cogmem import CognitiveMemory, EmbedderError, InvalidTypeError
from cogmem.testing import HashingEmbedder
from llamaindex_cogmem import CogmemEmbedding, CognitiveMemoryRetriever, LlamaIndexEmbedder
from tests.llamaindex_fixtures import NOW

ROOT = Path(__file__).resolve().parent.parent


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "core"), str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )


def test_importing_cogmem_never_imports_llamaindex() -> None:
    done = _run(
        "import cogmem, sys; "
        "assert not any(m.startswith('llama_index') for m in sys.modules), "
        "sorted(m for m in sys.modules if m.startswith('llama_index'))"
    )
    assert done.returncode == 0, done.stderr


def test_adapters_are_imported_on_first_use() -> None:
    done = _run(
        "import sys, llamaindex_cogmem; "
        "from llamaindex_cogmem import UnsupportedFilterError, NodeMetadataError; "
        "assert not any(m.startswith('llama_index') for m in sys.modules); "
        "llamaindex_cogmem.RetentionPostprocessor; "
        "assert 'llama_index.core' in sys.modules"
    )
    assert done.returncode == 0, done.stderr


def test_public_api_is_documented() -> None:
    assert sorted(llamaindex_cogmem.__all__) == sorted(set(llamaindex_cogmem.__all__))
    for name in llamaindex_cogmem.__all__:
        obj = getattr(llamaindex_cogmem, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            doc = inspect.getdoc(obj) or ""
            assert len(doc) > 40, f"{name} needs a docstring"
    assert "summarizer_from" in dir(llamaindex_cogmem)
    with pytest.raises(AttributeError, match="no attribute"):
        llamaindex_cogmem.NoSuchThing  # noqa: B018


class KeywordEmbedding(BaseEmbedding):
    """A tiny deterministic LlamaIndex embedding model over a fixed vocabulary.

    Queries get a distinct extra component, so using the query path is observable.
    """

    _vocabulary: tuple[str, ...] = PrivateAttr(default=("cat", "dog", "tea", "lisbon", "piano"))
    _calls: list[tuple[str, int]] = PrivateAttr(default_factory=list)

    def _vector(self, text: str, query: bool) -> list[float]:
        words = text.lower().replace(".", " ").split()
        counts = [float(words.count(w)) for w in self._vocabulary]
        return [*counts, 0.5 if query else 0.1]

    def _get_query_embedding(self, query: str) -> list[float]:
        self._calls.append(("query", 1))
        return self._vector(query, True)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        self._calls.append(("texts", len(texts)))
        return [self._vector(t, False) for t in texts]


def test_any_llamaindex_embedding_serves_as_cogmem_embedder() -> None:
    model = KeywordEmbedding(embed_batch_size=2)
    embedder = LlamaIndexEmbedder(model)
    assert embedder.model_id == "KeywordEmbedding/unknown"
    texts = ["The cat sleeps", "The dog barks", "Tea in Lisbon", "Piano lessons", "A cat and a dog"]
    with CognitiveMemory(embedder=embedder) as mem:
        ids = mem.add_many(texts, now=NOW)
        # batched by the model (what follows: short phrases the version logic compares)
        assert model._calls[:3] == [("texts", 2), ("texts", 2), ("texts", 1)]
        top = mem.search("tea lisbon", now=NOW, reinforce=False, mode="dense")[0]
        assert model._calls[-1] == ("query", 1)
        assert top.id == ids[2]
        query = np.array([0, 0, 1, 1, 0, 0.5])
        doc = np.array([0, 0, 1, 1, 0, 0.1])
        cosine = float(query @ doc / np.linalg.norm(query) / np.linalg.norm(doc))
        assert top.explanation.cosine == pytest.approx(cosine, abs=1e-5)
        nodes = CognitiveMemoryRetriever(mem, now=NOW, reinforce=False).retrieve("piano")
        assert nodes[0].node.node_id == ids[3]


def test_llamaindex_mock_embedding_works_and_bm25_still_finds_words() -> None:
    with CognitiveMemory(embedder=LlamaIndexEmbedder(MockEmbedding(embed_dim=8))) as mem:
        mem.add_many(
            ["The user speaks Portuguese", "The weather was rainy", "The train was late"],
            now=NOW,
        )
        assert mem.search("Portuguese", top_k=1, now=NOW)[0].text == "The user speaks Portuguese"


class BrokenEmbedding(KeywordEmbedding):
    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        raise ConnectionError("embedding service unreachable")


def test_a_failing_llamaindex_embedding_raises_the_cores_embedder_error() -> None:
    with CognitiveMemory(embedder=LlamaIndexEmbedder(BrokenEmbedding())) as mem:
        with pytest.raises(EmbedderError, match="unreachable"):
            mem.add("anything", now=NOW)
        assert len(mem) == 0
    with pytest.raises(InvalidTypeError, match="BaseEmbedding"):
        LlamaIndexEmbedder(HashingEmbedder())  # type: ignore[arg-type]


def test_a_cogmem_embedder_serves_as_a_llamaindex_embedding() -> None:
    hashing = HashingEmbedder(dimension=64)
    model = CogmemEmbedding(hashing, embed_batch_size=3)
    assert model.model_name == "hashing-blake2b/64" and model.embedder is hashing
    texts = ["green tea", "black coffee", "a walk in Lisbon", "piano"]
    expected = hashing.embed_documents(texts)
    assert np.allclose(model.get_text_embedding_batch(texts), expected)
    assert model.get_query_embedding("green tea") == pytest.approx(hashing.embed_query("green tea"))
    assert np.allclose(asyncio.run(model.aget_text_embedding_batch(texts)), expected)
    assert asyncio.run(model.aget_query_embedding("piano")) == pytest.approx(expected[3])
    assert model.get_text_embedding("piano") == pytest.approx(expected[3])
    with pytest.raises(InvalidTypeError, match="embed_documents"):
        CogmemEmbedding(object())  # type: ignore[arg-type]


def test_cogmem_embedding_round_trips_through_llamaindex_embedder() -> None:
    inner: Any = HashingEmbedder()
    there_and_back = LlamaIndexEmbedder(CogmemEmbedding(inner))
    assert np.allclose(there_and_back.embed_documents(["a b"]), inner.embed_documents(["a b"]))
    assert there_and_back.model_id == "CogmemEmbedding/hashing-blake2b/256"
