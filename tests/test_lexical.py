"""Tests of cogmem.lexical: the tokenizer and the incremental BM25 index.

The index is checked against ``rank_bm25.BM25Okapi`` rebuilt from scratch on the live documents.
"""

from __future__ import annotations

import io
import math
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from cogmem.errors import (
    DuplicateIdError,
    InvalidInputError,
    InvalidTypeError,
    MemoryNotFoundError,
    StoreError,
)
from cogmem.lexical import INDEX_FORMAT_VERSION, STOPWORDS_EN, BM25Index, Tokenizer

# --------------------------------------------------------------------------------------------
# Helpers

VOCAB = ["apple", "banana", "cherry", "date", "elder", "fig"]
UNKNOWN = ["zzz", "qqq"]


def reference_scores(
    docs: dict[str, list[str]],
    query: list[str],
    k1: float = 1.5,
    b: float = 0.75,
    eps: float = 0.25,
) -> dict[str, float]:
    """rank_bm25 scores of every live document (it cannot build on an empty vocabulary)."""
    ids = list(docs)
    model = BM25Okapi([docs[i] for i in ids], k1=k1, b=b, epsilon=eps)
    return dict(zip(ids, (float(x) for x in model.get_scores(query)), strict=True))


def has_terms(docs: dict[str, list[str]]) -> bool:
    return any(docs.values())


def close(a: float, b: float) -> bool:
    # rel 1e-9 as specified; the tiny abs part covers a mean idf that cancels to ~0, whose
    # summation order differs from rank_bm25's (its dict order vs our term-id order).
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def check_against_reference(
    index: BM25Index, docs: dict[str, list[str]], queries: list[list[str]]
) -> None:
    """Every live document's score and every search result agree with rank_bm25."""
    assert len(index) == len(docs)
    assert index.ids() == set(docs)
    assert index.fingerprint() == BM25Index.fingerprint_of(docs)
    position = {doc_id: i for i, doc_id in enumerate(docs)}  # insertion order of live docs
    for query in queries:
        matching = {i for i, toks in docs.items() if set(query) & set(toks)}
        results = index.search(query)
        assert {doc_id for doc_id, _ in results} == matching
        assert len(results) == len(matching)
        # Best first, ties in insertion order.
        assert results == sorted(results, key=lambda pair: (-pair[1], position[pair[0]]))
        assert index.get_scores(query) == dict(results)
        got_all = index.score(query, list(docs))
        if has_terms(docs):
            expected = reference_scores(docs, query, index.k1, index.b, index.epsilon)
            for doc_id, score in got_all.items():
                assert close(score, expected[doc_id]), (doc_id, score, expected[doc_id])
        else:
            assert all(score == 0.0 for score in got_all.values())
        for doc_id, score in results:
            assert score == got_all[doc_id]  # same arithmetic on both paths
        for k in (0, 1, 2, 5):
            assert index.search(query, k=k) == results[:k]
        for chunk in (1, 3):
            chunks = list(index.ranked(query, chunk_size=chunk))
            assert all(0 < len(c) <= chunk for c in chunks)
            assert [pair for c in chunks for pair in c] == results


# --------------------------------------------------------------------------------------------
# Property test: random add/remove sequences against rank_bm25

doc_ids = st.sampled_from([f"m{i}" for i in range(8)])
token_lists = st.lists(st.sampled_from(VOCAB[:4]) | st.sampled_from(VOCAB), max_size=7)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("add"), doc_ids, token_lists),
        st.tuples(st.just("remove"), doc_ids, st.just([]) | token_lists),
        st.tuples(st.just("add_many"), st.lists(st.tuples(doc_ids, token_lists), max_size=4)),
        st.tuples(st.just("compact")),
    ),
    max_size=30,
)
queries = st.lists(st.lists(st.sampled_from(VOCAB + UNKNOWN), max_size=5), min_size=1, max_size=4)


def merging_index(merge_min: int, move_chunk: int) -> BM25Index:
    """An index that merges its postings tail into the base after ``merge_min`` rows (the
    default waits for 16k), moving ``move_chunk`` rows at a time."""
    index = BM25Index()
    index._MERGE_MIN = merge_min
    index._MOVE_CHUNK = move_chunk
    return index


