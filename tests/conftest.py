"""Shared fixtures: a clock that never reads the wall, and stores on the fast fake embedder."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone

import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig
from cogmem.testing import HashingEmbedder

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def now() -> datetime:
    return NOW


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


@pytest.fixture
def mem(embedder: HashingEmbedder) -> Iterator[CognitiveMemory]:
    memory = CognitiveMemory(embedder=embedder, config=CognitiveMemoryConfig())
    yield memory
    memory.close()
