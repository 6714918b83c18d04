"""Chroma's HNSW index loaded on a thread while a large namespace loads its saved index."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

import cogmem.namespace
from cogmem import CognitiveMemory
from cogmem.store import ChromaStore
from cogmem.testing import HashingEmbedder
from tests.conftest import NOW

TEXTS = [f"note {i} about {word}" for i, word in enumerate(["tea", "rain", "maps", "jazz"] * 10)]


def _queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that query Chroma from now on."""
    seen: list[str] = []
    original = ChromaStore.nearest_many

    def spy(self: ChromaStore, *args: Any, **kwargs: Any) -> Any:
        seen.append(threading.current_thread().name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ChromaStore, "nearest_many", spy)
    return seen


def _search(path: Path) -> list[str]:
    with CognitiveMemory(path=path, embedder=HashingEmbedder()) as mem:
        return [r.id for r in mem.search("jazz notes", top_k=5, now=NOW, reinforce=False)]


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    with CognitiveMemory(path=tmp_path, embedder=HashingEmbedder()) as mem:
        mem.add_many([{"text": t} for t in TEXTS], now=NOW)
    return tmp_path


def test_a_namespace_chroma_answers_has_chroma_load_its_index_on_the_side(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scanned = _search(store)
    monkeypatch.setattr(cogmem.namespace, "EXACT_SCAN", 10)  # 40 memories: Chroma answers
    queries = _queries(monkeypatch)
    through_chroma = _search(store)
    assert through_chroma[0] == scanned[0] and len(through_chroma) == 5
    # One query on the side (usually first; the search does not wait for it) and the
    # search's, itself on a thread beside the BM25 match (cogmem.aside).
    assert sorted(name.split("_")[0] for name in queries) == ["cogmem-aside", "cogmem-warmup"]


def test_a_namespace_scanned_never_has_chroma_load_its_index(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queries = _queries(monkeypatch)
    _search(store)
    assert queries == []


def test_a_failed_warm_up_changes_nothing(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cogmem.namespace, "EXACT_SCAN", 10)
    expected = _search(store)
    original = ChromaStore.nearest_many

    def fail_on_the_side(self: ChromaStore, *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "cogmem-warmup":
            raise RuntimeError("the disk went away")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ChromaStore, "nearest_many", fail_on_the_side)
    assert _search(store) == expected


def test_a_query_on_the_side_that_fails_fails_the_search_by_name(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search's own Chroma query runs on a thread beside the BM25 match (cogmem.aside):
    what it raises reaches the caller as the named error a query on the caller's thread would
    raise, and the store is unchanged."""
    from cogmem.errors import StoreError

    monkeypatch.setattr(cogmem.namespace, "EXACT_SCAN", 10)
    expected = _search(store)
    original = ChromaStore._call

    def fail_on_the_side(self: ChromaStore, method: str, **kwargs: Any) -> Any:
        if threading.current_thread().name.startswith("cogmem-aside"):
            kwargs = {**kwargs, "n_results": -1}  # Chroma refuses it
        return original(self, method, **kwargs)

    with monkeypatch.context() as failing:
        failing.setattr(ChromaStore, "_call", fail_on_the_side)
        with (
            CognitiveMemory(path=store, embedder=HashingEmbedder()) as mem,
            pytest.raises(StoreError, match="Chroma query"),
        ):
            mem.search("jazz notes", top_k=5, now=NOW, reinforce=False)
    assert _search(store) == expected