@settings(max_examples=300, deadline=None)
@given(
    ops=operations,
    qs=queries,
    merge=st.sampled_from([(1 << 14, 1 << 16), (0, 1), (0, 2), (3, 5)]),
)
def test_matches_rank_bm25_after_random_writes(
    ops: list[tuple[Any, ...]], qs: list[list[str]], merge: tuple[int, int]
) -> None:
    index = merging_index(*merge)
    docs: dict[str, list[str]] = {}
    for op in ops:
        if op[0] == "add":
            _, doc_id, tokens = op
            if doc_id in docs:
                before = (index.fingerprint(), index.get_scores(VOCAB))
                with pytest.raises(DuplicateIdError):
                    index.add(doc_id, tokens)
                assert (index.fingerprint(), index.get_scores(VOCAB)) == before
            else:
                index.add(doc_id, tokens)
                docs[doc_id] = tokens
        elif op[0] == "remove":
            # Its tokens, other tokens (a scan then) or none: the outcome is the same.
            tokens = op[2] if op[2] else docs.get(op[1])
            assert index.remove(op[1], tokens) == (op[1] in docs)
            docs.pop(op[1], None)
        elif op[0] == "add_many":
            batch = op[1]
            batch_ids = [doc_id for doc_id, _ in batch]
            if len(set(batch_ids)) != len(batch_ids) or set(batch_ids) & set(docs):
                with pytest.raises(DuplicateIdError):
                    index.add_many(batch)
            else:
                assert index.add_many(batch) == len(batch)
                docs.update(batch)
        else:
            index.compact()
            assert index.stats()["dead_slots"] == 0
    check_against_reference(index, docs, qs)


@settings(max_examples=100, deadline=None)
@given(
    corpus=st.lists(token_lists, min_size=1, max_size=12),
    query=st.lists(st.sampled_from(VOCAB + UNKNOWN), max_size=6),
    k1=st.floats(0.0, 3.0),
    b=st.floats(0.0, 1.0),
    eps=st.floats(0.0, 1.0),
)
def test_parameters_match_rank_bm25(
    corpus: list[list[str]], query: list[str], k1: float, b: float, eps: float
) -> None:
    index = BM25Index(k1=k1, b=b, epsilon=eps)
    docs = {f"d{i}": tokens for i, tokens in enumerate(corpus)}
    index.add_many(docs.items())
    got = index.score(query, list(docs))
    if has_terms(docs):
        with np.errstate(invalid="ignore"):
            expected = reference_scores(docs, query, k1, b, eps)
        for doc_id, tokens in docs.items():
            want = expected[doc_id]
            if math.isnan(want):
                # rank_bm25 quirk: a query term a document lacks adds 0/0 = NaN when the
                # denominator vanishes (k1 = 0 or tiny, or b = 1 and the document is empty).
                # Such terms add 0 mathematically: score the document on the terms it holds.
                assert set(query) - set(tokens)
                held = [q for q in query if q in tokens]
                with np.errstate(invalid="ignore"):
                    want = reference_scores(docs, held, k1, b, eps)[doc_id] if held else 0.0
            assert close(got[doc_id], want), (doc_id, got[doc_id], want)


# --------------------------------------------------------------------------------------------
# Known rank_bm25 quirks, pinned down


def test_negative_idf_floor_uses_mean_of_raw_idfs() -> None:
    # One document: every idf is ln(0.5/1.5) < 0, the mean is negative, so scores are negative.
    index = BM25Index()
    index.add("only", ["apple", "apple", "banana"])
    (score,) = index.score(["apple"], ["only"]).values()
    assert score < 0
    assert close(score, reference_scores({"only": ["apple", "apple", "banana"]}, ["apple"])["only"])


def test_zero_idf_is_not_floored_and_still_matches() -> None:
    # N = 2, df = 1: idf = ln(1.5/1.5) = 0 exactly, which rank_bm25 keeps as 0 (only < 0 floors).
    index = BM25Index()
    index.add_many([("a", ["apple"]), ("b", ["banana"])])
    assert index.search(["apple"]) == [("a", 0.0)]


def test_repeated_query_terms_count_each_time() -> None:
    index = BM25Index()
    index.add_many([(f"d{i}", ["apple"] if i == 0 else ["banana"]) for i in range(5)])
    once = index.get_scores(["apple"])["d0"]
    assert once > 0
    assert close(index.get_scores(["apple", "apple", "apple"])["d0"], 3 * once)


def test_empty_documents_count_in_n_and_avgdl() -> None:
    index = BM25Index()
    docs = {"e1": [], "e2": [], "x": ["apple", "banana"], "y": ["banana"]}
    index.add_many(docs.items())
    assert index.avgdl == 0.75
    check_against_reference(index, docs, [["apple"], ["banana", "apple"], []])


def test_index_without_terms_matches_nothing() -> None:
    index = BM25Index()
    assert index.search(["apple"]) == []
    index.add("e", [])
    assert index.search(["apple"]) == []
    assert index.score(["apple"], ["e"]) == {"e": 0.0}
    assert list(index.ranked(["apple"])) == []


# --------------------------------------------------------------------------------------------
# Incremental behaviour


