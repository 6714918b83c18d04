"""How alike two short phrases are, by their embeddings: the similarity the version logic asks
about ("live in" / "move to", "vegetarian" / "vegan"), with the last phrase vectors kept."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["PhraseSimilarity", "Phrases"]

PhraseSimilarity = Callable[[str, str], float]
"""``(phrase, phrase) -> cosine`` of two short phrases."""


class Phrases:
    """:data:`PhraseSimilarity` from an embedding function, keeping the last vectors.

    Args:
        embed: ``texts -> vectors`` (one row per text: a list of lists or an array).
        size: How many phrase vectors to keep.
    """

    def __init__(self, embed: Callable[[list[str]], object], size: int = 20_000) -> None:
        self._embed = embed
        self._size = size
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def _vector(self, phrases: list[str]) -> list[np.ndarray]:
        with self._lock:
            missing = [p for p in dict.fromkeys(phrases) if p not in self._kept]
        if missing:
            raw = np.asarray(self._embed(missing), dtype=np.float32)
            norms = np.linalg.norm(raw, axis=1, keepdims=True)
            rows = (raw / np.where(norms > 0, norms, 1.0)).astype(np.float32)
            with self._lock:
                for phrase, row in zip(missing, rows):
                    self._kept[phrase] = row
                while len(self._kept) > self._size:
                    self._kept.popitem(last=False)
        with self._lock:
            found = {p: self._kept.get(p) for p in phrases}
        if any(v is None for v in found.values()):  # evicted meanwhile: embed once more
            rows = np.asarray(self._embed(phrases), dtype=np.float32)
            return [r / max(float(np.linalg.norm(r)), 1e-12) for r in rows]
        return [v for v in found.values() if v is not None]

    def cosines(self, text: str, others: Sequence[str]) -> list[float]:
        """Cosine of ``text`` with each of ``others``, the missing vectors embedded at once."""
        if not others:
            return []
        unique = list(dict.fromkeys([text, *others]))  # one vector per distinct phrase
        found = dict(zip(unique, self._vector(unique), strict=True))
        return [float(found[text] @ found[o]) for o in others]

    def __call__(self, a: str, b: str) -> float:
        """Cosine of the embeddings of ``a`` and ``b`` (1.0 when equal)."""
        if a == b:
            return 1.0
        va, vb = self._vector([a, b])
        return float(va @ vb)
