"""LlamaIndex adapters for cogmem: retriever, retention postprocessor, memory block.

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
* :class:`LlamaIndexEmbedder` — any LlamaIndex ``BaseEmbedding`` as cogmem's embedder;
  :class:`CogmemEmbedding` — a cogmem embedder (offline MiniLM) as a ``BaseEmbedding``.
* :func:`summarizer_from` — any LlamaIndex LLM as cogmem's consolidation summarizer;
  :func:`conflict_detector_from` — one as the judge of contradictions for ``maintain``;
  :func:`dedup_judge_from` — one as write-time dedup's judge of restatements.

The adapters only convert types and call the public ``cogmem`` API; the scoring is the core's.
Install with ``pip install '.[llamaindex]'`` in the checkout. Each adapter is imported on first
use, so ``import llamaindex_cogmem`` (and ``import cogmem``) never imports LlamaIndex by itself.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from cogmem.wording import install_hint

from .errors import (
    ConflictDetectorError,
    NodeMetadataError,
    SummarizerError,
    UnsupportedFilterError,
)

if TYPE_CHECKING:
    from .embedding import CogmemEmbedding, LlamaIndexEmbedder
    from .filters import to_cogmem_filters
    from .judges import (
        DEFAULT_CONFLICT_PROMPT,
        DEFAULT_DEDUP_PROMPT,
        conflict_detector_from,
        dedup_judge_from,
        parse_yes_no,
    )
    from .memory_block import CognitiveMemoryBlock
    from .postprocessor import RetentionPostprocessor
    from .retriever import (
        DEFAULT_LLM_METADATA_KEYS,
        CognitiveMemoryRetriever,
        MemoryNode,
        result_to_node,
    )
    from .summarizer import DEFAULT_SUMMARY_PROMPT, summarizer_from

__all__ = [
    "DEFAULT_CONFLICT_PROMPT",
    "DEFAULT_DEDUP_PROMPT",
    "DEFAULT_LLM_METADATA_KEYS",
    "DEFAULT_SUMMARY_PROMPT",
    "CogmemEmbedding",
    "CognitiveMemoryBlock",
    "CognitiveMemoryRetriever",
    "ConflictDetectorError",
    "LlamaIndexEmbedder",
    "MemoryNode",
    "NodeMetadataError",
    "RetentionPostprocessor",
    "SummarizerError",
    "UnsupportedFilterError",
    "conflict_detector_from",
    "dedup_judge_from",
    "parse_yes_no",
    "result_to_node",
    "summarizer_from",
    "to_cogmem_filters",
]

# name -> module that defines it (each imports llama-index-core)
_LAZY: dict[str, str] = {
    "CognitiveMemoryRetriever": "retriever",
    "DEFAULT_LLM_METADATA_KEYS": "retriever",
    "MemoryNode": "retriever",
    "result_to_node": "retriever",
    "RetentionPostprocessor": "postprocessor",
    "CognitiveMemoryBlock": "memory_block",
    "CogmemEmbedding": "embedding",
    "LlamaIndexEmbedder": "embedding",
    "DEFAULT_SUMMARY_PROMPT": "summarizer",
    "summarizer_from": "summarizer",
    "DEFAULT_CONFLICT_PROMPT": "judges",
    "DEFAULT_DEDUP_PROMPT": "judges",
    "conflict_detector_from": "judges",
    "dedup_judge_from": "judges",
    "parse_yes_no": "judges",
    "to_cogmem_filters": "filters",
}


def __getattr__(name: str) -> Any:
    """Import the adapter ``name`` on first use (PEP 562), naming the package it needs."""
    if name not in _LAZY:
        raise AttributeError(f"module 'llamaindex_cogmem' has no attribute {name!r}")
    try:
        module = importlib.import_module(f".{_LAZY[name]}", __name__)
    except ImportError as exc:
        raise ImportError(
            f"llamaindex_cogmem.{name} needs llama-index-core ({exc}); "
            f"install the adapters with: {install_hint('llamaindex')}"
        ) from exc
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
