"""The pure helpers of benchmarks/scifact.py (no embedding, no store)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.scifact import (
    CREATED_AT,
    NOW,
    bm25_reference,
    exact_dense_rankings,
    lexical_only,
    score_rankings,
)


def test_score_rankings_means_over_judged_queries() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1, "c": 1}, "q3": {"d": 1}}
    rankings = {
        "q1": ["a", "x"],  # nDCG 1, recall 1
        "q2": ["x", "b"],  # one of two found at rank 2
        # q3 missing: scores 0
        "q9": ["d"],  # not judged: ignored
    }
    got = score_rankings(rankings, qrels, k=10, recall_depths=(1,))
    ndcg_q2 = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert got["ndcg@10"] == pytest.approx((1 + ndcg_q2 + 0) / 3, abs=1e-4)
    assert got["recall@10"] == pytest.approx((1 + 0.5 + 0) / 3, abs=1e-4)
    assert got["recall@1"] == pytest.approx(1 / 3, abs=1e-4)
    assert got["n"] == 3


def test_score_rankings_cuts_at_k_and_ignores_non_positive_grades() -> None:
    qrels = {"q": {"a": 1, "z": 0}}
    assert score_rankings({"q": ["x", "a"]}, qrels, k=1)["ndcg@1"] == 0.0
    assert score_rankings({"q": ["z", "a"]}, qrels, k=2)["recall@2"] == 1.0
    with pytest.raises(ValueError):
        score_rankings({}, {}, k=10)


def test_bm25_reference_lowercase_word_tokens() -> None:
    ids = ["d1", "d2", "d3"]
    texts = [
        "Aspirin reduces the risk of stroke.",
        "Statins lower LDL-cholesterol levels.",
        "Unrelated text about cats and dogs.",
    ]
    search = bm25_reference(ids, texts)
    assert search("ASPIRIN stroke", 1) == ["d1"]
    assert search("ldl", 1) == ["d2"]  # "LDL-cholesterol" splits into ldl, cholesterol
    assert len(search("stroke", 3)) == 3


def test_one_date_for_every_abstract() -> None:
    assert (NOW - CREATED_AT).days == 1
    assert CREATED_AT.tzinfo is not None


def test_exact_dense_rankings_normalises_and_sorts() -> None:
    docs = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]], dtype=np.float32)
    queries = np.array([[0.0, 1.0], [3.0, 0.1]], dtype=np.float32)
    got = exact_dense_rankings(["a", "b", "c"], docs, queries, 2)
    assert got == [["b", "c"], ["a", "c"]]


def test_lexical_only_uses_the_given_tokenizer() -> None:
    from cogmem.lexical import Tokenizer

    ids = ["d1", "d2", "d3", "d4", "d5"]
    texts = ["Mutations in mice", "The patients ran", "Cats sleep", "Dogs bark", "Birds sing"]
    qrels = {"q": {"d2": 1}}
    stemmed = lexical_only(ids, texts, Tokenizer(), {"q": "patient"}, qrels, 10, k1=1.5, b=0.75)
    assert stemmed["ndcg@10"] == 1.0
    plain = Tokenizer(stem=False, stopwords=None)
    none = lexical_only(ids, texts, plain, {"q": "patient"}, qrels, 10, k1=1.5, b=0.75)
    assert none["ndcg@10"] == 0.0  # "patient" != "patients" without stemming
