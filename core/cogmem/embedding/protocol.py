"""What cogmem needs from an embedder, and calling any embedder safely.

An embedder has LangChain's ``Embeddings`` shape (``embed_documents`` and ``embed_query``);
:func:`embed_texts` and :func:`embed_query_vector` call one and check what it returns (count,
shape, NaN/inf, all-zero vectors) before cogmem stores anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from cogmem.checks import check_str, check_texts
from cogmem.errors import EmbedderError, InvalidInputError, InvalidTypeError

__all__ = ["Embedder", "FloatMatrix", "FloatVector", "embed_query_vector", "embed_texts"]

FloatMatrix = npt.NDArray[np.float32]
FloatVector = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """What cogmem needs from an embedder: LangChain's ``Embeddings`` shape.

    Any LangChain ``Embeddings`` object fits, as do :class:`MiniLMEmbedder` and
    :class:`cogmem.testing.HashingEmbedder`. An embedder may also offer a fast
    ``embed(texts) -> numpy.ndarray`` method, which :func:`embed_texts` prefers when present.
    """

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts to be stored; one vector per text, in order."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed a search query."""
        ...


def _call(call: Any, argument: object, who: str) -> object:
    """``call(argument)``; anything it raises but cogmem's own input errors becomes an
    :class:`EmbedderError` naming ``who``."""
    try:
        return call(argument)
    except (EmbedderError, InvalidInputError, InvalidTypeError):
        raise
    except Exception as exc:
        raise EmbedderError(f"{who} raised {type(exc).__name__}: {exc}") from exc


def _describe(embedder: object) -> str:
    return type(embedder).__name__