def _corpus(n: int, seed: int = 0, vocabulary: int = 40) -> dict[str, list[str]]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(vocabulary)]
    weights = 1.0 / np.arange(1, vocabulary + 1)
    weights /= weights.sum()
    return {
        f"doc{i}": [
            words[j] for j in rng.choice(vocabulary, size=int(rng.integers(0, 15)), p=weights)
        ]
        for i in range(n)
    }


QUERIES = [["w0"], ["w1", "w5", "w39"], ["w3", "w3", "nope"], ["w10", "w20", "w30", "w2"]]


@pytest.mark.parametrize("cache", [1 << 22, 40])
def test_terms_weighed_for_one_query_are_weighed_anew_after_a_write(
    cache: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A term's BM25 terms are kept between queries; every add and remove changes N, avgdl or
    # the postings, so the next query weighs them again (and a small cache lets terms go).
    monkeypatch.setattr("cogmem.lexical.search.TERM_CACHE", cache)
    docs = _corpus(80, seed=9)
    index = BM25Index()
    index.add_many(list(docs.items())[:40])
    held = dict(list(docs.items())[:40])
    for step, (doc_id, tokens) in enumerate(list(docs.items())[40:]):
        before = [index.search(q) for q in QUERIES]
        assert [index.search(q) for q in QUERIES] == before  # from the cache: the same
        if step % 3 == 2:
            gone = sorted(held)[step % len(held)]
            index.remove(gone)
            del held[gone]
        index.add(doc_id, tokens)
        held[doc_id] = tokens
        check_against_reference(index, held, QUERIES)  # rank_bm25 over what is held now


def test_remove_then_readd_gives_identical_scores() -> None:
    docs = _corpus(60)
    index = BM25Index()
    index.add_many(docs.items())
    before = [index.get_scores(q) for q in QUERIES]
    index.remove("doc7")
    assert "doc7" not in index
    assert all("doc7" not in index.get_scores(q) for q in QUERIES)
    index.add("doc7", docs["doc7"])
    assert [index.get_scores(q) for q in QUERIES] == before


def test_compaction_preserves_scores_ids_and_tie_order() -> None:
    docs = _corpus(200, seed=1)
    index = BM25Index()
    for doc_id, tokens in docs.items():
        index.add(doc_id, tokens)
    for i in range(0, 200, 5):  # 40 of 200: below the automatic threshold
        index.remove(f"doc{i}")
        del docs[f"doc{i}"]
    assert index.stats()["dead_slots"] == 40
    before = [index.search(q) for q in QUERIES]
    index.compact()
    assert index.stats()["dead_slots"] == 0
    assert [index.search(q) for q in QUERIES] == before
    check_against_reference(index, docs, QUERIES)
    # Still incremental after compaction.
    index.add("late", ["w1", "w1", "w2"])
    docs["late"] = ["w1", "w1", "w2"]
    check_against_reference(index, docs, QUERIES)


def test_merging_postings_in_batches_keeps_scores() -> None:
    # Small batches, merged into the base at every size ratio and chunk size, score as one
    # batch of everything, before and after removals and a save-free compaction.
    # 300 words: batches of 37 documents add rows to more terms than the block copy takes.
    docs = _corpus(400, seed=3, vocabulary=300)
    items = list(docs.items())
    whole = BM25Index()
    whole.add_many(items)
    expected = [whole.search(q) for q in QUERIES]
    for merge_min, chunk in ((0, 1), (0, 7), (50, 3), (1 << 14, 1 << 16)):
        index = merging_index(merge_min, chunk)
        for start in range(0, len(items), 37):
            index.add_many(items[start : start + 37])
        assert [index.search(q) for q in QUERIES] == expected
        assert index.stats()["postings"] == whole.stats()["postings"]
    index = merging_index(0, 5)
    for doc_id, tokens in items:
        index.add(doc_id, tokens)
    kept = dict(items)
    for i in range(0, 400, 7):
        index.remove(f"doc{i}")
        del kept[f"doc{i}"]
    check_against_reference(index, kept, QUERIES)
    index.compact()
    check_against_reference(index, kept, QUERIES)


def test_arrays_grow_by_a_quarter_not_double() -> None:
    items = list(_corpus(3000, seed=4).items())
    index = BM25Index()
    for start in range(0, len(items), 50):
        index.add_many(items[start : start + 50])
    stats = index.stats()
    # Used: a bool and an int32 per slot, an int32 slot and a uint8 tf per posting, an int64
    # df and two int64 pointers per term (no forward index).
    used = 5 * stats["documents"] + 5 * stats["postings"] + 24 * stats["terms"]
    assert used <= stats["array_bytes"] <= 1.25 * used + 4096


def test_term_frequencies_past_a_byte_stay_exact(tmp_path: Path) -> None:
    # tf is kept in a byte up to 254; 255 and more are kept exactly beside it, through
    # merges, removals (with tokens), compaction, save and load.
    docs = _corpus(40, seed=6)
    docs.update({f"big{i}": ["w1"] * (250 + i) + ["w2"] * (i % 3) for i in range(12)})
    index = merging_index(0, 3)
    for doc_id, tokens in docs.items():
        index.add(doc_id, tokens)
    check_against_reference(index, docs, QUERIES)
    for doc_id in ("big4", "big7", "big9"):  # tf 254, 257 and 259 for w1
        assert index.remove(doc_id, docs.pop(doc_id))
    check_against_reference(index, docs, QUERIES)
    index.compact()
    check_against_reference(index, docs, QUERIES)
    index.save(tmp_path / "big.npz")
    loaded = BM25Index.load(tmp_path / "big.npz")
    check_against_reference(loaded, docs, QUERIES)
    assert int(_arrays(tmp_path / "big.npz")["big"][:, 2].max()) == 261  # the exact tf
    # A file of format 4 held every tf exactly in its postings: read back the same.
    _write(tmp_path / "big.npz", _pairs(_arrays(tmp_path / "big.npz")), form="zst")
    assert int(_arrays(tmp_path / "big.npz")["postings"][:, 1].max()) == 261
    check_against_reference(BM25Index.load(tmp_path / "big.npz"), docs, QUERIES)


def test_automatic_compaction_after_many_removals() -> None:
    docs = _corpus(100, seed=2)
    index = BM25Index()
    index.add_many(docs.items())
    for i in range(30):
        index.remove(f"doc{i}")
        del docs[f"doc{i}"]
        assert 4 * index.stats()["dead_slots"] <= 100  # never more than a quarter dead
    check_against_reference(index, docs, QUERIES)
    # Terms whose documents all went away leave the vocabulary.
    index.remove_many(list(docs))
    assert len(index) == 0
    assert index.stats()["terms"] == 0


def test_duplicate_add_raises_and_leaves_index_unchanged() -> None:
    index = BM25Index()
    index.add("a", ["apple", "banana"])
    index.add("b", ["banana"])
    before = (index.fingerprint(), index.search(["apple", "banana", "cherry"]), index.stats())
    with pytest.raises(DuplicateIdError) as info:
        index.add("a", ["cherry", "cherry"])
    assert isinstance(info.value, InvalidInputError)
    with pytest.raises(DuplicateIdError):
        index.add_many([("c", ["cherry"]), ("a", ["cherry"])])
    with pytest.raises(DuplicateIdError):
        index.add_many([("c", ["cherry"]), ("c", ["date"])])
    assert (
        index.fingerprint(),
        index.search(["apple", "banana", "cherry"]),
        index.stats(),
    ) == before
    assert "c" not in index


def test_bad_tokens_leave_index_unchanged() -> None:
    index = BM25Index()
    index.add("a", ["apple"])
    before = (index.fingerprint(), index.stats(), index.search(["apple", "cherry"]))
    with pytest.raises(InvalidTypeError):
        index.add("b", ["cherry", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError):
        index.add_many([("b", ["cherry"]), ("c", ["date", None])])  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError):
        index.add("b", "cherry")
    with pytest.raises(InvalidTypeError):
        index.add("b", [["unhashable"]])  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError):
        index.add(7, ["cherry"])  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        index.add("", ["cherry"])
    assert (index.fingerprint(), index.stats(), index.search(["apple", "cherry"])) == before
    # The rejected batch did not leave its new terms behind.
    index.add("d", ["cherry"])
    check_against_reference(index, {"a": ["apple"], "d": ["cherry"]}, [["cherry"], ["date"]])


