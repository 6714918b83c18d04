"""A call run on a thread of its own while the caller does other work: design §7.

Chroma's query releases the GIL while it searches its HNSW index, and cogmem's BM25 match
holds it; a search of a namespace Chroma answers starts the query with :func:`run_aside`, matches
the words meanwhile, and then takes the query's result. The threads are the process's own
(``ASIDE_THREADS``, started on first use; a thread started per call cost three times as
much), and a forked child starts its own: a pool's threads do not survive a ``fork``, and a
child would wait on them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

__all__ = ["ASIDE_THREADS", "Aside", "ProcessThreads", "run_aside"]

T = TypeVar("T")

ASIDE_THREADS = 4
"""Calls run aside at once in a process (a search runs two: Chroma's query and its ``get``)."""


class ProcessThreads:
    """A pool of threads of the process's own, started on first use. A forked child has none
    of its parent's threads: it starts a pool of its own (waiting on the parent's would wait
    forever)."""

    def __init__(self, workers: int, name: str) -> None:
        self._workers, self._name = workers, name
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._forget)

    def pool(self) -> ThreadPoolExecutor:
        """The pool, started now if it was not."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix=self._name)
            return self._pool

    def _forget(self) -> None:
        self._pool, self._lock = None, threading.Lock()


_THREADS = ProcessThreads(ASIDE_THREADS, "cogmem-aside")


class Aside(Generic[T]):
    """A call under way on a thread of the process's own; calling this object waits for its
    result, or raises what the call raised."""

    def __init__(self, call: Callable[[], T]) -> None:
        self._future: Future[T] = _THREADS.pool().submit(call)

    def __call__(self) -> T:
        return self._future.result()


def run_aside(call: Callable[[], T]) -> Aside[T]:
    """Start ``call`` on a thread of its own."""
    return Aside(call)
