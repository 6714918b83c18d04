"""Test helpers: a deterministic, dependency-free embedder for fast unit tests.

:class:`HashingEmbedder` needs no model files and runs in microseconds, so tests of storage,
ranking and decay logic do not have to load all-MiniLM-L6-v2. It is a bag-of-words model, not a
semantic one: texts are similar exactly when they share words.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from cogmem.checks import check_int, check_str, check_texts

__all__ = ["HashingEmbedder"]

_WORD = re.compile(r"\w+")
# Weight of the constant component in slot 0. Tokens never hash to slot 0, so every vector,
# including that of an empty text, has at least this much length before normalisation.
_BIAS = 0.1


class HashingEmbedder:
    """A deterministic feature-hashing embedder with the same methods as ``MiniLMEmbedder``.

    Each lowercase word token ``w`` (``re.findall(r"\\w+", text.lower())``) is hashed with
    BLAKE2b, which is stable across processes and platforms (unlike Python's ``hash``), to a slot
    ``i(w) ∈ [1, d)`` and a sign ``s(w) ∈ {-1, +1}``. With ``c_w`` the count of ``w`` in the text
    and a small constant ``b`` in slot 0::

        x_0 = b,    x_i = Σ_{w: i(w) = i} s(w) c_w   (i ≥ 1)
        v   = x / ‖x‖₂

    So identical texts have cosine 1, texts sharing words have positive cosine (barring rare
    hash collisions), texts sharing none have cosine near 0, and an empty text maps to the unit
    vector of slot 0 rather than to a zero vector.

    Args:
        dimension: Width of the vectors (at least 2).

    Raises:
        InvalidTypeError: ``dimension`` is not an int.
        InvalidInputError: ``dimension`` is below 2.
    """

    def __init__(self, dimension: int = 256) -> None:
        self._dimension = check_int(dimension, "dimension", 2)

    def __repr__(self) -> str:
        return f"HashingEmbedder(dimension={self._dimension})"

    @property
    def dimension(self) -> int:
        """Width of the vectors."""
        return self._dimension

    @property
    def model_id(self) -> str:
        """Identifies the hashing scheme and width, e.g. ``"hashing-blake2b/256"``."""
        return f"hashing-blake2b/{self._dimension}"

    def _slot(self, token: str) -> tuple[int, float]:
        h = int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "big")
        index = 1 + (h >> 1) % (self._dimension - 1)
        sign = 1.0 if h & 1 else -1.0
        return index, sign

    def _vector(self, text: str) -> npt.NDArray[np.float64]:
        vec = np.zeros(self._dimension, dtype=np.float64)
        vec[0] = _BIAS
        for token in _WORD.findall(text.lower()):
            index, sign = self._slot(token)
            vec[index] += sign
        norm: float = float(np.linalg.norm(vec))  # >= _BIAS > 0: slot 0 is never touched
        return vec / norm

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed texts.

        Args:
            texts: The texts (empty strings allowed).

        Returns:
            A C-contiguous float32 array of shape ``(len(texts), dimension)`` with unit rows.

        Raises:
            InvalidTypeError: ``texts`` is not a sequence of str (names the bad index).
        """
        items = check_texts(texts)
        out = np.zeros((len(items), self._dimension), dtype=np.float32)
        for i, text in enumerate(items):
            out[i] = self._vector(text)
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """LangChain-compatible: one unit vector per text, as lists of floats."""
        rows: list[list[float]] = self.embed(texts).tolist()
        return rows

    def embed_query(self, text: str) -> list[float]:
        """LangChain-compatible: the vector of one text (same as ``embed_documents([text])[0]``)."""
        row: list[float] = self.embed([check_str(text, "text")])[0].tolist()
        return row