def test_remove_absent_returns_false_and_changes_nothing() -> None:
    index = BM25Index()
    index.add("a", ["apple"])
    fingerprint = index.fingerprint()
    assert index.remove("zzz") is False
    assert index.remove_many(["zzz", "a", "a"]) == 1
    assert index.remove("a") is False
    assert len(index) == 0
    assert index.fingerprint() != fingerprint
    assert index.fingerprint() == BM25Index.fingerprint_of([])


def test_remove_many_with_right_wrong_or_no_tokens() -> None:
    # Right tokens are checked in the postings; wrong ones (a missing, extra or miscounted
    # term) and none make it scan the postings: the index ends the same every way.
    docs = _corpus(300, seed=5)
    index = merging_index(50, 7)
    for start in range(0, 300, 40):
        index.add_many(list(docs.items())[start : start + 40])
    gone = [f"doc{i}" for i in range(0, 300, 3)]
    tokens: list[list[str]] = []
    for n, doc_id in enumerate(gone):
        toks = list(docs[doc_id])
        if n % 4 == 1:
            toks = toks[1:]
        elif n % 4 == 2:
            toks = [*toks, "w0"]
        elif n % 4 == 3:
            toks = ["nope", *toks]
        tokens.append(toks)
    assert index.remove_many([*gone, "doc0", "absent"], [*tokens, [], []]) == len(gone)
    for doc_id in gone:
        del docs[doc_id]
    check_against_reference(index, docs, QUERIES)
    assert index.remove("doc1", docs.pop("doc1"))
    assert index.remove("doc2")
    del docs["doc2"]
    check_against_reference(index, docs, QUERIES)


