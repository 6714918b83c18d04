"""MaxScore and the float32 screen, which rank the best ``k`` BM25 matches of a large index:
each must give exactly what summing every match in float64 gives (same documents, scores and
tie order)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import cogmem.lexical.topk as topk_module
from cogmem.lexical import BM25Index
from cogmem.lexical.topk import Term, pruned, screen_pays


@pytest.fixture()
def screen_everywhere(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The screen on small indexes too (by default it waits for 65,536 slots)."""
    monkeypatch.setattr(topk_module, "SCREEN_SLOTS", 0)
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
    top = index._screened([Term.weighed(slots, first), Term.weighed(slots, second)], 1)
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


@pytest.fixture()
def prune_everywhere(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """MaxScore on small indexes, whatever the share of postings it looks up."""
    monkeypatch.setattr(topk_module, "SCREEN_SLOTS", 0)
    monkeypatch.setattr(topk_module, "PRUNE_SHARE", 1)
    yield


def _with_rare_words(n: int, seed: int) -> list[tuple[str, list[str]]]:
    """A Zipf corpus where one document in 40 also holds a rare word (r0..r3)."""
    rng = np.random.default_rng(seed + 100)
    return [
        (doc_id, words + ([f"r{rng.integers(4)}"] if rng.random() < 1 / 40 else []))
        for doc_id, words in _zipf_corpus(n, seed, vocabulary=30)
    ]


RARE_QUERIES = [["w0", "r1"], ["r2", "w1", "w3"], ["w0", "w0", "r0", "w2"], ["r3", "r1", "w5"]]


@pytest.mark.parametrize("seed", range(6))
def test_maxscore_gives_the_exact_best_k(prune_everywhere: None, seed: int) -> None:
    index = BM25Index()
    index.add_many(_with_rare_words(2_000, seed))
    index.remove_many([f"d{i}" for i in range(0, 2_000, 7)])
    taken = 0
    for query in RARE_QUERIES:
        everything = index.search(query)
        for k in (1, 5, 10):
            taken += pruned(index._parts(query), k) is not None
            assert index.search(query, k=k) == _exact(index, query, k) == everything[:k]
        chunks = list(index.ranked(query, chunk_size=7))
        assert [pair for chunk in chunks for pair in chunk] == everything
    assert taken >= 6  # most of these queries sum the rare word's documents only


def test_maxscore_keeps_a_document_of_common_words_that_ties_the_bound(
    prune_everywhere: None,
) -> None:
    """The rare word gives documents 7 and 5 terms of 4.0 and 3.0, so the 2nd best scores at
    least 3.0. Document 0 holds only the common word, whose largest term is 3.0: it ties
    document 5 and comes first by slot, so the common word cannot be left out as unable to
    reach the bound."""
    index = BM25Index()
    index.add_many((f"d{i}", ["x"]) for i in range(8))
    rare = Term.weighed(np.array([5, 7], dtype=np.int32), np.array([3.0, 4.0]))
    common = Term.weighed(np.array([0, 2, 4, 6], dtype=np.int32), np.array([3.0, 1.0, 1.0, 1.0]))
    slots, scores = index._summed([rare, common], index._nslots)
    top = index._order(scores, 2)
    assert slots[top].tolist() == [7, 0]
    found = pruned([rare, common], 2)
    assert found is None or (found[0].tolist(), found[1].tolist()) == ([7, 0], [4.0, 3.0])


def test_a_large_index_prunes_by_default_with_a_rare_word() -> None:
    index = BM25Index()
    index.add_many(_with_rare_words(70_000, seed=3))
    query = ["w0", "r2", "w1"]
    parts = index._parts(query)
    assert screen_pays(parts, index._nslots, 50)
    assert pruned(parts, 50) is not None
    assert index.search(query, k=50) == _exact(index, query, 50)
    assert pruned(index._parts(["w0", "w1", "w2"]), 50) is None  # common words: the screen
