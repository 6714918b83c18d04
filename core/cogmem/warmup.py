"""Chroma's HNSW index loaded while cogmem loads its own: design §7.

Chroma reads a collection's HNSW index from disk at the first query that needs it (0.5 s at
300,000 memories of 384 dimensions), and holds no Python lock while it does. A namespace that
loads a saved index of more memories than its exact scan takes (so that a search queries
Chroma) calls :func:`start_warming` first: a thread asks Chroma for the one record nearest a
unit vector. The two loads overlap, and the first search finds Chroma's index loaded. A
smaller namespace never makes Chroma load it. (Chroma's ``count`` would not do: it holds the
GIL for as long, 0.7 s at 300,000.)

Nothing is written. A failure is logged at DEBUG and changes nothing: the search's own query
then loads the index, or reports what failed.
"""

from __future__ import annotations

import logging
import threading

import numpy as np

from .store import ChromaStore

__all__ = ["Warming", "start_warming"]

log = logging.getLogger(__name__)


class Warming:
    """A warm-up under way; :meth:`wait` before the client it queries is closed."""

    def __init__(self, thread: threading.Thread) -> None:
        self._thread = thread

    def wait(self) -> None:
        """Return once the warm-up is over (at once if it is)."""
        self._thread.join()


def start_warming(store: ChromaStore) -> Warming:
    """Start loading Chroma's index of ``store`` (a namespace's own collection, not a packed
    one: that is always scanned) on a thread of its own."""
    thread = threading.Thread(target=_warm, args=(store,), name="cogmem-warmup")
    thread.daemon = True
    thread.start()
    return Warming(thread)


def _warm(store: ChromaStore) -> None:
    try:
        width = store.dimension()
        if width is None:
            return
        unit = np.zeros((1, width), dtype=np.float32)
        unit[0, 0] = 1.0
        store.nearest_many(unit, 1)
    except Exception as exc:  # a warm-up only saves time: the search itself will tell
        log.debug("could not load Chroma's index of %s ahead: %s", store.collection.name, exc)