def test_remove_many_checks_every_argument_before_removing() -> None:
    index = BM25Index()
    index.add_many([("a", ["apple"]), ("b", ["banana"])])
    with pytest.raises(InvalidTypeError):
        index.remove_many(["a", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError):
        index.remove_many(["a", "b"], [["apple"]])
    assert index.ids() == {"a", "b"}


def test_ties_are_broken_by_insertion_order() -> None:
    index = BM25Index()
    index.add_many([(f"t{i}", ["apple", "banana"]) for i in range(10)])
    index.add_many([(f"o{i}", ["cherry"]) for i in range(10)])
    assert [doc_id for doc_id, _ in index.search(["apple"])] == [f"t{i}" for i in range(10)]
    assert [doc_id for doc_id, _ in index.search(["apple"], k=3)] == ["t0", "t1", "t2"]
    index.remove("t1")
    index.add("t1", ["apple", "banana"])  # re-added: now the newest
    order = [doc_id for doc_id, _ in index.search(["apple"])]
    assert order == ["t0", *[f"t{i}" for i in range(2, 10)], "t1"]


def test_ranked_is_a_snapshot_in_chunks() -> None:
    docs = _corpus(80, seed=3)
    index = BM25Index()
    index.add_many(docs.items())
    expected = index.search(["w0", "w1"])
    chunks = index.ranked(["w0", "w1"], chunk_size=10)
    first = next(chunks)
    index.remove_many([f"doc{i}" for i in range(50)])  # triggers a compaction too
    index.add("new", ["w0"])
    rest = [pair for chunk in chunks for pair in chunk]
    assert first + rest == expected
    assert len(first) == 10


def test_score_of_specific_ids() -> None:
    index = BM25Index()
    index.add_many([("a", ["apple", "banana"]), ("b", ["cherry"]), ("c", ["apple"])])
    scores = index.score(["apple"], ["b", "a"])
    assert list(scores) == ["b", "a"]
    assert scores["b"] == 0.0
    assert scores["a"] == index.get_scores(["apple"])["a"]
    with pytest.raises(MemoryNotFoundError):
        index.score(["apple"], ["a", "missing"])


def test_fingerprint_tracks_the_id_set() -> None:
    index = BM25Index()
    assert index.fingerprint() == BM25Index.fingerprint_of([]) == (0, 0)
    index.add_many([("a", ["x"]), ("b", ["y"])])
    index.add("c", [])
    assert index.fingerprint() == BM25Index.fingerprint_of(["c", "b", "a", "a"])
    assert index.fingerprint() != BM25Index.fingerprint_of(["a", "b"])
    assert index.fingerprint() != BM25Index.fingerprint_of(["a", "b", "d"])
    index.remove("b")
    assert index.fingerprint() == BM25Index.fingerprint_of(["a", "c"])
    index.clear()
    assert index.fingerprint() == (0, 0)
    assert len(index) == 0
    assert index.search(["x"]) == []


def test_argument_validation() -> None:
    with pytest.raises(InvalidInputError):
        BM25Index(k1=-1.0)
    with pytest.raises(InvalidInputError):
        BM25Index(b=1.5)
    with pytest.raises(InvalidInputError):
        BM25Index(epsilon=float("nan"))
    with pytest.raises(InvalidTypeError):
        BM25Index(k1="1.2")  # type: ignore[arg-type]
    index = BM25Index()
    index.add("a", ["apple"])
    with pytest.raises(InvalidTypeError):
        index.search("apple")
    with pytest.raises(InvalidTypeError):
        index.search([1])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError):
        index.search(["apple"], k=-1)
    with pytest.raises(InvalidTypeError):
        index.search(["apple"], k=True)
    with pytest.raises(InvalidInputError):
        index.ranked(["apple"], chunk_size=0)


# --------------------------------------------------------------------------------------------
# Persistence


