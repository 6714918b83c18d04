"""``CognitiveMemoryRetriever``: a LangChain retriever over a :class:`cogmem.CognitiveMemory`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, field_validator

from cogmem import CognitiveMemory, InvalidInputError, SearchResult
from cogmem.recall import SEARCH_SETTINGS

from ._convert import current_time, result_metadata

__all__ = ["CognitiveMemoryRetriever", "result_to_document"]

# What ``invoke(query, **kwargs)`` may override for one call (``now`` takes a datetime there).
_OVERRIDES = frozenset({"k", "now", *SEARCH_SETTINGS})
# Passed through by LangChain's own plumbing; not ours to act on.
_IGNORED = frozenset({"verbose"})
# ``search_kwargs`` as ``VectorStoreRetriever`` takes them: its names, then ours.
_SEARCH_KWARGS = {"k": "k", "filter": "filters", **{name: name for name in SEARCH_SETTINGS}}
# Names users bring from other retrievers, and what they are called here.
_ALIASES = {"top_k": "k", "similarity_top_k": "k", "filter": "filters"}


def _unknown(names: Iterable[str], known: Iterable[str], where: str) -> InvalidInputError:
    """The error for arguments a retriever does not take, with a hint for familiar names."""
    listed = sorted(names)
    hints = [f"{n!r} is called {_ALIASES[n]!r} here" for n in listed if n in _ALIASES]
    hint = f" ({'; '.join(hints)})" if hints else ""
    return InvalidInputError(
        f"CognitiveMemoryRetriever got unknown {where} {listed}{hint}; known: {sorted(known)}"
    )


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
    a datetime). ``search_kwargs`` is taken as ``VectorStoreRetriever`` takes it (``k``,
    ``filter``, and any of the fields above), so ``vectorstore.as_retriever(...)`` code ports
    as it is: it overrides the fields, and ``invoke`` keywords override both. Unknown
    arguments raise :class:`cogmem.InvalidInputError` (``top_k=1`` is refused, naming ``k``,
    instead of being ignored); a bad field value, or an unknown ``search_kwargs`` key, raises
    pydantic's ``ValidationError`` (a ``ValueError``), at construction and on assignment.

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
        search_kwargs: ``{"k": 2, "filter": {"tags": "ui"}}`` as for a vector store's
            retriever; keys: ``k``, ``filter`` (cogmem's ``filters``) and the fields below.
        mode, filters, deep_recall, token_budget, reinforce, namespace, session_id,
            min_score, diversity: As the arguments of :meth:`cogmem.CognitiveMemory.search`
            (default: the memory's config).
        now: A clock (``() -> datetime``, timezone-aware) used as the current time; default
            the wall clock. Inject one to replay or test time-dependent recall.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True)

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
    search_kwargs: dict[str, Any] = Field(default_factory=dict)

    def __init__(self, **data: Any) -> None:
        unknown = set(data) - set(type(self).model_fields)
        if unknown:
            raise _unknown(unknown, type(self).model_fields, "argument(s)")
        super().__init__(**data)

    @field_validator("search_kwargs")
    @classmethod
    def _known_search_kwargs(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = set(value) - set(_SEARCH_KWARGS)
        if unknown:
            raise _unknown(unknown, _SEARCH_KWARGS, "search_kwargs key(s)")
        if "filter" in value and "filters" in value:
            raise InvalidInputError("search_kwargs takes 'filter' or 'filters', not both")
        k = value.get("k", 1)
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise InvalidInputError(f"search_kwargs['k'] must be an int >= 1, got {k!r}")
        return value

    def _search(self, query: str, overrides: dict[str, Any]) -> list[Document]:
        unknown = set(overrides) - _OVERRIDES - _IGNORED
        if unknown:
            raise _unknown(unknown, _OVERRIDES, "search argument(s)")
        args: dict[str, Any] = {
            name: getattr(self, name) for name in _OVERRIDES if name not in ("k", "now")
        }
        args["k"] = self.k
        args.update({_SEARCH_KWARGS[k]: v for k, v in self.search_kwargs.items()})
        args.update({k: v for k, v in overrides.items() if k in _OVERRIDES})
        top_k = args.pop("k")
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
