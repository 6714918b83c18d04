"""The errors cogmem raises.

Every error cogmem raises on purpose is a :class:`CogmemError`. Errors about the caller's input
also derive from the matching built-in (``ValueError``, ``TypeError``, ``KeyError``) so that code
written against plain Python conventions keeps working.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "CogmemConnectionError",
    "CogmemError",
    "ConfigError",
    "ConflictDetectorError",
    "DimensionMismatchError",
    "DiskFullError",
    "DuplicateIdError",
    "EmbedderError",
    "ExtractorError",
    "InvalidInputError",
    "InvalidTypeError",
    "JudgeError",
    "MemoryNotFoundError",
    "ModelNotFoundError",
    "ReadOnlyError",
    "StageError",
    "StorageError",
    "StoreClosedError",
    "StoreDamagedError",
    "StoreError",
    "StoreLockedError",
    "SummarizerError",
]


class CogmemError(Exception):
    """Base class of every error cogmem raises on purpose."""


class InvalidInputError(CogmemError, ValueError):
    """An argument has the right type but a value cogmem cannot accept (names the argument)."""


class InvalidTypeError(CogmemError, TypeError):
    """An argument has the wrong type (names the argument and the type it got)."""


class ConfigError(InvalidInputError):
    """A :class:`~cogmem.CognitiveMemoryConfig` field is out of range (names the field)."""


class MemoryNotFoundError(CogmemError, KeyError):
    """No memory has the given id in this store."""

    def __str__(self) -> str:  # KeyError quotes its argument; we want the plain sentence.
        return str(self.args[0]) if self.args else "memory not found"


class DuplicateIdError(InvalidInputError):
    """``add`` was given an id that is already stored."""


class DimensionMismatchError(InvalidInputError):
    """Vectors of one width were given to a store that holds another (names both widths).

    Raised before anything is written: by ``add``/``add_many``/``restore``/import when the
    embedder or the given vectors do not match the store, by ``search`` for a query vector of
    the wrong width, and on open when the embedder states a width the store does not hold.
    """


class EmbedderError(CogmemError):
    """The embedder failed or returned vectors of the wrong shape."""


class ModelNotFoundError(EmbedderError):
    """No all-MiniLM-L6-v2 model files could be found on this machine."""


class ExtractorError(CogmemError):
    """The model behind a fact extractor (an adapter's ``fact_extractor_from``) failed or
    replied with something that is not text; nothing was stored."""


class JudgeError(CogmemError):
    """A model asked a yes/no question about two memories failed: it raised, returned no
    text, or answered neither yes nor no (see :mod:`cogmem.judges`).

    Attributes:
        texts: The two texts it was asked about, in order.
        answer: The model's answer when it gave one that could not be read (else ``None``).
    """

    def __init__(self, message: str, first: str, second: str, answer: str | None = None) -> None:
        super().__init__(message)
        self.texts: tuple[str, str] = (first, second)
        self.answer = answer


class ConflictDetectorError(JudgeError):
    """The model behind a conflict detector (an adapter's ``conflict_detector_from``) failed:
    it raised, returned no text, or answered neither yes nor no.

    Attributes:
        texts: The two texts it was asked about, in order.
        answer: The model's answer when it gave one that could not be read (else ``None``).
    """


class SummarizerError(CogmemError):
    """The model behind a summarizer (an adapter's ``summarizer_from``) failed.

    The texts it was asked to summarize are kept on the error, untouched, so that nothing is
    lost: a consolidation that catches this error can leave the originals as they were.

    Attributes:
        texts: The texts the summarizer was called with, in order.
    """

    def __init__(self, message: str, texts: Sequence[str]) -> None:
        super().__init__(message)
        self.texts: tuple[str, ...] = tuple(texts)


class StageError(CogmemError):
    """An optional retrieval stage (query expansion, HyDE, a reranker; :mod:`cogmem.stages`)
    failed or returned something it cannot use. The search it was part of changed nothing."""


class StoreError(CogmemError):
    """The underlying Chroma store failed or holds data cogmem cannot read."""


class StorageError(StoreError):
    """The disk refused: a file or folder of the store could not be read or written (read-only,
    permissions, a path that is a file, ...). Names the path.

    Attributes:
        path: The file or folder.
    """

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class StoreDamagedError(StorageError):
    """A folder store's files contradict each other so that opening it could lose memories
    (its Chroma file gone or emptied while cogmem's saved index beside it still holds them):
    it is not opened, and nothing is changed. The message says what is wrong and what to do."""


class DiskFullError(StorageError):
    """Not enough free disk space for a write; nothing of it was written. Free space (the
    message says how much is needed) and retry the call."""


class StoreLockedError(StoreError):
    """Another process (or another ``CognitiveMemory`` in this one) has the folder store open.

    Chroma's embedded mode is single-process: one writer per folder. Close the store there, open
    this one with ``read_only=True`` when no writer has it open, or share one memory between
    processes through a Chroma server (``chroma run``; ``CognitiveMemory(client=...)``).

    Attributes:
        path: The store's folder.
        holder: What is known of the holder (``pid``, ``host``, ``since``, ``mode``), if anything.
    """

    def __init__(self, message: str, *, path: str, holder: dict[str, object] | None = None):
        super().__init__(message)
        self.path = path
        self.holder = holder or {}


class StoreClosedError(StoreError, RuntimeError):
    """A call on a memory after its :meth:`~cogmem.CognitiveMemory.close` (or on an object
    built over one): nothing was read or written. Open the store again."""


class ReadOnlyError(StoreError):
    """A write was asked of a store opened with ``read_only=True`` (nothing was written)."""


class CogmemConnectionError(StoreError, ConnectionError):
    """The Chroma server could not be reached (refused, reset, timed out); names its address.

    A :class:`StoreError` (Chroma failed) and a built-in ``ConnectionError`` (so retry helpers
    written for network errors catch it). Every call that returned before it is stored on the
    server; the call that raised it may or may not have been applied. Once the server is back
    at the same address, the same :class:`~cogmem.CognitiveMemory` works again: retry the call.

    Args:
        message: What failed, naming the server's address.
        address: The server's address (e.g. ``http://127.0.0.1:8000``), if known.
    """

    def __init__(self, message: str, *, address: str | None = None) -> None:
        super().__init__(message)
        self.address = address