def _arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of a saved BM25 file (each a frame behind its head, the .npz compressed
    whole behind its head, or a plain .npz)."""
    from cogmem.array_frames import unpack_arrays
    from cogmem.compression import decompress
    from cogmem.lexical.persistence import _AMAGIC, _HEAD, _ZMAGIC

    raw = path.read_bytes()
    if raw.startswith(_AMAGIC):
        return dict(unpack_arrays(raw[_HEAD.size :]))  # type: ignore[arg-type]
    if raw.startswith(_ZMAGIC):
        raw = decompress(raw[_HEAD.size :])
    with np.load(io.BytesIO(raw)) as data:
        return {name: data[name] for name in data.files}


def _pairs(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A format 5 file's arrays as format 4 held them: the postings as ``(slot, tf)`` pairs of
    int32, every tf exact (no ``big``)."""
    from cogmem.lexical.postings import POSTING

    rows = arrays["postings"].view(POSTING)
    pairs = np.stack([rows["slot"], rows["tf"].astype(np.int32)], axis=1)
    for term, slot, tf in arrays["big"].tolist():
        start, end = arrays["ptr"][term], arrays["ptr"][term + 1]
        pairs[start + np.searchsorted(pairs[start:end, 0], slot), 1] = tf
    out = {k: v for k, v in arrays.items() if k != "big"}
    return out | {"postings": pairs, "version": np.array([4], dtype=np.int64)}


def _write(path: Path, arrays: dict[str, np.ndarray], *, form: str = "frames") -> None:
    """Write ``arrays`` as a BM25 file: as :meth:`BM25Index.save` does (``frames``), as format
    4 did (``zst``: the .npz compressed whole), or as a plain .npz (``npz``)."""
    from cogmem.array_frames import pack_arrays
    from cogmem.compression import compress
    from cogmem.lexical.persistence import _AMAGIC, _HEAD, _ZMAGIC

    count = len(arrays["doc_len"]) if "doc_len" in arrays else 0
    if form == "frames":
        path.write_bytes(_HEAD.pack(_AMAGIC, count) + b"".join(pack_arrays(arrays)))
        return
    plain = io.BytesIO()
    np.savez(plain, **arrays)
    body = plain.getvalue()
    path.write_bytes(_HEAD.pack(_ZMAGIC, count) + compress(body) if form == "zst" else body)


def test_save_load_round_trip(tmp_path: Path) -> None:
    docs = _corpus(150, seed=4)
    index = BM25Index(k1=1.2, b=0.5, epsilon=0.1)
    index.add_many(docs.items())
    for i in range(0, 150, 4):
        index.remove(f"doc{i}")
        del docs[f"doc{i}"]
    index.add("unicode-ïd-\U0001f600", ["w1", "héllo"])
    docs["unicode-ïd-\U0001f600"] = ["w1", "héllo"]
    path = tmp_path / "bm25.npz"
    index.save(path)
    loaded = BM25Index.load(path)
    assert (loaded.k1, loaded.b, loaded.epsilon) == (1.2, 0.5, 0.1)
    assert loaded.ids() == index.ids() == set(docs)
    assert loaded.fingerprint() == index.fingerprint()
    queries = [*QUERIES, ["héllo", "w1"]]
    assert [loaded.search(q) for q in queries] == [index.search(q) for q in queries]
    # The loaded index keeps working incrementally.
    loaded.remove("doc1")
    del docs["doc1"]
    loaded.add("doc1", ["w2"])
    docs["doc1"] = ["w2"]
    loaded.add("fresh", ["w3", "brand-new-term"])
    docs["fresh"] = ["w3", "brand-new-term"]
    check_against_reference(loaded, docs, [*queries, ["brand-new-term"]])


def test_an_index_only_added_to_is_saved_without_compacting_and_reads_the_same(
    tmp_path: Path,
) -> None:
    """With nothing removed, a save only merges the appended postings into the base: what is
    saved and read back scores as the index did, and the index keeps working after it."""
    docs = _corpus(120, seed=9)
    index = BM25Index()
    path = tmp_path / "bm25.npz"
    items = list(docs.items())
    for part in (items[:50], items[50:90], items[90:]):  # appended postings in between
        index.add_many(part)
        index.save(path)
        loaded = BM25Index.load(path)
        assert loaded.fingerprint() == index.fingerprint()
        assert [loaded.search(q) for q in QUERIES] == [index.search(q) for q in QUERIES]
    check_against_reference(index, docs, QUERIES)
    check_against_reference(loaded, docs, QUERIES)


def test_a_file_of_format_2_is_still_read(tmp_path: Path) -> None:
    # Format 2 (before ids were packed with their hash table) held ids and terms as strings
    # with their lengths in characters.
    docs = {"ïd-\U0001f600": ["héllo", "w1"], "b": ["w1"], "c": ["w2", "w2"]}
    index = BM25Index()
    index.add_many(docs.items())
    path = tmp_path / "bm25.npz"
    index.save(path)
    arrays = {n: a for n, a in _pairs(_arrays(path)).items() if not n.startswith(("id_", "term_"))}
    for prefix, strings in (("id", list(docs)), ("term", ["héllo", "w1", "w2"])):
        arrays[f"{prefix}_blob"] = np.frombuffer("".join(strings).encode(), dtype=np.uint8)
        arrays[f"{prefix}_lengths"] = np.array([len(t) for t in strings], dtype=np.int64)
    arrays["id_xor"] = np.array([index.fingerprint()[1]], dtype=np.uint64)
    arrays["version"] = np.array([2], dtype=np.int64)
    _write(path, arrays, form="npz")  # as format 2 was written
    loaded = BM25Index.load(path)
    assert loaded.ids() == set(docs) and loaded.fingerprint() == index.fingerprint()
    assert [loaded.search(q) for q in (["héllo"], ["w2"])] == [
        index.search(q) for q in (["héllo"], ["w2"])
    ]


