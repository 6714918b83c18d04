"""Errors the LlamaIndex adapters raise on their own account.

Everything else (a bad cogmem filter value, an unknown memory type, a failing embedder, ...) is
raised by the core as the matching :class:`cogmem.CogmemError` subclass and passes through the
adapters unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from cogmem import CogmemError, InvalidInputError
from cogmem.errors import JudgeError

__all__ = [
    "ConflictDetectorError",
    "NodeMetadataError",
    "SummarizerError",
    "UnsupportedFilterError",
]


class UnsupportedFilterError(InvalidInputError):
    """A LlamaIndex ``MetadataFilters`` cannot be expressed as a cogmem filter.

    cogmem filters are a conjunction (AND) of per-field conditions; the message names the
    filter (key and operator) that has no cogmem equivalent and what would work instead.
    """


class NodeMetadataError(InvalidInputError):
    """A node's metadata holds a value the retention postprocessor cannot read.

    The message names the node id, the metadata key and the value (e.g. a timestamp that is
    neither ISO 8601 text, a ``datetime`` nor epoch seconds, or an importance outside [0, 1]).
    """


class SummarizerError(CogmemError):
    """The LLM behind a :func:`~llamaindex_cogmem.summarizer_from` summarizer failed.

    The texts it was asked to summarize are kept on the error, untouched, so that nothing is
    lost: a consolidation that catches this error can leave the originals as they were.

    Attributes:
        texts: The texts the summarizer was called with, in order.
    """

    def __init__(self, message: str, texts: Sequence[str]) -> None:
        super().__init__(message)
        self.texts: tuple[str, ...] = tuple(texts)


class ConflictDetectorError(JudgeError):
    """The model behind a :func:`~llamaindex_cogmem.conflict_detector_from` detector failed: it
    raised, returned no text, or answered neither yes nor no.

    Attributes:
        texts: The two texts it was asked about, in order.
        answer: The model's answer when it gave one that could not be read (else ``None``).
    """
