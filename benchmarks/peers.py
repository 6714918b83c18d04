"""The retrievers cogmem is compared against, built the way their frameworks' users build them.

Every peer is fed the SAME precomputed vectors: :meth:`Peer.add` receives the memory vectors and
:meth:`Peer.search` the query vector, and the frameworks get them through "precomputed" embedding
adapters (:class:`VectorTable` behind a LangChain ``Embeddings`` and a LlamaIndex
``BaseEmbedding``) that only look texts up and raise :class:`PrecomputedEmbeddingMissError` on a
miss. No framework ever embeds anything itself, nothing downloads a model, nothing calls an LLM,
and every system sees identical vectors.

Peers:

* :class:`LangChainEnsemble` - ``EnsembleRetriever`` (weighted RRF) over ``BM25Retriever``
  (rank_bm25) and a ``langchain_chroma.Chroma`` vector retriever, weights 0.5 / 0.5.
* :class:`LlamaIndexFusion` - ``QueryFusionRetriever`` (reciprocal rerank, one query, no LLM) over
  a ``VectorStoreIndex`` on ``ChromaVectorStore`` and the bm25s-based ``BM25Retriever``.
* :class:`LangChainTimeWeighted` - ``TimeWeightedVectorStoreRetriever`` over ``langchain_chroma``
  (recency + relevance, decay 0.01 per hour), scored at a given ``now``.
* :class:`BareChroma` - a chromadb collection queried by vector (dense only, cosine).

Importing this module is cheap: the frameworks are imported when a peer is constructed.
"""

from __future__ import annotations

import functools
import re
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import chromadb

__all__ = [
    "PEERS",
    "BareChroma",
    "LangChainEnsemble",
    "LangChainTimeWeighted",
    "LlamaIndexFusion",
    "Peer",
    "PrecomputedEmbeddingMissError",
    "VectorTable",
    "langchain_embeddings",
    "llamaindex_embedding",
    "lower_words",
]


@runtime_checkable
class Peer(Protocol):
    """A retriever under comparison. ``search`` returns memory ids, best first.

    Every peer here also accepts ``now=`` (a tz-aware datetime) on ``search``; only the
    time-aware ones use it. ``created_at`` on ``add`` is likewise ignored by the others.
    """

    name: str

    def add(
        self,
        ids: list[str],
        texts: list[str],
        vectors: np.ndarray,
        created_at: list[datetime] | None = None,
    ) -> None: ...

    def search(self, query: str, query_vector: np.ndarray, k: int) -> list[str]: ...


# --------------------------------------------------------------------------------------------
# Precomputed embeddings