def test_ids_held_by_the_owner_are_left_out_and_taken_back(tmp_path: Path) -> None:
    """A namespace's records hold the BM25 index's ids in its order: the file leaves them out
    and takes them back from the map it is given, never from a map of other ids."""
    from cogmem.idmap import IdMap

    docs = _corpus(60, seed=8)
    index = BM25Index()
    index.add_many(docs.items())
    for i in range(0, 60, 7):
        index.remove(f"doc{i}")
        del docs[f"doc{i}"]
    path = tmp_path / "bm25.npz"
    assert not index.save(path, ids_held=IdMap(sorted(docs, reverse=True)))  # another order
    assert "id_blob" in _arrays(path)
    held = IdMap(docs)  # the live ids in the index's order
    assert index.save(path, ids_held=held)
    assert "id_count" in _arrays(path) and not any(n.startswith("id_b") for n in _arrays(path))
    loaded = BM25Index.load(path, ids_held=held)
    assert loaded.ids() == set(docs) and loaded.fingerprint() == index.fingerprint()
    assert [loaded.search(q) for q in QUERIES] == [index.search(q) for q in QUERIES]
    loaded.add("fresh", ["w3"])  # its map is its own
    assert "fresh" not in held and len(held) == len(docs)
    with pytest.raises(StoreError, match="held elsewhere"):
        BM25Index.load(path)
    with pytest.raises(StoreError, match="not as many"):
        BM25Index.load(path, ids_held=IdMap(list(docs)[:-1]))


def test_save_empty_index_and_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "bm25.npz"
    BM25Index().save(path)
    assert len(BM25Index.load(path)) == 0
    index = BM25Index()
    index.add("a", ["apple"])
    index.save(path)  # replaces the old file
    assert BM25Index.load(path).ids() == {"a"}
    assert sorted(os.listdir(tmp_path)) == ["bm25.npz"]  # no temporary file left behind


def _rewrite(path: Path, **changes: np.ndarray) -> None:
    _write(path, {**_arrays(path), **changes})


@pytest.fixture()
def saved(tmp_path: Path) -> Path:
    index = BM25Index()
    index.add_many(_corpus(50, seed=5).items())
    path = tmp_path / "bm25.npz"
    index.save(path)
    return path


def test_missing_or_garbage_file_raises_store_error(saved: Path, tmp_path: Path) -> None:
    with pytest.raises(StoreError):
        BM25Index.load(tmp_path / "absent.npz")
    garbage = tmp_path / "garbage.npz"
    garbage.write_text("not an index")
    with pytest.raises(StoreError):
        BM25Index.load(garbage)


