"""A call run on a thread of its own while the caller does other work: design §7.

Chroma's query releases the GIL while it searches its HNSW index, and cogmem's BM25 match
holds it; a search of a namespace Chroma answers starts the query with :func:`run_aside`, matches
the words meanwhile, and then takes the query's result. A plain thread per call (not a pool:
a pool's idle threads do not survive a ``fork``, and a forked child would wait on them).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Aside", "run_aside"]

T = TypeVar("T")


class Aside(Generic[T]):
    """A call under way on its own thread; calling this object waits for its result, or
    raises what the call raised."""

    def __init__(self, call: Callable[[], T]) -> None:
        self._call = call
        self._result: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="cogmem-aside", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._result = self._call()
        except BaseException as exc:  # handed to the caller, who raises it
            self._error = exc

    def __call__(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]  # set when no error was raised


def run_aside(call: Callable[[], T]) -> Aside[T]:
    """Start ``call`` on a thread of its own."""
    return Aside(call)