class PrecomputedEmbeddingMissError(KeyError):
    """A framework asked for the vector of a text nobody registered: it would have embedded it."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "precomputed embedding miss"


class VectorTable:
    """text -> vector, filled by the peers before they hand texts to a framework."""

    def __init__(self) -> None:
        self._vectors: dict[str, list[float]] = {}
        self.dim: int | None = None

    def __len__(self) -> int:
        return len(self._vectors)

    def __contains__(self, text: object) -> bool:
        return text in self._vectors

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        arr = np.asarray(vectors, dtype=np.float32)
        if arr.ndim == 1:
            arr = arr.reshape(1, -1)
        if arr.shape[0] != len(texts):
            raise ValueError(f"{len(texts)} texts but {arr.shape[0]} vectors")
        if self.dim is None:
            self.dim = int(arr.shape[1])
        elif arr.shape[1] != self.dim:
            raise ValueError(f"vector dimension {arr.shape[1]}, table holds {self.dim}")
        for text, row in zip(texts, arr.tolist(), strict=True):
            self._vectors[text] = row

    def get(self, text: str) -> list[float]:
        try:
            return self._vectors[text]
        except KeyError:
            preview = text if len(text) <= 80 else text[:77] + "..."
            raise PrecomputedEmbeddingMissError(
                f"no precomputed vector for text {preview!r}: the framework tried to embed a "
                "text that was not given to add()/search() - refusing to embed it here"
            ) from None

    def get_many(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.get(t) for t in texts]


@functools.cache
def _langchain_embeddings_cls() -> type:
    from langchain_core.embeddings import Embeddings

    class PrecomputedLangChainEmbeddings(Embeddings):
        """LangChain ``Embeddings`` that only look vectors up in a :class:`VectorTable`."""

        def __init__(self, table: VectorTable) -> None:
            self.table = table

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return self.table.get_many(texts)

        def embed_query(self, text: str) -> list[float]:
            return self.table.get(text)

    return PrecomputedLangChainEmbeddings


@functools.cache
def _llamaindex_embedding_cls() -> type:
    from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
    from pydantic import PrivateAttr

    class PrecomputedLlamaIndexEmbedding(BaseEmbedding):
        """LlamaIndex ``BaseEmbedding`` that only looks vectors up in a :class:`VectorTable`."""

        _table: VectorTable = PrivateAttr()

        def __init__(self, table: VectorTable, **kwargs: Any) -> None:
            kwargs.setdefault("model_name", "precomputed")
            kwargs.setdefault("embed_batch_size", 2048)
            super().__init__(**kwargs)
            self._table = table

        @classmethod
        def class_name(cls) -> str:
            return "PrecomputedLlamaIndexEmbedding"

        def _get_query_embedding(self, query: str) -> Embedding:
            return self._table.get(query)

        async def _aget_query_embedding(self, query: str) -> Embedding:
            return self._table.get(query)

        def _get_text_embedding(self, text: str) -> Embedding:
            return self._table.get(text)

        def _get_text_embeddings(self, texts: list[str]) -> list[Embedding]:
            return self._table.get_many(texts)

    return PrecomputedLlamaIndexEmbedding


def langchain_embeddings(table: VectorTable) -> Any:
    """A LangChain ``Embeddings`` over ``table`` (``PrecomputedLangChainEmbeddings``)."""
    return _langchain_embeddings_cls()(table)


def llamaindex_embedding(table: VectorTable) -> Any:
    """A LlamaIndex ``BaseEmbedding`` over ``table`` (``PrecomputedLlamaIndexEmbedding``)."""
    return _llamaindex_embedding_cls()(table)


def __getattr__(name: str) -> Any:  # lazy access to the adapter classes themselves
    if name == "PrecomputedLangChainEmbeddings":
        return _langchain_embeddings_cls()
    if name == "PrecomputedLlamaIndexEmbedding":
        return _llamaindex_embedding_cls()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------------------------
# Shared helpers


def _chroma_client() -> chromadb.ClientAPI:
    import chromadb

    return chromadb.EphemeralClient()


def _new_collection_name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


COSINE = {"hnsw": {"space": "cosine"}}


def _check_add(ids: list[str], texts: list[str], vectors: np.ndarray) -> np.ndarray:
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[0] != len(ids) or len(ids) != len(texts):
        raise ValueError(f"add(): {len(ids)} ids, {len(texts)} texts, vectors of shape {arr.shape}")
    if len(set(ids)) != len(ids):
        raise ValueError("add(): duplicate ids")
    return arr


def _batches(n: int, size: int) -> list[range]:
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


# --------------------------------------------------------------------------------------------
# Peers


class BareChroma:
    """Dense-only baseline: one chromadb collection (cosine), explicit embeddings."""

    def __init__(self, name: str = "chroma-dense") -> None:
        self.name = name
        self._client = _chroma_client()
        self._collection = self._client.create_collection(
            name=_new_collection_name("bare"), configuration=COSINE, embedding_function=None
        )
        self._batch = self._client.get_max_batch_size()
        self._count = 0

    def add(
        self,
        ids: list[str],
        texts: list[str],
        vectors: np.ndarray,
        created_at: list[datetime] | None = None,
    ) -> None:
        arr = _check_add(ids, texts, vectors)
        for r in _batches(len(ids), self._batch):
            self._collection.add(
                ids=[ids[i] for i in r],
                documents=[texts[i] for i in r],
                embeddings=arr[r.start : r.stop],
            )
        self._count += len(ids)

    def search(
        self, query: str, query_vector: np.ndarray, k: int, *, now: datetime | None = None
    ) -> list[str]:
        if self._count == 0:
            return []
        q = np.asarray(query_vector, dtype=np.float32).reshape(1, -1)
        res = self._collection.query(query_embeddings=q, n_results=min(k, self._count), include=[])
        return list(res["ids"][0])

    def close(self) -> None:
        self._client.delete_collection(self._collection.name)


class LangChainEnsemble:
    """LangChain's hybrid recipe: ``EnsembleRetriever([BM25Retriever, Chroma], [0.5, 0.5])``.

    As in LangChain's docs, each sub-retriever fetches ``k`` (``bm25.k = k``,
    ``as_retriever(search_kwargs={"k": k})``); the ensemble returns the fused union (up to 2k)
    and we keep its first ``k``. ``BM25Retriever`` is static, so ``add`` rebuilds it from all
    documents, as a LangChain user has to. Its default tokenizer is ``str.split`` (case and
    punctuation kept); ``lowercase_bm25=True`` uses ``s.lower().split()``, and
    ``preprocess_func`` replaces either (e.g. :func:`lower_words`, lowercase ``\\w+`` tokens).
    ``id_key=None`` (LangChain's default) fuses duplicates by page content.
    """

    def __init__(
        self,
        *,
        lowercase_bm25: bool = False,
        preprocess_func: Callable[[str], list[str]] | None = None,
        weights: tuple[float, float] = (0.5, 0.5),
        id_key: str | None = None,
        name: str | None = None,
        depth: int | None = None,
    ) -> None:
        from langchain_chroma import Chroma

        self.name = name or ("langchain-ensemble" + ("-lower" if lowercase_bm25 else ""))
        # How deep each of the two lists is (None: k, as a user sets it); k are returned.
        self.depth = depth
        self.lowercase_bm25 = lowercase_bm25
        self.preprocess_func = preprocess_func
        self.weights = list(weights)
        self.id_key = id_key
        self._table = VectorTable()
        self._client = _chroma_client()
        self._vectorstore = Chroma(
            collection_name=_new_collection_name("lc-ensemble"),
            embedding_function=langchain_embeddings(self._table),
            client=self._client,
            collection_configuration=COSINE,  # type: ignore[arg-type]
        )
        self._batch = self._client.get_max_batch_size()
        self._docs: list[Any] = []
        self._bm25: Any = None
        self._ensemble: Any = None
        self._vector_retriever: Any = None

    def _preprocess(self) -> Any:
        if self.preprocess_func is not None:
            return self.preprocess_func
        if self.lowercase_bm25:
            return _lower_split
        from langchain_community.retrievers.bm25 import default_preprocessing_func

        return default_preprocessing_func

    def add(
        self,
        ids: list[str],
        texts: list[str],
        vectors: np.ndarray,
        created_at: list[datetime] | None = None,
    ) -> None:
        from langchain_community.retrievers import BM25Retriever
        from langchain_core.documents import Document

        arr = _check_add(ids, texts, vectors)
        self._table.put(texts, arr)
        docs = [
            Document(page_content=t, metadata={"id": i}, id=i)
            for i, t in zip(ids, texts, strict=True)
        ]
        for r in _batches(len(docs), self._batch):
            self._vectorstore.add_documents(docs[r.start : r.stop], ids=ids[r.start : r.stop])
        self._docs.extend(docs)
        self._bm25 = BM25Retriever.from_documents(self._docs, preprocess_func=self._preprocess())
        self._ensemble = None

    def _build(self, k: int) -> Any:
        from langchain_classic.retrievers import EnsembleRetriever

        depth = self.depth or k
        if self._ensemble is None:
            self._vector_retriever = self._vectorstore.as_retriever(search_kwargs={"k": depth})
            self._ensemble = EnsembleRetriever(
                retrievers=[self._bm25, self._vector_retriever],
                weights=self.weights,
                id_key=self.id_key,
            )
        self._bm25.k = depth
        self._vector_retriever.search_kwargs = {"k": depth}
        return self._ensemble

    def search(
        self, query: str, query_vector: np.ndarray, k: int, *, now: datetime | None = None
    ) -> list[str]:
        if not self._docs:
            return []
        self._table.put([query], query_vector)
        docs = self._build(k).invoke(query)
        return [d.metadata["id"] for d in docs[:k]]

    def close(self) -> None:
        self._vectorstore.delete_collection()


def _lower_split(s: str) -> list[str]:
    return s.lower().split()


_WORD = re.compile(r"\w+")


def lower_words(s: str) -> list[str]:
    """Lowercase ``\\w+`` tokens (punctuation dropped): a BM25 tokenizer for LangChain's BM25."""
    return _WORD.findall(s.lower())


class LlamaIndexFusion:
    """LlamaIndex's hybrid recipe: ``QueryFusionRetriever`` in ``reciprocal_rerank`` mode over a
    ``VectorStoreIndex`` (``ChromaVectorStore``, cosine) and ``BM25Retriever`` (bm25s, English
    stemming and stop words), ``num_queries=1`` and an explicit ``MockLLM`` so no LLM is ever
    resolved or called. ``add`` inserts the nodes into the index and rebuilds the BM25 retriever
    from all nodes (it has no incremental insert), which is what a LlamaIndex user does.
    """

    def __init__(
        self, *, k: int = 10, name: str = "llamaindex-fusion", depth: int | None = None
    ) -> None:
        from llama_index.core import StorageContext, VectorStoreIndex
        from llama_index.core.llms import MockLLM
        from llama_index.vector_stores.chroma import ChromaVectorStore

        self.name = name
        self.k = k
        self.depth = depth  # each list's depth (None: k, as a user sets it); k are returned
        self._table = VectorTable()
        self._client = _chroma_client()
        self._collection = self._client.create_collection(
            name=_new_collection_name("li-fusion"), configuration=COSINE, embedding_function=None
        )
        vector_store = ChromaVectorStore(chroma_collection=self._collection)
        storage_context = StorageContext.from_defaults(vector_store=vector_store)
        self._embed_model = llamaindex_embedding(self._table)
        self._llm = MockLLM()
        self._index = VectorStoreIndex(
            nodes=[], storage_context=storage_context, embed_model=self._embed_model
        )
        self._nodes: list[Any] = []
        self._bm25: Any = None
        self._fusion: Any = None
        self._vector_retriever: Any = None

    def add(
        self,
        ids: list[str],
        texts: list[str],
        vectors: np.ndarray,
        created_at: list[datetime] | None = None,
    ) -> None:
        from llama_index.core.schema import TextNode
        from llama_index.retrievers.bm25 import BM25Retriever

        arr = _check_add(ids, texts, vectors)
        self._table.put(texts, arr)
        nodes = [TextNode(id_=i, text=t) for i, t in zip(ids, texts, strict=True)]
        self._index.insert_nodes(nodes)
        self._nodes.extend(nodes)
        self._bm25 = BM25Retriever.from_defaults(
            nodes=self._nodes, similarity_top_k=min(self.depth or self.k, len(self._nodes))
        )
        self._fusion = None

    def _build(self, k: int) -> Any:
        from llama_index.core.retrievers import QueryFusionRetriever

        depth = self.depth or k
        if self._fusion is None:
            self._vector_retriever = self._index.as_retriever(similarity_top_k=depth)
            self._fusion = QueryFusionRetriever(
                [self._vector_retriever, self._bm25],
                llm=self._llm,
                mode="reciprocal_rerank",  # type: ignore[arg-type]
                num_queries=1,
                similarity_top_k=k,
                use_async=False,
            )
        self._vector_retriever.similarity_top_k = depth
        self._bm25.similarity_top_k = min(depth, len(self._nodes))
        self._fusion.similarity_top_k = k
        return self._fusion

    def search(
        self, query: str, query_vector: np.ndarray, k: int, *, now: datetime | None = None
    ) -> list[str]:
        if not self._nodes:
            return []
        self._table.put([query], query_vector)
        results = self._build(k).retrieve(query)
        return [r.node.node_id for r in results[:k]]

    def close(self) -> None:
        self._client.delete_collection(self._collection.name)


class LangChainTimeWeighted:
    """LangChain's recency-aware retriever: ``TimeWeightedVectorStoreRetriever`` over
    ``langchain_chroma`` (cosine), score = relevance + (1 - decay_rate) ** hours since last access.

    Chroma metadata cannot hold datetimes, so ``created_at`` / ``last_accessed_at`` are stored
    as epoch floats, the form the retriever reads back with ``datetime.fromtimestamp``. The
    retriever calls ``datetime.datetime.now()`` itself; ``search(..., now=...)`` runs it under
    ``langchain_core.utils.mock_now`` (LangChain's "virtual time" helper) so it scores at the
    benchmark's ``now``. As designed, the documents it returns get ``last_accessed_at = now``,
    so earlier searches change later ones (``reinforce=True``, the framework's behaviour);
    ``reinforce=False`` puts ``last_accessed_at`` back to ``created_at`` after each search so
    every query sees the store as added. ``search_kwargs`` keeps its default (``k=100``
    candidates from the vector store); ``k`` is the number returned.
    """

    def __init__(
        self,
        *,
        decay_rate: float = 0.01,
        k: int = 10,
        search_kwargs: dict[str, Any] | None = None,
        reinforce: bool = True,
        name: str | None = None,
    ) -> None:
        from langchain_chroma import Chroma
        from langchain_classic.retrievers import TimeWeightedVectorStoreRetriever

        self.name = name or ("langchain-time-weighted" + ("" if reinforce else "-noreinforce"))
        self.reinforce = reinforce
        self._table = VectorTable()
        self._client = _chroma_client()
        self._batch = self._client.get_max_batch_size()
        self._vectorstore = Chroma(
            collection_name=_new_collection_name("lc-timeweighted"),
            embedding_function=langchain_embeddings(self._table),
            client=self._client,
            collection_configuration=COSINE,  # type: ignore[arg-type]
        )
        extra = {} if search_kwargs is None else {"search_kwargs": search_kwargs}
        self._retriever = TimeWeightedVectorStoreRetriever(
            vectorstore=self._vectorstore, decay_rate=decay_rate, k=k, **extra
        )
        self._count = 0

    def add(
        self,
        ids: list[str],
        texts: list[str],
        vectors: np.ndarray,
        created_at: list[datetime] | None = None,
    ) -> None:
        from langchain_core.documents import Document

        arr = _check_add(ids, texts, vectors)
        if created_at is not None and len(created_at) != len(ids):
            raise ValueError(f"add(): {len(ids)} ids but {len(created_at)} created_at")
        self._table.put(texts, arr)
        # Without created_at the retriever would stamp datetime.now() objects, which Chroma
        # metadata rejects: stamp the current time as an epoch instead.
        stamps = [_epoch(c) for c in created_at] if created_at is not None else None
        default_ts = time.time()
        docs = []
        for j, (i, t) in enumerate(zip(ids, texts, strict=True)):
            ts = stamps[j] if stamps is not None else default_ts
            meta: dict[str, Any] = {"id": i, "created_at": ts, "last_accessed_at": ts}
            docs.append(Document(page_content=t, metadata=meta, id=i))
        for r in _batches(len(docs), self._batch):
            self._retriever.add_documents(docs[r.start : r.stop], ids=ids[r.start : r.stop])
        self._count += len(ids)

    def search(
        self, query: str, query_vector: np.ndarray, k: int, *, now: datetime | None = None
    ) -> list[str]:
        if self._count == 0:
            return []
        self._table.put([query], query_vector)
        self._retriever.k = k
        if now is None:
            docs = self._retriever.invoke(query)
        else:
            from langchain_core.utils import mock_now

            # The retriever compares naive local datetimes (fromtimestamp() of the stored
            # epochs); give it ``now`` in the same form.
            local_now = datetime.fromtimestamp(_epoch(now))
            with mock_now(local_now):
                docs = self._retriever.invoke(query)
        if not self.reinforce:
            for d in docs:  # these are the retriever's memory_stream documents
                d.metadata["last_accessed_at"] = d.metadata["created_at"]
        return [d.metadata["id"] for d in docs[:k]]

    def close(self) -> None:
        self._vectorstore.delete_collection()


def _epoch(dt: datetime) -> float:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


PEERS: dict[str, Any] = {
    "langchain-ensemble": LangChainEnsemble,
    "langchain-ensemble-lower": functools.partial(LangChainEnsemble, lowercase_bm25=True),
    "langchain-ensemble-words": functools.partial(
        LangChainEnsemble, preprocess_func=lower_words, name="langchain-ensemble-words"
    ),
    "llamaindex-fusion": LlamaIndexFusion,
    # The two hybrids with lists as deep as cogmem's (50 each), k still returned.
    "langchain-ensemble@50": functools.partial(
        LangChainEnsemble, depth=50, name="langchain-ensemble@50"
    ),
    "llamaindex-fusion@50": functools.partial(
        LlamaIndexFusion, depth=50, name="llamaindex-fusion@50"
    ),
    "langchain-time-weighted": LangChainTimeWeighted,
    "langchain-time-weighted-noreinforce": functools.partial(
        LangChainTimeWeighted, reinforce=False
    ),
    "chroma-dense": BareChroma,
}
"""Name -> zero-argument factory for each peer configuration the benchmarks run."""