def test_truncated_file_raises_store_error(saved: Path) -> None:
    data = saved.read_bytes()
    saved.write_bytes(data[: len(data) // 2])
    with pytest.raises(StoreError):
        BM25Index.load(saved)


def test_flipped_bytes_raise_store_error(saved: Path) -> None:
    data = bytearray(saved.read_bytes())
    data[len(data) // 2] ^= 0xFF  # inside the compressed arrays
    saved.write_bytes(bytes(data))
    with pytest.raises(StoreError):
        BM25Index.load(saved)


def test_flipped_bytes_of_an_uncompressed_file_raise_store_error(saved: Path) -> None:
    """A file written before compression (a plain .npz) is checked array by array."""
    _write(saved, _pairs(_arrays(saved)), form="npz")
    data = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as archive:
        info = archive.getinfo("postings.npy")
    middle = info.header_offset + 200 + info.compress_size // 2  # inside the postings data
    data[middle] ^= 0xFF
    saved.write_bytes(bytes(data))
    with pytest.raises(StoreError):
        BM25Index.load(saved)


def test_the_head_says_how_many_documents_without_reading_the_rest(saved: Path) -> None:
    assert BM25Index.saved_count(saved) == 50
    pairs = _pairs(_arrays(saved))
    _write(saved, pairs, form="zst")
    assert BM25Index.saved_count(saved) == 50  # format 4: its head
    _write(saved, pairs, form="npz")
    assert BM25Index.saved_count(saved) == 50  # an uncompressed file: from its arrays
    saved.write_bytes(b"garbage")
    assert BM25Index.saved_count(saved) == 0


def test_wrong_version_raises_store_error(saved: Path) -> None:
    _rewrite(saved, version=np.array([INDEX_FORMAT_VERSION + 1], dtype=np.int64))
    with pytest.raises(StoreError, match="version"):
        BM25Index.load(saved)


def _lengths_plus_one(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"doc_len": data["doc_len"] + 1}  # disagree with the postings


def _postings_reversed(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    from cogmem.lexical.postings import POSTING

    rows = data["postings"].view(POSTING)[::-1].copy()  # same multiset, slots out of order
    return {"postings": rows.view(np.uint8)}


def _big_tf_moved(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"big": np.array([[0, 0, 300]], dtype=np.int64)}  # no posting of 255 there


def _fixed(**arrays: np.ndarray):  # type: ignore[no-untyped-def]
    return lambda data: arrays


@pytest.mark.parametrize(
    "change",
    [
        _lengths_plus_one,
        _postings_reversed,
        _big_tf_moved,
        _fixed(postings=np.zeros(15, dtype=np.uint8)),
        _fixed(postings=np.zeros(14, dtype=np.uint8)),  # not whole records
        _fixed(params=np.array([1.5, 2.0, 0.25])),  # b out of range
        _fixed(magic=np.frombuffer(b"something-else", dtype=np.uint8)),
        _fixed(id_ends=np.array([1, 2, 3], dtype=np.int64)),
        _fixed(term_hash=np.array([1, 2, 3], dtype=np.uint32)),
        _fixed(ptr=np.array([0], dtype=np.int64)),
        _fixed(id_xor=np.array([1.0])),
    ],
)
def test_inconsistent_arrays_raise_store_error(saved: Path, change) -> None:  # type: ignore[no-untyped-def]
    _rewrite(saved, **change(_arrays(saved)))
    with pytest.raises(StoreError):
        BM25Index.load(saved)


# --------------------------------------------------------------------------------------------
# Tokenizer


def test_tokenizer_stems_word_forms_to_one_token() -> None:
    tokenize = Tokenizer()
    assert tokenize("running") == tokenize("runs") == tokenize("run") == ["run"]
    assert tokenize("connection connected connecting") == ["connect"] * 3


def test_tokenizer_drops_stop_words_before_stemming_and_folds_case() -> None:
    tokenize = Tokenizer()
    assert tokenize("The CAT and the Hat") == ["cat", "hat"]
    assert tokenize("THIS is IT") == []
    assert {"the", "with", "did", "what"} <= STOPWORDS_EN and "caroline" not in STOPWORDS_EN
    # "was" is a stop word; "wa" (what the stemmer would make of it) is not filtered.
    assert Tokenizer(stopwords=["wa"])("was") == ["was"]


def test_tokenizer_keeps_order_repeats_unicode_and_splits_punctuation() -> None:
    tokenize = Tokenizer(stem=False, stopwords=None)
    assert tokenize("Hello, world! hello... WORLD?") == ["hello", "world", "hello", "world"]
    assert tokenize("Café-au-lait naïve ÜBER straße 東京 42") == [
        "café",
        "au",
        "lait",
        "naïve",
        "über",
        "straße",
        "東京",
        "42",
    ]
    assert tokenize("snake_case stays; e-mail splits") == [
        "snake_case",
        "stays",
        "e",
        "mail",
        "splits",
    ]
    assert tokenize("") == []
    assert tokenize("  ...!!! ") == []


def test_tokenizer_many_pickle_and_settings() -> None:
    tokenize = Tokenizer(language="english", stopwords={"Foo"})
    assert tokenize.stopwords == frozenset({"foo"})
    assert tokenize.tokenize_many(["foo runs", "Running foo"]) == [["run"], ["run"]]
    clone = pickle.loads(pickle.dumps(tokenize))
    assert clone == tokenize and hash(clone) == hash(tokenize)
    assert clone("foo runs") == ["run"]
    assert Tokenizer(language="german")("Häuser") != ["häuser"]
    with pytest.raises(InvalidInputError):
        Tokenizer(language="klingon")
    with pytest.raises(InvalidTypeError):
        tokenize(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        tokenize.tokenize_many("one string")


def test_tokenizer_and_index_together() -> None:
    tokenize = Tokenizer()
    texts = {
        "m1": "I love running in the park every morning.",
        "m2": "The park was closed for renovations.",
        "m3": "She runs a small bakery downtown.",
    }
    index = BM25Index()
    index.add_many((doc_id, tokenize(text)) for doc_id, text in texts.items())
    hits = [doc_id for doc_id, _ in index.search(tokenize("who runs?"))]
    assert set(hits) == {"m1", "m3"}
