"""Errors the LangChain adapters raise on their own account.

Everything else (bad filters, unknown memory types, a failing embedder, ...) is raised by the
core as the matching :class:`cogmem.CogmemError` subclass and passes through the adapters
unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from cogmem import CogmemError
from cogmem.errors import JudgeError

__all__ = ["ConflictDetectorError", "SummarizerError"]


class SummarizerError(CogmemError):
    """The model behind a :func:`~langchain_cogmem.summarizer_from` summarizer failed.

    The texts it was asked to summarize are kept on the error, untouched, so that nothing is
    lost: a consolidation that catches this error can leave the originals as they were.

    Attributes:
        texts: The texts the summarizer was called with, in order.
    """

    def __init__(self, message: str, texts: Sequence[str]) -> None:
        super().__init__(message)
        self.texts: tuple[str, ...] = tuple(texts)


class ConflictDetectorError(JudgeError):
    """The model behind a :func:`~langchain_cogmem.conflict_detector_from` detector failed: it
    raised, returned no text, or answered neither yes nor no.

    Attributes:
        texts: The two texts it was asked about, in order.
        answer: The model's answer when it gave one that could not be read (else ``None``).
    """
