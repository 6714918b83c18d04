"""The float32 screen that ranks the best ``k`` BM25 matches of a large index: it must give
exactly what summing every match in float64 gives (same documents, scores and tie order)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import cogmem.lexical.search as search_module
from cogmem.lexical import BM25Index
from cogmem.lexical.search import screen_pays


@pytest.fixture()
def screen_everywhere(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The screen on small indexes too (by default it waits for 65,536 slots)."""
    monkeypatch.setattr(search_module, "SCREEN_SLOTS", 0)
    yield


def _zipf_corpus(n: int, seed: int, vocabulary: int = 20) -> list[tuple[str, list[str]]]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(vocabulary)]
    weights = 1.0 / np.arange(1, vocabulary + 1)
    weights /= weights.sum()
    sizes = rng.integers(1, 8, size=n)
    return [
        (f"d{i}", [words[j] for j in rng.choice(vocabulary, size=int(s), p=weights)])
        for i, s in enumerate(sizes)
    ]


def _exact(index: BM25Index, query: list[str], k: int) -> list[tuple[str, float]]:
    """The best ``k`` by summing every match in float64 (the screen's reference)."""
    slots, scores = index._summed(index._parts(query), index._nslots)
    order = index._order(scores, k)
    return index._pairs(index._ids, slots[order], scores[order])


QUERIES = [["w0", "w1"], ["w0", "w3", "w7"], ["w2", "w2", "w5"], ["w1", "w4", "w9", "w0"]]


@pytest.mark.parametrize("seed", range(6))
def test_the_screen_gives_the_exact_best_k_with_ties_in_insertion_order(
    screen_everywhere: None, seed: int
) -> None:
    index = BM25Index()
    index.add_many(_zipf_corpus(400, seed))
    index.remove_many([f"d{i}" for i in range(0, 400, 9)])  # dead slots are left out
    for query in QUERIES:
        everything = index.search(query)
        for k in (1, 5, 10):
            assert screen_pays(index._parts(query), index._nslots, k), (query, k)
            assert index.search(query, k=k) == _exact(index, query, k) == everything[:k]
        chunks = list(index.ranked(query, chunk_size=7))
        assert len(chunks[0]) == 7 and all(0 < len(c) <= 7 for c in chunks)
        assert [pair for chunk in chunks for pair in chunk] == everything


def test_a_sum_float32_rounds_below_another_is_still_ranked_first(
    screen_everywhere: None,
) -> None:
    """Document 0 sums 1 + (1 + 1.3e-7) and document 1 (1 + 6e-8) twice: 0 is higher, but
    float32 rounds its terms down and 1's up. The margin keeps 0 among those summed exactly."""
    index = BM25Index()
    index.add_many((f"d{i}", ["x"]) for i in range(50))
    slots = np.arange(50, dtype=np.int32)
    first = np.full(50, 0.5)
    second = np.full(50, 0.5)
    first[:2] = [1.0, 1.0 + 6e-8]
    second[:2] = [1.0 + 1.3e-7, 1.0 + 6e-8]
    rough = first.astype(np.float32) + second.astype(np.float32)
    assert rough[0] < rough[1]  # float32 alone would rank document 1 first
    top = index._screened([(slots, first), (slots, second)], 1)
    assert top is not None
    assert top[0].tolist() == [0]
    assert top[1].tolist() == [(0.0 + first[0]) + second[0]]


def test_a_large_index_screens_by_default_and_a_later_chunk_is_a_snapshot() -> None:
    index = BM25Index()
    index.add_many(_zipf_corpus(70_000, seed=11, vocabulary=60))
    query = ["w0", "w2", "w5"]
    assert screen_pays(index._parts(query), index._nslots, 50)
    assert index.search(query, k=50) == _exact(index, query, 50)
    everything = index.search(query)
    chunks = index.ranked(query, chunk_size=50)
    first = next(chunks)
    index.remove_many([f"d{i}" for i in range(40_000)])  # compacts: slots renumbered
    index.add("new", ["w0", "w2", "w5"])
    assert first + [pair for chunk in chunks for pair in chunk] == everything


def test_zero_or_negative_idf_and_small_indexes_sum_every_match(
    screen_everywhere: None,
) -> None:
    """Where a term adds nothing or takes away (a tiny corpus's idf), or there is one term
    only, every match is summed: the float32 sum could not say what matched."""
    index = BM25Index()
    index.add_many([("a", ["x", "y"]), ("b", ["x", "y"]), ("c", ["x"])])  # idf(x) <= 0
    assert not screen_pays(index._parts(["x", "y"]), index._nslots, 1)
    assert not screen_pays(index._parts(["x"]), index._nslots, 1)
    assert index.search(["x", "y"], k=1) == index.search(["x", "y"])[:1]
