"""``CognitiveMemoryRetriever``: a LlamaIndex retriever over a :class:`cogmem.CognitiveMemory`."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.core.vector_stores.types import MetadataFilters

from cogmem import CognitiveMemory, InvalidInputError, InvalidTypeError, SearchResult
from cogmem.checks import check_int
from cogmem.memory import require_memory
from cogmem.recall import search_settings

from ._convert import MEMORY_FIELDS, Now, check_now, current_time, result_metadata
from .filters import to_cogmem_filters

__all__ = [
    "DEFAULT_LLM_METADATA_KEYS",
    "CognitiveMemoryRetriever",
    "MemoryNode",
    "result_to_node",
]

#: The memory fields a memory node shows the LLM by default (its user metadata is always shown,
#: as in any LlamaIndex node): the kind of memory and when it was formed.
DEFAULT_LLM_METADATA_KEYS: tuple[str, ...] = ("memory_type", "created_at")

# What a search changes or carries for one query only: left out of a node's hash, so that one
# memory found by several queries (QueryFusionRetriever) is recognised as one node.
_PER_QUERY = frozenset(
    {
        "score",
        "explanation",
        "last_accessed_at",
        "access_count",
        "stability",
        "session_ids",
        "links",  # co-recall strengthens links on every reinforced search
        "links_updated_at",
        "memory_type",  # core promotion
    }
)
_MODES = ("hybrid", "dense", "lexical")


class MemoryNode(TextNode):
    """A ``TextNode`` holding one cogmem memory (``id_`` is the memory id).

    It differs from a plain ``TextNode`` only in its ``hash``: the memory's id, text and stable
    metadata, without what a search changes or carries for one query (score, explanation,
    last access, access count, stability, sessions, links, type). LlamaIndex fuses and
    de-duplicates results by node hash (``QueryFusionRetriever``), so one memory found by
    several queries stays one node.
    """

    @property
    def hash(self) -> str:
        """sha256 of the memory id, its text and its metadata minus the per-query keys."""
        stable = {k: v for k, v in self.metadata.items() if k not in _PER_QUERY}
        identity = json.dumps([self.id_, self.text, stable], sort_keys=True, default=str)
        return hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()


def result_to_node(
    result: SearchResult, llm_metadata_keys: Sequence[str] = DEFAULT_LLM_METADATA_KEYS
) -> NodeWithScore:
    """Turn one cogmem search result into a LlamaIndex ``NodeWithScore``.

    Args:
        result: A result of :meth:`cogmem.CognitiveMemory.search`.
        llm_metadata_keys: The memory fields the LLM sees with the text (see
            :class:`CognitiveMemoryRetriever`).

    Returns:
        ``NodeWithScore(MemoryNode(id_=memory id, text=memory text, metadata=...), score)``.
        The metadata holds the memory's user metadata at the top level, then every memory
        field (times as ISO 8601 text), the ``score`` and the ``explanation`` (a dict: ranks,
        cosine, BM25, relevance, retention R, α, penalties, score). Memory fields other than
        ``llm_metadata_keys`` are excluded from the LLM's and the embedder's view of the node.
    """
    metadata = result_metadata(result)
    hidden = [k for k in MEMORY_FIELDS if k not in llm_metadata_keys]
    node = MemoryNode(
        id_=result.memory.id,
        text=result.memory.text,
        metadata=metadata,  # type: ignore[call-arg]  # a field with an alias, unseen by mypy
        excluded_llm_metadata_keys=hidden,
        excluded_embed_metadata_keys=list(MEMORY_FIELDS),
    )
    return NodeWithScore(node=node, score=result.score)


class CognitiveMemoryRetriever(BaseRetriever):
    """A LlamaIndex retriever that recalls from a cogmem memory, best cognitive score first.

    Each retrieval is one :meth:`cogmem.CognitiveMemory.search` (hybrid BM25 + dense relevance
    times retention, ``score = relevance · R^α · penalties``); the arguments below are its
    arguments. Use it wherever LlamaIndex takes a retriever::

        retriever = CognitiveMemoryRetriever(mem, similarity_top_k=4)
        engine = RetrieverQueryEngine.from_args(retriever, llm=llm)
        fused = QueryFusionRetriever([retriever, vector_index.as_retriever()], llm=llm)

    By default a retrieval reinforces what it returns (spaced recall makes memories stable);
    ``reinforce=False`` makes it a read that leaves the store exactly as it was. A
    ``QueryFusionRetriever`` generating several queries runs one search (and reinforcement) per
    query; nodes of one memory keep one hash, so the fusion returns it once.

    Async: the core has no async API yet, so ``aretrieve`` runs the synchronous search in a
    worker thread (``asyncio.to_thread``); the memory's own lock makes that safe.

    Args:
        memory: The memory to search.
        similarity_top_k: At most this many nodes (``top_k``).
        filters: A LlamaIndex ``MetadataFilters`` (translated once, here, by
            :func:`~llamaindex_cogmem.to_cogmem_filters`; an operator cogmem cannot apply
            raises :class:`~llamaindex_cogmem.UnsupportedFilterError`) or a cogmem filter dict.
        mode, deep_recall, token_budget, reinforce, namespace, session_id, min_score,
            diversity: As the arguments of :meth:`cogmem.CognitiveMemory.search` (default:
            the memory's config).
        now: The current time for decay: a timezone-aware datetime, epoch seconds, or a clock
            (``() -> datetime``) called at each retrieval; default the wall clock.
        llm_metadata_keys: The memory fields shown to the LLM with each memory's text
            (default ``memory_type`` and ``created_at``); the rest, score and explanation
            included, stay in the metadata but out of the prompt.
        callback_manager: LlamaIndex callbacks.
        verbose: LlamaIndex's verbose flag.

    Raises:
        InvalidTypeError: ``memory`` is not a ``CognitiveMemory`` or an argument has the
            wrong type.
        InvalidInputError: An argument is out of range (names it).
        UnsupportedFilterError: ``filters`` has no cogmem equivalent.
    """

    def __init__(
        self,
        memory: CognitiveMemory,
        *,
        similarity_top_k: int = 4,
        mode: str | None = None,
        filters: MetadataFilters | Mapping[str, Any] | None = None,
        deep_recall: bool = False,
        token_budget: int | None = None,
        reinforce: bool | None = None,
        namespace: str = "default",
        session_id: str | None = None,
        min_score: float | None = None,
        diversity: bool = False,
        now: Now = None,
        llm_metadata_keys: Sequence[str] = DEFAULT_LLM_METADATA_KEYS,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        require_memory(memory)
        check_int(similarity_top_k, "similarity_top_k")
        if token_budget is not None:
            check_int(token_budget, "token_budget")
        if mode is not None and mode not in _MODES:
            raise InvalidInputError(f"mode must be one of {', '.join(_MODES)}; got {mode!r}")
        if isinstance(llm_metadata_keys, str) or not all(
            isinstance(k, str) for k in llm_metadata_keys
        ):
            raise InvalidTypeError("llm_metadata_keys must be a list of str")
        check_now(now)
        self.memory = memory
        self.similarity_top_k = similarity_top_k
        self.mode = mode
        self.filters = filters
        self.deep_recall = deep_recall
        self.token_budget = token_budget
        self.reinforce = reinforce
        self.namespace = namespace
        self.session_id = session_id
        self.min_score = min_score
        self.diversity = diversity
        self.now = now
        self.llm_metadata_keys = tuple(llm_metadata_keys)
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @property
    def filters(self) -> MetadataFilters | Mapping[str, Any] | None:
        """The filters as given; setting them translates (and checks) them again."""
        return self._given_filters

    @filters.setter
    def filters(self, value: MetadataFilters | Mapping[str, Any] | None) -> None:
        self._cogmem_filters = to_cogmem_filters(value)
        self._given_filters = value

    @property
    def cogmem_filters(self) -> dict[str, Any] | None:
        """The filters as cogmem applies them."""
        return None if self._cogmem_filters is None else dict(self._cogmem_filters)

    def _search(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        results = self.memory.search(
            query_bundle.query_str,
            **search_settings(
                self,
                top_k=self.similarity_top_k,
                filters=self._cogmem_filters,
                now=current_time(self.now),
            ),
        )
        return [result_to_node(r, self.llm_metadata_keys) for r in results]

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """Search the memory with the query text (synchronously)."""
        return self._search(query_bundle)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """Run the synchronous search in a worker thread (the core has no async API yet)."""
        return await asyncio.to_thread(self._search, query_bundle)
