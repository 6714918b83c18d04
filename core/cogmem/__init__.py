"""cogmem: long-term memory for LLM agents that behaves like human memory.

Memories fade unless used, grow stable when recalled at spaced intervals, and are found by both
their words (BM25) and their meaning (dense embeddings in Chroma). Every result says why it
scored what it scored.

>>> from cogmem import CognitiveMemory
>>> mem = CognitiveMemory()                                   # doctest: +SKIP
>>> mem.add("User prefers dark mode", memory_type="semantic")  # doctest: +SKIP
>>> mem.search("which theme?")[0].explanation                 # doctest: +SKIP
"""

from .clients import http_client
from .config import CognitiveMemoryConfig
from .consolidation import ConsolidationGroup, ConsolidationReport, MaintenanceReport
from .display import SearchResults
from .embedding import Embedder, MiniLMEmbedder
from .errors import (
    CogmemConnectionError,
    CogmemError,
    ConfigError,
    DimensionMismatchError,
    DiskFullError,
    DuplicateIdError,
    EmbedderError,
    ExtractorError,
    InvalidInputError,
    InvalidTypeError,
    JudgeError,
    MemoryNotFoundError,
    ModelNotFoundError,
    ReadOnlyError,
    StageError,
    StorageError,
    StoreClosedError,
    StoreDamagedError,
    StoreError,
    StoreLockedError,
)
from .intake import MemoryFields, MemoryInput
from .memory import CognitiveMemory
from .packing import render
from .passages import Passages
from .records import Explanation, MemoryRecord, SearchResult, WriteOutcome
from .retention import half_life_days, reinforce, retention
from .scoring import retention_score
from .stages import Stages

__version__ = "0.1.0"

__all__ = [
    "CogmemConnectionError",
    "CogmemError",
    "CognitiveMemory",
    "CognitiveMemoryConfig",
    "ConfigError",
    "ConsolidationGroup",
    "ConsolidationReport",
    "DimensionMismatchError",
    "DiskFullError",
    "DuplicateIdError",
    "Embedder",
    "EmbedderError",
    "Explanation",
    "ExtractorError",
    "InvalidInputError",
    "InvalidTypeError",
    "JudgeError",
    "MaintenanceReport",
    "MemoryFields",
    "MemoryInput",
    "MemoryNotFoundError",
    "MemoryRecord",
    "MiniLMEmbedder",
    "ModelNotFoundError",
    "Passages",
    "ReadOnlyError",
    "SearchResult",
    "SearchResults",
    "StageError",
    "Stages",
    "StorageError",
    "StoreClosedError",
    "StoreDamagedError",
    "StoreError",
    "StoreLockedError",
    "WriteOutcome",
    "__version__",
    "half_life_days",
    "http_client",
    "reinforce",
    "render",
    "retention",
    "retention_score",
]
