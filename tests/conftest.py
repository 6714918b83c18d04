"""Shared fixtures: a clock that never reads the wall, stores on the fast fake embedder, and a
statement reader."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig
from cogmem.reader import StatementReader
from cogmem.testing import HashingEmbedder

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


def needs_data(*relative: str) -> Callable[[Any], Any]:
    """Mark a test that needs evaluation data (``locomo/dev.jsonl``, ``scifact``, ...): marked
    ``data`` (``pytest -m data`` runs those), and skipped, saying how to get the data, when it
    is not in ``$COGMEM_DATA`` (default ``~/.cache/cogmem/data``)."""
    from benchmarks.data import DataMissing, dataset

    missing = []
    for name in relative:
        try:
            dataset(name)
        except DataMissing as exc:
            missing.append(str(exc))

    def apply(test: Any) -> Any:
        test = pytest.mark.data(test)
        return pytest.mark.skipif(bool(missing), reason="; ".join(missing))(test)

    return apply


@pytest.fixture(scope="module")
def reader() -> StatementReader:
    """A statement reader of its own (its reads kept for the module's tests)."""
    return StatementReader()


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


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One real ``chroma run`` server for the whole session (stopped by its pid at the end);
    each test uses collections of its own on it."""
    from tests.chroma_server import ChromaServer

    server = ChromaServer(tmp_path_factory.mktemp("chroma-server") / "data")
    server.start()
    yield server
    server.stop()
