"""Reaching into a memory's parts, for tests that check what was written where."""

from __future__ import annotations

from cogmem import CognitiveMemory
from cogmem.namespace import Namespace
from cogmem.store import ChromaStore


def namespace(memory: CognitiveMemory, name: str = "default") -> Namespace:
    """The memory's namespace ``name`` (it must exist)."""
    found = memory._spaces.get(name)
    assert found is not None, f"no namespace {name!r}"
    return found


def store(memory: CognitiveMemory, name: str = "default", *, flush: bool = True) -> ChromaStore:
    """The Chroma collection of namespace ``name``; with ``flush``, the adds held back are
    written first (so that it holds every memory acknowledged)."""
    found = namespace(memory, name)
    if flush:
        found.write_held()
    return found.store


def open_namespaces(memory: CognitiveMemory) -> list[str]:
    """The namespaces the memory holds open, least recently used first."""
    return list(memory._spaces._open)
