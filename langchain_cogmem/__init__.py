"""LangChain adapters for cogmem: the places LangChain 1.x keeps memory, and agent memory.

* :class:`CognitiveMemoryRetriever` — a ``langchain_core`` ``BaseRetriever`` (chains, LCEL,
  RAG): ``Document``s with the memory id, the score and the explanation in their metadata.
* :class:`CognitiveConversationMemory` — a classic ``BaseMemory`` (``langchain-classic``) for
  ``ConversationChain``/``LLMChain(memory=...)``: recalls the relevant past turns, not the last.
* :class:`CognitiveMemoryStore` — a LangGraph ``BaseStore`` for
  ``langchain.agents.create_agent(..., store=...)``: items are memories, search is cognitive.
* :class:`CognitiveMemoryMiddleware` — an ``AgentMiddleware`` for ``create_agent``: recalls
  for the user's message before each model call, remembers each turn after it.
* :func:`memory_tools` — ``search_memory``, ``remember``, ``forget``, ``update_memory``,
  ``memory_history`` as tools an agent calls itself.
* :func:`expander_from`, :func:`hyde_from` — query expansion and HyDE from a chat model;
  :func:`reranker_from` — a document compressor or cross-encoder as cogmem's reranker
  (``CognitiveMemory(stages=cogmem.Stages(...))``).
* :func:`summarizer_from` — any chat model or Runnable as cogmem's consolidation summarizer;
  :func:`conflict_detector_from` — one as the judge of contradictions for ``maintain``;
  :func:`dedup_judge_from` — one as write-time dedup's judge of restatements;
  :func:`version_judge_from` — one as write-time dedup's judge of updates.

Any LangChain ``Embeddings`` can be cogmem's embedder as it is:
``CognitiveMemory(embedder=OpenAIEmbeddings())``.

The adapters only convert types and call the public ``cogmem`` API; no scoring happens here.
Install with ``pip install '.[langchain]'`` in the checkout. Each class is imported on first use, so
``from langchain_cogmem import CognitiveMemoryRetriever`` needs only ``langchain-core``; the
conversation memory also needs ``langchain-classic`` and the store ``langgraph``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogmem.errors import ConflictDetectorError, SummarizerError
from cogmem.judges import parse_yes_no
from cogmem.lazy import lazy_exports

if TYPE_CHECKING:
    from .judges import conflict_detector_from, dedup_judge_from, version_judge_from
    from .memory import CognitiveConversationMemory
    from .middleware import CognitiveMemoryMiddleware
    from .prompts import (
        DEFAULT_CONFLICT_PROMPT,
        DEFAULT_DEDUP_PROMPT,
        DEFAULT_EXPAND_PROMPT,
        DEFAULT_HYDE_PROMPT,
        DEFAULT_SUMMARY_PROMPT,
        DEFAULT_VERSION_PROMPT,
    )
    from .retriever import CognitiveMemoryRetriever, result_to_document
    from .stages import expander_from, hyde_from, reranker_from
    from .store import (
        CognitiveMemoryStore,
        CognitiveSearchItem,
        decode_namespace,
        encode_namespace,
        matches_filter,
    )
    from .summarizer import summarizer_from
    from .tools import memory_tools

__all__ = [
    "DEFAULT_CONFLICT_PROMPT",
    "DEFAULT_DEDUP_PROMPT",
    "DEFAULT_EXPAND_PROMPT",
    "DEFAULT_HYDE_PROMPT",
    "DEFAULT_SUMMARY_PROMPT",
    "DEFAULT_VERSION_PROMPT",
    "CognitiveConversationMemory",
    "CognitiveMemoryMiddleware",
    "CognitiveMemoryRetriever",
    "CognitiveMemoryStore",
    "CognitiveSearchItem",
    "ConflictDetectorError",
    "SummarizerError",
    "conflict_detector_from",
    "decode_namespace",
    "dedup_judge_from",
    "encode_namespace",
    "expander_from",
    "hyde_from",
    "matches_filter",
    "memory_tools",
    "parse_yes_no",
    "reranker_from",
    "result_to_document",
    "summarizer_from",
    "version_judge_from",
]

# module -> (the distribution it imports, the names it exports)
_LAZY: dict[str, tuple[str, tuple[str, ...]]] = {
    "retriever": ("langchain-core", ("CognitiveMemoryRetriever", "result_to_document")),
    "memory": ("langchain-classic", ("CognitiveConversationMemory",)),
    "middleware": ("langchain", ("CognitiveMemoryMiddleware",)),
    "tools": ("langchain-core", ("memory_tools",)),
    "store": (
        "langgraph",
        (
            "CognitiveMemoryStore",
            "CognitiveSearchItem",
            "decode_namespace",
            "encode_namespace",
            "matches_filter",
        ),
    ),
    "prompts": (
        "langchain-core",
        (
            "DEFAULT_CONFLICT_PROMPT",
            "DEFAULT_DEDUP_PROMPT",
            "DEFAULT_EXPAND_PROMPT",
            "DEFAULT_HYDE_PROMPT",
            "DEFAULT_SUMMARY_PROMPT",
            "DEFAULT_VERSION_PROMPT",
        ),
    ),
    "summarizer": ("langchain-core", ("summarizer_from",)),
    "stages": ("langchain-core", ("expander_from", "hyde_from", "reranker_from")),
    "judges": (
        "langchain-core",
        ("conflict_detector_from", "dedup_judge_from", "version_judge_from"),
    ),
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__, "langchain")
