"""``CognitiveMemoryRetriever``: a LangChain retriever over a :class:`cogmem.CognitiveMemory`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from cogmem import CognitiveMemory, InvalidInputError, SearchResult
from cogmem.recall import SEARCH_SETTINGS

from ._convert import current_time, result_metadata

__all__ = ["CognitiveMemoryRetriever", "result_to_document"]

# What ``invoke(query, **kwargs)`` may override for one call (``now`` takes a datetime there).
_OVERRIDES = frozenset({"k", "now", *SEARCH_SETTINGS})
# Passed through by LangChain's own plumbing; not ours to act on.
_IGNORED = frozenset({"verbose"})


def result_to_document(result: SearchResult) -> Document:
    """Turn one cogmem search result into a LangChain ``Document``.

    Args:
        result: A result of :meth:`cogmem.CognitiveMemory.search`.

    Returns:
        A ``Document`` whose ``id`` is the memory id, whose ``page_content`` is the memory text
        and whose ``metadata`` holds every field of the memory (times as ISO 8601 text, user
        metadata under ``"metadata"``), the ``score`` and the ``explanation`` (a dict: ranks,
        cosine, BM25, relevance, retention, α, penalties).
    """
    return Document(
        id=result.memory.id,
        page_content=result.memory.text,
        metadata=result_metadata(result),
    )


class CognitiveMemoryRetriever(BaseRetriever):
    """A LangChain retriever that recalls from a cogmem memory, best cognitive score first.

    Each call is one :meth:`cogmem.CognitiveMemory.search`; the fields below are its arguments.
    Any of them can be overridden for a single call as a keyword of ``invoke``/``ainvoke``/
    ``batch`` (``retriever.invoke("query", k=1, filters={"tags": "ui"})``; ``now`` then takes
    a datetime). Unknown keywords raise :class:`cogmem.InvalidInputError`.

    By default a search reinforces what it returns (spaced recall makes memories stable); set
    ``reinforce=False`` for a read that leaves the store exactly as it was.

    Async: the core has no async API yet, so ``ainvoke`` runs the synchronous search in a
    worker thread (``asyncio.to_thread``); the memory's own lock makes that safe.

    Example:
        >>> retriever = CognitiveMemoryRetriever(memory=mem, k=3)  # doctest: +SKIP
        >>> chain = {"context": retriever | format_docs, "question": RunnablePassthrough()} \\
        ...     | prompt | model                                      # doctest: +SKIP

    Attributes:
        memory: The memory to search.
        k: At most this many documents (``top_k``).
        mode, filters, deep_recall, token_budget, reinforce, namespace, session_id,
            min_score, diversity: As the arguments of :meth:`cogmem.CognitiveMemory.search`
            (default: the memory's config).
        now: A clock (``() -> datetime``, timezone-aware) used as the current time; default
            the wall clock. Inject one to replay or test time-dependent recall.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: CognitiveMemory = Field(exclude=True)
    k: int = Field(default=4, ge=1)
    mode: Literal["hybrid", "dense", "lexical"] | None = None
    filters: dict[str, Any] | None = None
    deep_recall: bool = False
    token_budget: int | None = Field(default=None, ge=1)
    reinforce: bool | None = None
    namespace: str = Field(default="default", min_length=1)
    session_id: str | None = None
    min_score: float | None = None
    diversity: bool = False
    now: Callable[[], datetime] | None = Field(default=None, exclude=True)

    def _search(self, query: str, overrides: dict[str, Any]) -> list[Document]:
        unknown = sorted(set(overrides) - _OVERRIDES - _IGNORED)
        if unknown:
            raise InvalidInputError(
                f"CognitiveMemoryRetriever got unknown search argument(s) {unknown}; "
                f"known: {sorted(_OVERRIDES)}"
            )
        args: dict[str, Any] = {
            name: getattr(self, name) for name in _OVERRIDES if name not in ("k", "now")
        }
        args.update({k: v for k, v in overrides.items() if k in _OVERRIDES})
        top_k = args.pop("k", self.k)
        moment = args.pop("now", None)
        if moment is None:
            moment = current_time(self.now)
        results = self.memory.search(query, top_k=top_k, now=moment, **args)
        return [result_to_document(r) for r in results]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        """Search the memory (synchronously) and return the results as documents."""
        return self._search(query, kwargs)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        """Run the synchronous search in a worker thread (the core has no async API yet)."""
        return await asyncio.to_thread(self._search, query, kwargs)