def _to_matrix(raw: object, n: int, who: str) -> FloatMatrix:
    """Convert an embedder's batch output to a checked (n, d) float32 array."""
    if isinstance(raw, np.ndarray):
        arr = raw
    else:
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Iterable):
            raise EmbedderError(f"{who} returned {type(raw).__name__}, expected a list of vectors")
        rows = list(raw)
        if len(rows) != n:
            raise EmbedderError(f"{who} returned {len(rows)} vectors for {n} texts")
        width: int | None = None
        for i, row in enumerate(rows):
            if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
                raise EmbedderError(
                    f"{who} returned a {type(row).__name__} as vector {i}, "
                    "expected a list of floats"
                )
            if width is None:
                width = len(row)
            elif len(row) != width:
                raise EmbedderError(
                    f"{who} returned vectors of inconsistent dimensions: vector 0 has {width} "
                    f"values, vector {i} has {len(row)}"
                )
        try:
            arr = np.asarray(rows, dtype=np.float32) if rows else np.zeros((0, width or 0))
        except (TypeError, ValueError) as exc:
            raise EmbedderError(f"{who} returned non-numeric vector values: {exc}") from exc
    if arr.ndim != 2:
        raise EmbedderError(f"{who} returned an array of shape {arr.shape}, expected ({n}, d)")
    if arr.shape[0] != n:
        raise EmbedderError(f"{who} returned {arr.shape[0]} vectors for {n} texts")
    try:
        mat = np.ascontiguousarray(arr, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbedderError(f"{who} returned non-numeric vector values: {exc}") from exc
    if n and mat.shape[1] == 0:
        raise EmbedderError(f"{who} returned empty (0-dimensional) vectors")
    _check_values(mat, who)
    return mat


def _check_values(mat: FloatMatrix, who: str) -> None:
    finite = np.isfinite(mat).all(axis=1)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise EmbedderError(
            f"{who} returned a vector containing NaN or infinity (vector {i}); "
            "it cannot be compared by cosine similarity"
        )
    zero = ~np.any(mat != 0.0, axis=1)
    if zero.any():
        i = int(np.flatnonzero(zero)[0])
        raise EmbedderError(
            f"{who} returned an all-zero vector (vector {i}); "
            "it has no direction, so cosine similarity is undefined"
        )
    with np.errstate(over="ignore"):
        long = ~np.isfinite(np.linalg.norm(mat, axis=1))
    if long.any():
        i = int(np.flatnonzero(long)[0])
        raise EmbedderError(
            f"{who} returned a vector too long to compare (vector {i}: its length overflows "
            "float32, so every cosine with it would be 0); scale it down (cosine ignores scale)"
        )


def _check_dimension(got: int, expected: int | None, who: str) -> None:
    if expected is not None and got != expected:
        raise EmbedderError(f"{who} returned {got}-dimensional vectors, expected {expected}")


def embed_texts(
    embedder: Embedder | Any, texts: Sequence[str], *, dimension: int | None = None
) -> FloatMatrix:
    """Embed texts with any embedder and check the result.

    Calls ``embedder.embed(texts)`` if the object has such a method (the fast path of
    :class:`MiniLMEmbedder`, returning an array), else ``embedder.embed_documents(texts)``.
    Vectors are returned as given (not re-normalised).

    Args:
        embedder: An :class:`Embedder`, e.g. :class:`MiniLMEmbedder` or any LangChain
            ``Embeddings``.
        texts: The texts to embed.
        dimension: If given, the width every vector must have.

    Returns:
        A C-contiguous float32 array of shape ``(len(texts), d)``.

    Raises:
        InvalidTypeError: ``texts`` is not a sequence of str.
        EmbedderError: The embedder raised, or returned the wrong number of vectors,
            inconsistent dimensions, NaN/inf values or an all-zero vector.
    """
    items = check_texts(texts)
    fast = getattr(embedder, "embed", None)
    method = "embed" if callable(fast) else "embed_documents"
    who = f"{_describe(embedder)}.{method}"
    if not items and not callable(fast):
        width = getattr(embedder, "dimension", None)
        width = width if isinstance(width, int) and not isinstance(width, bool) else 0
        return np.zeros((0, width), dtype=np.float32)
    call = fast if callable(fast) else getattr(embedder, "embed_documents", None)
    if not callable(call):
        raise InvalidTypeError(
            f"embedder must have an embed_documents(texts) method, got {_describe(embedder)}"
        )
    mat = _to_matrix(_call(call, items, who), len(items), who)
    if items:
        _check_dimension(mat.shape[1], dimension, who)
    return mat


def embed_query_vector(
    embedder: Embedder | Any, text: str, *, dimension: int | None = None
) -> FloatVector:
    """Embed a query with any embedder's ``embed_query`` and check the result.

    Args:
        embedder: An :class:`Embedder`.
        text: The query.
        dimension: If given, the width the vector must have.

    Returns:
        A C-contiguous float32 array of shape ``(d,)``.

    Raises:
        InvalidTypeError: ``text`` is not a str, or the embedder has no ``embed_query``.
        EmbedderError: The embedder raised, or returned something that is not a finite,
            non-zero vector.
    """
    query = check_str(text, "text")
    call = getattr(embedder, "embed_query", None)
    if not callable(call):
        raise InvalidTypeError(
            f"embedder must have an embed_query(text) method, got {_describe(embedder)}"
        )
    who = f"{_describe(embedder)}.embed_query"
    raw = _call(call, query, who)
    if isinstance(raw, np.ndarray):
        if raw.ndim != 1:
            raise EmbedderError(f"{who} returned an array of shape {raw.shape}, expected (d,)")
        mat = _to_matrix(raw[None, :], 1, who)
    else:
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
            raise EmbedderError(f"{who} returned {type(raw).__name__}, expected a list of floats")
        if raw and isinstance(raw[0], (Sequence, np.ndarray)) and not isinstance(raw[0], str):
            raise EmbedderError(f"{who} returned a nested list, expected one flat vector")
        mat = _to_matrix([raw], 1, who)
    _check_dimension(mat.shape[1], dimension, who)
    vec: FloatVector = mat[0]
    return vec
