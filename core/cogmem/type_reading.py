"""The type of a write given none, read from its text on a thread of its own.

With ``default_memory_type="auto"`` a text written without a type is ``semantic`` when it
states how things are and ``episodic`` otherwise (:meth:`cogmem.versions.Versions.memory_types`,
a dependency parse). The parse of a call's texts starts before they are embedded and runs
beside the embedding and the search for their neighbours (model calls and Chroma let go of the
GIL, and the machine has a core for each); the call waits for it only where dedup needs the
types (:func:`cogmem.intake.plan_writes`)::

    caller's thread   to_record -> embed -> neighbours ---------> settle -> decide -> store
    reading thread        parse the untyped texts -------------->|

A forked child has none of its parent's threads, so it starts a thread of its own (waiting on
the parent's would wait forever).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, wait
from dataclasses import replace

from .aside import ProcessThreads
from .errors import InvalidInputError
from .records import MEMORY_TYPES, MemoryRecord, MemoryType

__all__ = ["Classify", "TypeReading", "start_reading"]

Classify = Callable[[Sequence[str]], list[str]]
"""``texts -> types``: the type each text reads as, in one call."""


class TypeReading:
    """The types of a call's untyped inputs, being read.

    Args:
        future: The reading's result, one type per untyped input.
        positions: The untyped inputs' positions among the call's records.
    """

    def __init__(self, future: Future[list[str]], positions: list[int]) -> None:
        self._future = future
        self._positions = positions

    def settle(self, records: Sequence[MemoryRecord]) -> tuple[list[MemoryRecord], set[str]]:
        """``records`` with each untyped one given the type its text reads as (waiting for
        the reading), and the ids so typed.

        Raises:
            ModelNotFoundError: The parser model is missing or damaged (as the reading raised
                it: nothing is written).
        """
        out = list(records)
        for i, kind in zip(self._positions, self._future.result(), strict=True):
            out[i] = replace(out[i], memory_type=_read_type(kind))
        return out, {out[i].id for i in self._positions}

    def abandon(self) -> None:
        """Wait for the reading without its result (the call failed before it was needed)."""
        wait([self._future])


def start_reading(classify: Classify, texts: list[str], positions: list[int]) -> TypeReading:
    """Start reading ``texts`` (the inputs at ``positions``) on the process's reading thread."""
    return TypeReading(_READER.pool().submit(classify, texts), positions)


def _read_type(kind: str) -> MemoryType:
    """A type the reading gave, checked as :func:`cogmem.intake.to_record` checks a given one."""
    for known in MEMORY_TYPES:
        if kind == known:
            return known
    raise InvalidInputError(f"memory_type must be one of {', '.join(MEMORY_TYPES)}; got {kind!r}")


# The process's reading thread, started on first use (a forked child starts its own).
_READER = ProcessThreads(1, "cogmem-read")
