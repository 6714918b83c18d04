"""LlamaIndex adapters for cogmem: retriever, retention postprocessor, memory block, tools.

* :class:`CognitiveMemoryRetriever` — a ``BaseRetriever`` (query engines, chat engines,
  ``QueryFusionRetriever``): ``NodeWithScore(TextNode(id_=memory id, ...), score)`` with the
  memory's fields, score and explanation in the node metadata; LlamaIndex ``MetadataFilters``
  are translated to cogmem filters (:func:`to_cogmem_filters`).
* :class:`RetentionPostprocessor` — a ``BaseNodePostprocessor`` that re-ranks the nodes of
  *any* retriever (a ``VectorStoreIndex`` on Chroma, BM25, ...) by ``score · R^α``, cogmem's
  retention computed from timestamps in the node metadata. The fix for
  ``TimeWeightedPostprocessor`` (additive, ~9-minute half-life).
* :class:`CognitiveMemoryBlock` — a ``BaseMemoryBlock`` for ``llama_index.core.memory.Memory``:
  flushed chat messages become episodic memories; reading returns the relevant ones.
* :func:`memory_tools` — ``search_memory``, ``remember``, ``forget``, ``update_memory``,
  ``memory_history`` as ``FunctionTool`` s for agents (``FunctionAgent``, ``ReActAgent``).
* :class:`LlamaIndexEmbedder` — any LlamaIndex ``BaseEmbedding`` as cogmem's embedder;
  :class:`CogmemEmbedding` — a cogmem embedder (offline MiniLM) as a ``BaseEmbedding``.
* :func:`expander_from`, :func:`hyde_from` — query expansion and HyDE from an LLM;
  :func:`reranker_from` — a reranking node postprocessor as cogmem's reranker
  (``CognitiveMemory(stages=cogmem.Stages(...))``).
* :func:`fact_extractor_from` — any LlamaIndex LLM as the block's fact extractor;
* :func:`summarizer_from` — any LlamaIndex LLM as cogmem's consolidation summarizer;
  :func:`conflict_detector_from` — one as the judge of contradictions for ``maintain``;
  :func:`dedup_judge_from` — one as write-time dedup's judge of restatements;
  :func:`version_judge_from` — one as write-time dedup's judge of updates.

The adapters only convert types and call the public ``cogmem`` API; the scoring is the core's.
Install with ``pip install '.[llamaindex]'`` in the checkout. Each adapter is imported on first
use, so ``import llamaindex_cogmem`` (and ``import cogmem``) never imports LlamaIndex by itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogmem.errors import ConflictDetectorError, ExtractorError, SummarizerError
from cogmem.judges import parse_yes_no
from cogmem.lazy import lazy_exports

from .errors import NodeMetadataError, UnsupportedFilterError

if TYPE_CHECKING:
    from .embedding import CogmemEmbedding, LlamaIndexEmbedder
    from .extractor import fact_extractor_from
    from .filters import to_cogmem_filters
    from .judges import conflict_detector_from, dedup_judge_from, version_judge_from
    from .memory_block import CognitiveMemoryBlock
    from .postprocessor import RetentionPostprocessor
    from .prompts import (
        DEFAULT_CONFLICT_PROMPT,
        DEFAULT_DEDUP_PROMPT,
        DEFAULT_EXPAND_PROMPT,
        DEFAULT_FACTS_PROMPT,
        DEFAULT_HYDE_PROMPT,
        DEFAULT_SUMMARY_PROMPT,
        DEFAULT_VERSION_PROMPT,
    )
    from .retriever import (
        DEFAULT_LLM_METADATA_KEYS,
        CognitiveMemoryRetriever,
        MemoryNode,
        result_to_node,
    )
    from .stages import expander_from, hyde_from, reranker_from
    from .summarizer import summarizer_from
    from .tools import memory_tools

__all__ = [
    "DEFAULT_CONFLICT_PROMPT",
    "DEFAULT_DEDUP_PROMPT",
    "DEFAULT_EXPAND_PROMPT",
    "DEFAULT_FACTS_PROMPT",
    "DEFAULT_HYDE_PROMPT",
    "DEFAULT_LLM_METADATA_KEYS",
    "DEFAULT_SUMMARY_PROMPT",
    "DEFAULT_VERSION_PROMPT",
    "CogmemEmbedding",
    "CognitiveMemoryBlock",
    "CognitiveMemoryRetriever",
    "ConflictDetectorError",
    "ExtractorError",
    "LlamaIndexEmbedder",
    "MemoryNode",
    "NodeMetadataError",
    "RetentionPostprocessor",
    "SummarizerError",
    "UnsupportedFilterError",
    "conflict_detector_from",
    "dedup_judge_from",
    "expander_from",
    "fact_extractor_from",
    "hyde_from",
    "memory_tools",
    "parse_yes_no",
    "reranker_from",
    "result_to_node",
    "summarizer_from",
    "to_cogmem_filters",
    "version_judge_from",
]

# module -> (the distribution it imports, the names it exports)
_CORE = "llama-index-core"
_LAZY: dict[str, tuple[str, tuple[str, ...]]] = {
    "retriever": (
        _CORE,
        ("CognitiveMemoryRetriever", "DEFAULT_LLM_METADATA_KEYS", "MemoryNode", "result_to_node"),
    ),
    "postprocessor": (_CORE, ("RetentionPostprocessor",)),
    "memory_block": (_CORE, ("CognitiveMemoryBlock",)),
    "embedding": (_CORE, ("CogmemEmbedding", "LlamaIndexEmbedder")),
    "prompts": (
        _CORE,
        (
            "DEFAULT_CONFLICT_PROMPT",
            "DEFAULT_DEDUP_PROMPT",
            "DEFAULT_EXPAND_PROMPT",
            "DEFAULT_FACTS_PROMPT",
            "DEFAULT_HYDE_PROMPT",
            "DEFAULT_SUMMARY_PROMPT",
            "DEFAULT_VERSION_PROMPT",
        ),
    ),
    "summarizer": (_CORE, ("summarizer_from",)),
    "extractor": (_CORE, ("fact_extractor_from",)),
    "stages": (_CORE, ("expander_from", "hyde_from", "reranker_from")),
    "judges": (_CORE, ("conflict_detector_from", "dedup_judge_from", "version_judge_from")),
    "filters": (_CORE, ("to_cogmem_filters",)),
    "tools": (_CORE, ("memory_tools",)),
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__, "llamaindex")
